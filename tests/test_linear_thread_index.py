"""The uniformity arithmetic of two- and three-dimensional blocks, checked against every thread of
blocks the default assumption allows (one dimension, or an x extent that is a multiple of 32):
each level it claims for a value computed from `%tid.y`, `%tid.z` and the linear thread index
holds in every warp, warpgroup or CTA, and each exact `%tid.x` field it keeps is the value in
every thread (the linear index standing for `%tid.x`, as in one dimension)."""

from __future__ import annotations

from typing import Callable

import pytest

from ptxlint.analyses.launch import BlockShape
from ptxlint.analyses.threads.tid_fields import TID_X, LaneModel, Level, Multiple, TidBits, TidBound
from ptxlint.analyses.uniformity.lattice import Value
from ptxlint.analyses.uniformity.lane_functions import LaneFunctions
from ptxlint.analyses.uniformity.thread_comparisons import ThreadIndexComparisons
from ptxlint.analyses.uniformity.thread_index import ThreadIndexArithmetic
from ptxlint.ir import Opcode

SHAPES = [(32, 4, 1), (64, 2, 3), (96, 3, 2), (128, 8, 1), (32, 1, 1), (256, 1, 4)]
ASSUMED = LaneModel(BlockShape(None, None, None, None, True, assumed=True))
ARITHMETIC = ThreadIndexArithmetic(ASSUMED, None)
COMPARISONS = ThreadIndexComparisons(ASSUMED, None)
LANE_FUNCTIONS = LaneFunctions(ASSUMED, None)

TID_Y = Value(Level.WARP)  # what the uniformity transfer gives `%tid.y` and `%tid.z` here
NTID_X = Value(Level.CTA, Multiple(5))  # whole warps: a multiple of 32
NTID_Y = Value(Level.CTA)


def _op(text: str) -> Opcode:
    base, *modifiers = text.split(".")
    return Opcode(text, base, tuple(modifiers))


def _constant(value: int) -> Value:
    from ptxlint.analyses.threads.tid_fields import Constant

    return Value(Level.CTA, Constant(value))


def _linear() -> Value:
    return ARITHMETIC.arithmetic(_op("mad.lo.s32"), [TID_Y, NTID_X, Value(Level.THREAD, TID_X)])


def _thread_rank() -> Value:
    row = ARITHMETIC.arithmetic(_op("mad.lo.s32"), [TID_Y, NTID_Y, TID_Y])  # tid.z * ntid.y + tid.y
    return ARITHMETIC.arithmetic(_op("mad.lo.s32"), [row, NTID_X, Value(Level.THREAD, TID_X)])


def _compare(modifiers: str, value: Value, constant: int) -> Value:
    fallback = Value(value.level, None, value.origin)
    return COMPARISONS.compare(tuple(modifiers.split(".")), value, constant, False, fallback, exact=False)


# (name, the value on (x, y, z, ntid.x, ntid.y), its symbolic computation)
Concrete = Callable[[int, int, int, int, int], int]
CASES: list[tuple[str, Concrete, Callable[[], Value]]] = [
    ("tid.y", lambda x, y, z, nx, ny: y, lambda: TID_Y),
    ("tid.y * ntid.x", lambda x, y, z, nx, ny: y * nx, lambda: ARITHMETIC.arithmetic(_op("mul.lo.s32"), [TID_Y, NTID_X])),
    ("tid.y << 7", lambda x, y, z, nx, ny: y << 7, lambda: ARITHMETIC.arithmetic(_op("shl.b32"), [TID_Y, _constant(7)])),
    ("linear", lambda x, y, z, nx, ny: y * nx + x, _linear),
    ("warp of linear", lambda x, y, z, nx, ny: (y * nx + x) >> 5,
     lambda: ARITHMETIC.arithmetic(_op("shr.u32"), [_linear(), _constant(5)])),
    ("warpgroup bits of linear", lambda x, y, z, nx, ny: (y * nx + x) >> 7,
     lambda: ARITHMETIC.arithmetic(_op("shr.u32"), [_linear(), _constant(7)])),
    ("lane of linear", lambda x, y, z, nx, ny: (y * nx + x) & 31,
     lambda: ARITHMETIC.arithmetic(_op("and.b32"), [_linear(), _constant(31)])),
    ("high bits of linear", lambda x, y, z, nx, ny: (y * nx + x) >> 10,
     lambda: ARITHMETIC.arithmetic(_op("shr.u32"), [_linear(), _constant(10)])),
    ("linear plus 3", lambda x, y, z, nx, ny: y * nx + x + 3,
     lambda: ARITHMETIC.arithmetic(_op("add.s32"), [_linear(), _constant(3)])),
    ("linear < 32", lambda x, y, z, nx, ny: int(y * nx + x < 32), lambda: _compare("lt.u32", _linear(), 32)),
    ("linear < 48", lambda x, y, z, nx, ny: int(y * nx + x < 48), lambda: _compare("lt.u32", _linear(), 48)),
    ("linear > 63", lambda x, y, z, nx, ny: int(y * nx + x > 63), lambda: _compare("gt.u32", _linear(), 63)),
    ("linear >= 256", lambda x, y, z, nx, ny: int(y * nx + x >= 256), lambda: _compare("ge.s32", _linear(), 256)),
    ("linear + 3 < 35", lambda x, y, z, nx, ny: int(y * nx + x + 3 < 35),
     lambda: _compare("lt.u32", ARITHMETIC.arithmetic(_op("add.s32"), [_linear(), _constant(3)]), 35)),
    ("thread_rank warp", lambda x, y, z, nx, ny: ((z * ny + y) * nx + x) >> 5,
     lambda: ARITHMETIC.arithmetic(_op("shr.u32"), [_thread_rank(), _constant(5)])),
    ("tid.x - (tid.x & -32)", lambda x, y, z, nx, ny: x - (x & -32),  # nvcc's signed `threadIdx.x % 32`
     lambda: ARITHMETIC.arithmetic(_op("sub.s32"), [
         Value(Level.THREAD, TID_X), ARITHMETIC.arithmetic(_op("and.b32"), [Value(Level.THREAD, TID_X), _constant(0x3FFFFFE0)])
     ])),
    ("thread_rank lane", lambda x, y, z, nx, ny: ((z * ny + y) * nx + x) & 31,
     lambda: ARITHMETIC.arithmetic(_op("and.b32"), [_thread_rank(), _constant(31)])),
]

_GROUP = {Level.WARP: 32, Level.WARPGROUP: 128}


@pytest.mark.parametrize("name, concrete, symbolic", CASES, ids=[case[0] for case in CASES])
@pytest.mark.parametrize("shape", SHAPES, ids=[f"{x}x{y}x{z}" for x, y, z in SHAPES])
def test_claims_hold_in_every_thread(name: str, concrete: Concrete, symbolic: Callable[[], Value], shape: tuple[int, int, int]) -> None:
    nx, ny, nz = shape
    value = symbolic()
    values = [concrete(x, y, z, nx, ny) for z in range(nz) for y in range(ny) for x in range(nx)]  # by linear index
    if value.level == Level.CTA:
        assert len(set(values)) == 1, f"{name} claimed CTA-uniform"
    elif value.level in _GROUP:
        size = _GROUP[value.level]
        for start in range(0, len(values), size):
            assert len(set(values[start : start + size])) == 1, f"{name} claimed {value.level.adjective}"
    bits = value.bits
    if type(bits) is TidBits and bits.unknown is None:
        for linear, result in enumerate(values):
            assert bits.at(linear) == result, f"{name}: the field at thread {linear}"


def test_the_linear_index_keeps_its_warp_and_lane() -> None:
    """What the rules need: the warp of the linear index is warp-uniform, its lane an exact
    field (so `lane == 0` is an exact thread set), and neither is claimed for `%tid.x` alone."""
    warp = ARITHMETIC.arithmetic(_op("shr.u32"), [_linear(), _constant(5)])
    lane = ARITHMETIC.arithmetic(_op("and.b32"), [_linear(), _constant(31)])
    assert warp.level == Level.WARP
    assert lane.level == Level.THREAD and lane.bits == TidBits(0, 5, 0)
    high = ARITHMETIC.arithmetic(_op("shr.u32"), [_linear(), _constant(10)])
    assert high.level == Level.WARP  # the rows' part is left: not CTA-uniform
    assert _compare("lt.u32", _linear(), 32).level == Level.WARP  # `if (thread_rank < 32)`: warp 0
    assert _compare("lt.u32", _linear(), 16).level == Level.THREAD


def test_a_bounds_check_on_the_global_index_is_one_run_of_threads() -> None:
    """`blockIdx.x * blockDim.x + threadIdx.x < n` (`TidBound`): in every block and for every
    bound, the threads where it holds are consecutive, so at most one warp is split; an equality
    test, or a bound that varies per thread, is no such run."""
    ctaid, ntid, bound = Value(Level.CTA), NTID_X, Value(Level.CTA)
    start = ARITHMETIC.arithmetic(_op("mul.lo.s32"), [ctaid, ntid])
    index = ARITHMETIC.arithmetic(_op("add.s32"), [start, Value(Level.THREAD, TID_X)])
    fallback = Value(Level.THREAD)
    for order in ("lt.s32", "ge.u32", "gt.s32"):
        assert type(COMPARISONS.compare_with_bound(tuple(order.split(".")), index, bound, fallback).bits) is TidBound
        assert type(COMPARISONS.compare_with_bound(tuple(order.split(".")), bound, index, fallback).bits) is TidBound
    assert COMPARISONS.compare_with_bound(("eq", "s32"), index, bound, fallback) is fallback
    assert COMPARISONS.compare_with_bound(("lt", "s32"), index, Value(Level.THREAD), fallback) is fallback
    for block, threads, n in ((0, 256, 77), (3, 128, 400), (1, 1024, 1500), (2, 96, 230)):
        holds = [block * threads + t < n for t in range(threads)]
        split = [warp for warp in range(0, threads, 32) if len(set(holds[warp : warp + 32])) > 1]
        assert len(split) <= 1
        assert holds == sorted(holds, reverse=True)  # one run, from the first thread


def test_the_same_field_on_both_sides_of_a_comparison_cancels() -> None:
    """`start + tid < end + tid` holds in every thread or in none (as long as neither side
    wraps around); a bound without the thread index, or with another field of it, does not."""
    tid = Value(Level.THREAD, TID_X)
    start, end = Value(Level.CTA), Value(Level.CTA, Multiple(3))
    first = ARITHMETIC.arithmetic(_op("add.s32"), [start, tid])
    last = ARITHMETIC.arithmetic(_op("add.s32"), [end, tid])
    fallback = Value(Level.THREAD)
    for order in ("lt.s32", "ge.u32", "ne.s32", "lo.u32"):
        assert COMPARISONS.compare_same_field(tuple(order.split(".")), first, last, fallback).level == Level.CTA
    doubled = ARITHMETIC.arithmetic(_op("shl.b32"), [tid, _constant(1)])
    assert COMPARISONS.compare_same_field(("lt", "s32"), first, doubled, fallback) is fallback
    assert COMPARISONS.compare_same_field(("lt", "s32"), first, end, fallback) is fallback
    assert COMPARISONS.compare_same_field(("lt", "f32"), first, last, fallback) is fallback
    for a, b in ((0, 5), (7, 7), (100, 3)):
        assert len({a + t < b + t for t in range(1024)}) == 1


def test_a_warp_reduction_of_a_lane_function_is_the_same_in_every_warp() -> None:
    """`partial[lane]` after the barrier: every warp reads the same entries, so a full-warp vote
    or reduction of them (or of a comparison of them with a uniform value) is CTA-uniform; an
    entry picked by the warp or by the whole thread index is not, and a block with a partial
    warp reduces fewer entries in its last warp."""
    tid = Value(Level.THREAD, TID_X)
    lane = ARITHMETIC.arithmetic(_op("and.b32"), [tid, _constant(31)])
    address = ARITHMETIC.arithmetic(_op("add.s32"), [Value(Level.CTA), ARITHMETIC.arithmetic(_op("shl.b32"), [lane, _constant(2)])])
    loaded = LANE_FUNCTIONS.loaded_by_lane(address, 32)
    assert loaded is not None and loaded.level == Level.THREAD
    assert LANE_FUNCTIONS.reduces_lane_function(loaded)
    predicate = LANE_FUNCTIONS.compare_lane_values(loaded, _constant(0), Value(Level.THREAD))
    assert LANE_FUNCTIONS.reduces_lane_function(predicate)
    assert not LANE_FUNCTIONS.reduces_lane_function(LANE_FUNCTIONS.compare_lane_values(loaded, Value(Level.WARP), Value(Level.THREAD)))
    by_thread = ARITHMETIC.arithmetic(_op("add.s32"), [Value(Level.CTA), ARITHMETIC.arithmetic(_op("shl.b32"), [tid, _constant(2)])])
    assert LANE_FUNCTIONS.loaded_by_lane(by_thread, 32) is None
    by_warp = ARITHMETIC.arithmetic(_op("shr.u32"), [tid, _constant(5)])
    assert LANE_FUNCTIONS.loaded_by_lane(by_warp, 32) is None
    from ptxlint.analyses.threads.lane_sets import ThreadSpace

    partial_warp = LaneFunctions(LaneModel(BlockShape(48, 1, 1, 48, True, assumed=False)), ThreadSpace(48))
    assert not partial_warp.reduces_lane_function(partial_warp.loaded_by_lane(address, 32))  # type: ignore[arg-type]


def test_a_bound_that_is_a_multiple_of_32_splits_no_warp() -> None:
    """`tid < (word >> 11) & 0x1fe0` (a thread count of whole warps read from memory) holds for
    whole warps, whatever the word, and so does a warp-uniform bound of whole warps (`n - (p ?
    32 : 0)` chosen per warp); `tid <= bound` and a multiple of 16 do not."""
    tid = Value(Level.THREAD, TID_X)
    word = Value(Level.CTA)
    count = ARITHMETIC.arithmetic(_op("and.b32"), [ARITHMETIC.arithmetic(_op("shr.u32"), [word, _constant(11)]), _constant(0x1FE0)])
    assert count.level == Level.CTA and count.bits == Multiple(5)
    fallback = Value(Level.THREAD)
    assert COMPARISONS.compare_with_bound(("lt", "s32"), tid, count, fallback).level == Level.WARP
    assert COMPARISONS.compare_with_bound(("le", "s32"), count, tid, fallback).level == Level.WARP  # count <= tid: tid >= count
    assert COMPARISONS.compare_with_bound(("le", "s32"), tid, count, fallback).level == Level.THREAD
    less_a_warp = ARITHMETIC.arithmetic(_op("sub.s32"), [count, Value(Level.WARP, Multiple(5))])
    assert less_a_warp.level == Level.WARP and less_a_warp.bits == Multiple(5)
    assert COMPARISONS.compare_with_bound(("ge", "s32"), tid, less_a_warp, fallback).level == Level.WARP
    sixteen = ARITHMETIC.arithmetic(_op("and.b32"), [word, _constant(0x1FF0)])
    assert COMPARISONS.compare_with_bound(("lt", "s32"), tid, sixteen, fallback).level == Level.THREAD
    for word_value in (0, 0x5A5A5A5A, 0xFFFFFFFF, 0x00123800):
        bound = (word_value >> 11) & 0x1FE0
        for warp in range(32):
            assert len({t < bound for t in range(32 * warp, 32 * warp + 32)}) == 1
