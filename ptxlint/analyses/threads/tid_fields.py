"""Uniformity levels and the lane arithmetic that collapses a thread index into a warp index.

A value's level says over which threads it is known to be equal: the whole CTA, a warpgroup (four
consecutive warps), a warp, or nothing (it varies per thread). Levels form a chain and the join of
two levels is the larger.

With the thread index written as 32·warp + lane, `%tid.x >> 5`, `%tid.x & ~31` and
`%tid.x < 128` are equal across a warp. To see that through the `mov`/`cvt`/`shr`/`and` chains
compilers emit, a value may carry an exact symbolic form :class:`TidBits`: a bit field of
`%tid.x`, shifted into place. The field's lowest bit decides the level; comparisons of a field
with a constant are uniform over every aligned group of threads the threshold does not split.
Whether `%tid.x` bits are warp bits at all depends on the block shape (see
``ptxlint/analyses/launch.py``), which :class:`LaneModel` captures.
"""

from __future__ import annotations

import enum

from ptxlint.analyses.launch import WARP_SIZE, WARPGROUP_SIZE, BlockShape
from ptxlint.analyses.threads.thread_sets import threads_where
from ptxlint.isa.comparisons import NEGATED, holds
from ptxlint.records import record

_WARP_BITS = WARP_SIZE.bit_length() - 1  # 5
_WARPGROUP_BITS = WARPGROUP_SIZE.bit_length() - 1  # 7
_WORD_BITS = 64


class Level(enum.IntEnum):
    """How widely a value is known to be equal; larger is less uniform."""

    CTA = 0
    WARPGROUP = 1
    WARP = 2
    THREAD = 3

    @property
    def adjective(self) -> str:
        return _ADJECTIVES[self]

    @property
    def short(self) -> str:
        return _SHORT_NAMES[self]


_ADJECTIVES = {
    Level.CTA: "CTA-uniform",
    Level.WARPGROUP: "warpgroup-uniform",
    Level.WARP: "warp-uniform",
    Level.THREAD: "thread-varying",
}
_SHORT_NAMES = {Level.CTA: "cta", Level.WARPGROUP: "warpgroup", Level.WARP: "warp", Level.THREAD: "thread"}
LEVELS_BY_SHORT_NAME = {name: level for level, name in _SHORT_NAMES.items()}


@record(slots=True)
class TidBits:
    """The value ``(((%tid.x >> low) mod 2**(high - low)) << position) + offset + U``, where
    ``high`` None means the field runs to the top of the word, and U is an unknown multiple of
    ``2**unknown`` (no such term when ``unknown`` is None), uniform at ``unknown_level``:
    CTA-uniform in `ctaid * ntid + tid`, warp-uniform in the linear thread index
    `tid.y * ntid.x + tid.x` (its low bits are still the lane, its high bits the warp)."""

    low: int
    high: int | None
    position: int
    offset: int = 0
    unknown: int | None = None
    unknown_level: Level = Level.CTA

    @property
    def width(self) -> int:
        return _WORD_BITS if self.high is None else self.high - self.low

    @property
    def plain(self) -> bool:
        """No addend: the value is the shifted field alone."""
        return self.offset == 0 and self.unknown is None

    @property
    def addend_alignment(self) -> int:
        """How many low bits of the addend are known to be zero."""
        alignment = _WORD_BITS if self.offset == 0 else _trailing_zeros(self.offset)
        return alignment if self.unknown is None else min(alignment, self.unknown)

    def field_only(self) -> TidBits:
        return TidBits(self.low, self.high, self.position)

    def at(self, thread: int) -> int | None:
        """The value in the thread whose `%tid.x` is ``thread`` (with no unknown addend), or None
        where it may wrap around in a 32-bit register."""
        value = (((thread >> self.low) & ((1 << min(self.width, _WORD_BITS)) - 1)) << self.position) + self.offset
        return None if value >= 1 << 31 else value


@record(slots=True)
class Constant:
    """A value known exactly (`mov.u32 %r26, 31`)."""

    value: int


@record(slots=True)
class Multiple:
    """A CTA-uniform value that is a multiple of ``2**bits`` (`%ntid.x`, `x << 4`)."""

    bits: int


@record(slots=True)
class TidSet:
    """A predicate that is true exactly in the threads whose `%tid.x` is in ``mask`` (bit t for
    `%tid.x` = t): `setp.ne.s32 %p2, %r1, 0` with `%r1 = %tid.x`."""

    mask: int


@record(slots=True)
class TidBound:
    """A predicate comparing the thread index (`%tid.x` plus a CTA-uniform addend: the global
    index `blockIdx.x * blockDim.x + threadIdx.x`; or plus a warp-uniform multiple of 32: the
    linear index `threadIdx.y * blockDim.x + threadIdx.x`) with a CTA-uniform bound no constant
    fixes (`i < n`), or such a predicate combined with warp-uniform ones: true in a run of
    consecutive thread indices, so it splits at most the warp the bound falls in, and does unless
    the bound is a multiple of 32."""


@record(slots=True)
class TidDependence:
    """A value whose bits depend on `%tid.x` bits in known places, where one field cannot say
    it: bit i is a function of CTA-uniform values and of the `%tid.x` bits set in ``bits[i]``
    (the tuple runs from bit 0 to the highest dependent bit). Bitwise arithmetic on several
    fields leaves these: `((tid << 16) | (tid >> 3)) & 0x600010`, CUTLASS's tensor-memory lane
    base, depends on `%tid.x` bits 5 to 7 only, so it is warp-uniform."""

    bits: tuple[int, ...]

    @property
    def lowest(self) -> int | None:
        """The lowest `%tid.x` bit anything depends on (None: the value is CTA-uniform)."""
        union = 0
        for dependence in self.bits:
            union |= dependence
        return None if union == 0 else _trailing_zeros(union)


Form = TidBits | Constant | Multiple | TidSet | TidBound | TidDependence
TID_X = TidBits(0, None, 0)
_MAX_BLOCK_X = 1024  # the hardware limit on %ntid.x


def alignment_of(form: Form | None) -> int:
    """Known trailing zero bits of a CTA-uniform value's form (0 when unknown)."""
    if type(form) is Constant:
        return _WORD_BITS if form.value == 0 else _trailing_zeros(form.value)
    if type(form) is Multiple:
        return form.bits
    return 0


class LaneModel:
    """What the block shape lets us conclude from `%tid.x` bits.

    ``warp_bits_ok``: threads of one warp agree on every `%tid.x` bit from bit 5 up (the block is
    one-dimensional, or its x extent is a multiple of 32 so warps never straddle rows).
    ``warpgroup_bits_ok``: the same from bit 7 up for warpgroups.
    ``x_bound``: `%tid.x` is below this in every thread (a directive's bound, else the hardware's).
    """

    def __init__(self, shape: BlockShape) -> None:
        x = shape.x
        self.shape = shape
        self.warp_bits_ok = shape.one_dimensional or (x is not None and x % WARP_SIZE == 0)
        self.warpgroup_bits_ok = shape.one_dimensional or (x is not None and x % WARPGROUP_SIZE == 0)
        if x is not None:
            self.x_bound: int = x
        elif shape.one_dimensional and not shape.assumed and shape.max_threads is not None:
            self.x_bound = shape.max_threads
        else:
            self.x_bound = _MAX_BLOCK_X

    def level_of_bits(self, bits: TidBits) -> Level:
        """The level of a value that depends only on `%tid.x` bits from ``bits.low`` up, and on
        its addend."""
        level = Level.CTA if self.is_zero(bits) else self.level_of_group_bits(bits.low)
        return level if bits.unknown is None else max(level, bits.unknown_level)

    def is_zero(self, bits: TidBits) -> bool:
        """Whether the field is 0 in every thread (empty, or above the highest `%tid.x` bit), so
        that only the uniform addend is left."""
        return (bits.high is not None and bits.high <= bits.low) or (1 << bits.low) >= self.x_bound

    def level_of_group_bits(self, group_bits: int) -> Level:
        """The level of a value constant over aligned groups of ``2**group_bits`` threads."""
        if group_bits >= _WARPGROUP_BITS and self.warpgroup_bits_ok:
            return Level.WARPGROUP
        if group_bits >= _WARP_BITS and self.warp_bits_ok:
            return Level.WARP
        return Level.THREAD

    def level_of_dependence(self, dependence: TidDependence) -> Level:
        lowest = dependence.lowest
        return Level.CTA if lowest is None else self.level_of_group_bits(lowest)

    @property
    def tid_bits(self) -> int:
        """How many low bits of `%tid.x` can be non-zero."""
        return (self.x_bound - 1).bit_length() if self.x_bound else 0

    def level_of_threshold(self, bits: TidBits, threshold: int) -> Level:
        """The level of ``value < threshold`` (unsigned) for the field ``bits``."""
        if threshold <= 0:
            return Level.CTA  # never true
        # value < threshold  ⟺  field < ceil(threshold / 2**position)
        #                    ⟺  (tid mod 2**(low + width)) < field_threshold << low
        field_threshold = -((-threshold) >> bits.position)
        if field_threshold >= (1 << min(bits.width, _WORD_BITS)):
            return Level.CTA  # always true
        tid_threshold = field_threshold << bits.low
        modulus_bits = None if bits.high is None else bits.low + bits.width
        if modulus_bits is None and tid_threshold >= self.x_bound:
            return Level.CTA  # every thread is below it
        if modulus_bits is not None and modulus_bits < _WARP_BITS:
            return Level.THREAD  # the field repeats within a warp
        group_bits = _trailing_zeros(tid_threshold)
        if modulus_bits is not None:
            group_bits = min(group_bits, modulus_bits)
        return self.level_of_group_bits(group_bits)


def _trailing_zeros(value: int) -> int:
    return (value & -value).bit_length() - 1


def shift_right(bits: TidBits, amount: int) -> TidBits | None:
    """``bits >> amount``, exact when the addend has no bits below ``amount`` (callers check
    ``addend_alignment``); None when nothing is left (the value is 0)."""
    offset = bits.offset >> amount
    unknown = None if bits.unknown is None else bits.unknown - amount
    level = bits.unknown_level
    if amount <= bits.position:
        return TidBits(bits.low, bits.high, bits.position - amount, offset, unknown, level)
    low = bits.low + amount - bits.position
    if bits.high is not None and low >= bits.high:
        if offset == 0 and unknown is None:
            return None
        return TidBits(0, 0, 0, offset, unknown, level)  # an empty field: only the addend is left
    return TidBits(low, bits.high, 0, offset, unknown, level)


def shift_left(bits: TidBits, amount: int) -> TidBits:
    unknown = None if bits.unknown is None else bits.unknown + amount
    return TidBits(bits.low, bits.high, bits.position + amount, bits.offset << amount, unknown, bits.unknown_level)


def mask(bits: TidBits, value: int) -> tuple[TidBits | None, int | None]:
    """``bits & value``: the exact result when it is a field plus the addend (the kept bits are
    contiguous, and the mask either keeps only bits below the addend's alignment or clears only
    such bits), else None with the lowest `%tid.x` bit the result still depends on (None when
    the result is 0)."""
    value &= (1 << _WORD_BITS) - 1
    alignment = bits.addend_alignment
    if not bits.plain:
        if alignment < _WORD_BITS and value < (1 << alignment):
            return mask(bits.field_only(), value)  # the addend has no bits there
        low_bits = (1 << alignment) - 1 if alignment < _WORD_BITS else 0
        clears_only_low = (value | low_bits) == (1 << _WORD_BITS) - 1
        if not clears_only_low:
            kept, lowest = mask(bits.field_only(), value)
            if lowest is None:
                return None, None
            carry_from = bits.low + max(alignment - bits.position, 0)
            return None, min(lowest, carry_from)
        field, lowest = mask(bits.field_only(), value)
        if field is None:
            return TidBits(0, 0, 0, bits.offset & value, bits.unknown, bits.unknown_level), lowest
        return TidBits(field.low, field.high, field.position, bits.offset & value, bits.unknown, bits.unknown_level), lowest
    field = ((1 << min(bits.width, _WORD_BITS)) - 1) << bits.position
    kept = value & field
    if kept == 0:
        return None, None
    first = _trailing_zeros(kept)
    run = kept >> first
    low = bits.low + first - bits.position
    if run & (run + 1):  # not contiguous
        return None, low
    last = first + run.bit_length()
    reaches_top = bits.high is None and last >= bits.position + _WORD_BITS - 1
    high = None if reaches_top else bits.low + last - bits.position
    return TidBits(low, high, first), low


def field_operation(bits: TidBits, base: str, constant: int, unsigned: bool) -> tuple[bool, TidBits | None, int | None]:
    """``bits base constant`` for the shifts and masks that keep a field, as both families
    evaluate them: `shr`, `shl`, `and`, and (``unsigned``) `div` and `rem` by a power of two.
    Returns (handled, field, lowest): handled False when the operation is not one of these or the
    addend's low bits would leak into the result; else the resulting field, or None with the lowest
    `%tid.x` bit the result still depends on (a mask that keeps non-contiguous bits), or None and
    None when the result is 0 in every thread (only the addend may be left)."""
    shift = power_of_two(constant)
    if base == "shr" or (base == "div" and unsigned):
        amount = constant if base == "shr" else shift
        if amount is None or amount < 0 or bits.addend_alignment < amount:
            return False, None, None
        return True, shift_right(bits, amount), None
    if base == "shl" and constant >= 0:
        return True, shift_left(bits, constant), None
    if base == "and" or (base == "rem" and unsigned and shift is not None):
        field, lowest = mask(bits, constant if base == "and" else constant - 1)
        return True, field, lowest if field is None else None
    return False, None, None


_TID_SETS: dict[tuple[TidBits, str, int, int], int | None] = {}


def tid_set(bits: TidBits, comparison: str, constant: int, bound: int) -> int | None:
    """The `%tid.x` mask of the threads (below ``bound``) in which ``field comparison constant``
    holds, or None when the field's values are not exactly known (an unknown addend, or values
    that might wrap around in a 32-bit register)."""
    if bits.unknown is not None or bits.offset < 0 or comparison not in NEGATED:
        return None
    key = (bits, comparison, constant, bound)
    if key in _TID_SETS:
        return _TID_SETS[key]
    result = threads_where(bits.at, lambda value: holds(comparison, value, constant), bound)
    _TID_SETS[key] = result
    return result


def power_of_two(value: int | float) -> int | None:
    """log2 of a positive integer power of two, else None."""
    if not isinstance(value, int) or value <= 0 or value & (value - 1):
        return None
    return value.bit_length() - 1


# ----------------------------------------------------------------------------- bit dependences


def dependence_of(form: Form | None, tid_bits: int) -> TidDependence | None:
    """The bit dependences of a value's form, for a `%tid.x` of ``tid_bits`` bits. A field
    ``f + addend``: bit ``position + i`` depends on `%tid.x` bit ``low + i``, and with an addend
    the carries make every bit depend on all bits below it. None for forms that say nothing
    (callers pass only forms of values they know to be CTA-uniform or exact)."""
    if type(form) is TidDependence:
        return form
    if type(form) is TidBits:
        if form.unknown is not None and form.unknown_level != Level.CTA:
            return None  # a warp-uniform addend is no function of `%tid.x` bits this can name
        top = tid_bits if form.high is None else min(form.high, tid_bits)
        bits = [0] * form.position
        bits.extend(1 << tid_bit for tid_bit in range(form.low, top))
        dependence = _normalised(bits)
        return dependence if form.plain else carried(dependence)
    if form is None or type(form) is Constant or type(form) is Multiple:
        return _NO_DEPENDENCE
    return None


def combined(first: TidDependence, second: TidDependence) -> TidDependence:
    """`a & b`, `a | b`, `a ^ b`: each bit depends on both operands' same bit."""
    longer, shorter = (first.bits, second.bits) if len(first.bits) >= len(second.bits) else (second.bits, first.bits)
    return TidDependence(tuple(bit | (shorter[i] if i < len(shorter) else 0) for i, bit in enumerate(longer)))


def masked(dependence: TidDependence, value: int) -> TidDependence:
    """`a & constant`: the cleared bits are 0 in every thread."""
    return _normalised([bit if value >> i & 1 else 0 for i, bit in enumerate(dependence.bits)])


def shifted_left(dependence: TidDependence, amount: int) -> TidDependence:
    return _normalised([0] * amount + list(dependence.bits))


def shifted_right(dependence: TidDependence, amount: int, width: int, signed: bool) -> TidDependence:
    """``a >> amount`` in a ``width``-bit register (an arithmetic shift copies the sign bit)."""
    bits = list(dependence.bits[:width]) + [0] * max(0, width - len(dependence.bits))
    shifted = bits[amount:] + [bits[width - 1] if signed else 0] * min(amount, width)
    return _normalised(shifted)


def carried(dependence: TidDependence) -> TidDependence:
    """Addition and multiplication: a carry makes each bit depend on every bit below it."""
    bits = []
    union = 0
    for bit in dependence.bits:
        union |= bit
        bits.append(union)
    if union:
        bits.extend([union] * (_WORD_BITS - len(bits)))
    return _normalised(bits)


def _normalised(bits: list[int]) -> TidDependence:
    del bits[_WORD_BITS:]
    while bits and not bits[-1]:
        bits.pop()
    return TidDependence(tuple(bits))


_NO_DEPENDENCE = TidDependence(())
