"""The intermediate representation every analysis runs on: plain frozen data, no behaviour
beyond convenience accessors, no knowledge of tree-sitter.

A :class:`Module` holds functions; a :class:`Function` holds its instructions in textual order,
flattened out of nested ``{ }`` scopes (each instruction remembers its scope, because labels and
registers are scoped). Operands are typed; destinations are a prefix of the operand list whose
length lowering takes from the ISA (``st`` has none, ``setp p|q`` has one pair).

Positions are :class:`~ptxlint.source.Span` byte ranges with 1-based line and column.
"""

from __future__ import annotations

import dataclasses
from dataclasses import field
from typing import TYPE_CHECKING, Union

from ptxlint.records import record
from ptxlint.source import SourceFile, Span

# ----------------------------------------------------------------------------- operands


class _CompactSpan:
    """The span of a leaf operand, stored as numbers in the object's own slots rather than as a
    Span tuple: its start, length, line and column.

    A big kernel has about two leaf operands per line; keeping their positions in slots spares a
    tuple each (48 bytes, a fifth of the IR), and the length, unlike the end, is nearly always a
    small integer Python shares rather than one more object. The rare reader of ``span`` gets an
    equal Span built on demand. The constructor still takes ``(value, span)``.
    """

    __slots__ = ()
    _start: int
    _length: int
    _line: int
    _column: int

    @property
    def span(self) -> Span:
        return _tuple_new(Span, (self._start, self._start + self._length, self._line, self._column))


_tuple_new = tuple.__new__


def _with_compact_span(cls: type) -> type:
    """Give a leaf operand dataclass (first field, then the four span numbers) the constructor
    and repr of a plain ``(first, span)`` dataclass."""
    first = dataclasses.fields(cls)[0].name
    set_first = cls.__dict__[first].__set__
    setters = [cls.__dict__[name].__set__ for name in ("_start", "_length", "_line", "_column")]

    def __init__(self: _CompactSpan, value: object, span: Span) -> None:  # noqa: N807
        set_first(self, value)
        start, end, line, column = span
        for set_number, number in zip(setters, (start, end - start, line, column)):
            set_number(self, number)

    def __repr__(self: _CompactSpan) -> str:  # noqa: N807
        return f"{cls.__name__}({first}={getattr(self, first)!r}, span={self.span!r})"

    cls.__init__ = __init__  # type: ignore[misc]
    cls.__repr__ = __repr__  # type: ignore[method-assign,assignment]
    return cls


@_with_compact_span
@record(slots=True, init=False, repr=False)
class Register(_CompactSpan):
    """A declared register (`%r1`, `p`, `%rd<2>`'s `%rd1`)."""

    name: str
    _start: int
    _length: int
    _line: int
    _column: int

    if TYPE_CHECKING:  # the constructor _with_compact_span gives it
        def __init__(self, name: str, span: Span) -> None: ...


@_with_compact_span
@record(slots=True, init=False, repr=False)
class SpecialRegister(_CompactSpan):
    """A predefined read-only register (`%tid.x`, `%laneid`, `%cluster_ctarank`)."""

    name: str
    _start: int
    _length: int
    _line: int
    _column: int

    if TYPE_CHECKING:  # the constructor _with_compact_span gives it
        def __init__(self, name: str, span: Span) -> None: ...


@_with_compact_span
@record(slots=True, init=False, repr=False)
class Symbol(_CompactSpan):
    """A name that is not a register: a label, function, variable or parameter."""

    name: str
    _start: int
    _length: int
    _line: int
    _column: int

    if TYPE_CHECKING:  # the constructor _with_compact_span gives it
        def __init__(self, name: str, span: Span) -> None: ...


@_with_compact_span
@record(slots=True, init=False, repr=False)
class Immediate(_CompactSpan):
    """An integer or floating-point constant, including folded constant expressions (`-1`)."""

    value: int | float
    _start: int
    _length: int
    _line: int
    _column: int

    if TYPE_CHECKING:  # the constructor _with_compact_span gives it
        def __init__(self, value: int | float, span: Span) -> None: ...


@record(slots=True)
class Expression:
    """A constant expression that could not be folded (it mentions symbols or registers)."""

    names: tuple[Register | SpecialRegister | Symbol, ...]
    span: Span


@record(slots=True)
class Address:
    """A memory operand: ``[base+offset]``; ``extra`` holds what follows a comma, as in the
    tensor-map form ``[tmap, {x, y}]``."""

    base: Register | Symbol | Immediate | Expression | None
    offset: int
    span: Span
    extra: tuple[Operand, ...] = ()


@record(slots=True)
class Vector:
    """A brace vector ``{a, b, c}``."""

    elements: tuple[Operand, ...]
    span: Span


@record(slots=True)
class Sink:
    """The bit bucket ``_``."""

    span: Span


@record(slots=True)
class Pair:
    """A paired destination ``p|q`` (setp, elect.sync, shfl.sync, match.all, lop3)."""

    first: Operand
    second: Operand
    span: Span


@record(slots=True)
class Negated:
    """A negated predicate source ``!p``."""

    operand: Operand
    span: Span


@record(slots=True)
class ArgumentList:
    """A parenthesised list in a ``call``: return parameters or arguments."""

    elements: tuple[Operand, ...]
    span: Span


Operand = Union[
    Register,
    SpecialRegister,
    Symbol,
    Immediate,
    Expression,
    Address,
    Vector,
    Sink,
    Pair,
    Negated,
    ArgumentList,
]


def registers_in(operand: Operand) -> tuple[Register, ...]:
    """Every register an operand mentions, in textual order (addresses, vectors, pairs)."""
    if type(operand) is Register:
        return (operand,)
    found: list[Register] = []
    _collect_registers(operand, found)
    return tuple(found)


def _collect_registers(operand: Operand, found: list[Register]) -> None:
    kind = type(operand)
    if kind is Register:
        found.append(operand)  # type: ignore[arg-type]
    elif kind is Vector or kind is ArgumentList:
        for element in operand.elements:  # type: ignore[union-attr]
            _collect_registers(element, found)
    elif kind is Address:
        if operand.base is not None:  # type: ignore[union-attr]
            _collect_registers(operand.base, found)  # type: ignore[union-attr]
        for element in operand.extra:  # type: ignore[union-attr]
            _collect_registers(element, found)
    elif kind is Pair:
        _collect_registers(operand.first, found)  # type: ignore[union-attr]
        _collect_registers(operand.second, found)  # type: ignore[union-attr]
    elif kind is Negated:
        _collect_registers(operand.operand, found)  # type: ignore[union-attr]
    elif kind is Expression:
        for name in operand.names:  # type: ignore[union-attr]
            _collect_registers(name, found)


# ----------------------------------------------------------------------------- instructions


@record(slots=True)
class Opcode:
    """An opcode split into its base and ordered modifiers.

    ``tcgen05.wait::ld.sync.aligned`` has base ``tcgen05`` and modifiers
    ``("wait::ld", "sync", "aligned")``. Equal texts share one Opcode object.
    """

    text: str
    base: str
    modifiers: tuple[str, ...]

    @property
    def name(self) -> str:
        """The base with its first modifier when that names the operation (`tcgen05.ld`)."""
        return self.text

    def has(self, modifier: str) -> bool:
        return modifier in self.modifiers

    def modifier_with_prefix(self, prefix: str) -> str | None:
        """The first modifier starting with ``prefix`` (`cta_group::` → `cta_group::2`)."""
        for modifier in self.modifiers:
            if modifier.startswith(prefix):
                return modifier
        return None

    def modifier_offset(self, index: int) -> int:
        """Byte offset of modifier ``index`` (its leading dot excluded) from the opcode start."""
        offset = len(self.base) + 1
        for modifier in self.modifiers[:index]:
            offset += len(modifier) + 1
        return offset


@record(slots=True)
class Guard:
    """``@p`` or ``@!p`` before an opcode."""

    predicate: Register | SpecialRegister | Symbol
    negated: bool
    span: Span


@record(slots=True)
class SourceLocation:
    """A ``.loc`` directive: where in the high-level source the following instructions came from."""

    file: int
    line: int
    column: int
    inlined_at: SourceLocation | None = None


@record(slots=True, init=False, repr=False)
class Instruction:
    """One instruction: opcode, operands (destinations first), guard, spans, scope and `.loc`.

    Constructed as ``Instruction(opcode, operands, destination_count, guard, span, opcode_span,
    scope, location=None)``. The two spans are kept as numbers in slots, like a leaf operand's
    (see :class:`_CompactSpan`), and built on demand: the opcode starts on the instruction's line
    but in the rarest layouts, so its own start, line and column are needed only then. Two
    tuples and three integers fewer per instruction are a sixth of a big kernel's IR.
    """

    opcode: Opcode
    operands: tuple[Operand, ...]
    destination_count: int
    guard: Guard | None
    scope: int
    location: SourceLocation | None
    _start: int
    _length: int
    _line: int
    _column: int
    _opcode_offset: int  # from the instruction's start; the opcode's length is its text's
    _distant_opcode_span: Span | None  # the opcode's span when it starts on a later line

    def __init__(
        self,
        opcode: Opcode,
        operands: tuple[Operand, ...],
        destination_count: int,
        guard: Guard | None,
        span: Span,
        opcode_span: Span,
        scope: int,
        location: SourceLocation | None = None,
    ) -> None:
        fields = (opcode, operands, destination_count, guard, scope, location, *instruction_positions(opcode, span, opcode_span))
        for name, value in zip(_INSTRUCTION_FIELDS, fields):
            object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        return (
            f"Instruction(opcode={self.opcode!r}, operands={self.operands!r}, destination_count={self.destination_count!r}, "
            f"guard={self.guard!r}, span={self.span!r}, opcode_span={self.opcode_span!r}, scope={self.scope!r}, "
            f"location={self.location!r})"
        )

    @property
    def span(self) -> Span:
        return _tuple_new(Span, (self._start, self._start + self._length, self._line, self._column))

    @property
    def opcode_span(self) -> Span:
        distant = self._distant_opcode_span
        if distant is not None:
            return distant
        start = self._start + self._opcode_offset
        return _tuple_new(Span, (start, start + len(self.opcode.text), self._line, self._column + self._opcode_offset))

    @property
    def destinations(self) -> tuple[Operand, ...]:
        return self.operands[: self.destination_count]

    @property
    def sources(self) -> tuple[Operand, ...]:
        return self.operands[self.destination_count :]

    def modifier_span(self, index: int) -> Span:
        """The span of one modifier, for diagnostics that point at a qualifier."""
        modifier = self.opcode.modifiers[index]
        opcode_span = self.opcode_span  # built on each read
        start = opcode_span.start + self.opcode.modifier_offset(index) - 1
        column = opcode_span.column + (start - opcode_span.start)
        return Span(start, start + len(modifier) + 1, opcode_span.line, column)


def instruction_positions(opcode: Opcode, span: Span, opcode_span: Span) -> tuple[int, int, int, int, int, Span | None]:
    """The numbers :class:`Instruction` keeps of its two spans, in field order."""
    start, end, line, column = span
    derivable = opcode_span.line == line and opcode_span.end - opcode_span.start == len(opcode.text)
    distant = None if derivable else opcode_span
    return start, end - start, line, column, opcode_span.start - start, distant


_INSTRUCTION_FIELDS = tuple(field.name for field in dataclasses.fields(Instruction))


# ----------------------------------------------------------------------------- declarations


@record(slots=True)
class RegisterDeclaration:
    """``.reg .b32 %r<100>;`` declares ``%r0`` … ``%r99`` (count 100); plain names have count 0."""

    name: str
    type: str
    count: int
    vector: int
    scope: int
    span: Span


@record(slots=True)
class VariableDeclaration:
    """A variable in a state space other than ``.reg`` (module scope or inside a function)."""

    name: str
    space: str
    type: str
    qualifiers: tuple[str, ...]
    alignment: int | None
    dimensions: tuple[int | None, ...]
    has_initializer: bool
    span: Span


@record(slots=True)
class Parameter:
    """A kernel or function parameter (``.param`` or ``.reg``), or a return parameter."""

    name: str
    space: str
    type: str
    qualifiers: tuple[str, ...]
    alignment: int | None
    dimensions: tuple[int | None, ...]
    span: Span


@record(slots=True)
class FunctionDirective:
    """A performance or cluster directive: ``.maxntid 128, 1, 1``, ``.noreturn``, ``.pragma``."""

    name: str
    values: tuple[int, ...]
    span: Span


@record(slots=True)
class Label:
    """A label definition ``L:`` in a function body."""

    name: str
    scope: int
    index: int  # the instruction the label stands before (len(instructions) at the end)
    span: Span


@record(slots=True)
class BranchTargets:
    """``name: .branchtargets L1, L2;`` — the possible targets of a ``brx.idx`` through ``name``."""

    name: str
    targets: tuple[str, ...]
    scope: int
    span: Span


@record(slots=True)
class Scope:
    """A `{ }` block. Scopes are numbered in textual (pre-)order, so the scopes nested inside
    scope ``i`` are exactly ``i + 1 … last_descendant``: whether one scope encloses another is
    two comparisons, however deep the nesting."""

    parent: int | None
    span: Span
    last_descendant: int


@record(slots=True)
class Function:
    """An ``.entry`` or ``.func``: its signature, declarations and instructions in textual order."""

    kind: str  # "entry" or "func"
    name: str
    linkage: tuple[str, ...]
    parameters: tuple[Parameter, ...]
    return_parameters: tuple[Parameter, ...]
    directives: tuple[FunctionDirective, ...]
    registers: tuple[RegisterDeclaration, ...]
    variables: tuple[VariableDeclaration, ...]
    instructions: tuple[Instruction, ...]
    labels: tuple[Label, ...]
    scopes: tuple[Scope, ...]
    branch_targets: tuple[BranchTargets, ...]
    has_body: bool
    span: Span
    name_span: Span
    # Label positions and `.branchtargets` lists by name, for lookups that stay cheap in
    # functions with a hundred thousand labels.
    _labels_by_name: dict[str, tuple[int, ...]] = field(default_factory=dict, repr=False, compare=False)
    _branch_targets_by_name: dict[str, tuple[int, ...]] = field(default_factory=dict, repr=False, compare=False)

    @property
    def is_kernel(self) -> bool:
        return self.kind == "entry"

    def directive(self, name: str) -> FunctionDirective | None:
        for directive in self.directives:
            if directive.name == name:
                return directive
        return None

    def encloses(self, outer: int, inner: int) -> bool:
        """Whether scope ``outer`` is ``inner`` or one of the scopes around it."""
        return outer <= inner <= self.scopes[outer].last_descendant

    def resolve_branch_targets(self, name: str, scope: int) -> BranchTargets | None:
        """The `.branchtargets` list called ``name`` as seen from ``scope``."""
        position = self._innermost_visible(self._branch_targets_by_name.get(name, ()), self.branch_targets, scope)
        return None if position is None else self.branch_targets[position]

    def resolve_label(self, name: str, scope: int) -> Label | None:
        """The label ``name`` as seen from ``scope``: labels in enclosing scopes are visible,
        the innermost definition wins (nvcc repeats `DONE:` in sibling inline-asm blocks)."""
        position = self._innermost_visible(self._labels_by_name.get(name, ()), self.labels, scope)
        return None if position is None else self.labels[position]

    def _innermost_visible(self, positions: tuple[int, ...], items: tuple[Label, ...] | tuple[BranchTargets, ...], scope: int) -> int | None:
        # Of the enclosing scopes, the innermost has the highest pre-order number.
        best = None
        for position in positions:
            defined_in = items[position].scope
            if self.encloses(defined_in, scope) and (best is None or defined_in > items[best].scope):
                best = position
        return best


# ----------------------------------------------------------------------------- module


@record(slots=True)
class Target:
    """One architecture named by ``.target`` (``sm_100a``)."""

    name: str
    span: Span


@record(slots=True)
class SyntaxProblem:
    """Text that does not parse (a tree-sitter ERROR or MISSING node)."""

    message: str
    span: Span


@record(slots=True)
class Module:
    """One PTX file: its header directives, module-scope variables and functions."""

    source: SourceFile
    version: tuple[int, int] | None
    version_span: Span | None
    targets: tuple[Target, ...]
    address_size: int | None
    variables: tuple[VariableDeclaration, ...]
    functions: tuple[Function, ...]
    files: dict[int, str]
    syntax_errors: tuple[SyntaxProblem, ...]

    @property
    def path(self) -> str:
        return self.source.path

    @property
    def kernels(self) -> tuple[Function, ...]:
        return tuple(function for function in self.functions if function.is_kernel and function.has_body)

    def function(self, name: str) -> Function | None:
        """The definition of ``name`` if the module has one, else its declaration."""
        found = None
        for function in self.functions:
            if function.name == name:
                if function.has_body:
                    return function
                found = function
        return found
