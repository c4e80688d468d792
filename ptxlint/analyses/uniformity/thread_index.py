"""Thread-index arithmetic: the exact forms of values computed from `%tid.x`.

A value of the uniformity lattice may carry an exact symbolic form (``Value.bits``): a constant,
a uniform multiple of a power of two, a `%tid.x` bit field plus an addend (:class:`TidBits`),
the `%tid.x` bits each result bit depends on (:class:`TidDependence`), or, for predicates, the
exact set of threads in which it is true (:class:`TidSet`). This module is the transfer of those
forms through integer arithmetic, and the level each form implies: `%tid.x >> 5` is one value per
warp, `%tid.x & 31` the lane. Comparisons of the forms (`(%tid.x & 127) < 32` holds for whole
warps, `%tid.x == 0` in one thread) are ``thread_comparisons.py``; values that are the same
function of the lane in every warp, ``lane_functions.py``.

It knows nothing of registers or control: the uniformity transfer (``data.py``) evaluates the
operands and hands their values here.
"""

from __future__ import annotations

from ptxlint import ir
from ptxlint.analyses.threads.tid_fields import (
    Constant,
    LaneModel,
    Level,
    Multiple,
    TidBits,
    TidDependence,
    alignment_of,
    carried,
    combined,
    dependence_of,
    field_operation,
    mask,
    masked,
    power_of_two,
    shift_left,
    shift_right,
    shifted_left,
    shifted_right,
)
from ptxlint.analyses.threads.lane_sets import ThreadSpace
from ptxlint.analyses.uniformity.lattice import UNIFORM, Value, at_most, constant_of, join, multiple_of, without_bits
from ptxlint.isa.types import integer_types


_INTEGER_TYPE_PREFIXES = ("u", "s", "b")
_ZERO = Value(Level.CTA, Constant(0))
# The widest register: shifting a value this far or further leaves nothing.
_REGISTER_BITS = 64
_WORD_BITS = 32  # the alignment of 0
# Integer operations whose result bits depend on known bits of their operands.
_DEPENDENCE_OPERATIONS = frozenset({"and", "or", "xor", "shl", "shr", "add", "sub", "mul", "mad"})


def integer_only(opcode: ir.Opcode) -> bool:
    """The opcode's types are all integer (`u`, `s`, `b`): arithmetic on it keeps exact forms."""
    known = _INTEGER_ONLY.get(opcode.text)
    if known is None:
        types = [modifier for modifier in opcode.modifiers if modifier[:1] in "usbf" and modifier[1:].isdigit()]
        known = _INTEGER_ONLY[opcode.text] = bool(types) and all(modifier[0] in _INTEGER_TYPE_PREFIXES for modifier in types)
    return known


_INTEGER_ONLY: dict[str, bool] = {}


class ThreadIndexArithmetic:
    """The arithmetic of one function: ``lanes`` says how `%tid.x` bits map to lanes, warps and
    warpgroups; ``space``, when the warps are known, gives exact thread sets to comparisons."""

    def __init__(self, lanes: LaneModel, space: ThreadSpace | None) -> None:
        self.lanes = lanes
        self.space = space

    def arithmetic(self, opcode: ir.Opcode, values: list[Value]) -> Value:
        """Integer `mov`/`cvt`/`add`/`mul`/`mad`/`shr`/`shl`/`and`/`div`/`rem`/`bfe` of operands
        with these values keep exact forms (constants, `%tid.x` bit fields); anything else is
        the join of the operands."""
        if opcode.base in ("mov", "cvt") or not any(type(value.bits) is TidDependence for value in values):
            exact = self._exact(opcode.base, opcode, values)
            if exact is not None:
                return exact
        dependent = self._dependence(opcode, values)
        if dependent is not None:
            return dependent
        fallback = UNIFORM
        for value in values:
            fallback = join(fallback, value)
        return without_bits(fallback)

    def _exact(self, base: str, opcode: ir.Opcode, values: list[Value]) -> Value | None:
        if base == "mov" or base == "cvt":
            return values[0] if len(values) == 1 else None
        if base in ("add", "sub", "or", "xor") and len(values) == 2:
            return self._add(base, values[0], values[1])
        if base == "mul" and len(values) == 2 and not opcode.has("hi"):
            return self._multiply(values[0], values[1])
        if base == "mad" and len(values) == 3 and not opcode.has("hi"):
            product = self._multiply(values[0], values[1])
            return None if product is None else self._add("add", product, values[2])
        if base == "bfe" and len(values) == 3:
            return self._bit_field_extract(values)
        first = values[0]
        constant = constant_of(values[1]) if len(values) == 2 else None
        if base == "shl" and constant is not None and constant >= _REGISTER_BITS:
            return _ZERO  # PTX clamps the shift to the register's width: nothing is left
        if constant is None:
            return None
        if type(first.bits) is TidBits:
            return self._bits_value(base, opcode, first.bits, constant, first)
        if base == "and" and first.level != Level.THREAD and constant_of(first) is None:
            return self._masked_alignment(first, constant)
        if first.bits is None and first.level in (Level.CTA, Level.THREAD):
            return None
        return self._uniform_arithmetic(base, first, constant)

    def _masked_alignment(self, first: Value, constant: int) -> Value:
        """`x & c` of a uniform value nothing else is known of: a multiple of the lowest set bit
        of ``c`` (NCCL's thread count, `(word >> 11) & 0x1fe0`, is a multiple of 32)."""
        if constant == 0:
            return _ZERO
        alignment = max(alignment_of(first.bits), (constant & -constant).bit_length() - 1)
        if first.level == Level.CTA:
            return multiple_of(alignment)
        return Value(first.level, Multiple(alignment), first.origin) if alignment else without_bits(first)

    def _dependence(self, opcode: ir.Opcode, values: list[Value]) -> Value | None:
        """Bitwise arithmetic on `%tid.x` fields that no single field describes, as the
        `%tid.x` bits each result bit depends on (see :class:`TidDependence`)."""
        base = opcode.base
        if base not in _DEPENDENCE_OPERATIONS or not any(type(value.bits) in (TidBits, TidDependence) for value in values):
            return None
        tid_bits = self.lanes.tid_bits
        dependences = []
        for value in values:
            exact = type(value.bits) in (TidBits, TidDependence)
            dependence = dependence_of(value.bits, tid_bits) if exact or value.level == Level.CTA else None
            if dependence is None:
                return None
            dependences.append(dependence)
        constants = [constant_of(value) for value in values]
        types = integer_types(opcode.modifiers)
        width = types[0][0] if types else 32
        if base in ("shl", "shr"):
            amount = constants[1] if len(values) == 2 else None
            if amount is None or not 0 <= amount < width:
                return None
            signed = base == "shr" and opcode.has(f"s{width}")
            result = shifted_left(dependences[0], amount) if base == "shl" else shifted_right(dependences[0], amount, width, signed)
        elif base == "and" and len(values) == 2 and (constants[0] is not None or constants[1] is not None):
            constant, other = (constants[1], dependences[0]) if constants[1] is not None else (constants[0], dependences[1])
            result = masked(other, constant)  # type: ignore[arg-type]  # not None: the test above
        elif base in ("and", "or", "xor"):
            result = dependences[0]
            for dependence in dependences[1:]:
                result = combined(result, dependence)
        else:  # add, sub, mul, mad: carries
            if base in ("mul", "mad") and opcode.has("hi"):
                return None
            result = dependences[0]
            for dependence in dependences[1:]:
                result = combined(result, dependence)
            result = carried(result)
        if result.lowest is None:
            return Value(Level.CTA)
        varying = max(values, key=lambda value: value.level)
        return at_most(Value(varying.level, result, varying.origin), self.lanes.level_of_dependence(result))

    def _add(self, base: str, first: Value, second: Value) -> Value | None:
        """`a + b`: a field plus a uniform addend stays a field (`ctaid * ntid + tid`; a
        warp-uniform multiple of 32 in `tid.y * ntid.x + tid.x`); `or` and `xor` only with 0,
        `sub` only of a uniform value from a field."""
        if base != "add" and base != "sub":
            if constant_of(second) == 0:
                return first
            return second if constant_of(first) == 0 and base != "sub" else None
        sign = -1 if base == "sub" else 1
        if base == "sub" and type(first.bits) is TidBits and type(second.bits) is TidBits:
            return self._low_part(first, first.bits, second.bits)
        if type(first.bits) is not TidBits and type(second.bits) is TidBits and base == "add":
            first, second = second, first
        if type(first.bits) is TidBits:
            if second.level == Level.THREAD:
                return None
            bits = first.bits
            constant = constant_of(second)
            if constant is not None:
                bits = TidBits(bits.low, bits.high, bits.position, bits.offset + sign * constant, bits.unknown, bits.unknown_level)
            else:
                alignment = alignment_of(second.bits)
                unknown = alignment if bits.unknown is None else min(bits.unknown, alignment)
                level = second.level if bits.unknown is None else max(bits.unknown_level, second.level)
                bits = TidBits(bits.low, bits.high, bits.position, bits.offset, unknown, level)
            return Value(first.level, bits, first.origin)
        if first.level != Level.CTA or second.level != Level.CTA:
            # Warp-uniform multiples (a thread count less a warp, chosen per warp) stay multiples.
            alignment = min(alignment_of(first.bits), alignment_of(second.bits))
            if not alignment or Level.THREAD in (first.level, second.level):
                return None
            varying = first if first.level >= second.level else second
            return Value(varying.level, Multiple(min(alignment, _WORD_BITS)), varying.origin)
        first_constant, second_constant = constant_of(first), constant_of(second)
        if first_constant is not None and second_constant is not None:
            return Value(Level.CTA, Constant(first_constant + sign * second_constant))
        return multiple_of(min(alignment_of(first.bits), alignment_of(second.bits)))

    def _low_part(self, value: Value, whole: TidBits, upper: TidBits) -> Value | None:
        """`x - (x & -2**k)`: a field minus its own bits from ``k`` up is its low bits (nvcc's
        `threadIdx.x % 32` for a signed index: `tid - (tid & -32)`)."""
        top = self.lanes.tid_bits  # a field that runs past the highest `%tid.x` bit runs to the top
        if (
            (whole.high is not None and whole.high < top) or (upper.high is not None and upper.high < top)
            or upper.offset or upper.unknown is not None
            or upper.low <= whole.low or upper.position - upper.low != whole.position - whole.low
        ):  # fmt: skip
            return None
        bits = TidBits(whole.low, upper.low, whole.position, whole.offset, whole.unknown, whole.unknown_level)
        return self._field_value(bits, value)

    def _multiply(self, first: Value, second: Value) -> Value | None:
        if type(first.bits) is not TidBits and type(second.bits) is TidBits:
            first, second = second, first
        constant = constant_of(second)
        if type(first.bits) is TidBits:
            shift = power_of_two(constant) if constant is not None else None
            return None if shift is None else self._field_value(shift_left(first.bits, shift), first)
        if first.level == Level.THREAD or second.level == Level.THREAD or type(second.bits) is TidBits:
            return None
        if first.level != Level.CTA or second.level != Level.CTA:
            # A warp-uniform row times a multiple of 32 (`tid.y * ntid.x`) stays one.
            alignment = alignment_of(first.bits) + alignment_of(second.bits)
            varying = first if first.level >= second.level else second
            return Value(varying.level, Multiple(alignment), varying.origin) if alignment else None
        first_constant = constant_of(first)
        if first_constant is not None and constant is not None:
            return Value(Level.CTA, Constant(first_constant * constant))
        return multiple_of(alignment_of(first.bits) + alignment_of(second.bits))

    def _uniform_arithmetic(self, base: str, first: Value, constant: int) -> Value | None:
        """Shifts and masks of constants and aligned uniform values (a value uniform only over
        warps keeps its level: a shift left only adds to its alignment)."""
        if first.level != Level.CTA:
            if base != "shl" or not 0 <= constant < _REGISTER_BITS:
                return None
            return Value(first.level, Multiple(alignment_of(first.bits) + constant), first.origin)
        value = constant_of(first)
        if base == "shl" and constant >= 0:
            if value is None:
                return multiple_of(alignment_of(first.bits) + constant)
            return Value(Level.CTA, Constant(value << constant))  # constant < 64: see _exact
        if value is None:
            alignment = alignment_of(first.bits)
            if base == "shr" and 0 <= constant < alignment:
                return multiple_of(alignment - constant)  # the low zeros left of an aligned value
            return None
        if base == "shr" and constant >= 0:
            return Value(Level.CTA, Constant(value >> constant))
        if base == "and":
            return Value(Level.CTA, Constant(value & constant))
        return None

    def _bit_field_extract(self, values: list[Value]) -> Value | None:
        """`bfe.u32 d, a, position, length` with constant position and length."""
        position, length = constant_of(values[1]), constant_of(values[2])
        bits = values[0].bits
        if type(bits) is not TidBits or position is None or length is None or position < 0 or length <= 0:
            return None
        if bits.addend_alignment < position + length and not bits.plain:
            return None
        shifted = shift_right(bits.field_only(), position)
        if shifted is None:
            return _ZERO
        field, _ = mask(shifted, (1 << min(length, _REGISTER_BITS)) - 1)  # a longer field is the whole register
        return self._field_value(field, values[0])

    def _field_value(self, bits: TidBits | None, first: Value) -> Value:
        """The value of an exact field result: uniform when the field is empty."""
        if bits is None:
            return _ZERO
        if bits.position >= _REGISTER_BITS:
            return UNIFORM  # shifted out of any register: only the uniform addend is left
        if self.lanes.is_zero(bits):
            if bits.unknown is None:
                return Value(Level.CTA, Constant(bits.offset))
            if bits.unknown_level != Level.CTA:  # only the addend is left, at its own level
                return Value(bits.unknown_level, Multiple(bits.addend_alignment) if bits.addend_alignment else None, first.origin)
            return multiple_of(bits.addend_alignment)
        return at_most(Value(first.level, bits, first.origin), self.lanes.level_of_bits(bits))

    def _bits_value(self, base: str, opcode: ir.Opcode, bits: TidBits, constant: int, first: Value) -> Value | None:
        unsigned = opcode.has("u32") or opcode.has("u64") or opcode.has("b32") or opcode.has("b64")
        handled, new_bits, lowest = field_operation(bits, base, constant, unsigned)
        if not handled:
            return self._shifted_past_addend(base, bits, constant, unsigned, first)
        if new_bits is None and lowest is not None:
            depends_on = TidBits(lowest, None, 0, 0, bits.unknown, bits.unknown_level)  # the addend too
            return at_most(without_bits(first), self.lanes.level_of_bits(depends_on))
        return self._field_value(new_bits, first)

    def _shifted_past_addend(self, base: str, bits: TidBits, constant: int, unsigned: bool, first: Value) -> Value | None:
        """A field plus an addend shifted right past the addend's alignment (`(tid.y * ntid.x +
        tid.x) >> 7`): no longer a field, but the addend has no bits below its alignment, so
        nothing carries up from there: the result depends on the field from that bit up and on
        the addend, and is as uniform as both."""
        amount = constant if base == "shr" else power_of_two(constant) if base == "div" and unsigned else None
        if amount is None or amount < 0 or bits.plain:
            return None
        from_bit = bits.low + max(0, bits.addend_alignment - bits.position)
        level = self.lanes.level_of_group_bits(from_bit)
        if bits.unknown is not None:
            level = max(level, bits.unknown_level)
        return at_most(without_bits(first), level)
