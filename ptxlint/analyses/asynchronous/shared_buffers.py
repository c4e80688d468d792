"""Which shared-memory buffer an instruction touches: the `.shared` variable its address comes
from and the constant part of the offset into it, well enough to tell named buffers and
pipeline stages at constant offsets apart.

A :class:`Buffer` is the root symbol plus the sum of the constants added to it; parts that are not
constants (the thread's index, a stage counter) are offsets *within* the buffer and are dropped.
So `smem + 4096 + tid * 16` and `[smem + 4096]` are one buffer, `smem + 0x8000 + tid * 4` is
another. Matrix descriptors (`wgmma`, `tcgen05.mma`/`cp`) encode their start address as
`(address & 0x3FFFF) >> 4`: the same arithmetic seen backwards gives their buffer, and an
addition to a descriptor (advancing along K) moves it by 16 bytes per unit.

Where the arithmetic is anything else, or a register has several definitions that disagree,
the buffer is unknown (None): the rules then assume *no* conflict (precision first).
"""

from __future__ import annotations

import enum
from typing import Callable, Final, NamedTuple, Sequence

from ptxlint.analyses.registers import Registers
from ptxlint.context import ModuleContext
from ptxlint.ir import Address, Function, Immediate, Instruction, Operand, Register, Symbol, VariableDeclaration, Vector
from ptxlint.passes import Describe, Pass


class Buffer(NamedTuple):
    """A shared-memory buffer: a `.shared` variable and the constant offset into it, and the
    registers added to that (``parts``: a thread index, a stage counter; none when the address
    is exactly the constant one)."""

    root: str
    offset: int
    parts: frozenset[str] = frozenset()

    @property
    def exact(self) -> bool:
        return not self.parts

    def __str__(self) -> str:
        text = f"{self.root}+{self.offset}" if self.offset else self.root
        return text if self.exact else text + "+..."

    def same(self, other: Buffer) -> bool:
        """Whether two accesses name one buffer: the same variable at the same constant offset,
        whatever is added within it."""
        return self.root == other.root and self.offset == other.offset

    def identical(self, other: Buffer) -> bool:
        """Whether two addresses are one expression: the same buffer plus the same registers."""
        return self.same(other) and self.parts == other.parts

    def overlaps(self, size: int | None, other: Buffer, other_size: int | None) -> bool:
        """Whether two accesses of known sizes from addresses that differ by a constant (the
        same variable plus the same registers) share a byte: a 4-byte store at `+188` inside a
        512-byte copy from `+128`."""
        if size is None or other_size is None or self.root != other.root or self.parts != other.parts:
            return False
        return self.offset < other.offset + other_size and other.offset < self.offset + size


class _Location(NamedTuple):
    buffer: Buffer
    descriptor: bool  # encoded as a matrix descriptor's start address (the address >> 4)


# A 32-bit constant: the value, for arithmetic on known numbers.
_Value = _Location | int | None

# Descriptors keep address bits 4..17 in their low 14 bits.
_DESCRIPTOR_ADDRESS_BITS = 0x3FFF
_ADDRESS_BITS = 0x3FFFF
# The low bits an alignment mask may drop (1024 bytes; 64 units in a descriptor).
_ALIGNMENT_BITS = 0x3FF
_DESCRIPTOR_ALIGNMENT_BITS = 0x3F


class _Unseen(enum.Enum):
    """Not evaluated yet (an enum member, so that type checkers tell it from a value)."""

    UNSEEN = "unseen"


_UNSEEN: Final = _Unseen.UNSEEN

# Moves and conversions that keep a value (an address stays an address).
_KEEPING = frozenset({"mov", "cvt", "cvta"})


class SharedBuffers:
    """The buffer of each shared-memory address or descriptor operand of one function, computed
    on demand (only the instructions the async-proxy rules look at are asked about)."""

    def __init__(self, function: Function, shared_symbols: frozenset[str], block_of: Callable[[int], int], registers: Registers) -> None:
        self._instructions = function.instructions
        self._block_of = block_of
        self._shared = shared_symbols | frozenset(
            variable.name for variable in function.variables if _is_shared_variable(variable)
        )
        # Registers by scoped key: inline asm's `.reg .b64 %tmp;` is one register per declaring
        # scope, however many blocks reuse the name.
        self._registers = registers
        self._values: dict[str, _Value] = {}
        self._evaluating: set[str] = set()
        self._defined_values: dict[int, _Value] = {}
        self._defining: set[int] = set()

    def of_address(self, operand: Operand, at: int) -> Buffer | None:
        """The buffer an address operand (`[sym+8]`, `[%r5]`) of instruction ``at`` points into."""
        value = self._operand(operand, at)
        return value.buffer if type(value) is _Location and not value.descriptor else None

    def of_descriptor(self, operand: Operand, at: int) -> Buffer | None:
        """The buffer a matrix descriptor operand (a 64-bit register) of instruction ``at`` describes."""
        value = self._operand(operand, at)
        return value.buffer if type(value) is _Location and value.descriptor else None

    # -- evaluation

    def _operand(self, operand: Operand, at: int) -> _Value:
        """The value of ``operand`` as instruction ``at`` reads it."""
        if type(operand) is Register:
            return self._register(self._registers.key(operand.name, self._instructions[at].scope), at)
        if type(operand) is Immediate:
            return operand.value if type(operand.value) is int else None
        if type(operand) is Symbol:
            return _Location(Buffer(operand.name, 0), False) if operand.name in self._shared else None
        if type(operand) is Address:
            base = operand.base
            if base is None or type(base) not in (Register, Symbol, Immediate):
                return None
            return _add(self._operand(base, at), operand.offset)
        if type(operand) is Vector and operand.elements:  # mov.b64 %rd, {lo, hi}: the low half carries the address
            return self._operand(operand.elements[0], at)
        return None

    def _register(self, key: str, at: int) -> _Value:
        """A register's value at instruction ``at``: its one definition's, or, where the compiler
        reused the name, the definition earlier in ``at``'s own block when there is one (else
        the definitions must agree)."""
        writers = self._registers.writers.get(key, ())
        if len(writers) > 1:
            block = self._block_of(at)
            local = [index for index in writers if index < at and self._block_of(index) == block]
            if local:
                return self._value_of(local[-1])
        return self._values_of(key, writers)

    def _values_of(self, key: str, writers: Sequence[int]) -> _Value:
        if key in self._values:
            return self._values[key]
        if key in self._evaluating:
            return None  # a value defined through itself (a loop counter): not a constant buffer
        self._evaluating.add(key)
        values = {self._value_of(index) for index in writers}
        self._evaluating.discard(key)
        value = values.pop() if len(values) == 1 else None
        self._values[key] = value
        return value

    def _value_of(self, index: int) -> _Value:
        """What instruction ``index`` writes, once per instruction."""
        known = self._defined_values.get(index, _UNSEEN)
        if known is _UNSEEN:
            if index in self._defining:
                return None  # defined through itself
            self._defining.add(index)
            known = self._defined_values[index] = self._defined(index)
            self._defining.discard(index)
        return known

    def _defined(self, index: int) -> _Value:
        """The value instruction ``index`` gives the register it writes."""
        instruction = self._instructions[index]
        base = instruction.opcode.base
        sources = instruction.sources
        if base in _KEEPING and len(sources) == 1:
            return self._operand(sources[0], index)
        if base == "mov" and instruction.destination_count == 1 and type(instruction.operands[0]) is Vector:
            return None  # unpacking a 64-bit value: the halves are not addresses
        if len(sources) == 2:
            first, second = self._operand(sources[0], index), self._operand(sources[1], index)
            return _binary(base, first, second, _names(sources))
        if base == "bfe" and len(sources) == 3:
            # bfe.u32 d, address, 4, 14 (or wider): the descriptor's start-address field.
            value, start, length = (self._operand(source, index) for source in sources)
            if type(value) is _Location and not value.descriptor and start == 4 and type(length) is int and length >= 14:
                return _Location(value.buffer, True)
            return None
        if base == "mad" and len(sources) == 3:
            # mad.lo d, a, b, c: c plus a product that is an offset within the buffer.
            addend = self._operand(sources[2], index)
            return _inexact(addend, "*".join(_names(sources[:2]))) if type(addend) is _Location else None
        return None


def _add(value: _Value, constant: int) -> _Value:
    if constant == 0 or value is None:
        return value
    if isinstance(value, int):
        return value + constant
    buffer = value.buffer
    return _Location(buffer._replace(offset=buffer.offset + constant * (16 if value.descriptor else 1)), value.descriptor)


def _inexact(location: _Location, part: str) -> _Location:
    """``location`` plus ``part``, which is not a constant: an offset within the buffer."""
    buffer = location.buffer
    return location._replace(buffer=buffer._replace(parts=buffer.parts | {part}))


def _names(operands: tuple[Operand, ...]) -> list[str]:
    return [operand.name if type(operand) is Register else "?" for operand in operands]


def _binary(base: str, first: _Value, second: _Value, names: list[str]) -> _Value:
    """``first base second`` in the abstract: constants fold, an address plus a constant moves,
    an address plus anything else stays in its buffer."""
    if type(first) is int and type(second) is int:
        if base == "add":
            return first + second
        if base == "sub":
            return first - second
        if base == "shl":
            return first << second if 0 <= second < 64 else None
        if base == "mul":
            return first * second
        return None
    if type(second) is _Location and type(first) is not _Location and base in ("add", "xor"):
        first, second = second, first
        names = names[::-1]
    if type(first) is not _Location or type(second) is _Location:
        return None
    location = first
    if base == "add":
        return _add(location, second) if type(second) is int else _inexact(location, names[1])
    if base == "sub":
        return _add(location, -second) if type(second) is int else None
    if base == "xor" and not location.descriptor:
        # A swizzle (`addr ^ ((addr & 0x380) >> 3)`): low bits permuted within the buffer.
        return _inexact(location, f"^{names[1]}")
    if base == "shr" and second == 4 and not location.descriptor:
        return _Location(location.buffer, True)
    if base == "and" and type(second) is int:
        # Keeping every address bit, or dropping only an alignment's worth of low bits (the
        # 1024-byte swizzle atom a descriptor's base is rounded to).
        kept = _DESCRIPTOR_ADDRESS_BITS if location.descriptor else _ADDRESS_BITS
        if second & kept == kept:
            return location
        alignment = _DESCRIPTOR_ALIGNMENT_BITS if location.descriptor else _ALIGNMENT_BITS
        return _inexact(location, f"&{second}") if (second | alignment) & kept == kept else None
    if base == "or" and type(second) is int and location.descriptor:
        return location if second & _DESCRIPTOR_ADDRESS_BITS == 0 else None
    return None


def _is_shared_variable(declaration: object) -> bool:
    """A `.shared` variable (broken input can put other declarations among a scope's variables)."""
    return type(declaration) is VariableDeclaration and declaration.space == ".shared"


def _build(context: ModuleContext, function: Function) -> SharedBuffers:
    shared = frozenset(variable.name for variable in context.module.variables if _is_shared_variable(variable))
    return SharedBuffers(function, shared, context.result("cfg", function).block_of, context.result("registers", function))


def _describe(buffers: SharedBuffers, function: Function) -> Describe:
    """The buffer of each shared-memory address or descriptor an instruction uses (``smem+4096``),
    ``?`` where it is unknown."""

    def describe(index: int, instruction: Instruction) -> str:
        found = []
        for operand in instruction.operands:
            if type(operand) is Address:
                buffer = buffers.of_address(operand, index)
            elif type(operand) is Register and instruction.opcode.base in ("wgmma", "tcgen05"):
                buffer = buffers.of_descriptor(operand, index)
                if buffer is None:
                    continue
            else:
                continue
            found.append(str(buffer) if buffer is not None else "?")
        return " ".join(found) or "-"

    return describe


PASSES = (
    Pass(
        "shared_buffers",
        "which shared-memory buffer (a `.shared` variable and constant offset) each address and matrix descriptor names",
        _build,
        per_function=True,
        requires=("cfg", "registers"),
        printer=_describe,
    ),
)
