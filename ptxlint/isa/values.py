"""Ranges the manual gives for immediate operands.

:func:`value_limits` maps an operand position of ``(base, modifiers, operand_count)`` to a
:class:`Limit`; :meth:`Limit.violation` says what is wrong with a value, or None.
"""

from __future__ import annotations


from ptxlint.isa.barriers import BARRIER_BASES, cta_barrier
from ptxlint.records import record


@record
class Limit:
    """The range an operand's value must lie in."""

    what: str  # "the column count of `tcgen05.alloc`"
    low: int
    high: int
    multiple_of: int = 1
    power_of_two: bool = False
    # The only values allowed, where they are not a range (wgmma's scales: -1 or 1).
    only: tuple[int, ...] = ()

    def violation(self, value: int) -> str | None:
        if self.only:
            if value in self.only:
                return None
            return f"{self.what} must be {' or '.join(map(str, self.only))}, not {value}"
        if not self.low <= value <= self.high:
            if self.high >= 2**31 - 1:
                return f"{self.what} must be at least {self.low}, not {value}"
            return f"{self.what} must be in {self.low}…{self.high}, not {value}"
        if self.power_of_two and value & (value - 1):
            return f"{self.what} must be a power of two in {self.low}…{self.high}, not {value}"
        if value % self.multiple_of:
            return f"{self.what} must be a multiple of {self.multiple_of} in {self.low}…{self.high}, not {value}"
        return None

    def nearest(self, value: int) -> tuple[int, ...]:
        """The allowed values closest to ``value``: the one below and the one above (one at the
        ends of the range)."""
        if self.power_of_two:
            allowed = [1 << shift for shift in range(self.high.bit_length()) if self.low <= 1 << shift <= self.high]
            below = [item for item in allowed if item <= value]
            above = [item for item in allowed if item >= value]
            return tuple(dict.fromkeys([*below[-1:], *above[:1]]))
        step = self.multiple_of
        first = -(-self.low // step) * step
        last = self.high // step * step
        clamped = min(max(value, first), last)
        down = clamped // step * step
        up = -(-clamped // step) * step
        return tuple(dict.fromkeys(item for item in (down, up) if first <= item <= last))


# tcgen05.alloc (§9.7.16.7.1): columns are allocated in powers of two from 32 to 512.
ALLOC_COLUMNS = Limit("the column count of `tcgen05.alloc`", 32, 512, power_of_two=True)
# tcgen05.dealloc: the manual asks for the allocated count; ptxas checks only the 32-column unit.
DEALLOC_COLUMNS = Limit("the column count of `tcgen05.dealloc`", -(2**31), 2**31 - 1, multiple_of=32)
# setmaxnreg (§9.7.19.5).
REGISTER_COUNT = Limit("the register count of `setmaxnreg`", 24, 256, multiple_of=8)
# tcgen05.mma scale-input-d (§9.7.16.10.9): D is scaled by 2^-n.
SCALE_INPUT_D = Limit("scale-input-d", 0, 15)
# bar / barrier (§9.7.13.1): 16 named barriers per CTA, counts in whole warps.
BARRIER_ID = Limit("the barrier id", 0, 15)
# The manual bounds the count by the CTA size; ptxas checks only whole warps.
BARRIER_THREADS = Limit("the barrier thread count", 0, 2**31 - 1, multiple_of=32)
# `bar.arrive` must name the threads it waits for, and at least one warp.
ARRIVE_THREADS = Limit("the thread count of `bar.arrive`", 1, 2**31 - 1, multiple_of=32)


# wgmma.mma_async (§9.7.15.5.2): imm-scale-a/b negate (-1) or keep (1) A and B; imm-trans-a/b
# transpose (1) or not (0).
WGMMA_SCALE = Limit("the scale of a `wgmma.mma_async` operand", -1, 1, only=(-1, 1))
WGMMA_TRANSPOSE = Limit("the transpose flag of `wgmma.mma_async`", 0, 1)
WAIT_GROUP = Limit("the group count of `wgmma.wait_group`", 0, 2**31 - 1)
# scale-d written as an immediate: 0 (D = A·B) or 1 (D = A·B + D).
WGMMA_SCALE_D = Limit("scale-d of `wgmma.mma_async`", 0, 1)

# mbarrier.test_wait/try_wait.parity (§9.7.13.15.16): the phase parity waited for, 0 or 1.
PHASE_PARITY = Limit("the phase parity", 0, 1)

# The only instructions value_limits bounds: callers skip computing operand kinds for the rest.
LIMITED_BASES = frozenset({"tcgen05", "setmaxnreg", "wgmma", "mbarrier"}) | BARRIER_BASES


def value_limits(base: str, modifiers: tuple[str, ...], operand_kinds: tuple[str, ...]) -> dict[int, Limit]:
    """``operand_kinds`` names each operand's form: "vector", "address", "immediate" or "other"."""
    if base not in LIMITED_BASES:
        return {}
    operation = modifiers[0] if modifiers else ""
    if base == "tcgen05" and operation == "alloc":
        return {1: ALLOC_COLUMNS}
    if base == "tcgen05" and operation == "dealloc":
        return {1: DEALLOC_COLUMNS}
    if base == "setmaxnreg":
        return {0: REGISTER_COUNT}
    if base == "tcgen05" and operation == "mma" and "kind::i8" not in modifiers and has_scale_input_d(modifiers, operand_kinds):
        return {len(operand_kinds) - 1: SCALE_INPUT_D}
    if base == "wgmma" and operation == "wait_group":
        return {0: WAIT_GROUP}
    if base == "mbarrier" and operation in ("test_wait", "try_wait") and "parity" in modifiers:
        return {2: PHASE_PARITY}
    if base == "wgmma" and operation == "mma_async" and "sp" not in modifiers:
        if any(m in modifiers for m in ("s32", "b1")):
            return {3: WGMMA_SCALE_D}
        return {3: WGMMA_SCALE_D, 4: WGMMA_SCALE, 5: WGMMA_SCALE, 6: WGMMA_TRANSPOSE, 7: WGMMA_TRANSPOSE}
    if base in BARRIER_BASES:
        return _barrier(base, modifiers, len(operand_kinds))
    return {}


def has_scale_input_d(modifiers: tuple[str, ...], operand_kinds: tuple[str, ...]) -> bool:
    """tcgen05.mma ends `[d], a, b, ([sp-meta],) idesc, ({mask},) enable-input-d{, scale-input-d}`;
    block-scaled and `.ws` forms have no scale-input-d."""
    if "ws" in modifiers or any(m.startswith(("block_scale", "kind::mx")) for m in modifiers):
        return False
    expected_without_scale = 5 + ("sp" in modifiers) + ("vector" in operand_kinds)
    return len(operand_kinds) == expected_without_scale + 1 and operand_kinds[-1] == "immediate"


def _barrier(base: str, modifiers: tuple[str, ...], operand_count: int) -> dict[int, Limit]:
    """A CTA barrier's id and thread count, wherever its form puts them (`bar.sync a{, b}`,
    `bar.red.popc.u32 d, a{, b}, {!}c`)."""
    form = cta_barrier(base, modifiers, operand_count)
    if form is None:
        return {}
    limits: dict[int, Limit] = {}
    if form.identifier is not None:
        limits[form.identifier] = BARRIER_ID
    if form.thread_count is not None:
        limits[form.thread_count] = ARRIVE_THREADS if form.operation == "arrive" else BARRIER_THREADS
    return limits
