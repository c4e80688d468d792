"""Unit tests for the which-threads-reach lattice (`ptxlint/analyses/threads/lane_sets.py`): how a
branch on thread-varying data, the meeting of its two sides, and the knowledge that a meeting
point is reached by every thread that took a branch combine into "whole warps"."""

from __future__ import annotations

from ptxlint.analyses.threads.tid_fields import Level
from ptxlint.analyses.threads.lane_sets import ThreadSpace, warps_holding, widen_lanes, widen_warps

WARP = (1 << 32) - 1
SPACE = ThreadSpace(128)  # four warps
WARP_ZERO = WARP  # `%tid.x < 32` as a `%tid.x` mask


def test_a_thread_varying_branch_leaves_an_unknown_part_of_each_warp() -> None:
    taken = SPACE.some_of(SPACE.everyone, branch=7, taken=True)
    assert SPACE.level(taken) is None
    assert SPACE.describe(taken) == "0-127"  # any of them may be there


def test_the_two_sides_of_one_branch_meet_as_the_whole() -> None:
    taken = SPACE.some_of(SPACE.everyone, branch=7, taken=True)
    not_taken = SPACE.some_of(SPACE.everyone, branch=7, taken=False)
    assert SPACE.level(SPACE.join(taken, not_taken)) == Level.CTA


def test_parts_of_different_branches_do_not_make_a_whole() -> None:
    first = SPACE.some_of(SPACE.everyone, branch=7, taken=True)
    second = SPACE.some_of(SPACE.everyone, branch=9, taken=False)
    assert SPACE.level(SPACE.join(first, second)) is None


def test_an_exact_condition_narrows_an_unknown_part() -> None:
    part = SPACE.some_of(SPACE.everyone, branch=7, taken=True)
    outside_warp_zero = SPACE.restrict(part, ~WARP_ZERO)
    inside_warp_zero = SPACE.restrict(part, WARP_ZERO)
    assert SPACE.describe(inside_warp_zero) == "0-31"
    assert SPACE.level(SPACE.join(SPACE.restrict(SPACE.everyone, ~WARP_ZERO), outside_warp_zero)) == Level.WARP


def test_a_part_of_a_part_does_not_come_back_whole() -> None:
    outer = SPACE.some_of(SPACE.everyone, branch=7, taken=True)
    inner_taken = SPACE.some_of(outer, branch=9, taken=True)
    inner_not_taken = SPACE.some_of(outer, branch=9, taken=False)
    assert SPACE.level(SPACE.join(inner_taken, inner_not_taken)) is None


def test_a_meeting_point_holds_at_least_the_threads_that_took_the_branch() -> None:
    blurred = SPACE.some_of(SPACE.some_of(SPACE.everyone, branch=7, taken=True), branch=9, taken=False)
    assert SPACE.level(SPACE.at_least(blurred, SPACE.everyone)) == Level.CTA
    # An exact set stays as it is, and an unknown part of more lanes than were known stays unknown.
    assert SPACE.at_least(SPACE.everyone, blurred) == SPACE.everyone
    warp_zero = SPACE.restrict(SPACE.everyone, WARP_ZERO)
    assert SPACE.level(SPACE.at_least(blurred, warp_zero)) is None


def test_joins_stay_idempotent_and_commutative() -> None:
    part = SPACE.some_of(SPACE.everyone, branch=7, taken=True)
    other = SPACE.some_of(SPACE.restrict(SPACE.everyone, WARP_ZERO), branch=3, taken=False)
    assert SPACE.join(part, part) == part
    assert SPACE.join(part, other) == SPACE.join(other, part)


def test_thread_bits_widen_lanes_and_warps_and_project_back_to_warps() -> None:
    lane_zero = widen_lanes(1, 3)  # lane 0 of warps 0-2
    assert lane_zero == 1 | 1 << 32 | 1 << 64
    assert warps_holding(lane_zero, 3) == 0b111
    assert widen_warps(0b10) == WARP << 32
    assert warps_holding(widen_warps(0b101) & lane_zero, 3) == 0b101
    assert warps_holding(widen_warps(0b10) & widen_lanes(0, 3), 3) == 0  # no lane left: no warp
