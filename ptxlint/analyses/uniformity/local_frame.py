"""A function's `.local` memory, slot by slot: which stores a `ld.local` may read.

nvcc keeps a thread's objects whose address is taken, or that it indexes, in a frame of `.local`
memory (`__local_depot0`), and reaches it through registers that are the frame plus a constant
(`add.u64 %rd1, %SPL, 0`; `[%rd1+32]`). A `ld.local` at a known place reads the values stored
at places that overlap it, and those stored where no place is known; one at an unknown place
reads them all. Kept as one value for the whole frame, a field holding `threadIdx.x` made every
other field of the object (a barrier id, a thread count) look thread-varying: NCCL's
`Primitives`.

Only meaningful where the function's `.local` memory is private to its own stores (no generic
pointer to it is made); the uniformity analysis asks for it only then.
"""

from __future__ import annotations

from ptxlint import ir
from ptxlint.analyses.registers import Registers
from ptxlint.analyses.uniformity.kinds import LOCAL_KEY
from ptxlint.isa.types import access_bytes

# One place of the frame: (variable, first byte, bytes).
_Place = tuple[str, int, int]


class LocalFrame:
    """The `.local` stores and loads of one function, by place. ``stores[index]`` is the keys a
    store writes, one per element it stores (so a `v2` store writes two places);
    ``loads[index]`` is the keys a load may read; ``writers[key]`` the stores writing ``key``."""

    def __init__(self, function: ir.Function, registers: Registers, stores: list[int], loads: list[int]) -> None:
        instructions = function.instructions
        self.stores: dict[int, tuple[str, ...]] = {}
        self.writers: dict[str, list[int]] = {}
        places: dict[str, _Place] = {}
        for index in stores:
            keys = tuple(self._store_keys(instructions[index], registers, places))
            self.stores[index] = keys
            for key in keys:
                self.writers.setdefault(key, []).append(index)
        self.loads: dict[int, tuple[str, ...]] = {}
        for index in loads:
            place = _place(instructions[index], registers)
            overlapping = [
                key for key, (name, start, size) in places.items()
                if place is None or (name == place[0] and start < place[1] + place[2] and place[1] < start + size)
            ]  # fmt: skip
            self.loads[index] = (LOCAL_KEY, *overlapping)

    @staticmethod
    def _store_keys(instruction: ir.Instruction, registers: Registers, places: dict[str, _Place]) -> list[str]:
        place = _place(instruction, registers)
        values = instruction.operands[1] if len(instruction.operands) > 1 else None
        count = len(values.elements) if type(values) is ir.Vector else 1
        if place is None:
            return [LOCAL_KEY] * count
        name, start, size = place
        element = size // count if count else size
        keys = []
        for position in range(count):
            offset = start + position * element
            key = f"{LOCAL_KEY}{name}+{offset}:{element}"
            places[key] = (name, offset, element)
            keys.append(key)
        return keys


def _place(instruction: ir.Instruction, registers: Registers) -> _Place | None:
    """The bytes a `.local` access touches, when its address is a variable plus a constant."""
    address = next((operand for operand in instruction.operands if type(operand) is ir.Address), None)
    size = access_bytes(instruction.opcode.modifiers)  # `st.local.v2.u32`: 8
    if address is None or address.extra or size is None:
        return None
    base = registers.symbol_offset(address.base, instruction.scope) if address.base is not None else None
    if base is None:
        return None
    return base[0], base[1] + address.offset, size  # a vector access's bytes, all its elements
