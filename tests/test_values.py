"""Unit tests of the pure lattice operations behind the tcgen05 rules: joins of abstract register
values, arithmetic on TMEM addresses and the warp index, and path-condition contradictions."""

from __future__ import annotations

from ptxlint.analyses.threads.path_contexts import PathContext
from ptxlint.analyses.threads.branch_sides import warps_where
from ptxlint.analyses.threads.values_bits import and_values, extract_field, insert_field, permute_bytes
from ptxlint.analyses.threads.values_lattice import THREAD_INDEX, VARYING, TensorAddress, ThreadFunction, join_values
from ptxlint.analyses.threads.values_lattice import add_values as add  # the arithmetic under test
from ptxlint.analyses.threads.values_evaluation import WarpEvaluator


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
    values = WarpEvaluator(warp_count=8, tid_x_is_linear=True)
    warp = values._thread_arithmetic("shr", [THREAD_INDEX, 5], 32)
    assert warp == tuple(range(8))


def test_folded_lane_quarter_is_per_warp() -> None:
    # nvcc folds ((tid >> 5) & 3) << 21 into (tid << 16) & 0x600000.
    values = WarpEvaluator(warp_count=8, tid_x_is_linear=True)
    shifted = values._thread_arithmetic("shl", [THREAD_INDEX, 16], 32)
    quarter = values._thread_arithmetic("and", [shifted, 6291456], 32)
    assert quarter == tuple((warp % 4) << 21 for warp in range(8))


def test_thread_index_fields_evaluate_like_their_chains() -> None:
    # Shifts and masks keep `%tid.x` a field of uniformity's form; evaluated in closed form it
    # must give every thread what the chain of steps gives, in 32- and 16-bit registers.
    steps = [("shr", 5), ("shl", 16), ("and", 0x600000), ("and", 0xFFFFFFE0), ("and", 0x5), ("div", 64), ("rem", 128),
             ("shl", 22), ("shr", 3), ("shl", 70), ("shr", 64), ("rem", 1), ("div", 3)]
    for bits in (32, 16):
        for first in steps:
            for second in steps:
                chain = (first + (bits,), second + (bits,))
                function = THREAD_INDEX.then(chain[0])
                function = function.then(chain[1]) if function is not None else None
                assert function is not None
                plain = ThreadFunction(chain)  # no field: the chain is evaluated
                assert [function.evaluate(thread) for thread in range(1024)] == [plain.evaluate(thread) for thread in range(1024)]
    assert THREAD_INDEX.then(("shl", 16, 32)).then(("and", 0x600000, 32)).field is not None  # type: ignore[union-attr]


def test_adding_an_unknown_to_a_tmem_address_moves_its_column_only() -> None:
    values = WarpEvaluator(warp_count=4, tid_x_is_linear=True)
    base = TensorAddress("slot+0", 0, 0)
    lanes = tuple(32 * warp << 16 for warp in range(4))
    address = values._map(lambda a, b: add(a, b, 32), (base, lanes))
    assert address == tuple(TensorAddress("slot+0", 32 * warp, 0) for warp in range(4))
    moved = values._map(lambda a, b: add(a, b, 32), (address, None))
    assert moved == tuple(TensorAddress("slot+0", 32 * warp, None) for warp in range(4))


def test_a_second_equal_test_cannot_go_the_other_way() -> None:
    context = PathContext(warps=0b1111, predicates=frozenset({("%p1", ("eq.b32", "%r1", 0), True)}))
    taken = context.assume("%p1", True, 0b1111)
    assert taken is not None
    again = taken.assume("%p1", False, 0b1111)
    assert again is None


def test_a_register_equal_to_two_constants_is_infeasible() -> None:
    known = frozenset({(("eq.b32", "%r1", 0), True)})
    context = PathContext(0b1111, known, frozenset({("%p2", ("eq.b32", "%r1", 1), True)}))
    assert context.assume("%p2", True, 0b1111) is None


def test_a_comparison_outside_an_earlier_range_is_infeasible() -> None:
    # warp == 5 known; `setp.lt.u32 %p2, %r1, 4` cannot hold on this path.
    known = frozenset({(("eq.b32", "%r1", 5), True)})
    context = PathContext(0b1111, known, frozenset({("%p2", ("lt.u32", "%r1", 4), True)}))
    assert context.assume("%p2", True, 0b1111) is None
    assert context.assume("%p2", False, 0b1111) is not None


def test_signed_and_unsigned_spellings_of_a_constant_are_one_condition() -> None:
    from ptxlint.lower import lower
    from ptxlint.source import SourceFile
    from ptxlint.analyses.threads.conditions import read_comparison

    text = (
        ".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k() {\n.reg .pred %p<3>;\n.reg .b32 %r<2>;\n"
        "setp.ne.s32 %p1, %r1, -1;\nsetp.eq.u32 %p2, 4294967295, %r1;\nret;\n}\n"
    )
    function = lower(SourceFile.from_bytes("k.ptx", text.encode())).functions[0]
    first, second = (read_comparison(instruction, lambda register: register.name) for instruction in function.instructions[:2])
    assert first == (("eq.b32", "%r1", 4294967295), False)
    assert second == (("eq.b32", "%r1", 4294967295), True)


def test_a_branch_keeps_only_the_warps_that_can_take_it() -> None:
    false_in = warps_where((True, False, False, False), False, 4)  # warp == 0
    context = PathContext(0b1111).assume("%p1", False, false_in)
    assert context is not None and context.warps == 0b1110
    assert PathContext(0b0001).assume("%p1", False, false_in) is None


# -- the address forms of issue 23, step 6: bit fields of TMEM addresses, 2-D and 3-D blocks


def test_masks_take_a_tmem_address_apart() -> None:
    address = TensorAddress("slot+0", 32, 8)
    assert and_values(address, 0xFFFF, 32) == TensorAddress("slot+0", 0, 8)  # the column part
    assert and_values(0xFFFF0000, address, 32) == 32 << 16  # the lane part: an integer
    # A mask that keeps every bit the allocation's column (below 512) plus a known offset can have.
    assert and_values(TensorAddress("slot+0", 0, 0), 0x3FF, 32) == TensorAddress("slot+0", 0, 0)
    assert and_values(TensorAddress("slot+0", 0, None), 0x3FF, 32) is None
    assert and_values(address, 0xFF, 32) is None


def test_bfi_sets_a_lane_field_and_bfe_reads_it() -> None:
    base = TensorAddress("slot+0", 0, 4)
    assert insert_field(96, base, 16, 16, 32) == TensorAddress("slot+0", 96, 4)
    assert insert_field(5, TensorAddress("slot+0", 32, 4), 0, 8, 32) == TensorAddress("slot+0", 32, None)
    assert insert_field(base, 96 << 16, 0, 16, 32) == TensorAddress("slot+0", 96, 4)
    assert insert_field(0b101, 0xFFFF, 4, 3, 32) == 0xFFDF
    assert extract_field(TensorAddress("slot+0", 96, 4), 16, 16, 32, False) == 96
    assert extract_field(TensorAddress("slot+0", 96, 4), 0, 16, 32, False) == TensorAddress("slot+0", 0, 4)
    assert extract_field(0xF0, 4, 4, 32, False) == 0xF
    assert extract_field(0xF0, 4, 4, 32, True) == 0xFFFFFFFF  # sign-extended from bit 7


def test_prmt_joins_a_column_and_a_lane() -> None:
    column = TensorAddress("slot+0", 0, 16)
    assert permute_bytes(column, 96, 0x5410) == TensorAddress("slot+0", 96, 16)
    assert permute_bytes(column, 96, 0x1054) is None  # the column bytes moved into the lane field
    assert permute_bytes(0x04030201, 0x08070605, 0x3210) == 0x04030201
    assert permute_bytes(0x04030201, 0x08070605, 0x7654) == 0x08070605
    assert permute_bytes(0x80, 0, 0x4448) == 0xFF  # the sign of byte 0, replicated; then b's byte 0


def test_tid_y_of_a_32_wide_block_is_the_warp_index() -> None:
    values = WarpEvaluator(warp_count=8, tid_x_is_linear=False, extents=(32, 8, 1))
    assert values._special("%tid.y") == tuple(range(8))
    assert values._special("%ntid.x") == 32
    three_d = WarpEvaluator(warp_count=8, tid_x_is_linear=False, extents=(32, 1, 8))
    assert three_d._special("%tid.z") == tuple(range(8)) and three_d._special("%tid.y") == 0


def test_linear_index_of_a_16_wide_block() -> None:
    # Two rows a warp: %tid.y alone differs within a warp, (tid.x + tid.y * 16) / 32 does not.
    values = WarpEvaluator(warp_count=8, tid_x_is_linear=False, extents=(16, 16, 1))
    tid_y = values._special("%tid.y")
    assert type(tid_y) is ThreadFunction
    row = values._binary("mul", tid_y, 16, 32)
    linear = values._binary("add", values._special("%tid.x"), row, 32)
    assert values._thread_arithmetic("div", [linear, 32], 32) == tuple(range(8))
    mad = values._binary("add", values._binary("mul", tid_y, 16, 64), values._special("%tid.x"), 32)
    assert values._thread_arithmetic("shr", [mad, 5], 32) == tuple(range(8))


def test_tid_y_is_no_warp_index_when_rows_straddle_warps_or_the_shape_is_not_fixed() -> None:
    straddling = WarpEvaluator(warp_count=6, tid_x_is_linear=False, extents=(48, 4, 1))
    lanes = straddling._thread_arithmetic("shl", [straddling._special("%tid.y"), 21], 32)
    assert straddling._binary("add", TensorAddress("slot+0", 0, 0), lanes, 32) is VARYING
    bounded = WarpEvaluator(warp_count=8, tid_x_is_linear=False)  # `.maxntid 32, 8`: no extents
    assert bounded._special("%tid.y") is VARYING
