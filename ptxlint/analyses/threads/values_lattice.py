"""The abstract values of the per-warp values analysis (:mod:`ptxlint.analyses.threads.values`),
how two of them join, and what integer arithmetic does to them, warp by warp.

The analysis gives each register one of these abstract values:

- absent from the state: unknown, and not computed from the thread or warp index by arithmetic
  this analysis follows (parameters, loop counters, loaded data);
- an *entry*, the same in every warp: an integer, a predicate (`True`/`False`), a
  :class:`SharedAddress` (`symbol + offset`) or a :class:`TensorAddress` (the address
  `tcgen05.alloc` wrote, plus a lane and a column offset);
- a tuple of entries, one per warp of the CTA (warp-uniform, but different between warps), where
  ``None`` means unknown for that warp: `%tid.x >> 5` is ``(0, 1, 2, …)``;
- a :class:`ThreadFunction`: a short chain of arithmetic on the linear thread index (`%tid.x`
  of a one-dimensional block; `%tid.y` is `t / ntid.x % ntid.y` when `.reqntid` gives the block's
  shape). It differs between lanes, but once every warp's 32 lanes agree on its value
  (`%tid.x >> 5`, `(%tid.x << 16) & 0x600000`, `%tid.x > 31`, `%tid.y` of a 32-wide block) it
  becomes a per-warp value;
- :data:`VARYING`: unknown and possibly different between warps or lanes.

Arithmetic is evaluated per warp. The allocation's address has lane field 0 and an unknown first
column, so a :class:`TensorAddress` keeps offsets relative to it. Adding an absent (unknown,
warp-independent) value to a TMEM address is taken to move its column only: lane offsets that
matter are computed from the warp index, and a column offset that carried into the lane field
would address a column past the 512 that exist.
"""

from __future__ import annotations

from dataclasses import field as dataclass_field
from typing import Callable, Union

from ptxlint.analyses.threads.tid_fields import TID_X, TidBits, field_operation
from ptxlint.ir import Instruction
from ptxlint.isa.comparisons import RELATIONS, holds
from ptxlint.isa.tcgen05 import COLUMN_MASK, LANE_SHIFT
from ptxlint.isa.types import integer_types
from ptxlint.records import record


@record(slots=True)
class SharedAddress:
    """The address of a variable plus a constant (`smem + 131168`)."""

    symbol: str
    offset: int

    @property
    def key(self) -> str:
        return f"{self.symbol}+{self.offset}"


@record(slots=True)
class TensorAddress:
    """The TMEM address `tcgen05.alloc` stored at ``slot``, plus ``lane`` lanes and ``column``
    columns (``None``: a column offset that is not known)."""

    slot: str
    lane: int
    column: int | None


class Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


VARYING = Marker("VARYING")

# Longest chain of operations followed on the thread index before giving up (nvcc needs two or
# three; `%tid.y` starts with two).
MAX_THREAD_STEPS = 8


@record(slots=True)
class ThreadFunction:
    """The linear thread index followed by ``steps``: (operation, operand, bits) applied in order.
    The operand is a constant, another ThreadFunction (`%tid.x + %tid.y * 32`) or a per-warp
    tuple of integers.

    While the steps are shifts and masks that keep the value a bit field of the thread index,
    ``field`` is that value in uniformity's form (:class:`TidBits`), computed by the same
    :func:`field_operation`: it is evaluated in closed form, and a field above bit 4 gives each
    warp its value without looking at its lanes."""

    steps: tuple[ThreadStep, ...] = ()
    field: TidBits | None = dataclass_field(default=None, compare=False)

    def then(self, step: ThreadStep) -> ThreadFunction | None:
        if len(self.steps) >= MAX_THREAD_STEPS:
            return None
        return ThreadFunction(self.steps + (step,), _field_after(self.field, step))

    def evaluate(self, thread: int) -> int | None:
        field = self.field
        if field is not None:
            return field.at(thread)
        value = thread
        for operation_name, operand, bits in self.steps:
            kind = type(operand)  # mypy does not narrow through ``kind``: the ignores below
            if kind is ThreadFunction:
                operand = operand.evaluate(thread)  # type: ignore[union-attr]
            elif kind is tuple:
                warp = thread >> 5
                operand = operand[warp] if warp < len(operand) else None  # type: ignore[index,arg-type]
            if type(operand) is not int:
                return None
            value = THREAD_STEPS[operation_name](value, operand, bits)
            if value is None:
                return None
        return value


# The steps that can keep a thread function a field, and the largest thread index (1024 threads).
_FIELD_STEPS = frozenset({"shr", "shl", "and", "div", "rem"})
_THREAD_INDEX_BITS = 10


def _field_after(field: TidBits | None, step: ThreadStep) -> TidBits | None:
    """The field a step leaves, when it is one the step's chain computes exactly: a plain field
    whose every value fits the step's register below its sign bit, so that the chain's wrapping
    and signedness never apply (else None, and the chain is evaluated)."""
    operation_name, operand, bits = step
    if field is None or type(operand) is not int or operation_name not in _FIELD_STEPS:
        return None
    handled, result, _ = field_operation(field, operation_name, operand, True)
    if not handled or result is None or not result.plain:
        return None
    top = _THREAD_INDEX_BITS if result.high is None else min(result.high, _THREAD_INDEX_BITS)
    largest = ((1 << (top - result.low)) - 1) << result.position if top > result.low else 0
    return result if largest < 1 << min(bits, 31) else None


THREAD_INDEX = ThreadFunction((), TID_X)

Entry = Union[int, bool, SharedAddress, TensorAddress, None]
Value = Union[Entry, tuple[Entry, ...], Marker, ThreadFunction]
# (operation, operand, bits): the operand a constant, another thread function or a per-warp table.
ThreadStep = tuple[str, Union[int, ThreadFunction, tuple[Entry, ...]], int]


@record
class ValueState:
    """Registers with a tracked value (treat ``registers`` as read-only) and the shared-memory
    slots a `tcgen05.alloc` may have written on some path here."""

    registers: dict[str, Value]
    slots: frozenset[str]


# ----------------------------------------------------------------------------- lattice


def join_values(first: Value, second: Value) -> Value:
    """The least value that describes both (``None`` stands for absent)."""
    if first == second:
        return first
    if first is VARYING or second is VARYING or type(first) is ThreadFunction or type(second) is ThreadFunction:
        return VARYING
    if first is None or second is None:
        other = second if first is None else first
        return None if _column_like(other) else VARYING
    if type(first) is tuple or type(second) is tuple:
        return normalise(tuple(_join_entries(a, b) for a, b in zip(per_warp(first, second), per_warp(second, first))))
    joined = _join_entries(first, second)  # type: ignore[arg-type]  # entries: the tests above
    if joined is None:
        # Two different warp-independent values: which one a warp holds depends on the path it
        # took. Small integers (column offsets, loop counters) stay "unknown, warp-independent";
        # anything that may carry a lane offset may now differ between warps.
        return None if _column_like(first) and _column_like(second) else VARYING
    return joined


def join_registers(first: dict[str, Value], second: dict[str, Value]) -> dict[str, Value]:
    """Join two register maps. States share value objects (they are copied on write), so an
    identity test settles most registers without comparing or hashing per-warp tables."""
    registers: dict[str, Value] = {}
    for name, value in first.items():
        other = second.get(name)
        joined = value if other is value else join_values(value, other)
        if joined is not None:
            registers[name] = joined
    for name, value in second.items():
        if name not in first:
            joined = join_values(None, value)
            if joined is not None:
                registers[name] = joined
    return registers


def _column_like(value: Value) -> bool:
    """Values whose merging cannot hide a lane offset: small integers, predicates, shared
    addresses."""
    if type(value) is bool or type(value) is SharedAddress:
        return True
    return type(value) is int and 0 <= value <= COLUMN_MASK


def _join_entries(first: Entry, second: Entry) -> Entry:
    if first == second:
        return first
    if type(first) is TensorAddress and type(second) is TensorAddress:
        if first.slot == second.slot and first.lane == second.lane:
            return TensorAddress(first.slot, first.lane, None)
    return None


def per_warp(value: Value, shaped_like: Value) -> tuple[Entry, ...]:
    if type(value) is tuple:
        return value
    width = len(shaped_like)  # type: ignore[arg-type]
    return (value,) * width  # type: ignore[return-value]  # callers pass an entry, not VARYING


def normalise(entries: tuple[Entry, ...]) -> Value:
    """A per-warp tuple whose entries are all equal and known is a warp-independent entry; one
    whose entries are all unknown is VARYING."""
    first = entries[0]
    if all(entry == first for entry in entries):
        return VARYING if first is None else first
    return entries


def entry_for_warp(value: Value, warp: int) -> Entry:
    """What warp ``warp`` holds, or None when unknown."""
    if type(value) is tuple:
        return value[warp] if warp < len(value) else None
    if value is VARYING or type(value) is ThreadFunction:
        return None
    return value  # type: ignore[return-value]


# ----------------------------------------------------------------------------- arithmetic


def wrap(value: int, bits: int) -> int:
    return value & ((1 << bits) - 1)


def _signed(value: int, bits: int) -> int:
    value = wrap(value, bits)
    return value - (1 << bits) if value >> (bits - 1) else value


def integer_width(instruction: Instruction) -> tuple[int, bool]:
    """Bits and signedness of the instruction's (last) integer type (`.s32` → 32, True)."""
    types = integer_types(instruction.opcode.modifiers)
    return types[-1] if types else (32, False)


class _Opaque:
    """An absent operand inside per-warp arithmetic: unknown but warp-independent."""

    def __repr__(self) -> str:
        return "OPAQUE"


OPAQUE = _Opaque()

# What per-warp arithmetic takes: an entry, or OPAQUE for an absent (unknown, warp-independent) one.
Argument = Union[Entry, _Opaque]
# An operation on two arguments in ``bits``-bit registers.
BinaryOperation = Callable[[Argument, Argument, int], Entry]


def add_values(a: Argument, b: Argument, bits: int) -> Entry:
    if type(a) is TensorAddress or type(b) is TensorAddress:
        address: TensorAddress
        address, other = (a, b) if type(a) is TensorAddress else (b, a)  # type: ignore[assignment]  # one is
        return _offset_tensor_address(address, other)
    if type(a) is SharedAddress and type(b) is int:
        return SharedAddress(a.symbol, a.offset + b)
    if type(b) is SharedAddress and type(a) is int:
        return SharedAddress(b.symbol, b.offset + a)
    if type(a) is int and type(b) is int:
        return wrap(a + b, bits)
    return None


def _offset_tensor_address(address: TensorAddress, delta: Argument) -> TensorAddress | None:
    if delta is OPAQUE:
        return TensorAddress(address.slot, address.lane, None)
    if type(delta) is not int or type(delta) is bool:
        return None
    delta = _signed(delta, 32)
    if address.column is None:
        return TensorAddress(address.slot, address.lane + (delta >> LANE_SHIFT), None)
    total = (address.lane << LANE_SHIFT) + address.column + delta
    return TensorAddress(address.slot, total >> LANE_SHIFT, total & COLUMN_MASK)


def _or(a: Argument, b: Argument, bits: int) -> Entry:
    """`or` into a TMEM address whose lane offset is 0 sets the lane field (CUTLASS builds
    addresses as `base | lane << 16`); the base's own column is unknown, so low bits make the
    column unknown."""
    if type(a) is TensorAddress or type(b) is TensorAddress:
        address: TensorAddress
        address, other = (a, b) if type(a) is TensorAddress else (b, a)  # type: ignore[assignment]  # one is
        if type(other) is not int:
            return None
        lane = address.lane | (other >> LANE_SHIFT)
        column = address.column if other & COLUMN_MASK == 0 else None
        return TensorAddress(address.slot, lane, column)
    if type(a) is int and type(b) is int:
        return wrap(a | b, bits)
    return None


def on_integers(function: Callable[[int, int], int]) -> BinaryOperation:
    def apply(a: Argument, b: Argument, bits: int) -> Entry:
        if type(a) is int and type(b) is int:
            return wrap(function(a, b), bits)
        return None

    return apply


def _shift_right(signed: bool) -> BinaryOperation:
    def apply(a: Argument, b: Argument, bits: int) -> Entry:
        if type(a) is not int or type(b) is not int:
            return None
        return wrap((_signed(a, bits) if signed else a) >> min(b, bits), bits)

    return apply


def _divide(signed: bool) -> BinaryOperation:
    def apply(a: Argument, b: Argument, bits: int) -> Entry:
        if type(a) is not int or type(b) is not int or b == 0:
            return None
        if signed:
            x, y = _signed(a, bits), _signed(b, bits)
            quotient = abs(x) // abs(y)
            return wrap(quotient if (x < 0) == (y < 0) else -quotient, bits)
        return a // b

    return apply


def minimum(signed: bool, larger: bool) -> BinaryOperation:
    def apply(a: Argument, b: Argument, bits: int) -> Entry:
        if type(a) is not int or type(b) is not int:
            return None
        key = (lambda v: _signed(v, bits)) if signed else (lambda v: v)
        return max(a, b, key=key) if larger else min(a, b, key=key)

    return apply


def comparison(name: str, signed: bool) -> BinaryOperation:
    relation = RELATIONS[name]
    order = relation.order
    signed = signed and not relation.unsigned

    def apply(a: Argument, b: Argument, bits: int) -> Entry:
        if type(a) is bool or type(b) is bool or type(a) is not int or type(b) is not int:
            return None
        if signed:
            return holds(order, _signed(a, bits), _signed(b, bits))
        return holds(order, a, b)

    return apply


def _logical(function: Callable[[bool, bool], bool]) -> BinaryOperation:
    def apply(a: Argument, b: Argument, bits: int) -> Entry:
        if type(a) is bool and type(b) is bool:
            return function(a, b)
        return None

    return apply


# Operations followed on `%tid.x`: (value, constant, bits) → value.
THREAD_STEPS: dict[str, Callable[[int, int, int], int | None]] = {
    "shl": lambda value, amount, bits: wrap(value << min(amount, 64), bits),
    "shr": lambda value, amount, bits: wrap(value, bits) >> min(amount, 64),
    "and": lambda value, mask, bits: wrap(value & mask, bits),
    "or": lambda value, mask, bits: wrap(value | mask, bits),
    "add": lambda value, addend, bits: wrap(value + addend, bits),
    "sub": lambda value, subtrahend, bits: wrap(value - subtrahend, bits),
    "rsub": lambda value, minuend, bits: wrap(minuend - value, bits),
    "mul": lambda value, factor, bits: wrap(value * factor, bits),
    "xor": lambda value, mask, bits: wrap(value ^ mask, bits),
    "div": lambda value, divisor, bits: value // divisor if divisor > 0 else None,
    "rem": lambda value, divisor, bits: value % divisor if divisor > 0 else None,
}

BINARY_OPERATIONS: dict[str, BinaryOperation] = {
    "add": add_values,
    "sub": lambda a, b, bits: add_values(a, wrap(-b, bits), bits) if type(b) is int and type(b) is not bool else (
        TensorAddress(a.slot, a.lane, None) if type(a) is TensorAddress and b is OPAQUE else None),
    "mul": on_integers(lambda a, b: a * b),
    "shl": on_integers(lambda a, b: a << min(b, 64)),
    "and": on_integers(lambda a, b: a & b),
    "or": _or,
    "xor": on_integers(lambda a, b: a ^ b),
    "rem": lambda a, b, bits: a % b if type(a) is int and type(b) is int and b > 0 else None,
    "min": minimum(False, False),
    "max": minimum(False, True),
}
SIGNED_OPERATIONS: dict[str, Callable[[bool], BinaryOperation]] = {
    "shr": _shift_right,
    "div": _divide,
    "min": lambda signed: minimum(signed, False),
    "max": lambda signed: minimum(signed, True),
}
LOGICAL_OPERATIONS: dict[str, BinaryOperation] = {
    "and": _logical(lambda a, b: a and b),
    "or": _logical(lambda a, b: a or b),
    "xor": _logical(lambda a, b: a != b),
}
