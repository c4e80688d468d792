"""Qualifiers that must or must not appear together, as the manual states them and ptxas
enforces them (where the two differ, see DISAGREEMENTS.md).

:func:`qualifier_problems` takes ``(base, modifiers, operand_kinds)`` and returns each problem
with the index of the modifier to point at (None: the opcode as a whole). Unknown instructions
yield nothing.
"""

from __future__ import annotations

import re

from ptxlint.isa.barriers import BARRIER_BASES, cta_barrier
from ptxlint.isa.shapes import SPLIT_SHAPE, TCGEN05_REGISTERS_PER_THREAD, tcgen05_num, tcgen05_shape
from ptxlint.isa.values import has_scale_input_d
from ptxlint.records import record

# tcgen05.cp (§9.7.16.9.2): the multicast each shape requires; shapes not listed take none.
TCGEN05_CP_MULTICAST: dict[str, tuple[str, ...]] = {
    "64x128b": ("warpx2::02_13", "warpx2::01_23"),
    "32x128b": ("warpx4",),
}
TCGEN05_CP_SHAPES = ("128x256b", "4x256b", "128x128b", "64x128b", "32x128b")
TCGEN05_CP_MULTICASTS = ("warpx2::02_13", "warpx2::01_23", "warpx4")

# wmma.store (§9.7.14.4.4): `.m8n8k4` is the double-precision shape and stores only `.f64`, and
# `.f64` exists only in that shape. The manual lists more pairs (`.m8n8k32` stores only `.s32`),
# but ptxas accepts those other pairings; see DISAGREEMENTS.md.
DOUBLE_SHAPE = "m8n8k4"
# The integer-only shapes (sub-byte and single-bit inputs) have no half-precision result.
INTEGER_SHAPES = ("m8n8k32", "m8n8k128")
WMMA_SHAPES = ("m16n16k16", "m8n32k16", "m32n8k16", "m8n8k32", "m8n8k128", "m16n16k8", "m8n8k4")
WMMA_TYPES = ("f16", "f32", "s32", "f64", "bf16", "tf32", "s8", "u8", "s4", "u4", "b1")

# tcgen05.mma (§9.7.16.10.9): the kinds whose D may be scaled by scale-input-d.
# ptxas also accepts `.kind::i8` (DISAGREEMENTS.md).
SCALE_INPUT_D_KINDS = ("kind::f16", "kind::tf32", "kind::i8")

# tcgen05.ld `r, [taddr]` and tcgen05.st `[taddr], r`, before the split offset immediate.
_TCGEN05_LD_ST_OPERANDS = 2


@record
class QualifierProblem:
    """A qualifier combination ptxas rejects, and which modifier to point at."""

    index: int | None
    message: str
    help: str | None = None


def _index(modifiers: tuple[str, ...], modifier: str | None) -> int | None:
    return modifiers.index(modifier) if modifier in modifiers else None


# The only instructions qualifier_problems judges: callers skip computing operand kinds for the rest.
JUDGED_BASES = frozenset({"tcgen05", "st", "ldmatrix", "wmma", "mma", "wgmma"}) | BARRIER_BASES


def qualifier_problems(base: str, modifiers: tuple[str, ...], operand_kinds: tuple[str, ...]) -> list[QualifierProblem]:
    """``operand_kinds`` names each operand's form: "vector", "address", "immediate" or "other"."""
    if base not in JUDGED_BASES:
        return []
    operation = modifiers[0] if modifiers else ""
    if base == "tcgen05" and operation in ("ld", "st"):
        return _tcgen05_ld_st(operation, modifiers, len(operand_kinds))
    if base == "tcgen05" and operation == "cp":
        return _tcgen05_cp(modifiers)
    if base == "tcgen05" and operation == "mma":
        return _tcgen05_mma(modifiers, operand_kinds)
    if base == "st" and operation == "async":
        return _st_async(modifiers)
    if base == "ldmatrix":
        return _ldmatrix(modifiers)
    barrier = cta_barrier(base, modifiers, len(operand_kinds)) if base in BARRIER_BASES else None
    if barrier is not None and barrier.operation == "arrive" and barrier.identifier is not None and barrier.whole_cta:
        return [QualifierProblem(
            _index(modifiers, "arrive"), "`.arrive` needs the thread-count operand",
            "name the number of threads that take part, as the waiting side does")]
    if base == "wmma" and operation == "store":
        return _wmma_store(modifiers)
    if base == "wmma" and operation == "mma":
        return _wmma_mma_types(modifiers)
    if base == "wmma" and operation == "load":
        return _wmma_multiplicand_type(modifiers)
    if base == "mma" and operation == "sync":
        return (_mma_layout(modifiers) or _matrix_types("mma", modifiers, MMA_TYPE_PAIRS, 4)
                or _mma_shape(modifiers))
    if base == "wgmma" and operation == "mma_async":
        return _wgmma_shape(modifiers) or _matrix_types("wgmma.mma_async", modifiers, WGMMA_TYPE_PAIRS, 3)
    return []


def _wmma_mma_types(modifiers: tuple[str, ...]) -> list[QualifierProblem]:
    """Half precision names `.dtype.ctype`; every other type names all four."""
    types = [(index, m) for index, m in enumerate(modifiers) if m in _MATRIX_TYPES]
    if len(types) == 2 and any(m not in ("f16", "f32") for _, m in types):
        index, kind = next((i, m) for i, m in types if m not in ("f16", "f32"))
        return [QualifierProblem(index, f"`wmma.mma` with `.{kind}` names four types, `.dtype.atype.btype.ctype`")]
    return []


def _wmma_multiplicand_type(modifiers: tuple[str, ...]) -> list[QualifierProblem]:
    """wmma.load.a/b load the input types; `.m16n16k8` loads `.tf32`."""
    if modifiers[1:2] not in (("a",), ("b",)):
        return []
    kind = next(((index, m) for index, m in enumerate(modifiers) if m in _MATRIX_TYPES), None)
    if kind is None:
        return []
    if kind[1] in ("f32", "s32"):
        return [QualifierProblem(kind[0], f"`wmma.load.{modifiers[1]}` loads an input type, not the accumulator type `.{kind[1]}`")]
    if "m16n16k8" in modifiers and kind[1] != "tf32":
        return [QualifierProblem(kind[0], f"`wmma.load.{modifiers[1]}` with shape `.m16n16k8` loads `.tf32`, not `.{kind[1]}`")]
    return []


def _mma_layout(modifiers: tuple[str, ...]) -> list[QualifierProblem]:
    """Every shape but `.m8n8k4` takes A in rows and B in columns: `.row.col`."""
    if "m8n8k4" in modifiers:
        return []
    layouts = [(index, m) for index, m in enumerate(modifiers) if m in ("row", "col")]
    for (index, layout), wanted in zip(layouts, ("row", "col")):
        if layout != wanted:
            return [QualifierProblem(index, f"`mma` takes `.row.col` with this shape, not `.{layouts[0][1]}.{layouts[-1][1]}`")]
    return []


# The element types the warp-level matrix instructions multiply (§9.7.14.5.14, §9.7.15.5.2): the
# type family of A and B (A and B may mix within a family), and the accumulator types it allows.
_FP8 = ("e4m3", "e5m2")
_INT8 = ("s8", "u8")
_INT4 = ("s4", "u4")
MMA_TYPE_PAIRS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "f16": (("f16",), ("f16", "f32")), "bf16": (("bf16",), ("f32",)), "tf32": (("tf32",), ("f32",)),
    "f64": (("f64",), ("f64",)), **{kind: (_FP8, ("f16", "f32")) for kind in _FP8},
    **{kind: (_INT8, ("s32",)) for kind in _INT8}, **{kind: (_INT4, ("s32",)) for kind in _INT4}, "b1": (("b1",), ("s32",)),
}
WGMMA_TYPE_PAIRS = {kind: MMA_TYPE_PAIRS[kind] for kind in ("f16", "bf16", "tf32", "e4m3", "e5m2", "s8", "u8", "b1")}
_MATRIX_TYPES = frozenset({"f16", "bf16", "tf32", "f32", "f64", "s32", "s8", "u8", "s4", "u4", "b1", "e4m3", "e5m2"})


# The shapes of each mma input type (§9.7.14.5.14, dense forms).
_MMA_SHAPES = {
    "f16": ("m8n8k4", "m16n8k8", "m16n8k16"), "bf16": ("m16n8k8", "m16n8k16"), "tf32": ("m16n8k4", "m16n8k8"),
    "f64": ("m8n8k4", "m16n8k4", "m16n8k8", "m16n8k16"),
    **{kind: ("m8n8k16", "m16n8k16", "m16n8k32") for kind in _INT8},
    **{kind: ("m8n8k32", "m16n8k32", "m16n8k64") for kind in _INT4},
    "b1": ("m8n8k128", "m16n8k128", "m16n8k256"), **{kind: ("m16n8k16", "m16n8k32") for kind in _FP8},
}


def _mma_shape(modifiers: tuple[str, ...]) -> list[QualifierProblem]:
    types = [m for m in modifiers if m in _MATRIX_TYPES]
    shape = next(((index, m) for index, m in enumerate(modifiers) if re.fullmatch(r"m\d+n\d+k\d+", m)), None)
    if shape is None or len(types) != 4 or types[1] not in _MMA_SHAPES or any(m.startswith("kind::") for m in modifiers):
        return []
    shapes = _MMA_SHAPES[types[1]]
    if shape[1] in shapes:
        return []
    return [QualifierProblem(shape[0], f"`mma` with `.{types[1]}` takes shape {' or '.join(f'`.{s}`' for s in shapes)}, "
                             f"not `.{shape[1]}`")]


def _matrix_types(name: str, modifiers: tuple[str, ...], pairs: dict, count: int) -> list[QualifierProblem]:
    """`.dtype.atype.btype(.ctype)`: A and B of one family, D (and C) an accumulator of it."""
    types = [(index, m) for index, m in enumerate(modifiers) if m in _MATRIX_TYPES]
    if any(m not in _MATRIX_TYPES for m in modifiers if m.startswith(("e", "ue")) and m[1:2].isdigit()):
        return []  # the sm_120 narrow-float kinds: not judged here
    if len(types) > count and all(m in ("bf16", "tf32") for _, m in types[count:]):
        types = types[:count]  # ptxas accepts, and ignores, a trailing `.bf16` or `.tf32`
    if len(types) != count:
        if types and not any(m.startswith("kind::") for m in modifiers):
            index = types[-1][0] if len(types) > count else types[0][0]
            return [QualifierProblem(index, f"`{name}` names {count} types, not {len(types)}")]
        return []
    (_, dtype), (_, atype), (b_index, btype) = types[:3]
    if atype not in pairs:
        return [QualifierProblem(types[1][0], f"`{name}` does not multiply `.{atype}`")]
    family, accumulators = pairs[atype]
    if btype not in family:
        return [QualifierProblem(b_index, f"`{name}` multiplies `.{atype}` by {' or '.join(f'`.{t}`' for t in family)}, not `.{btype}`")]
    for index, accumulator in (types[0], *types[3:]):
        if accumulator not in accumulators:
            return [QualifierProblem(index, f"`{name}` with `.{atype}` accumulates in "
                                     f"{' or '.join(f'`.{t}`' for t in accumulators)}, not `.{accumulator}`")]
    return []


def _wgmma_shape(modifiers: tuple[str, ...]) -> list[QualifierProblem]:
    """`.m64nNkK`: N is a multiple of 8 from 8 to 256; K is what the input type fixes (twice that
    when sparse)."""
    types = [m for m in modifiers if m in _MATRIX_TYPES]
    for index, modifier in enumerate(modifiers):
        match = re.fullmatch(r"m64n(\d+)k(\d+)", modifier)
        if match is None:
            continue
        if int(match.group(1)) % 8 or not 8 <= int(match.group(1)) <= 256:
            return [QualifierProblem(index, f"the N of `.{modifier}` must be a multiple of 8 from 8 to 256")]
        k = _WGMMA_K.get(types[1]) if len(types) >= 2 else None
        if k is not None and "sp" in modifiers:
            k *= 2  # the sparse form halves A's stored elements: twice the K
        if k is not None and int(match.group(2)) != k:
            return [QualifierProblem(index, f"`wgmma.mma_async` with `.{types[1]}` has K = {k}, not {match.group(2)}")]
    return []


_WGMMA_K = {"f16": 16, "bf16": 16, "tf32": 8, "e4m3": 32, "e5m2": 32, "s8": 32, "u8": 32, "b1": 256}


def _tcgen05_ld_st(operation: str, modifiers: tuple[str, ...], operand_count: int) -> list[QualifierProblem]:
    problems = []
    shape, num = tcgen05_shape(modifiers), tcgen05_num(modifiers)
    reduction = operation == "ld" and len(modifiers) > 1 and modifiers[1] == "red"
    if shape and num and num not in TCGEN05_REGISTERS_PER_THREAD[shape]:
        largest = list(TCGEN05_REGISTERS_PER_THREAD[shape])[-1]
        problems.append(QualifierProblem(
            _index(modifiers, num), f"`.{num}` is not allowed with shape `.{shape}`",
            f"the largest `.num` for `.{shape}` is `.{largest}`"))
    if reduction and num == "x1":
        problems.append(QualifierProblem(
            _index(modifiers, num), "`tcgen05.ld.red` needs `.num` of `.x2` or more, not `.x1`",
            "reduce over at least two columns (`.x2`)"))
    if shape:
        base_count = _TCGEN05_LD_ST_OPERANDS + (1 if reduction else 0)  # ld.red adds redval
        has_offset = operand_count == base_count + 1
        if shape == SPLIT_SHAPE and operand_count == base_count:
            problems.append(QualifierProblem(
                _index(modifiers, shape), f"shape `.{shape}` needs the immHalfSplitoff operand",
                "add the column offset of the second half after the tensor-memory address"))
        elif shape != SPLIT_SHAPE and has_offset:
            problems.append(QualifierProblem(
                _index(modifiers, shape), f"only `.{SPLIT_SHAPE}` takes an immHalfSplitoff operand, not `.{shape}`",
                "remove the offset operand"))
    return problems


def _ldmatrix(modifiers: tuple[str, ...]) -> list[QualifierProblem]:
    """`.m16n16` loads one or two 16x16 matrices; `.m8n16` (decompressing) cannot transpose."""
    problems = []
    if "m16n16" in modifiers and "x4" in modifiers:
        problems.append(QualifierProblem(
            _index(modifiers, "x4"), "`ldmatrix` with shape `.m16n16` takes `.x1` or `.x2`, not `.x4`",
            "load at most two `.m16n16` matrices per instruction (`.x2`)"))
    if "m8n16" in modifiers and "trans" in modifiers:
        problems.append(QualifierProblem(
            _index(modifiers, "trans"), "`ldmatrix` with shape `.m8n16` cannot `.trans`", "remove `.trans`"))
    return problems


def _tcgen05_cp(modifiers: tuple[str, ...]) -> list[QualifierProblem]:
    source_format = next((m for m in modifiers if m in ("b6x16_p32", "b4x16_p64")), None)
    if source_format and "b8x16" in modifiers and modifiers.index(source_format) < modifiers.index("b8x16"):
        return [QualifierProblem(_index(modifiers, source_format),
                                 f"the source format `.{source_format}` follows the destination format `.b8x16`")]
    shape = next((m for m in modifiers if m in TCGEN05_CP_SHAPES), None)
    multicast = next((m for m in modifiers if m in TCGEN05_CP_MULTICASTS), None)
    if shape is None:
        return []
    allowed = TCGEN05_CP_MULTICAST.get(shape, ())
    if multicast is None and allowed:
        choices = " or ".join(f"`.{m}`" for m in allowed)
        return [QualifierProblem(
            _index(modifiers, shape), f"shape `.{shape}` needs the multicast qualifier {choices}", f"add {choices}")]
    if multicast is not None and multicast not in allowed:
        fix = " or ".join(f"`.{m}`" for m in allowed) if allowed else "no multicast qualifier"
        return [QualifierProblem(
            _index(modifiers, multicast), f"`.{multicast}` is not allowed with shape `.{shape}`", f"`.{shape}` takes {fix}")]
    return []


def _tcgen05_mma(modifiers: tuple[str, ...], operand_kinds: tuple[str, ...]) -> list[QualifierProblem]:
    problems = []
    kind = next((m for m in modifiers if m.startswith("kind::")), None)
    if kind and kind not in SCALE_INPUT_D_KINDS and has_scale_input_d(modifiers, operand_kinds):
        problems.append(QualifierProblem(
            _index(modifiers, kind), f"scale-input-d is only allowed with `.kind::f16` and `.kind::tf32`, not `.{kind}`",
            "remove the scale-input-d operand"))
    # `.ashift` shifts the A matrix in tensor memory, which a collector fill/use would reuse.
    collector = next((m for m in modifiers if m in ("collector::a::fill", "collector::a::use")), None)
    if "ashift" in modifiers and collector:
        problems.append(QualifierProblem(
            _index(modifiers, collector), f"`.ashift` cannot be combined with `.{collector}`",
            f"remove `.ashift` or `.{collector}`"))
    return problems


def _st_async(modifiers: tuple[str, ...]) -> list[QualifierProblem]:
    """The weak form signals an mbarrier in shared::cluster; the release form stores to global at
    `.gpu` or `.sys` scope and has no mbarrier. Only what ptxas also rejects is reported (see
    DISAGREEMENTS.md for the manual's stricter wording)."""
    problems = []
    mbarrier = "mbarrier::complete_tx::bytes"
    if "release" in modifiers:
        for space in ("shared::cluster", "shared::cta", "shared"):
            if space in modifiers:
                problems.append(QualifierProblem(
                    _index(modifiers, space), f"the release form of `st.async` stores to `.global`, not `.{space}`",
                    "write `.global`, or drop `.release` for the mbarrier form that stores to `.shared::cluster`"))
        if mbarrier in modifiers:
            problems.append(QualifierProblem(
                _index(modifiers, mbarrier), "the release form of `st.async` has no mbarrier completion",
                "remove `.mbarrier::complete_tx::bytes` and the mbarrier operand, or drop `.release`"))
        scope = next((m for m in modifiers if m in ("cta", "cluster")), None)
        if scope:
            problems.append(QualifierProblem(
                _index(modifiers, scope), f"the release form of `st.async` takes `.gpu` or `.sys` scope, not `.{scope}`",
                "write `.gpu` or `.sys`"))
    else:
        if mbarrier not in modifiers:
            for needs_mbarrier in ("shared::cluster", "v2", "v4"):
                if needs_mbarrier in modifiers:
                    problems.append(QualifierProblem(
                        _index(modifiers, needs_mbarrier),
                        f"`.{needs_mbarrier}` belongs to the mbarrier form of `st.async`, which needs `.{mbarrier}`",
                        "add `.mbarrier::complete_tx::bytes` and the mbarrier operand"))
        if "mmio" in modifiers:
            problems.append(QualifierProblem(
                _index(modifiers, "mmio"), "`.mmio` is only allowed on the release form of `st.async`",
                "write `st.async.mmio.release.sys.global`"))
        if "global" in modifiers and mbarrier in modifiers:
            problems.append(QualifierProblem(
                _index(modifiers, mbarrier), "`.mbarrier::complete_tx::bytes` signals an mbarrier in `.shared::cluster`, "
                "not with `.global`", "use `.shared::cluster`, or the release form for global memory"))
    width = next((m for m in modifiers if m in ("v2", "v4")), None)
    size = next((int(m[1:]) for m in modifiers if re.fullmatch(r"[bsuf](32|64)", m)), None)
    if width and size and int(width[1:]) * size > 128:
        problems.append(QualifierProblem(
            _index(modifiers, width), f"`.{width}` of {size}-bit elements is {int(width[1:]) * size} bits; "
            "`st.async` stores at most 128", "store at most 128 bits: `.v4` of 32-bit or `.v2` of 64-bit elements"))
    return problems


def _wmma_store(modifiers: tuple[str, ...]) -> list[QualifierProblem]:
    shape = next((m for m in modifiers if m in WMMA_SHAPES), None)
    kind = next((m for m in reversed(modifiers) if m in WMMA_TYPES), None)
    if shape is None or kind is None:
        return []
    if shape == "m16n16k8" and kind in ("f16", "s32"):
        # ptxas parses these, then fails for want of a library routine to store them
        return [QualifierProblem(_index(modifiers, kind), f"`wmma.store` with shape `.{shape}` stores `.f32`, not `.{kind}`")]
    if shape in INTEGER_SHAPES and kind == "f16":
        return [QualifierProblem(
            _index(modifiers, kind), f"`wmma.store` with shape `.{shape}` stores `.s32`, not `.f16`", "write `.s32`")]
    if (shape == DOUBLE_SHAPE) == (kind == "f64"):
        return []
    if shape == DOUBLE_SHAPE:
        return [QualifierProblem(
            _index(modifiers, kind), f"`wmma.store` with shape `.{shape}` stores `.f64`, not `.{kind}`", "write `.f64`")]
    return [QualifierProblem(
        _index(modifiers, kind), f"`wmma.store` stores `.f64` only with shape `.{DOUBLE_SHAPE}`, not `.{shape}`",
        f"use shape `.{DOUBLE_SHAPE}` for `.f64`")]
