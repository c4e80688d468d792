"""Lowering: one pass over the concrete syntax tree into the immutable IR.

This is the only module that knows the grammar's node names. It never re-parses text: tokens are
decoded (an integer literal's value, an opcode token split at its dots), structure comes from the
tree. ERROR and MISSING nodes become :class:`~ptxlint.ir.SyntaxProblem` entries and everything
around them is still lowered.

Speed matters here (a linter runs on every commit, and generated PTX reaches a million lines), so
the walk dispatches on integer node kinds rather than type strings, slices the source bytes rather
than asking nodes for their text, and builds each span from a byte offset with one bisection.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import gc
import itertools
import re
import struct
from typing import Any, Callable

from ptxlint import ir, syntax
from ptxlint.isa.effects import destination_count
from ptxlint.isa.special_registers import special_register_base
from ptxlint.records import record
from ptxlint.source import SourceFile, Span

Node = Any  # a tree-sitter node; only its generic accessors are used here


class _Kinds:
    """Integer ids of the grammar's node kinds, resolved once per process."""

    def __init__(self) -> None:
        language = syntax.language()

        def named(name: str) -> int:
            return language.id_for_node_kind(name, True)

        for name in (
            "version_directive", "target_directive", "address_size_directive", "file_directive",
            "loc_directive", "section_directive", "alias_directive", "pragma_directive",
            "dwarf_line", "variable_declaration", "function_definition", "function_declaration",
            "comment", "preprocessor_line", "identifier", "label_definition", "opcode", "qualifier",
            "integer", "float", "string", "sink", "align_clause", "attribute_clause", "declarator",
            "register_range", "array_dimension", "linkage", "parameter_list", "parameter",
            "pointer_clause", "function_directive", "block", "guard", "instruction",
            "call_instruction", "argument_list", "branch_targets", "call_targets", "call_prototype",
            "pair", "vector", "address", "unary_expression", "binary_expression",
            "conditional_expression", "cast_expression", "parenthesized_expression",
            "or_expression", "modulo_expression",
        ):
            setattr(self, name, named(name))
        self.error = 65535  # tree-sitter's ERROR symbol


@functools.cache
def _kinds() -> _Kinds:
    return _Kinds()


# A declaration statement read once: state space, type, vector width, qualifiers with linkage,
# alignment, whether it has an initializer, and per declarator (name, `%r<N>` count, array
# dimensions, start and end byte relative to the statement).
_DeclarationShape = tuple[
    str, str, int, tuple[str, ...], int | None, bool, tuple[tuple[str, int, tuple[int | None, ...], int, int], ...]
]

# Longer declarations (tables with initializers) are read each time rather than kept as keys.
_SHORT_DECLARATION = 256

_STATE_SPACES = frozenset(
    {".reg", ".sreg", ".const", ".global", ".local", ".param", ".shared", ".tex"}
)
_LINKAGE = frozenset({".visible", ".extern", ".weak", ".common"})


def lower(source: SourceFile, *, reference: bool = False) -> ir.Module:
    """Parse and lower one file. Never raises on any input text.

    `reference` parses through py-tree-sitter even when the native front end is built: the two
    must give the identical IR (tests/test_native_front_end.py)."""
    root = syntax.root(source.data, reference=reference)
    # Lowering allocates millions of small objects that all stay alive; the cyclic garbage
    # collector would traverse them again and again while finding nothing to free.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _Lowering(source).module(root)
    finally:
        if collecting:
            gc.enable()


def _fast_constructor(cls: type, leaf: bool = False) -> Callable[..., Any]:
    """A positional constructor for a frozen slots dataclass that skips its generated __init__.

    A frozen dataclass sets each field through ``object.__setattr__``, which made object creation
    the largest cost of lowering big files. This writes the slots directly, in field order (for a
    ``leaf`` operand: its value and its span's start, end, line and column, of which it keeps the
    length); the objects are indistinguishable from ones built by ``cls(...)``.
    """
    names = [field.name for field in dataclasses.fields(cls)]
    setters = {f"set_{name}": cls.__dict__[name].__set__ for name in names}
    arguments = ", ".join(names)
    values = {name: name for name in names}
    if leaf:
        arguments = arguments.replace("_length", "_end")
        values["_length"] = "_end - _start"
    body = "".join(f"    set_{name}(instance, {values[name]})\n" for name in names)
    code = f"def construct({arguments}):\n    instance = new(cls)\n{body}    return instance\n"
    namespace: dict[str, Any] = {"new": object.__new__, "cls": cls, **setters}
    exec(code, namespace)  # noqa: S102 - generated from the dataclass's own field names
    return namespace["construct"]


_tuple_new = tuple.__new__
_new_register = _fast_constructor(ir.Register, leaf=True)
_new_special_register = _fast_constructor(ir.SpecialRegister, leaf=True)
_new_symbol = _fast_constructor(ir.Symbol, leaf=True)
_new_immediate = _fast_constructor(ir.Immediate, leaf=True)
_new_address = _fast_constructor(ir.Address)
_new_vector = _fast_constructor(ir.Vector)
_new_argument_list = _fast_constructor(ir.ArgumentList)
_new_guard = _fast_constructor(ir.Guard)
_build_instruction = _fast_constructor(ir.Instruction)


def _new_instruction(
    opcode: ir.Opcode, operands: tuple, destination_count: int, guard: ir.Guard | None, span: Span, opcode_span: Span,
    scope: int, location: ir.SourceLocation | None,
) -> ir.Instruction:  # fmt: skip
    positions = ir.instruction_positions(opcode, span, opcode_span)
    return _build_instruction(opcode, operands, destination_count, guard, scope, location, *positions)


@functools.cache
def _configure_native_walker() -> None:
    """Tell the native body walker which classes the IR is made of and how their slots are laid
    out (it fills them the way the constructors above do), and the constructors that the name
    cache stores, so it knows a register from a symbol."""
    def shape(cls: type) -> tuple[type, tuple[str, ...]]:
        return cls, tuple(field.name for field in dataclasses.fields(cls))

    classes = (
        ir.Register, ir.SpecialRegister, ir.Symbol, ir.Immediate, ir.Instruction, ir.Guard, ir.Address, ir.Vector,
        ir.ArgumentList, ir.Pair, ir.Sink,
    )  # fmt: skip
    syntax.native.configure(
        tuple(shape(cls) for cls in classes), Span, (_new_register, _new_special_register, _new_symbol)
    )


class _Lowering:
    def __init__(self, source: SourceFile) -> None:
        self.source = source
        self.data = source.data
        self.line_starts = source.line_starts  # machine integers: the native walker bisects them in place
        self.kinds = _kinds()
        # Opcode token -> (Opcode, how many leading operands it writes); equal opcode texts share
        # one Opcode object.
        self.opcodes: dict[bytes, tuple[ir.Opcode, int]] = {}
        # Literal token -> value, one table per literal kind.
        self.integers: dict[bytes, int] = {}
        self.floats: dict[bytes, float] = {}
        # `.loc` directive text -> its location (the native walker reads each distinct one once).
        self.locations: dict[bytes, ir.SourceLocation | None] = {}
        # Constant-expression operand text (`-1`) -> its folded value (read by the native walker).
        self.constants: dict[bytes, int | float] = {}
        # The line the last span fell on, [line_start, next_line_start): most spans of an
        # instruction share its line, so this spares a bisection per operand.
        self.line_number = 1
        self.line_start = 0
        self.next_line_start = source.line_starts[1] if source.line_count > 1 else len(source.data) + 1
        self.syntax_errors: list[ir.SyntaxProblem] = []
        # Per-function register tables, used to tell registers from labels and variables.
        self.register_names: set[str] = set()
        self.register_ranges: dict[str, int] = {}
        # Per-function cache: identifier bytes -> (decoded name, operand constructor taking the
        # name and the four numbers of its span).
        self.name_cache: dict[bytes, tuple[str, Callable[..., Any]]] = {}
        # The cached names a `%r<N>` range declared later would make registers, by prefix.
        self.not_registers: dict[str, list[bytes]] = {}
        # How many more register names a `%r<N>` declaration may add to that cache up front.
        self.seed_budget = 0
        # Register names by `%r<N>` prefix, in number order, as name-cache entries.
        self.seeded_names: dict[str, list[tuple[bytes, tuple[str, Callable[..., Any]]]]] = {}
        # Declaration statement text -> what it declares (see declaration_shape).
        self.declaration_shapes: dict[bytes, _DeclarationShape] = {}

    # ------------------------------------------------------------------ positions

    def span(self, start: int, end: int) -> Span:
        if not self.line_start <= start < self.next_line_start:
            line_starts = self.line_starts
            line = bisect.bisect_right(line_starts, start)
            self.line_number = line
            self.line_start = line_starts[line - 1]
            self.next_line_start = line_starts[line] if line < len(line_starts) else len(self.data) + 1
        return _tuple_new(Span, (start, end, self.line_number, start - self.line_start + 1))

    def node_span(self, node: Node) -> Span:
        return self.span(node.start_byte, node.end_byte)

    def text(self, node: Node) -> str:
        return self.data[node.start_byte : node.end_byte].decode("utf-8", errors="replace")

    # ------------------------------------------------------------------ module

    def module(self, root: Node) -> ir.Module:
        kinds = self.kinds
        version = version_span = address_size = None
        targets: list[ir.Target] = []
        variables: list[ir.VariableDeclaration] = []
        functions: list[ir.Function] = []
        files: dict[int, str] = {}
        if root.has_error:
            self.collect_syntax_errors(root)
        for item in root.named_children:
            kind = item.kind_id
            if kind == kinds.function_definition or kind == kinds.function_declaration:
                functions.append(self.function(item))
            elif kind == kinds.variable_declaration:
                variables.extend(self.variable_declarations(item))
            elif kind == kinds.version_directive:
                number = item.child_by_field_name("version")
                if number is not None:
                    major, _, minor = self.text(number).partition(".")
                    if major.isdigit() and minor.isdigit() and len(major) + len(minor) < 16:  # not MISSING
                        version = (int(major), int(minor))
                        version_span = self.node_span(item)
            elif kind == kinds.target_directive:
                for target in item.children_by_field_name("target"):
                    targets.append(ir.Target(self.text(target), self.node_span(target)))
            elif kind == kinds.address_size_directive:
                size = item.child_by_field_name("size")
                if size is not None:
                    address_size = _integer_value(self.text(size))
            elif kind == kinds.file_directive:
                index = item.child_by_field_name("index")
                name = item.child_by_field_name("name")
                if index is not None and name is not None:
                    files[_integer_value(self.text(index))] = _string_value(self.text(name))
        if version is None:
            # ptxas refuses such a module outright ("Missing .version directive at start of file").
            self.syntax_errors.append(
                ir.SyntaxProblem("missing `.version` directive at the start of the module", self.span(0, 0))
            )
        return ir.Module(
            source=self.source,
            version=version,
            version_span=version_span,
            targets=tuple(targets),
            address_size=address_size,
            variables=tuple(variables),
            functions=tuple(functions),
            files=files,
            syntax_errors=tuple(sorted(self.syntax_errors, key=lambda problem: problem.span.start)),
        )

    def collect_syntax_errors(self, node: Node) -> None:
        """Report each outermost ERROR node and each MISSING node once. Iterative, so a deeply
        nested malformed file cannot exhaust the Python stack."""
        pending = [node]
        while pending:
            current = pending.pop()
            if current.is_missing:
                expected = current.type
                self.syntax_errors.append(
                    ir.SyntaxProblem(f"expected `{expected}`", self.node_span(current))
                )
            elif current.is_error:
                text = self.data[current.start_byte : current.end_byte]
                first_line = text.split(b"\n", 1)[0].strip().decode("utf-8", errors="replace")
                if len(first_line) > 60:
                    first_line = first_line[:57] + "..."
                message = f"cannot parse `{first_line}`" if first_line else "unexpected end of input"
                self.syntax_errors.append(ir.SyntaxProblem(message, self.node_span(current)))
                # MISSING nodes inside an ERROR are part of the same problem.
            elif current.has_error:
                pending.extend(reversed(current.children))

    # ------------------------------------------------------------------ declarations

    def qualifiers_of(self, node: Node) -> tuple[list[str], int | None, list[str]]:
        """The qualifier words, the `.align` value and the linkage of a declaration."""
        kinds = self.kinds
        qualifiers: list[str] = []
        linkage: list[str] = []
        alignment: int | None = None
        for child in node.named_children:
            kind = child.kind_id
            if kind == kinds.qualifier:
                qualifiers.append(self.text(child))
            elif kind == kinds.linkage:
                linkage.append(self.text(child))
            elif kind == kinds.align_clause:
                value = child.child_by_field_name("alignment")
                if value is not None:
                    alignment = _integer_value(self.text(value))
            elif kind == kinds.pointer_clause:
                for part in child.named_children:
                    if part.kind_id == kinds.qualifier:
                        qualifiers.append(self.text(part))
                    elif part.kind_id == kinds.align_clause:
                        value = part.child_by_field_name("alignment")
                        if value is not None:
                            alignment = _integer_value(self.text(value))
        return qualifiers, alignment, linkage

    def declarator(self, node: Node) -> tuple[str, int, tuple[int | None, ...]]:
        """Name, parameterized count (`%r<100>` → 100) and array dimensions of a declarator."""
        kinds = self.kinds
        name_node = node.child_by_field_name("name")
        name = self.text(name_node) if name_node is not None else ""
        count = 0
        dimensions: list[int | None] = []
        for child in node.named_children:
            if child.kind_id == kinds.register_range:
                for part in child.named_children:
                    if part.kind_id == kinds.integer:
                        count = _integer_value(self.text(part))
            elif child.kind_id == kinds.array_dimension:
                inner = child.named_children
                value = self.constant(inner[0]) if inner else None
                dimensions.append(value if isinstance(value, int) else None)
        return name, count, tuple(dimensions)

    def variable_declarations(self, node: Node, scope: int = 0) -> list[Any]:
        start, end = node.start_byte, node.end_byte
        if node.has_error or end - start > _SHORT_DECLARATION:
            shape = self.declaration_shape(node)
        else:
            # CUTLASS's inline asm repeats a handful of declarations thousands of times
            # (`.reg .pred p;`): equal text without errors is the same tree, so read it once.
            text = self.data[start:end]
            shape = self.declaration_shapes.get(text)
            if shape is None:
                shape = self.declaration_shapes[text] = self.declaration_shape(node)
        space, type_name, vector, qualifiers, alignment, has_initializer, declarators = shape
        declarations: list[Any] = []
        for name, count, dimensions, name_start, name_end in declarators:
            span = self.span(start + name_start, start + name_end)
            if space == ".reg":
                self.forget_classification(name, count, vector)
                declarations.append(ir.RegisterDeclaration(name, type_name, count, vector, scope, span))
                if count:
                    self.register_ranges[name] = max(count, self.register_ranges.get(name, 0))
                    self.seed_register_range(name, count)
                else:
                    self.register_names.add(name)
            else:
                declarations.append(
                    ir.VariableDeclaration(
                        name=name,
                        space=space,
                        type=type_name,
                        qualifiers=qualifiers,
                        alignment=alignment,
                        dimensions=dimensions,
                        has_initializer=has_initializer,
                        span=span,
                    )
                )
        return declarations

    def declaration_shape(self, node: Node) -> _DeclarationShape:
        """What a declaration statement declares, with each declarator's bytes relative to the
        statement's start."""
        qualifiers, alignment, linkage = self.qualifiers_of(node)
        start = node.start_byte
        declarators = []
        for declarator in node.children_by_field_name("declarator"):
            name, count, dimensions = self.declarator(declarator)
            declarators.append((name, count, dimensions, declarator.start_byte - start, declarator.end_byte - start))
        return (
            next((word for word in qualifiers if word in _STATE_SPACES), ""),
            _type_of(qualifiers),
            next((int(word[2:]) for word in qualifiers if word in (".v2", ".v4", ".v8")), 0),
            tuple(linkage + qualifiers),
            alignment,
            node.child_by_field_name("initializer") is not None,
            tuple(declarators),
        )

    def forget_classification(self, name: str, count: int, vector: int) -> None:
        """A new `.reg` can turn a name seen before into a register. Inline asm declares a few
        plain names in every block (thousands per CUTLASS kernel), so forget just those; a
        `%r<N>` range, the names seen with its prefix and some number; a vector register may
        rename many tokens, so forget everything."""
        if vector:
            self.name_cache.clear()
            self.not_registers = {}
        elif count:
            for token in self.not_registers.pop(name, ()):
                self.name_cache.pop(token, None)
        else:
            self.name_cache.pop(name.encode("ascii", errors="replace"), None)

    def seed_register_range(self, prefix: str, count: int) -> None:
        """Classify the names a `%r<100>` declaration makes registers in one go: nvcc declares
        just the registers it uses, each named only a few times, so a classification per
        distinct name (a cache miss each) was the larger cost. The budget, from the function's
        size, keeps a hostile `%r<4000000000>` from seeding more names than the text could hold;
        what is not seeded is still classified on first sight."""
        if count > self.seed_budget or not prefix.isascii() or prefix[-1:].isdigit():
            return
        self.seed_budget -= count
        seeded = self.seeded_names.get(prefix)
        if seeded is None or len(seeded) < count:
            # The same prefixes (`%r`, `%rd`, `%f`, `%p`) recur in every function of a file.
            texts = [f"{prefix}{number}" for number in range(count)]
            seeded = self.seeded_names[prefix] = [(text.encode(), (text, _new_register)) for text in texts]
        self.name_cache.update(itertools.islice(seeded, count))

    def parameters(self, node: Node | None) -> tuple[ir.Parameter, ...]:
        if node is None:
            return ()
        parameters = []
        for parameter in node.named_children:
            if parameter.kind_id != self.kinds.parameter:
                continue
            qualifiers, alignment, _ = self.qualifiers_of(parameter)
            declarator = parameter.child_by_field_name("declarator")
            name, _, dimensions = self.declarator(declarator) if declarator is not None else ("", 0, ())
            space = next((word for word in qualifiers if word in _STATE_SPACES), ".param")
            if space == ".reg":
                self.register_names.add(name)
            parameters.append(
                ir.Parameter(
                    name=name,
                    space=space,
                    type=_type_of(qualifiers),
                    qualifiers=tuple(qualifiers),
                    alignment=alignment,
                    dimensions=dimensions,
                    span=self.node_span(parameter),
                )
            )
        return tuple(parameters)

    # ------------------------------------------------------------------ functions

    def function(self, node: Node) -> ir.Function:
        kinds = self.kinds
        self.register_names = set()
        self.register_ranges = {}
        self.name_cache = {}
        self.not_registers = {}
        self.seed_budget = (node.end_byte - node.start_byte) // 2
        name_node = node.child_by_field_name("name")
        kind_node = node.child_by_field_name("kind")
        directives = []
        for directive in node.children_by_field_name("directive"):
            name = directive.child_by_field_name("name")
            values = tuple(  # a MISSING value (already a PTX001 finding) is no value, not 0
                _integer_value(self.text(value))
                for value in directive.children_by_field_name("value")
                if not value.is_missing
            )
            directives.append(
                ir.FunctionDirective(self.text(name) if name is not None else "", values, self.node_span(directive))
            )
        linkage = tuple(self.text(child) for child in node.children_by_field_name("linkage"))
        return_parameters = self.parameters(node.child_by_field_name("returns"))
        parameters = self.parameters(node.child_by_field_name("parameters"))
        body = node.child_by_field_name("body") if node.kind_id == kinds.function_definition else None
        builder = _BodyBuilder()
        if body is not None:
            self.block(body, builder, parent=None)
        labels_by_name: dict[str, list[int]] = {}
        for position, label in enumerate(builder.labels):
            labels_by_name.setdefault(label.name, []).append(position)
        targets_by_name: dict[str, list[int]] = {}
        for position, targets in enumerate(builder.branch_targets):
            targets_by_name.setdefault(targets.name, []).append(position)
        name_span = self.node_span(name_node) if name_node is not None else self.node_span(node)
        return ir.Function(
            kind="entry" if kind_node is not None and self.text(kind_node) == ".entry" else "func",
            name=self.text(name_node) if name_node is not None else "",
            linkage=linkage,
            parameters=parameters,
            return_parameters=return_parameters,
            directives=tuple(directives),
            registers=tuple(builder.registers),
            variables=tuple(builder.variables),
            instructions=tuple(builder.instructions),
            labels=tuple(builder.labels),
            scopes=builder.finished_scopes(),
            branch_targets=tuple(builder.branch_targets),
            has_body=body is not None,
            span=self.node_span(node),
            name_span=name_span,
            _labels_by_name={name: tuple(positions) for name, positions in labels_by_name.items()},
            _branch_targets_by_name={name: tuple(positions) for name, positions in targets_by_name.items()},
        )

    def block(self, node: Node, builder: _BodyBuilder, parent: int | None) -> None:
        """Lower a `{ }` scope. Nested scopes are handled with an explicit stack, so ten thousand
        nested braces do not exhaust the Python stack."""
        if syntax.is_native(node):
            _configure_native_walker()
            syntax.native.lower_block(self, builder, node, parent)
            return
        kinds = self.kinds
        stack: list[tuple[Any, int]] = []
        scope = builder.open_scope(parent, self.node_span(node))
        stack.append((iter(node.named_children), scope))
        while stack:
            children, scope = stack[-1]
            for statement in children:
                kind = statement.kind_id
                if kind == kinds.instruction or kind == kinds.call_instruction:
                    builder.instructions.append(self.instruction(statement, scope, builder.location))
                elif kind == kinds.label_definition:
                    self.label(statement, scope, builder)
                elif kind == kinds.block:
                    inner = builder.open_scope(scope, self.node_span(statement))
                    stack.append((iter(statement.named_children), inner))
                    break
                elif kind == kinds.variable_declaration:
                    self.declare(statement, scope, builder)
                elif kind == kinds.loc_directive:
                    builder.location = self.location(statement)
                elif kind == kinds.branch_targets:
                    builder.branch_targets.append(self.branch_targets(statement, scope, builder))
            else:
                stack.pop()

    def label(self, node: Node, scope: int, builder: _BodyBuilder) -> None:
        end = node.start_byte + len(self.text(node).split(":", 1)[0].rstrip())
        name = self.data[node.start_byte : end].decode("utf-8", errors="replace")
        builder.labels.append(ir.Label(name, scope, len(builder.instructions), self.span(node.start_byte, end)))

    def declare(self, node: Node, scope: int, builder: _BodyBuilder) -> None:
        for declaration in self.variable_declarations(node, scope):
            if isinstance(declaration, ir.RegisterDeclaration):
                builder.registers.append(declaration)
            else:
                builder.variables.append(declaration)

    def branch_targets(self, node: Node, scope: int, builder: _BodyBuilder) -> ir.BranchTargets:
        """`ts: .branchtargets L1, L2;` — named by the label that stands right before it."""
        here = len(builder.instructions)
        name = next(
            (label.name for label in reversed(builder.labels) if label.index == here and label.scope == scope),
            "",
        )
        targets = tuple(self.text(child) for child in node.named_children if child.kind_id == self.kinds.identifier)
        return ir.BranchTargets(name, targets, scope, self.node_span(node))

    def location(self, node: Node) -> ir.SourceLocation | None:
        def number(field: str) -> int | None:
            child = node.child_by_field_name(field)
            return _integer_value(self.text(child)) if child is not None else None

        file, line, column = number("file"), number("line"), number("column")
        if file is None or line is None or column is None:
            return None
        inlined_at = None
        inlined_file, inlined_line = number("inlined_file"), number("inlined_line")
        if inlined_file is not None and inlined_line is not None:
            inlined_at = ir.SourceLocation(inlined_file, inlined_line, number("inlined_column") or 0)
        return ir.SourceLocation(file, line, column, inlined_at)

    # ------------------------------------------------------------------ instructions

    def instruction(self, node: Node, scope: int, location: ir.SourceLocation | None) -> ir.Instruction:
        # The hot loop of lowering: locals instead of attribute lookups, and plain names (most
        # operands) decoded inline, their spans built from the instruction's line.
        kinds = self.kinds
        identifier_kind, opcode_kind, guard_kind = kinds.identifier, kinds.opcode, kinds.guard
        skipped = (kinds.comment, kinds.error)
        data, names, classify = self.data, self.name_cache, self.classify
        start, end = node.start_byte, node.end_byte
        span = self.span(start, end)
        line, line_start, next_line_start = self.line_number, self.line_start, self.next_line_start
        guard = None
        opcode_node = None
        operands: list[ir.Operand] = []
        for child in node.named_children:
            kind = child.kind_id
            if kind == identifier_kind:
                name_start, name_end = child.start_byte, child.end_byte
                token = data[name_start:name_end]
                text, construct = names.get(token) or classify(token)
                if line_start <= name_start < next_line_start:
                    operands.append(construct(text, name_start, name_end, line, name_start - line_start + 1))
                else:
                    operands.append(construct(text, *self.span(name_start, name_end)))
            elif kind == opcode_kind:
                opcode_node = child
            elif kind == guard_kind:
                guard = self.guard(child)
            elif kind not in skipped:
                operands.append(self.operand(child))
        if opcode_node is None:  # only possible inside error recovery
            opcode_start = opcode_end = start
        else:
            opcode_start, opcode_end = opcode_node.start_byte, opcode_node.end_byte
        token = data[opcode_start:opcode_end]
        opcode, writes = self.opcodes.get(token) or self.opcode(token)
        if opcode.base == "call":
            writes = 1 if operands and type(operands[0]) is ir.ArgumentList else 0
        if line_start <= opcode_start < next_line_start:
            opcode_span = _tuple_new(Span, (opcode_start, opcode_end, line, opcode_start - line_start + 1))
        else:
            opcode_span = self.span(opcode_start, opcode_end)
        return _new_instruction(
            opcode, tuple(operands), min(writes, len(operands)), guard, span, opcode_span, scope, location
        )

    def opcode(self, token: bytes) -> tuple[ir.Opcode, int]:
        """The Opcode of a token and how many leading operands it writes, cached by token."""
        known = self.opcodes.get(token)
        if known is None:
            text = token.decode("ascii", errors="replace")
            base, *modifiers = text.split(".")
            opcode = ir.Opcode(text, base, tuple(modifiers))
            known = self.opcodes[token] = (opcode, destination_count(base, opcode.modifiers))
        return known

    def guard(self, node: Node) -> ir.Guard:
        predicate = node.child_by_field_name("predicate")
        negated = node.child_by_field_name("negated") is not None
        operand = self.name(predicate) if predicate is not None else ir.Symbol("", self.node_span(node))
        return _new_guard(operand, negated, self.node_span(node))

    def name(self, node: Node) -> ir.Register | ir.SpecialRegister | ir.Symbol:
        start, end = node.start_byte, node.end_byte
        token = self.data[start:end]
        text, construct = self.name_cache.get(token) or self.classify(token)
        return construct(text, *self.span(start, end))

    def classify(self, token: bytes) -> tuple[str, Callable[..., Any]]:
        """The decoded name of an identifier token and the constructor of its operand type,
        cached per function (declarations that change the answer evict it)."""
        text = token.decode("ascii", errors="replace")
        if self.is_register(text):
            known = (text, _new_register)
        else:
            known = (text, _new_special_register if special_register_base(text) is not None else _new_symbol)
            base = text.split(".", 1)[0]
            prefix = base.rstrip("0123456789")
            if prefix != base:  # a later `prefix<N>` declaration may make it a register
                self.not_registers.setdefault(prefix, []).append(token)
        self.name_cache[token] = known
        return known

    def is_register(self, name: str) -> bool:
        if name in self.register_names:
            return True
        base = name.split(".", 1)[0]  # a vector component of a `.v4` register
        if base != name and base in self.register_names:
            return True
        prefix = base.rstrip("0123456789")
        count = self.register_ranges.get(prefix)
        if count is None or prefix == base:
            return False
        digits = base[len(prefix) :]
        return len(digits) <= len(str(count)) and int(digits) < count

    def operand(self, node: Node) -> ir.Operand:
        kinds = self.kinds
        kind = node.kind_id
        if kind == kinds.identifier:
            return self.name(node)
        if kind == kinds.integer or kind == kinds.float:
            start, end = node.start_byte, node.end_byte
            return _new_immediate(self.literal(kind, self.data[start:end]), *self.span(start, end))
        if kind == kinds.address:
            return self.address(node)
        if kind == kinds.vector or kind == kinds.argument_list:
            elements = tuple(self.vector_elements(node))
            span = self.span(node.start_byte, node.end_byte)
            return _new_vector(elements, span) if kind == kinds.vector else _new_argument_list(elements, span)
        if kind == kinds.pair:
            first = node.child_by_field_name("first")
            second = node.child_by_field_name("second")
            span = self.span(node.start_byte, node.end_byte)
            if first is None or second is None:
                return ir.Expression((), span)
            return ir.Pair(self.operand(first), self.operand(second), span)
        if kind == kinds.sink:
            return ir.Sink(self.span(node.start_byte, node.end_byte))
        if kind == kinds.unary_expression:
            operator = node.child_by_field_name("operator")
            inner = node.child_by_field_name("operand")
            if operator is not None and inner is not None and self.text(operator) == "!" and inner.kind_id == kinds.identifier:
                return ir.Negated(self.name(inner), self.node_span(node))
        return self.expression(node)

    def literal(self, kind: int, token: bytes) -> int | float:
        """The value of an integer or float token; the few distinct literals of a file (`0`, `1`,
        `4`) recur thousands of times, so values are cached by kind and token."""
        values = self.integers if kind == self.kinds.integer else self.floats
        value = values.get(token)
        if value is None:
            text = token.decode("ascii", errors="replace")
            value = values[token] = _integer_value(text) if kind == self.kinds.integer else _float_value(text)
        return value

    def vector_elements(self, node: Node) -> list[ir.Operand]:
        """The elements of a brace vector or argument list; plain names, most of them, skip the
        general dispatch. Vectors never nest in PTX; refusing to descend into a nested one also
        keeps hostile input (ten thousand `{`) from exhausting the stack."""
        kinds = self.kinds
        elements: list[ir.Operand] = []
        for child in node.named_children:
            kind = child.kind_id
            if kind == kinds.identifier:
                elements.append(self.name(child))
            elif kind == kinds.vector or kind == kinds.argument_list:
                span = self.node_span(child)
                self.syntax_errors.append(ir.SyntaxProblem("vector operands cannot be nested", span))
                elements.append(ir.Expression((), span))
            elif kind != kinds.comment:
                elements.append(self.operand(child))
        return elements

    def expression(self, node: Node) -> ir.Operand:
        """A constant expression: folded to an Immediate when it names nothing."""
        span = self.node_span(node)
        value = self.constant(node)
        if value is not None:
            return ir.Immediate(value, span)
        names: list[ir.Register | ir.SpecialRegister | ir.Symbol] = []
        pending = [node]
        while pending:
            current = pending.pop()
            if current.kind_id == self.kinds.identifier:
                names.append(self.name(current))
            else:
                pending.extend(reversed(current.named_children))
        return ir.Expression(tuple(names), span)

    def constant(self, root: Node) -> int | float | None:
        """Fold a constant expression with C semantics on 64-bit values, or None.

        Iterative post-order: a hostile input can nest expressions thousands deep."""
        kinds = self.kinds
        values: dict[int, int | float | None] = {}
        pending: list[tuple[Node, bool]] = [(root, False)]
        while pending:
            node, operands_done = pending.pop()
            kind = node.kind_id
            if kind == kinds.integer:
                values[node.id] = _integer_value(self.text(node))
                continue
            if kind == kinds.float:
                values[node.id] = _float_value(self.text(node))
                continue
            parts = self.expression_parts(node)
            if parts is None:
                values[node.id] = None
                continue
            operator, operands = parts
            if not operands_done:
                pending.append((node, True))
                pending.extend((operand, False) for operand in operands)
                continue
            folded = [values.get(operand.id) for operand in operands]
            values[node.id] = None if any(value is None for value in folded) else _fold(operator, folded)
        return values.get(root.id)

    def expression_parts(self, node: Node) -> tuple[str, list[Node]] | None:
        """The operator and operand nodes of a foldable expression node, or None."""
        kinds = self.kinds
        kind = node.kind_id
        if kind == kinds.parenthesized_expression:
            children = node.named_children
            return ("()", children[:1]) if children else None
        if kind == kinds.cast_expression:
            inner = node.child_by_field_name("operand")
            return ("()", [inner]) if inner is not None else None
        if kind == kinds.conditional_expression:
            parts = [node.child_by_field_name(name) for name in ("condition", "consequence", "alternative")]
            return ("?:", parts) if all(part is not None for part in parts) else None  # type: ignore[misc]
        operator = node.child_by_field_name("operator")
        if operator is None:
            return None
        if kind == kinds.unary_expression:
            inner = node.child_by_field_name("operand")
            return ("unary" + self.text(operator), [inner]) if inner is not None else None
        if kind in (kinds.binary_expression, kinds.or_expression, kinds.modulo_expression):
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            return (self.text(operator), [left, right]) if left is not None and right is not None else None
        return None

    def address(self, node: Node) -> ir.Address:
        kinds = self.kinds
        parts = [child for child in node.named_children if child.kind_id != kinds.comment]
        span = self.span(node.start_byte, node.end_byte)
        if not parts:
            return _new_address(None, 0, span, ())
        first = parts[0]
        extra = tuple(self.operand(part) for part in parts[1:]) if len(parts) > 1 else ()
        base: Any
        offset = 0
        kind = first.kind_id
        if kind == kinds.identifier:
            base = self.name(first)
        elif kind == kinds.binary_expression:
            base, offset = self.base_and_offset(first)
        else:
            base = self.operand(first)
        return _new_address(base, offset, span, extra)

    def base_and_offset(self, node: Node) -> tuple[Any, int]:
        """`r+4`, `sym+-4`, `r - 8` inside brackets: the base name and a constant offset."""
        if node.child_count == 3:  # left, operator, right: the shape without interior comments
            left, operator, right = node.child(0), node.child(1), node.child(2)
        else:
            left, operator, right = (node.child_by_field_name(field) for field in ("left", "operator", "right"))
        if left is None or operator is None or right is None or left.kind_id != self.kinds.identifier:
            return self.expression(node), 0
        sign = self.data[operator.start_byte : operator.end_byte]
        if sign not in (b"+", b"-"):
            return self.expression(node), 0
        if right.kind_id == self.kinds.integer:
            value: int | float | None = _integer_value(self.text(right))
        else:
            value = self.constant(right)
        if not isinstance(value, int):
            return self.expression(node), 0
        return self.name(left), value if sign == b"+" else -value


class _BodyBuilder:
    """Mutable accumulators for one function body while it is lowered."""

    def __init__(self) -> None:
        self.instructions: list[ir.Instruction] = []
        self.labels: list[ir.Label] = []
        self.registers: list[ir.RegisterDeclaration] = []
        self.variables: list[ir.VariableDeclaration] = []
        self.scopes: list[tuple[int | None, Span]] = []  # (parent, span) until finished
        self.branch_targets: list[ir.BranchTargets] = []
        self.location: ir.SourceLocation | None = None

    def open_scope(self, parent: int | None, span: Span) -> int:
        self.scopes.append((parent, span))
        return len(self.scopes) - 1

    def finished_scopes(self) -> tuple[ir.Scope, ...]:
        """The scopes with their pre-order extent: a child always has a higher number than its
        parent, so one backwards sweep carries each scope's last descendant up to its parent."""
        last = list(range(len(self.scopes)))
        for index in range(len(self.scopes) - 1, 0, -1):
            parent = self.scopes[index][0]
            if parent is not None and last[index] > last[parent]:
                last[parent] = last[index]
        return tuple(ir.Scope(parent, span, last[index]) for index, (parent, span) in enumerate(self.scopes))


# ---------------------------------------------------------------------- token values

_MASK64 = (1 << 64) - 1


_TOO_LONG = 1 << 128  # the value of a literal too long to decode: out of range for every type
_MAX_DIGITS = 256  # far past 64 bits in any base; Python refuses to convert > 4300 decimal digits


def _integer_value(text: str) -> int:
    """Decode a PTX integer literal: hex, binary, octal (leading 0), decimal; optional `U`.
    Never raises: a MISSING token (empty text, already a PTX001 finding) decodes to 0."""
    digits = text[:-1] if text[-1:] in ("U", "u") else text
    if digits[:2] in ("0x", "0X", "0b", "0B"):
        digits, base = digits[2:], 16 if digits[1] in "xX" else 2
    elif len(digits) > 1 and digits[0] == "0":
        digits, base = digits[1:], 8
    else:
        base = 10
    if len(digits) > _MAX_DIGITS:
        return _TOO_LONG
    try:
        return int(digits, base)
    except ValueError:
        return 0


def _float_value(text: str) -> float:
    """Decode `0fXXXXXXXX` (f32 bits), `0dXXXXXXXXXXXXXXXX` (f64 bits) or a decimal literal.
    Never raises: what cannot be decoded (a MISSING token) is NaN."""
    try:
        if text[:2] in ("0f", "0F"):
            return struct.unpack(">f", bytes.fromhex(text[2:]))[0]
        if text[:2] in ("0d", "0D"):
            return struct.unpack(">d", bytes.fromhex(text[2:]))[0]
        return float(text)
    except (ValueError, struct.error):
        return float("nan")


def _string_value(text: str) -> str:
    return text[1:-1] if len(text) >= 2 else text


def _to_signed(value: int) -> int:
    value &= _MASK64
    return value - (1 << 64) if value >> 63 else value


_UNARY: dict[str, Callable[[Any], Any]] = {
    "-": lambda value: -value,
    "+": lambda value: value,
    "!": lambda value: int(not value),
    "~": lambda value: ~value if isinstance(value, int) else None,
}


def _fold(operator: str, values: list[int | float]) -> int | float | None:
    """The value of a constant expression, or None when it has none (division by zero, a float
    too large for an integer operand, a shift out of range)."""
    try:
        return _fold_values(operator, values)
    except (ArithmeticError, ValueError):
        return None


def _fold_values(operator: str, values: list[int | float]) -> int | float | None:
    if operator == "()":
        return values[0]
    if operator == "?:":
        return values[1] if values[0] else values[2]
    if operator.startswith("unary"):
        return _unary(operator[5:], values[0])
    return _binary(operator, values[0], values[1])


def _unary(operator: str, value: int | float) -> int | float | None:
    result = _UNARY[operator](value)
    return _to_signed(result) if isinstance(result, int) else result


def _binary(operator: str, left: int | float, right: int | float) -> int | float | None:
    if isinstance(left, float) or isinstance(right, float):
        if operator in ("+", "-", "*", "/"):
            try:
                return {"+": left + right, "-": left - right, "*": left * right}.get(operator) if operator != "/" else left / right
            except ZeroDivisionError:
                return None
        return None
    if operator in ("/", "%") and right == 0:
        return None
    if operator in ("<<", ">>") and not 0 <= right < 64:
        return None
    result = {
        "+": lambda: left + right,
        "-": lambda: left - right,
        "*": lambda: left * right,
        "/": lambda: int(left / right),
        "%": lambda: left - right * int(left / right),
        "<<": lambda: left << right,
        ">>": lambda: left >> right,
        "&": lambda: left & right,
        "^": lambda: left ^ right,
        "|": lambda: left | right,
        "&&": lambda: int(bool(left) and bool(right)),
        "||": lambda: int(bool(left) or bool(right)),
        "==": lambda: int(left == right),
        "!=": lambda: int(left != right),
        "<": lambda: int(left < right),
        "<=": lambda: int(left <= right),
        ">": lambda: int(left > right),
        ">=": lambda: int(left >= right),
    }[operator]()
    return _to_signed(result)


def _type_of(qualifiers: list[str]) -> str:
    """The fundamental type among a declaration's qualifiers (`.b32`, `.pred`, `.texref`)."""
    for word in reversed(qualifiers):
        if word not in _STATE_SPACES and word not in _LINKAGE and word not in (".v2", ".v4", ".v8", ".ptr"):
            return word
    return ""


_INLINING_SITE = re.compile(
    rb"^[ \t]*\.loc[ \t]+(\d+)[ \t]+(\d+)[ \t]+(\d+)(?:[ \t]*,[ \t]*function_name[ \t]+([$\w]+))?"
    rb"[^\n]*?inlined_at[ \t]+(\d+)[ \t]+(\d+)[ \t]+(\d+)",
    re.MULTILINE,
)
_INFO_LABEL = re.compile(rb"^[ \t]*(\$L__info_string\d+):[ \t]*\r?\n", re.MULTILINE)
_INFO_BYTES = re.compile(rb"(?:[ \t]*\.b8[ \t]+[\d, \t]+\r?\n?)+")


@record(slots=True)
class InliningSite:
    """A `.loc … inlined_at` directive: where it is (byte offset), the location with the one level
    of inlining it names, and the debug-string label of the function inlined (`function_name`)."""

    offset: int
    location: ir.SourceLocation
    function_label: str | None


def inlining_sites(source: SourceFile, start: int, end: int) -> list[InliningSite]:
    """Every `.loc … inlined_at` between byte ``start`` and ``end``, in order.

    nvcc writes one level of inlining per `.loc` (`.loc 2 5 3, …, inlined_at 1 4 5`); where the
    call at 1:4:5 was itself inlined is said by an earlier `.loc 1 4 5, …, inlined_at 1 11 9`,
    often one that no instruction follows. An instruction's location keeps only the last `.loc`,
    so the source map reads the others here, a byte scan of the directives' fixed shape, when it
    follows a chain further (ptxlint/sourcemap.py)."""
    found = []
    for match in _INLINING_SITE.finditer(source.data, start, end):
        file, line, column, label, outer_file, outer_line, outer_column = match.groups()
        outer = ir.SourceLocation(int(outer_file), int(outer_line), int(outer_column))
        location = ir.SourceLocation(int(file), int(line), int(column), outer)
        found.append(InliningSite(match.start(), location, label.decode("ascii") if label is not None else None))
    return found


class DebugStrings:
    """The `$L__info_stringN` strings of a `.debug_str` section (what `function_name` names: the
    mangled name of an inlined function), written by nvcc as `.b8` byte lists ending in 0. Where
    each is defined is found in one scan; a string is decoded when first asked for (a source map
    names a few of a module's thousands)."""

    def __init__(self, source: SourceFile) -> None:
        self._data = data = source.data
        self._starts: dict[str, int] = {}  # label → where its `.b8` lines start
        self._decoded: dict[str, str] = {}
        if b"$L__info_string" in data:
            section = data.find(b".debug_str")  # the strings are defined there, not where code names them
            for match in _INFO_LABEL.finditer(data, max(section, 0)):
                self._starts[match.group(1).decode("ascii")] = match.end()  # the last definition, as before

    def get(self, label: str, default: str = "") -> str:
        """The string defined at ``label``, or ``default`` when the module defines none there."""
        known = self._decoded.get(label)
        if known is not None:
            return known
        start = self._starts.get(label)
        if start is None:
            return default
        lines = _INFO_BYTES.match(self._data, start)
        values = bytearray()
        for number in re.findall(rb"(?<![\w.])\d+", lines.group(0) if lines else b""):
            value = int(number)
            if value == 0 or value > 255:
                break
            values.append(value)
        known = self._decoded[label] = values.decode("utf-8", errors="replace")
        return known
