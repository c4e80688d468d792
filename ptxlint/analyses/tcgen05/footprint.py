"""Which TMEM columns a tcgen05 instruction touches, per warp, when its address is known.

Only columns are compared: an MMA's accumulator spans every lane its M covers, so two accesses
are told apart by their columns. Footprints are relative to the allocation's first column (see
:class:`~ptxlint.analyses.threads.values_lattice.TensorAddress`), so only addresses from the same allocation slot
compare.
"""

from __future__ import annotations

from ptxlint.analyses.threads.values_lattice import TensorAddress, entry_for_warp
from ptxlint.analyses.threads.values import FunctionValues
from ptxlint.ir import Address, Immediate, Instruction, Operand
from ptxlint.isa.tcgen05 import (
    SHIFT_COLUMNS,
    SPLIT_SHAPE,
    columns_touched,
    copy_columns,
    data_movement_shape,
    mma_columns,
    operation,
)

# A bound on the columns of an MMA's other TMEM operands (A from TMEM: K × element size ≤ 256
# bits = 8 columns, twice that when sparse; scale factors and sparsity metadata are smaller).
OTHER_OPERAND_COLUMNS = 16

Footprint = tuple[str, tuple[tuple[int, int], ...]]  # (slot, column ranges [start, stop))


def footprint(values: FunctionValues, index: int, instruction: Instruction, warp: int) -> Footprint | None:
    """The columns instruction ``index`` touches when warp ``warp`` executes it, or None."""
    kind = operation(instruction.opcode.base, instruction.opcode.modifiers)
    addresses = [operand for operand in instruction.operands if type(operand) is Address]
    if not addresses:
        return None
    starts: list[TensorAddress] = []
    columns: list[int] = []
    for address in addresses:
        start = entry_for_warp(values.value_before(index, address), warp)
        if type(start) is not TensorAddress or start.column is None:
            return None
        starts.append(start)
        columns.append(start.column)
    if len({start.slot for start in starts}) != 1:
        return None
    widths = _widths(values, index, kind, instruction, len(addresses))
    if widths is None:
        return None
    ranges = [(column, column + width) for column, width in zip(columns, widths)]
    if kind in ("ld", "st") and data_movement_shape(instruction.opcode.modifiers) == SPLIT_SHAPE:
        second = _split_half(instruction, columns[0])
        if second is None:
            return None
        ranges.append((second, second + widths[0]))
    return starts[0].slot, tuple(ranges)


def _widths(values: FunctionValues, index: int, kind: str | None, instruction: Instruction, count: int) -> list[int] | None:
    modifiers = instruction.opcode.modifiers
    if kind in ("ld", "st"):
        columns = columns_touched(modifiers)
        return None if columns is None else [columns]
    if kind == "cp":
        columns = copy_columns(modifiers)
        return None if columns is None else [columns]
    if kind == "shift":
        return [SHIFT_COLUMNS]
    if kind == "mma":
        descriptor = values.value_before(index, _instruction_descriptor(instruction))
        known = descriptor if type(descriptor) is int and type(descriptor) is not bool else None
        return [mma_columns(known)] + [OTHER_OPERAND_COLUMNS] * (count - 1)
    return None


def _instruction_descriptor(instruction: Instruction) -> Operand | None:
    """`idesc`: the first operand after `[d], a, b` that is not a TMEM address (`.sp` puts the
    metadata address before it)."""
    for operand in instruction.operands[3:]:
        if type(operand) is not Address:
            return operand
    return None


def _split_half(instruction: Instruction, column: int) -> int | None:
    """The column of the second half of a `.16x32bx2` access (the first's is ``column``):
    `taddr + immHalfSplitoff`."""
    offset = next((operand.value for operand in instruction.operands if type(operand) is Immediate), None)
    if type(offset) is not int:
        return None
    return column + (offset & 0xFFFF)


def disjoint(first: Footprint | None, second: Footprint | None) -> bool:
    """Whether two footprints provably share no column."""
    if first is None or second is None or first[0] != second[0]:
        return False
    return all(a_stop <= b_start or b_stop <= a_start for a_start, a_stop in first[1] for b_start, b_stop in second[1])
