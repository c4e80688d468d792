"""Values that are the same function of the lane in every warp: `partial[lane]` read after the
barrier of a block reduction. Every warp reads the same locations, so a full-warp `vote` or
`redux` of such a value (or of its comparison with a uniform value) is the same in the whole CTA,
when every warp has all 32 lanes. The form is a :class:`TidDependence` on lane bits only.
"""

from __future__ import annotations

from ptxlint.analyses.threads.lane_sets import ThreadSpace
from ptxlint.analyses.threads.tid_fields import LaneModel, Level, TidBits, TidDependence, dependence_of
from ptxlint.analyses.uniformity.lattice import Value

_WARP_BITS = 5  # log2 of the warp size
_REGISTER_BITS = 64  # the widest register


class LaneFunctions:
    """``lanes`` says which `%tid.x` bits are the lane; ``space``, when the block's size is
    known, whether its last warp is partial."""

    def __init__(self, lanes: LaneModel, space: ThreadSpace | None) -> None:
        self.lanes = lanes
        self.space = space

    def lane_dependence(self, value: Value) -> TidDependence | None:
        """The `%tid.x` bits a thread-varying value depends on, when they are lane bits only and
        the rest of the value is CTA-uniform: the same function of the lane in every warp."""
        if value.level != Level.THREAD or not self.lanes.warp_bits_ok or type(value.bits) not in (TidBits, TidDependence):
            return None
        dependence = dependence_of(value.bits, self.lanes.tid_bits)
        if dependence is None or dependence.lowest is None:
            return None
        union = 0
        for bits in dependence.bits:
            union |= bits
        return dependence if union < 1 << _WARP_BITS else None

    def loaded_by_lane(self, address: Value, width: int) -> Value | None:
        """A load from an address that is the same function of the lane in every warp reads the
        same locations in every warp, so it loads the same values (a race aside, as a load from a
        uniform address assumes): a block reduction's `partial[lane]` after the barrier."""
        dependence = self.lane_dependence(address)
        if dependence is None:
            return None
        union = 0
        for bits in dependence.bits:
            union |= bits
        return Value(Level.THREAD, TidDependence((union,) * min(width, _REGISTER_BITS)), address.origin)

    def compare_lane_values(self, left: Value, right: Value, fallback: Value) -> Value:
        """`setp.cmp p, a, b` of a lane function and a CTA-uniform value: a lane function."""
        for varying, other in ((left, right), (right, left)):
            if other.level != Level.CTA:
                continue
            dependence = self.lane_dependence(varying)
            if dependence is not None:
                union = 0
                for bits in dependence.bits:
                    union |= bits
                return Value(fallback.level, TidDependence((union,)), fallback.origin)
        return fallback

    def reduces_lane_function(self, operand: Value) -> bool:
        """Whether a full-mask `vote`/`redux` of ``operand`` is the same in every warp: it reduces
        a function of the lane only, and every warp has all 32 lanes (a block of whole warps, or
        one whose size is not declared)."""
        whole_warps = self.space is None or self.space.bound % (1 << _WARP_BITS) == 0
        return whole_warps and self.lane_dependence(operand) is not None
