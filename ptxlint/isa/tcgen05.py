"""tcgen05 facts as data (PTX ISA §9.7.16): which operations carry `.cta_group`, which are
asynchronous, the lanes and columns a `tcgen05.ld`/`st` shape touches, the tensor-memory layout,
and how an instruction descriptor encodes the MMA's N.

Nothing here knows the IR: callers pass opcode bases and modifier tuples.
"""

from __future__ import annotations

# --------------------------------------------------------------------------- tensor memory layout

# A TMEM address: lane in bits 31–16, column in bits 15–0 (§9.7.16.1).
LANE_SHIFT = 16
COLUMN_MASK = 0xFFFF
LANES = 128
COLUMNS = 512

# Warp w may only access lanes 32·(w mod 4) … 32·(w mod 4) + 31 with `tcgen05.ld`/`st`.
LANES_PER_WARP = 32
WARPS_PER_WARPGROUP = 4


def accessible_lanes(warp: int) -> range:
    """The TMEM lanes warp ``warp`` of the CTA may load from or store to."""
    first = LANES_PER_WARP * (warp % WARPS_PER_WARPGROUP)
    return range(first, first + LANES_PER_WARP)


# --------------------------------------------------------------------------- operations

# Operations (the modifier after `tcgen05.`) that carry `.cta_group` (PTX 9.0 release notes).
CTA_GROUP_OPERATIONS = frozenset({"alloc", "dealloc", "relinquish_alloc_permit", "cp", "shift", "mma", "commit"})

# Asynchronous operations that read or write TMEM through the tensor core and are ordered after a
# thread's earlier `tcgen05.ld`/`st` only by `tcgen05.wait` (§9.7.16.6.2: ld → mma, st → mma are
# not pipelined).
TENSOR_CORE_OPERATIONS = frozenset({"mma", "cp", "shift"})

WAIT_LD = "wait::ld"
WAIT_ST = "wait::st"


def operation(base: str, modifiers: tuple[str, ...]) -> str | None:
    """The tcgen05 operation an opcode names (`ld`, `mma`, `wait::ld`, …), or None."""
    if base != "tcgen05" or not modifiers:
        return None
    return modifiers[0]


# --------------------------------------------------------------------------- ld/st shapes

# shape → (lanes touched from the address's lane, 32-bit columns per `.num` repetition).
# `.16x32bx2` is two 16x32b accesses: the second at taddr + immHalfSplitoff.
DATA_MOVEMENT_SHAPES: dict[str, tuple[int, int]] = {
    "32x32b": (32, 1),
    "16x64b": (16, 2),
    "16x128b": (16, 4),
    "16x256b": (16, 8),
    "16x32bx2": (16, 1),
}
SPLIT_SHAPE = "16x32bx2"

REPETITIONS = {f"x{count}": count for count in (1, 2, 4, 8, 16, 32, 64, 128)}


def data_movement_shape(modifiers: tuple[str, ...]) -> str | None:
    for modifier in modifiers:
        if modifier in DATA_MOVEMENT_SHAPES:
            return modifier
    return None


def lanes_touched(modifiers: tuple[str, ...]) -> int | None:
    """How many TMEM lanes a `tcgen05.ld`/`st` touches from its address's lane field."""
    shape = data_movement_shape(modifiers)
    return None if shape is None else DATA_MOVEMENT_SHAPES[shape][0]


def columns_touched(modifiers: tuple[str, ...]) -> int | None:
    """How many 32-bit TMEM columns a `tcgen05.ld`/`st` touches from its address's column
    (one half of a `.16x32bx2`); `.pack::16b`/`.unpack::16b` put two 16-bit values per register
    into two adjacent columns, doubling the footprint."""
    shape = data_movement_shape(modifiers)
    repetitions = next((REPETITIONS[modifier] for modifier in modifiers if modifier in REPETITIONS), None)
    if shape is None or repetitions is None:
        return None
    columns = DATA_MOVEMENT_SHAPES[shape][1] * repetitions
    if "pack::16b" in modifiers or "unpack::16b" in modifiers:
        columns *= 2
    return columns


# --------------------------------------------------------------------------- cp, shift, mma footprints

# `tcgen05.cp` shape → 32-bit columns written (the row width: 256b = 8 columns, 128b = 4).
COPY_SHAPE_COLUMNS = {"128x256b": 8, "4x256b": 8, "128x128b": 4, "64x128b": 4, "32x128b": 4}

# `tcgen05.shift` moves 256-bit rows: 8 columns.
SHIFT_COLUMNS = 8

# The widest accumulator an MMA writes: N ≤ 256 columns for every kind and cta_group.
MAX_MMA_COLUMNS = 256


def copy_columns(modifiers: tuple[str, ...]) -> int | None:
    for modifier in modifiers:
        if modifier in COPY_SHAPE_COLUMNS:
            return COPY_SHAPE_COLUMNS[modifier]
    return None


def mma_columns(instruction_descriptor: int | None) -> int:
    """The accumulator's width in columns: N, from the instruction descriptor's bits 17–22
    (N >> 3), or the largest N any MMA can have when the descriptor is not a known constant."""
    if instruction_descriptor is None:
        return MAX_MMA_COLUMNS
    n = ((instruction_descriptor >> 17) & 0x3F) << 3
    return n if 0 < n <= MAX_MMA_COLUMNS else MAX_MMA_COLUMNS
