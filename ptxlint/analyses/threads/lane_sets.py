"""Which threads reach a block: the path facts that prove a block is executed by whole warps even
when the branches on the way split warps.

nvcc jump-threads `if (tid == 0) {init} if (warp == 0) {alloc}` into

    @%p2 bra BB0_2;  …init…  bra.uni BB0_3;          // thread 0 jumps straight to the alloc
    BB0_2: setp.gt.u32 %p4, %r1, 31; @%p4 bra BB0_4;  // threads 1..31 arrive through here
    BB0_3: tcgen05.alloc                               // reached by exactly the threads of warp 0

Both branches vary within warp 0, yet the set of threads reaching the alloc is {0} ∪ {1..31}: all
of warp 0 and nothing of the others. This module computes that set.

**Domain.** Threads are named by `%tid.x` (the lane model must hold: `%tid.x / 32` is the warp
rank, see ``ptxlint/analyses/threads/tid_fields.py``). For each warp the state keeps the *alternatives*: the
possible sets of its lanes that reach the point, as 32-bit lane masks. A branch whose condition is
an exact function of `%tid.x` (a :class:`~ptxlint.analyses.threads.tid_fields.TidSet` predicate) intersects
every alternative with the condition's lanes; a branch on a warp-uniform condition whose value we
do not know sends each warp all one way, so each alternative ``a`` becomes ``a`` or nothing; a
branch on thread-varying data (an `elect.sync` result, a loaded value) sends an unknown part of
each alternative each way, written as the alternative with the ``_SOME`` bit: "some of these
lanes, perhaps all, perhaps none". Such a part remembers the branch and the side it took (bits
above ``_SOME``), so that where the two sides meet again their union is the whole alternative
once more. Later exact conditions narrow a part like any set, so `if (warp == 4 &&
elect_one_sync()) {…} else if (warp < 4) {…}` is known to bring whole warps 0–3 to the second
body, while the first stays a part of warp 4. A join takes the union of
one alternative from each side, for every pair (the choices on the two sides may be correlated;
taking every pair over-approximates). The alternatives stay closed under union, which makes the
join idempotent.

**What it proves.** When every alternative of every warp is empty or the whole warp, the point is
reached by whole warps: an aligned collective there runs with its entire warp, and a value written
there is equal across each warp when its data is (:func:`level`).

Lane masks of warps past the block's `%tid.x` bound are never examined. When the bound is only an
upper bound (`.maxntid`), a warp the model sees whole is whole in every smaller block too, since a
smaller block only removes its top threads (a multiple of 32 of them under the lane model).
"""

from __future__ import annotations

import functools

from ptxlint.analyses.threads.tid_fields import Level

WARP_SIZE = 32
_FULL_WARP = (1 << WARP_SIZE) - 1
# More alternatives than this for one warp: give up (the set is then unknown).
_MAX_ALTERNATIVES = 8
_WARPS_PER_WARPGROUP = 4

Threads = tuple[frozenset[int], ...]  # per warp; None where a state is unknown

# Marks an alternative as an unknown subset of its lanes (bits 0..31); never set on 0. The bits
# above it, when set, name the branch and side the subset came from: (index << 1 | taken) << 33.
_SOME = 1 << WARP_SIZE
_ORIGIN_SHIFT = WARP_SIZE + 1


class ThreadSpace:
    """The threads of one block shape: ``bound`` threads (`%tid.x` below it), in warps."""

    __slots__ = ("bound", "warps", "full", "everyone", "_levels", "_masks", "_memo")

    def __init__(self, bound: int) -> None:
        self.bound = bound
        self.warps = (bound + WARP_SIZE - 1) // WARP_SIZE
        self.full = tuple((1 << min(WARP_SIZE, bound - WARP_SIZE * warp)) - 1 for warp in range(self.warps))
        self.everyone: Threads = tuple(frozenset((mask,)) for mask in self.full)
        self._levels: dict[int, tuple[Threads, Level | None]] = {}
        self._masks: dict[int, tuple[int, ...]] = {}
        # Results of joins and sharpenings by the identity of their operands (kept alive with
        # them, so an id is never reused while cached): the solver revisits the same states.
        self._memo: dict[tuple[object, ...], tuple[Threads | None, ...]] = {}

    def split(self, mask: int) -> tuple[int, ...]:
        """A `%tid.x` mask as one lane mask per warp."""
        known = self._masks.get(mask)
        if known is None:
            known = self._masks[mask] = tuple((mask >> (WARP_SIZE * warp)) & full for warp, full in enumerate(self.full))
        return known

    def restrict(self, threads: Threads | None, mask: int) -> Threads | None:
        """The threads of ``threads`` whose `%tid.x` is in ``mask``."""
        if threads is None:
            return None
        lanes = self.split(mask)
        full = self.full
        # Warps mostly share their alternatives and lanes (a 1024-thread CTA has 32 alike):
        # narrow each distinct pair once.
        narrowed: dict[tuple[frozenset[int], int], frozenset[int]] = {}
        restricted = []
        for warp, alternatives in enumerate(threads):
            warp_lanes = lanes[warp]
            if warp_lanes == full[warp]:
                restricted.append(alternatives)
                continue
            pair = (alternatives, warp_lanes)
            known = narrowed.get(pair)
            if known is None:
                known = narrowed[pair] = frozenset(_narrowed(a, warp_lanes) for a in alternatives)
            restricted.append(known)
        return tuple(restricted)

    def maybe_none(self, threads: Threads | None) -> Threads | None:
        """After a warp-uniform choice: each warp's lanes all, or none of them, go on."""
        if threads is None:
            return None
        return tuple(alternatives if 0 in alternatives else alternatives | {0} for alternatives in threads)

    def some_of(self, threads: Threads | None, branch: int, taken: bool) -> Threads | None:
        """After the branch at instruction ``branch`` on thread-varying data: an unknown part of
        each warp's lanes goes on, the part on the ``taken`` side. A part of a part is only known
        to be some of the lanes: it does not come back whole where the inner branch rejoins."""
        if threads is None:
            return None
        key = ("some_of", id(threads), branch, taken)
        known = self._memo.get(key)
        if known is not None and known[0] is threads:
            return known[1]
        origin = (branch << 1 | taken) << _ORIGIN_SHIFT
        parts: dict[frozenset[int], frozenset[int]] = {}  # per distinct alternatives of a warp
        result_list = []
        for alternatives in threads:
            part = parts.get(alternatives)
            if part is None:
                part = parts[alternatives] = (
                    alternatives
                    if alternatives == _NOTHING
                    else frozenset((a | _SOME | origin if not a & _SOME else (a & _FULL_WARP) | _SOME) if a else 0 for a in alternatives)
                )
            result_list.append(part)
        result = tuple(result_list)
        self._remember(key, (threads, result))
        return result

    def at_least(self, threads: Threads | None, included: Threads | None) -> Threads | None:
        """``threads``, knowing that the set they describe contains the set ``included``
        describes: where the paths from a branch meet again, every thread that took the branch
        has arrived, whichever way it went."""
        if threads is None or included is None or threads is included or self.level(threads) is not None:
            return threads  # nothing unknown to sharpen (the level is cached per state)
        key = ("at_least", id(threads), id(included))
        known = self._memo.get(key)
        if known is not None and known[0] is threads and known[1] is included:
            return known[2]
        sharpened_pairs: dict[tuple[frozenset[int], frozenset[int]], frozenset[int]] = {}  # per distinct pair of warps' alternatives
        sharpened_list = []
        for alternatives, arrived in zip(threads, included):
            pair = (alternatives, arrived)
            warp_result = sharpened_pairs.get(pair)
            if warp_result is None:
                warp_result = sharpened_pairs[pair] = (
                    alternatives
                    if arrived == _NOTHING or not any(a & _SOME for a in alternatives)
                    else frozenset(_at_least(a, b) for a in alternatives for b in arrived)
                )
            sharpened_list.append(warp_result)
        sharpened = tuple(sharpened_list)
        result = threads if sharpened == threads else sharpened
        self._remember(key, (threads, included, result))
        return result

    def _remember(self, key: tuple[object, ...], entry: tuple[Threads | None, ...]) -> None:
        if len(self._memo) > 8192:
            self._memo.clear()
        self._memo[key] = entry

    def join(self, first: Threads | None, second: Threads | None) -> Threads | None:
        if first is second:
            return first
        if first is None or second is None:
            return None
        if first == second:
            return first  # the join is idempotent
        key = ("join", id(first), id(second))
        known = self._memo.get(key)
        if known is not None and known[0] is first and known[1] is second:
            return known[2]
        result = self._join(first, second)
        self._remember(key, (first, second, result))
        return result

    def _join(self, first: Threads, second: Threads) -> Threads | None:
        merged: list[frozenset[int]] = []
        # Warps mostly share their alternatives on both sides (a 1024-thread CTA has 32 alike):
        # each distinct pair is joined once, not once per warp.
        joined: dict[tuple[frozenset[int], frozenset[int]], frozenset[int]] = {}
        for left, right in zip(first, second):
            if left == right or right == _NOTHING:
                merged.append(left)
                continue
            if left == _NOTHING:
                merged.append(right)
                continue
            pair = (left, right)
            alternatives = joined.get(pair)
            if alternatives is None:
                alternatives = frozenset(_union(a, b) for a in left for b in right)
                if len(alternatives) > 2:
                    alternatives = _fold_parts(alternatives)
                if len(alternatives) > _MAX_ALTERNATIVES:
                    return None
                joined[pair] = alternatives
            merged.append(alternatives)
        return tuple(merged)

    def level(self, threads: Threads | None) -> Level | None:
        """``Level.CTA`` when every thread certainly reaches the point, ``Level.WARP`` when it is
        reached by whole warps, None when neither is known."""
        if threads is None:
            return None
        known = self._levels.get(id(threads))
        if known is not None and known[0] is threads:
            return known[1]
        level: Level | None = Level.CTA
        for warp, alternatives in enumerate(threads):
            full = self.full[warp]
            if len(alternatives) == 1 and full in alternatives:
                continue
            if all(a == 0 or a == full for a in alternatives):
                level = Level.WARP
                continue
            level = None
            break
        if len(self._levels) > 4096:
            self._levels.clear()
        self._levels[id(threads)] = (threads, level)  # keeps ``threads`` alive, so the id is its own
        return level

    def splits_warpgroup(self, mask: int) -> bool:
        """Whether the `%tid.x` set ``mask`` takes every lane of some warp and no lane of another
        warp of the same warpgroup (four consecutive warps)."""
        lanes = self.split(mask)
        for first in range(0, self.warps, _WARPS_PER_WARPGROUP):
            group = range(first, min(first + _WARPS_PER_WARPGROUP, self.warps))
            if any(lanes[warp] == self.full[warp] for warp in group) and any(lanes[warp] == 0 for warp in group):
                return True
        return False

    def reach_splits_warpgroup(self, threads: Threads | None) -> bool:
        """Whether some warp may reach the point while another warp of its warpgroup certainly
        does not."""
        if threads is None:
            return False
        for first in range(0, self.warps, _WARPS_PER_WARPGROUP):
            group = range(first, min(first + _WARPS_PER_WARPGROUP, self.warps))
            if any(threads[warp] == _NOTHING for warp in group) and any(threads[warp] != _NOTHING for warp in group):
                return True
        return False

    def lanes_reaching(self, threads: Threads | None) -> tuple[int, ...] | None:
        """Per warp, every lane some alternative holds: the lanes that may reach the point (a
        lane outside never does; a part with an unknown subset counts all its lanes)."""
        if threads is None:
            return None
        found = []
        for alternatives in threads:
            lanes = 0
            for alternative in alternatives:
                lanes |= alternative
            found.append(lanes & _FULL_WARP)
        return tuple(found)

    def describe(self, threads: Threads | None) -> str:
        """`%tid.x` ranges of the threads that may reach the point (for messages and dumps)."""
        if threads is None:
            return "unknown"
        mask = 0
        for warp, alternatives in enumerate(threads):
            for alternative in alternatives:
                mask |= (alternative & _FULL_WARP) << (WARP_SIZE * warp)
        return ranges(mask) or "none"


_NOTHING = frozenset((0,))


def _narrowed(alternative: int, lanes: int) -> int:
    """The lanes of ``alternative`` that are in ``lanes``; an unknown part stays unknown (and
    keeps its origin: both sides of its branch narrowed alike still make up the narrowed whole),
    and becomes nothing when none of its lanes remain."""
    narrowed = alternative & ~(_FULL_WARP & ~lanes)
    return narrowed if narrowed & _FULL_WARP else 0


def _at_least(alternative: int, included: int) -> int:
    """``alternative``, knowing that the lanes it stands for contain ``included``: an unknown part
    that cannot be smaller than an exact set it lies within is that set."""
    if not alternative & _SOME:
        return alternative  # already exact
    if included and not included & _SOME and (alternative & _FULL_WARP) & ~included == 0:
        return included
    return alternative


def _fold_parts(alternatives: frozenset[int]) -> frozenset[int]:
    """The alternatives with their unknown parts folded into one part of all their lanes, which no
    longer remembers a branch: past the two sides of one branch, the pairs of parts joins make
    multiply and cost more than what they can still prove."""
    parts = [alternative for alternative in alternatives if alternative & _SOME]
    if len(parts) < 2:
        return alternatives
    lanes = 0
    for part in parts:
        lanes |= part & _FULL_WARP
    return frozenset([alternative for alternative in alternatives if not alternative & _SOME] + [lanes | _SOME])


def _union(first: int, second: int) -> int:
    """The lanes of both alternatives: exact when both are; the whole when they are the two
    sides of one branch over the same lanes; otherwise an unknown part of all their lanes."""
    if first == second:
        return first
    if not (first | second) & _SOME:
        return first | second
    lanes = (first | second) & _FULL_WARP
    if first & _SOME and second & _SOME and (first & _FULL_WARP) == (second & _FULL_WARP):
        first_origin, second_origin = first >> _ORIGIN_SHIFT, second >> _ORIGIN_SHIFT
        if first_origin and second_origin and first_origin ^ second_origin == 1:
            return lanes  # the taken and the not-taken part of one branch
    exact = second if first & _SOME else first
    if not exact & _SOME and (lanes & ~exact) == 0:
        return exact  # some of the lanes of an exact set, joined with that set
    return lanes | _SOME


def widen_lanes(lanes: int, warps: int) -> int:
    """The threads, one bit each (warp ``w``'s lane ``l`` is bit ``32 * w + l``), of the first
    ``warps`` warps whose lane is in the 32-bit mask ``lanes``."""
    return lanes * _lane_repeat(warps)


@functools.cache
def _lane_repeat(warps: int) -> int:
    return sum(1 << (WARP_SIZE * warp) for warp in range(warps))


@functools.lru_cache(maxsize=4096)
def widen_warps(warps: int) -> int:
    """Every thread of the warps in the mask ``warps``, one bit each."""
    threads = 0
    for warp in range(warps.bit_length()):
        if warps >> warp & 1:
            threads |= _FULL_WARP << (WARP_SIZE * warp)
    return threads


def warps_holding(threads: int, warps: int) -> int:
    """The warps, among the first ``warps``, with a thread in ``threads`` (one bit each)."""
    mask = 0
    for warp in range(warps):
        if threads >> (WARP_SIZE * warp) & _FULL_WARP:
            mask |= 1 << warp
    return mask


def ranges(mask: int) -> str:
    """``0-31, 64`` for a mask with bits 0..31 and 64 set."""
    parts = []
    position = 0
    while mask:
        if not mask & 1:
            skip = (mask & -mask).bit_length() - 1
            mask >>= skip
            position += skip
            continue
        run = (~mask & (mask + 1)).bit_length() - 1
        parts.append(str(position) if run == 1 else f"{position}-{position + run - 1}")
        mask >>= run
        position += run
    return ", ".join(parts)
