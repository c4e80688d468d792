"""How many elements each brace-vector operand must have, by shape and qualifiers.

Pure functions over ``(base, modifiers)``: :func:`expected_vector_lengths` maps an operand position
(negative positions count from the end) to the element count the manual requires, with a phrase
naming what that operand is. Instructions this module does not know get an empty mapping.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Container
from ptxlint.records import record

# ----------------------------------------------------------------------------- tcgen05.ld / st

# Tables 49 and 50 (§9.7.16.8.3–4): 32-bit registers per thread for `.num = .xN`, per shape.
# `.pack::16b` / `.unpack::16b` do not change the count. A missing entry is an illegal pair.
TCGEN05_REGISTERS_PER_THREAD: dict[str, dict[str, int]] = {
    "32x32b":   {"x1": 1, "x2": 2, "x4": 4, "x8": 8, "x16": 16, "x32": 32, "x64": 64, "x128": 128},
    "16x64b":   {"x1": 1, "x2": 2, "x4": 4, "x8": 8, "x16": 16, "x32": 32, "x64": 64, "x128": 128},
    "16x32bx2": {"x1": 1, "x2": 2, "x4": 4, "x8": 8, "x16": 16, "x32": 32, "x64": 64, "x128": 128},
    "16x128b":  {"x1": 2, "x2": 4, "x4": 8, "x8": 16, "x16": 32, "x32": 64, "x64": 128},
    "16x256b":  {"x1": 4, "x2": 8, "x4": 16, "x8": 32, "x16": 64, "x32": 128},
}
TCGEN05_NUMS = ("x1", "x2", "x4", "x8", "x16", "x32", "x64", "x128")
# The one shape whose access is split in two halves, the second at `taddr + immHalfSplitoff`.
SPLIT_SHAPE = "16x32bx2"


def tcgen05_shape(modifiers: tuple[str, ...]) -> str | None:
    return next((m for m in modifiers if m in TCGEN05_REGISTERS_PER_THREAD), None)


def tcgen05_num(modifiers: tuple[str, ...]) -> str | None:
    return next((m for m in modifiers if m in TCGEN05_NUMS), None)


def tcgen05_register_count(modifiers: tuple[str, ...]) -> int | None:
    shape, num = tcgen05_shape(modifiers), tcgen05_num(modifiers)
    if shape is None or num is None:
        return None
    return TCGEN05_REGISTERS_PER_THREAD[shape].get(num)


# ----------------------------------------------------------------------------- mma / wmma

# mma.sync fragments (§9.7.14.5.14): (shape, A/B element type) → registers in A, B, and in C/D
# for each accumulator type.
MMA_FRAGMENTS: dict[tuple[str, str], tuple[int, int, dict[str, int]]] = {
    ("m8n8k4", "f16"): (2, 2, {"f16": 4, "f32": 8}),
    ("m16n8k8", "f16"): (2, 1, {"f16": 2, "f32": 4}),
    ("m16n8k16", "f16"): (4, 2, {"f16": 2, "f32": 4}),
    ("m16n8k8", "bf16"): (2, 1, {"f32": 4}),
    ("m16n8k16", "bf16"): (4, 2, {"f32": 4}),
    ("m16n8k4", "tf32"): (2, 1, {"f32": 4}),
    ("m16n8k8", "tf32"): (4, 2, {"f32": 4}),
    ("m8n8k4", "f64"): (1, 1, {"f64": 2}),
    ("m8n8k16", "s8"): (1, 1, {"s32": 2}),
    ("m8n8k16", "u8"): (1, 1, {"s32": 2}),
    ("m16n8k16", "s8"): (2, 1, {"s32": 4}),
    ("m16n8k16", "u8"): (2, 1, {"s32": 4}),
    ("m16n8k32", "s8"): (4, 2, {"s32": 4}),
    ("m16n8k32", "u8"): (4, 2, {"s32": 4}),
    ("m16n8k32", "e4m3"): (4, 2, {"f32": 4, "f16": 2}),
    ("m16n8k32", "e5m2"): (4, 2, {"f32": 4, "f16": 2}),
    ("m16n8k16", "e4m3"): (2, 1, {"f32": 4, "f16": 2}),
    ("m16n8k16", "e5m2"): (2, 1, {"f32": 4, "f16": 2}),
    ("m16n8k4", "f64"): (2, 1, {"f64": 4}),
    ("m16n8k8", "f64"): (4, 2, {"f64": 4}),
    ("m16n8k16", "f64"): (8, 4, {"f64": 4}),
    **{("m8n8k32", kind): (1, 1, {"s32": 2}) for kind in ("s4", "u4")},
    **{("m16n8k32", kind): (2, 1, {"s32": 4}) for kind in ("s4", "u4")},
    **{("m16n8k64", kind): (4, 2, {"s32": 4}) for kind in ("s4", "u4")},
    ("m8n8k128", "b1"): (1, 1, {"s32": 2}),
    ("m16n8k128", "b1"): (2, 1, {"s32": 4}),
    ("m16n8k256", "b1"): (4, 2, {"s32": 4}),
}
_TYPES = ("f16", "bf16", "tf32", "f32", "f64", "s8", "u8", "s32", "e4m3", "e5m2", "s4", "u4", "b1")

# wmma.store.d / wmma.load.c fragments (§9.7.14.4.3–4): (shape, type) → registers per thread.
WMMA_ACCUMULATOR_REGISTERS: dict[tuple[str, str], int] = {
    **{(shape, "f16"): 4 for shape in ("m16n16k16", "m8n32k16", "m32n8k16")},
    **{(shape, "f32"): 8 for shape in ("m16n16k16", "m8n32k16", "m32n8k16")},
    **{(shape, "s32"): 8 for shape in ("m16n16k16", "m8n32k16", "m32n8k16")},
    ("m16n16k8", "f32"): 8,
    ("m8n8k32", "s32"): 2,
    ("m8n8k128", "s32"): 2,
    # Pairs the manual does not list but ptxas 13.0 accepts, with the counts it expects.
    ("m16n16k8", "f16"): 4,
    ("m16n16k8", "s32"): 8,
    ("m8n8k32", "f32"): 2,
    ("m8n8k128", "f32"): 2,
    ("m8n8k4", "f64"): 2,
}

# wmma.load.a / wmma.load.b fragments (§9.7.14.4.3): (shape, type) → registers per thread in A, B.
WMMA_MULTIPLICAND_REGISTERS: dict[tuple[str, str], tuple[int, int]] = {
    **{(shape, "f16"): (8, 8) for shape in ("m16n16k16", "m8n32k16", "m32n8k16")},
    ("m16n16k16", "bf16"): (4, 4), ("m8n32k16", "bf16"): (2, 8), ("m32n8k16", "bf16"): (8, 2),
    **{("m16n16k16", kind): (2, 2) for kind in ("s8", "u8")},
    **{("m8n32k16", kind): (1, 4) for kind in ("s8", "u8")},
    **{("m32n8k16", kind): (4, 1) for kind in ("s8", "u8")},
    ("m16n16k8", "tf32"): (4, 4),
    ("m8n8k4", "f64"): (1, 1),
    ("m8n8k32", "s4"): (1, 1), ("m8n8k32", "u4"): (1, 1), ("m8n8k128", "b1"): (1, 1),
}

# ldmatrix / stmatrix (§9.7.14.5.15–16): registers per `.num`, per shape.
MATRIX_REGISTERS: dict[str, dict[str, int]] = {
    "m8n8": {"x1": 1, "x2": 2, "x4": 4},
    "m16n8": {"x1": 1, "x2": 2, "x4": 4},
    "m16n16": {"x1": 2, "x2": 4},
    "m8n16": {"x1": 1, "x2": 2, "x4": 4},
}

VECTOR_WIDTHS = {"v2": 2, "v4": 4, "v8": 8}


@record
class VectorExpectation:
    """How many registers a vector operand must hold, and what it is called in messages."""

    count: int  # 0 with ``sizes``: any of them
    what: str  # "the destination registers of `.32x32b.x2`"
    # The vector is the one inside an address operand (`[tensorMap, {x, y}]`), not the operand.
    in_address: bool = False
    # Sizes any of which will do, where the count is not fixed (`ldmatrix`'s `.x8`: 1, 2 or 4).
    sizes: tuple[int, ...] = ()

    def fits(self, size: int) -> bool:
        return size in self.sizes if self.sizes else size == self.count

    def expected(self) -> str:
        if not self.sizes:
            return str(self.count)
        return ", ".join(map(str, self.sizes[:-1])) + f" or {self.sizes[-1]}"


def _first(modifiers: tuple[str, ...], choices: Container[str]) -> str | None:
    return next((m for m in modifiers if m in choices), None)


def _wgmma_shape_n(modifiers: tuple[str, ...]) -> int | None:
    for modifier in modifiers:
        if modifier.startswith("m64n") and modifier.endswith(("k8", "k16", "k32", "k256")):
            return int(modifier[4 : modifier.index("k")])
    return None


@lru_cache(maxsize=4096)  # a kernel repeats a few hundred distinct opcodes: size each once
def expected_vector_lengths(base: str, modifiers: tuple[str, ...]) -> dict[int, VectorExpectation]:
    """Operand position → required element count, for the brace-vector operands the manual sizes."""
    operation = modifiers[0] if modifiers else ""
    if base == "tcgen05" and operation in ("ld", "st"):
        return _tcgen05_ld_st(operation, modifiers)
    if base == "tcgen05" and operation == "mma":
        return _tcgen05_mma(modifiers)
    if base in ("ldmatrix", "stmatrix"):
        return _matrix(base, modifiers)
    if base == "mma" and "sp" not in modifiers and "sp::ordered_metadata" not in modifiers:
        return _mma(modifiers)
    if base == "wmma" and operation in ("store", "load"):
        return _wmma_accumulator(operation, modifiers) or _wmma_multiplicand(modifiers)
    if base == "wmma" and operation == "mma":
        return _wmma_mma(modifiers)
    if base == "wgmma" and operation == "mma_async" and "sp" not in modifiers:
        return _wgmma(modifiers)
    if base in ("ld", "st") and not (base == "st" and operation == "async"):
        return _ld_st_vector(base, modifiers)
    if base == "cp" and modifiers[:3] == ("async", "bulk", "tensor"):
        return _bulk_tensor(modifiers)
    if base == "st" and operation == "async":
        width = _first(modifiers, VECTOR_WIDTHS)
        return {1: VectorExpectation(VECTOR_WIDTHS[width], f"the source of `.{width}`")} if width else {}
    return {}


def _tcgen05_ld_st(operation: str, modifiers: tuple[str, ...]) -> dict[int, VectorExpectation]:
    count = tcgen05_register_count(modifiers)
    if count is None:
        return {}
    shape, num = tcgen05_shape(modifiers), tcgen05_num(modifiers)
    role = "destination" if operation == "ld" else "source"
    position = 0 if operation == "ld" else -1
    return {position: VectorExpectation(count, f"the {role} of `.{shape}.{num}`")}


def _tcgen05_mma(modifiers: tuple[str, ...]) -> dict[int, VectorExpectation]:
    """The disable-output-lane mask: one 32-bit register per 32 lanes of the CTA (pair)."""
    if "ws" in modifiers or any(m.startswith("block_scale") for m in modifiers):
        return {}
    group = next((m for m in modifiers if m.startswith("cta_group::")), None)
    lanes = {"cta_group::1": 4, "cta_group::2": 8}.get(group or "")
    if lanes is None:
        return {}
    position = 5 if "sp" in modifiers else 4  # [d], a, b, ([sp-meta],) idesc, {mask}
    return {position: VectorExpectation(lanes, f"the disable-output-lane mask of `.{group}`")}


def _matrix(base: str, modifiers: tuple[str, ...]) -> dict[int, VectorExpectation]:
    shape = _first(modifiers, MATRIX_REGISTERS)
    num = _first(modifiers, ("x1", "x2", "x4"))
    role, position = ("destination", 0) if base == "ldmatrix" else ("source", 1)
    if shape is not None and num is None and "x8" in modifiers:
        # ptxas takes `.x8` with any count it can hold: one, two or four registers
        return {position: VectorExpectation(0, f"the {role} of `.{shape}.x8`", sizes=(1, 2, 4))}
    if shape is None or num is None or num not in MATRIX_REGISTERS[shape]:
        return {}
    return {position: VectorExpectation(MATRIX_REGISTERS[shape][num], f"the {role} of `.{shape}.{num}`")}


def _mma(modifiers: tuple[str, ...]) -> dict[int, VectorExpectation]:
    """mma.sync.aligned.shape.alayout.blayout.dtype.atype.btype.ctype d, a, b, c."""
    shape = next((m for m in modifiers if m.startswith("m") and "n" in m and "k" in m), None)
    types = [m for m in modifiers if m in _TYPES]
    if shape is None or len(types) != 4 or types[1] != types[2]:
        return {}
    fragment = MMA_FRAGMENTS.get((shape, types[1]))
    if fragment is None:
        return {}
    a, b, accumulators = fragment
    found = {1: VectorExpectation(a, f"fragment A of `.{shape}.{types[1]}`"),
             2: VectorExpectation(b, f"fragment B of `.{shape}.{types[2]}`")}
    if types[0] in accumulators:
        found[0] = VectorExpectation(accumulators[types[0]], f"fragment D of `.{shape}.{types[0]}`")
    if types[3] in accumulators:
        found[3] = VectorExpectation(accumulators[types[3]], f"fragment C of `.{shape}.{types[3]}`")
    return found


def _wmma_accumulator(operation: str, modifiers: tuple[str, ...]) -> dict[int, VectorExpectation]:
    """wmma.store.d … [p], r; and wmma.load.c … r, [p]."""
    fragment = modifiers[1] if len(modifiers) > 1 else ""
    if (operation, fragment) not in (("store", "d"), ("load", "c")):
        return {}
    shape = next((m for m in modifiers if m.startswith("m") and "n" in m and "k" in m), None)
    kind = next((m for m in reversed(modifiers) if m in _TYPES), None)
    count = WMMA_ACCUMULATOR_REGISTERS.get((shape or "", kind or ""))
    if count is None:
        return {}
    position = 1 if operation == "store" else 0
    return {position: VectorExpectation(count, f"fragment {fragment.upper()} of `.{shape}.{kind}`")}


def _wgmma(modifiers: tuple[str, ...]) -> dict[int, VectorExpectation]:
    """m64nNkK: each of the 128 threads holds N/2 32-bit accumulators (f32, s32), N/4 for f16."""
    n = _wgmma_shape_n(modifiers)
    accumulator = next((m for m in modifiers if m in ("f32", "s32", "f16")), None)
    if n is None or accumulator is None:
        return {}
    count = n // 4 if accumulator == "f16" else n // 2
    # A from registers: four 32-bit registers whatever the types
    return {0: VectorExpectation(count, f"the accumulator of `.m64n{n}` with `.{accumulator}`"),
            1: VectorExpectation(4, "matrix A in registers")}


def _ld_st_vector(base: str, modifiers: tuple[str, ...]) -> dict[int, VectorExpectation]:
    width = _first(modifiers, VECTOR_WIDTHS)
    if width is None:
        return {}
    position = 0 if base == "ld" else 1
    role = "destination" if base == "ld" else "source"
    return {position: VectorExpectation(VECTOR_WIDTHS[width], f"the {role} of `.{width}`")}


# cp.async.bulk.tensor (§9.7.9.25.5.1): one coordinate per dimension (the gather and scatter modes:
# a column and four rows); the im2col offsets: one per dimension beyond the first two, two for
# the `::w` modes.
_DIMENSIONS = {"1d": 1, "2d": 2, "3d": 3, "4d": 4, "5d": 5}


def _bulk_tensor(modifiers: tuple[str, ...]) -> dict[int, VectorExpectation]:
    dimension = _first(modifiers, _DIMENSIONS)
    if dimension is None:
        return {}
    dimensions = _DIMENSIONS[dimension]
    gather = _first(modifiers, ("tile::gather4", "tile::scatter4"))
    coordinates = 5 if gather else dimensions
    named = f"`.{gather}`" if gather else f"`.{dimension}`"
    found: dict[int, VectorExpectation] = {}
    tensor_position = 0 if "bulk_group" in modifiers else 1
    found[tensor_position] = VectorExpectation(coordinates, f"the tensor coordinates of {named}", in_address=True)
    if "bulk_group" not in modifiers:
        mode = _first(modifiers, ("im2col", "im2col::w", "im2col::w::128"))
        if mode == "im2col" and dimensions >= 3:
            found[3] = VectorExpectation(dimensions - 2, f"the im2col offsets of `.{dimension}`")
        elif mode in ("im2col::w", "im2col::w::128") and dimensions >= 3:
            found[3] = VectorExpectation(2, f"the im2col offsets of `.{mode}`")
    return found


def _wmma_multiplicand(modifiers: tuple[str, ...]) -> dict[int, VectorExpectation]:
    """wmma.load.a / wmma.load.b … r, [p]."""
    fragment = modifiers[1] if len(modifiers) > 1 else ""
    if modifiers[0] != "load" or fragment not in ("a", "b"):
        return {}
    shape = next((m for m in modifiers if m.startswith("m") and "n" in m and "k" in m), None)
    kind = next((m for m in reversed(modifiers) if m in _TYPES), None)
    counts = WMMA_MULTIPLICAND_REGISTERS.get((shape or "", kind or ""))
    if counts is None:
        return {}
    count = counts[0] if fragment == "a" else counts[1]
    return {0: VectorExpectation(count, f"fragment {fragment.upper()} of `.{shape}.{kind}`")}


def _wmma_mma(modifiers: tuple[str, ...]) -> dict[int, VectorExpectation]:
    """wmma.mma.sync.aligned.alayout.blayout.shape.dtype.ctype d, a, b, c (half precision), or
    .dtype.atype.btype.ctype for the other types."""
    shape = next((m for m in modifiers if m.startswith("m") and "n" in m and "k" in m), None)
    types = [m for m in modifiers if m in _TYPES]
    if shape is None:
        return {}
    if len(types) == 2:
        dtype, atype, btype, ctype = types[0], "f16", "f16", types[1]
    elif len(types) == 4:
        dtype, atype, btype, ctype = types
    else:
        return {}
    found = {}
    multiplicands = WMMA_MULTIPLICAND_REGISTERS.get((shape, atype))
    if multiplicands is not None and atype == btype:
        found[1] = VectorExpectation(multiplicands[0], f"fragment A of `.{shape}.{atype}`")
        found[2] = VectorExpectation(multiplicands[1], f"fragment B of `.{shape}.{btype}`")
    for position, kind, name in ((0, dtype, "D"), (3, ctype, "C")):
        count = WMMA_ACCUMULATOR_REGISTERS.get((shape, kind))
        if count is not None:
            found[position] = VectorExpectation(count, f"fragment {name} of `.{shape}.{kind}`")
    return found
