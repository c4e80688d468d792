"""Unit tests of the pure lattice operations behind the tcgen05 rules: joins of abstract register
values, arithmetic on TMEM addresses and the warp index, and path-condition contradictions."""

from __future__ import annotations

from ptxlint.analyses.roles import warps_where
from ptxlint.analyses.path_conditions import PathContext
from ptxlint.analyses.warp_value_lattice import THREAD_INDEX, VARYING, TensorAddress, join_values
from ptxlint.analyses.warp_value_lattice import add_values as add  # the arithmetic under test
from ptxlint.analyses.warp_values import WarpValues


def test_join_keeps_equal_values_and_forgets_columns() -> None:
    first = TensorAddress("slot+0", 32, 0)
    second = TensorAddress("slot+0", 32, 64)
    assert join_values(first, first) is first
    assert join_values(first, second) == TensorAddress("slot+0", 32, None)


def test_join_of_different_lanes_may_differ_between_warps() -> None:
    assert join_values(TensorAddress("slot+0", 0, 0), TensorAddress("slot+0", 32, 0)) is VARYING


def test_join_of_small_integers_is_unknown_but_warp_independent() -> None:
    assert join_values(0, 1) is None  # a loop counter: absent, not VARYING
    assert join_values(0, 1 << 21) is VARYING  # may carry a lane offset


def test_thread_index_shifted_by_five_is_the_warp_index() -> None:
    values = WarpValues(warp_count=8, tid_x_is_linear=True)
    warp = values._thread_arithmetic("shr", [THREAD_INDEX, 5], 32)
    assert warp == tuple(range(8))


def test_folded_lane_quarter_is_per_warp() -> None:
    # nvcc folds ((tid >> 5) & 3) << 21 into (tid << 16) & 0x600000.
    values = WarpValues(warp_count=8, tid_x_is_linear=True)
    shifted = values._thread_arithmetic("shl", [THREAD_INDEX, 16], 32)
    quarter = values._thread_arithmetic("and", [shifted, 6291456], 32)
    assert quarter == tuple((warp % 4) << 21 for warp in range(8))


def test_adding_an_unknown_to_a_tmem_address_moves_its_column_only() -> None:
    values = WarpValues(warp_count=4, tid_x_is_linear=True)
    base = TensorAddress("slot+0", 0, 0)
    lanes = tuple(32 * warp << 16 for warp in range(4))
    address = values._map(lambda a, b: add(a, b, 32), (base, lanes))
    assert address == tuple(TensorAddress("slot+0", 32 * warp, 0) for warp in range(4))
    moved = values._map(lambda a, b: add(a, b, 32), (address, None))
    assert moved == tuple(TensorAddress("slot+0", 32 * warp, None) for warp in range(4))


def test_a_second_equal_test_cannot_go_the_other_way() -> None:
    context = PathContext(warps=0b1111, predicates=frozenset({("%p1", ("eq", "%r1", 0), True)}))
    taken = context.assume("%p1", True, 0b1111)
    assert taken is not None
    again = taken.assume("%p1", False, 0b1111)
    assert again is None


def test_a_register_equal_to_two_constants_is_infeasible() -> None:
    known = frozenset({(("eq", "%r1", 0), True)})
    context = PathContext(0b1111, known, frozenset({("%p2", ("eq", "%r1", 1), True)}))
    assert context.assume("%p2", True, 0b1111) is None


def test_a_branch_keeps_only_the_warps_that_can_take_it() -> None:
    false_in = warps_where((True, False, False, False), False, 4)  # warp == 0
    context = PathContext(0b1111).assume("%p1", False, false_in)
    assert context is not None and context.warps == 0b1110
    assert PathContext(0b0001).assume("%p1", False, false_in) is None
