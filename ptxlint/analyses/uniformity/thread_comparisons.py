"""Comparisons and predicate logic on the thread-index forms: at which level `setp` of a `%tid.x`
field is uniform (`%tid.x < 128` holds for whole warps, even warpgroups), the exact set of
threads where it holds when the block's warps are known (:class:`TidSet`), a bounds check on the
thread index (:class:`TidBound`), and the same field on both sides cancelling.

The arithmetic that builds the forms is ``thread_index.py``; the uniformity transfer
(``results.py``) evaluates the operands and hands their values here.
"""

from __future__ import annotations

from ptxlint.analyses.threads.lane_sets import ThreadSpace
from ptxlint.analyses.threads.tid_fields import LaneModel, Level, TidBits, TidBound, TidSet, alignment_of, tid_set
from ptxlint.analyses.uniformity.lattice import Value, at_most
from ptxlint.isa.comparisons import MIRRORED, relation_of
from ptxlint.isa.types import integer_types

_WARP_BITS = 5  # log2 of the warp size


def _consecutive_in_warps(bits: TidBits) -> bool:
    """`%tid.x` plus an addend that keeps each warp's values one aligned run of 32: a CTA-uniform
    addend (the global index `ctaid * ntid + tid`), or a warp-uniform multiple of 32 (the linear
    index `tid.y * ntid.x + tid.x` in a block whose x extent is a multiple of 32)."""
    if bits.unknown is None or bits.unknown_level == Level.CTA:
        return True
    return bits.unknown_level == Level.WARP and bits.unknown >= _WARP_BITS


class ThreadIndexComparisons:
    """The comparisons of one function: ``lanes`` says how `%tid.x` bits map to lanes, warps and
    warpgroups; ``space``, when the warps are known, gives exact thread sets."""

    def __init__(self, lanes: LaneModel, space: ThreadSpace | None) -> None:
        self.lanes = lanes
        self.space = space
        # Per thread set (a `%tid.x` mask): the level at which it is uniform (see
        # ``tid_set_value``); a function compares the same few sets at every visit.
        self._mask_levels: dict[int, Level | None] = {}

    def compare(
        self, modifiers: tuple[str, ...], left: Value, constant: int | None, swapped: bool, fallback: Value, exact: bool
    ) -> Value:
        """`setp.cmp p, left, constant` (written `constant, left` when ``swapped``): uniform over
        every aligned group of threads that the threshold does not split (`%tid.x < 128` is the
        same in a warp, even a warpgroup); with ``exact``, the exact set of threads where it is
        true when the thread space allows."""
        if exact and self.space is not None:
            exactly = self._compare_exactly(modifiers, left, constant, swapped, fallback)
            if exactly is not fallback:
                level = min(exactly.level, self._compare_level(modifiers, left, constant, swapped, fallback).level)
                return exactly if level == exactly.level else Value(level, exactly.bits, exactly.origin)
        return self._compare_level(modifiers, left, constant, swapped, fallback)

    def _compare_level(
        self, modifiers: tuple[str, ...], value: Value, constant: int | None, swapped: bool, fallback: Value
    ) -> Value:
        relation = relation_of(modifiers)
        if relation is None or relation.order in ("eq", "ne"):
            return fallback
        comparison = MIRRORED[relation.order] if swapped else relation.order
        bits = value.bits
        if constant is None or type(bits) is not TidBits:
            return fallback
        if bits.unknown is not None:
            return self._compare_with_addend(comparison, value, bits, constant, fallback)
        signed = any(signed for _, signed in integer_types(modifiers))
        if bits.offset < 0 and not signed:
            return fallback  # field + offset may wrap around below zero
        # field + offset < constant  ⟺  field < constant - offset
        constant -= bits.offset
        if constant < 0:
            level = Level.CTA  # below every field value (signed) or unreachable after the check above
        else:
            threshold = constant if comparison in ("lt", "ge") else constant + 1
            level = self.lanes.level_of_threshold(bits.field_only(), threshold)
        return at_most(Value(value.level, None, value.origin), level)

    def compare_with_bound(self, modifiers: tuple[str, ...], left: Value, right: Value, fallback: Value) -> Value:
        """`setp.cmp p, a, b` of the thread index and a CTA-uniform bound that is no constant (either
        way round): true in a run of consecutive threads (:class:`TidBound`); else ``fallback``."""
        relation = relation_of(modifiers)
        if relation is None or relation.order in ("eq", "ne") or fallback.level != Level.THREAD:
            return fallback
        aligned = self._compare_with_aligned_bound(relation.order, left, right, fallback)
        if aligned is not fallback:
            return aligned
        for index, bound in ((left, right), (right, left)):
            bits = index.bits
            if (
                type(bits) is TidBits and bits.low == 0 and bits.position == 0 and bits.high is None
                and _consecutive_in_warps(bits) and bound.level == Level.CTA
            ):  # fmt: skip
                return Value(fallback.level, TidBound(), fallback.origin)
        return fallback

    def _compare_with_aligned_bound(self, order: str, left: Value, right: Value, fallback: Value) -> Value:
        """`%tid.x + addend < bound` where the bound is a known multiple of ``2**k``
        (a thread count `nwarps * 32`): the threshold splits no aligned group of ``2**k``
        threads, so the comparison is as uniform as such groups and the addend (as for a
        constant threshold, :meth:`_compare_with_addend`). Only `<` and `>=` have the bound as
        their threshold; `<=` and `>` have the bound plus one."""
        for index, bound, threshold_orders in ((left, right, ("lt", "ge")), (right, left, ("gt", "le"))):
            bits = index.bits
            if (
                order not in threshold_orders or type(bits) is not TidBits or bound.level == Level.THREAD
                or bits.low != 0 or bits.position != 0 or bits.high is not None
            ):  # fmt: skip
                continue
            group = min(alignment_of(bound.bits), bits.addend_alignment)
            if group <= 0:
                continue
            # A bound uniform only per warp still splits no aligned group of its own warp.
            level = max(self.lanes.level_of_group_bits(group), bound.level)
            if bits.unknown is not None:
                level = max(level, bits.unknown_level)
            return at_most(Value(fallback.level, None, fallback.origin), level)
        return fallback

    def compare_same_field(self, modifiers: tuple[str, ...], left: Value, right: Value, fallback: Value) -> Value:
        """`setp.cmp p, a, b` where both sides are the same `%tid.x` field plus addends
        (`for (t = start + tid; t < end + tid; t += C)`): the field cancels, so an integer
        comparison is as uniform as the addends. Exactly so for `eq`/`ne` (equality modulo the
        register's width); for the orders as long as neither side wraps around the register,
        which C rules out for `int` and a loop bound that wrapped would break anyway."""
        first, second = left.bits, right.bits
        if (
            type(first) is not TidBits or type(second) is not TidBits
            or (first.low, first.high, first.position) != (second.low, second.high, second.position)
        ):  # fmt: skip
            return fallback
        if relation_of(modifiers) is None or not integer_types(modifiers):
            return fallback  # a float comparison rounds each thread's sum its own way
        level = Level.CTA
        for bits in (first, second):
            if bits.unknown is not None:
                level = max(level, bits.unknown_level)
        return at_most(Value(fallback.level, None, fallback.origin), level)

    def _compare_with_addend(self, comparison: str, value: Value, bits: TidBits, constant: int, fallback: Value) -> Value:
        """`%tid.x + addend < constant` with an unknown addend (the linear index `tid.y * ntid.x +
        tid.x < 32` tests for warp 0). The addend is a multiple of ``2**a``: an aligned group of
        ``2**g`` threads, g ≤ a, holds ``2**g`` consecutive values starting at a multiple of
        ``2**g`` (wrapped around the register or not), so a threshold that is a multiple of
        ``2**g`` puts the whole group on one side. As uniform as that and as the addend."""
        if bits.low != 0 or bits.position != 0 or bits.high is not None:
            return fallback
        threshold = constant if comparison in ("lt", "ge") else constant + 1
        group = bits.addend_alignment
        if threshold:
            group = min(group, (threshold & -threshold).bit_length() - 1)
        level = max(self.lanes.level_of_group_bits(group), bits.unknown_level)
        return at_most(Value(value.level, None, value.origin), level)

    def _compare_exactly(
        self, modifiers: tuple[str, ...], value: Value, constant: int | None, swapped: bool, fallback: Value
    ) -> Value:
        """The comparison as the exact set of threads in which it is true."""
        relation = relation_of(modifiers)
        if relation is None:
            return fallback
        comparison = MIRRORED[relation.order] if swapped else relation.order
        bits = value.bits
        if constant is None or type(bits) is not TidBits:
            return fallback
        types = integer_types(modifiers)
        width = types[0][0] if types else 32
        signed = any(signed for _, signed in types)
        constant &= (1 << width) - 1
        if signed and constant >= 1 << (width - 1):
            constant -= 1 << width
        mask = tid_set(bits, comparison, constant, self.space.bound)  # type: ignore[union-attr]
        return fallback if mask is None else self.tid_set_value(mask, fallback)

    def predicate_logic(self, base: str, masks: list[int], fallback: Value) -> Value:
        """`mov`/`not`/`and`/`or`/`xor` of predicates true in exactly the threads of ``masks``."""
        everyone = (1 << self.space.bound) - 1  # type: ignore[union-attr]
        if base == "mov" and len(masks) == 1:
            mask = masks[0]
        elif base == "not" and len(masks) == 1:
            mask = ~masks[0] & everyone
        elif len(masks) == 2:
            first, second = masks
            mask = first & second if base == "and" else first | second if base == "or" else first ^ second
        else:
            return fallback
        return self.tid_set_value(mask, fallback)

    def tid_set_value(self, mask: int, fallback: Value) -> Value:
        """A predicate true in exactly the threads of ``mask``, at the level its shape allows."""
        space = self.space
        if mask in self._mask_levels:
            level = self._mask_levels[mask]
        else:
            threads = space.restrict(space.everyone, mask)  # type: ignore[union-attr]
            level = self._mask_levels[mask] = space.level(threads)  # type: ignore[union-attr]
        if level is None or level > fallback.level:
            level = fallback.level
        if level == Level.CTA and mask not in (0, (1 << space.bound) - 1):  # type: ignore[union-attr]
            level = Level.WARP  # all of a warp, but not every warp: not CTA-uniform
        return Value(level, TidSet(mask), fallback.origin if level > Level.CTA else None)
