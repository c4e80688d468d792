"""Values that cross a `.func` call through `.param` variables.

nvcc passes a non-inlined function's arguments in `.param` variables: inside its call sequence
the caller writes each one (`st.param.b32 [param0], %r6;`) and names them in the `call`; the
callee reads its own parameters back (`ld.param.u32 %r2, [f_param_0];`). A tensor-memory
address a `.func` receives this way is the caller's, in every warp: what each warp accesses is
the caller's per-warp value of the argument plus whatever constant the callee adds. This module
finds both halves: the `st.param` that writes a call's argument (whose operand the caller's
values analysis evaluates, see :mod:`~ptxlint.analyses.threads.values_slices`), and an operand
of the callee that is one of its parameters plus a constant on every path.
"""

from __future__ import annotations

from typing import Iterable

from ptxlint.analyses.registers import Registers
from ptxlint.analyses.threads.values_lattice import TensorAddress, add_values
from ptxlint.cfg import ControlFlowGraph
from ptxlint import callgraph
from ptxlint.ir import Address, Function, Immediate, Instruction, Operand, Register, Symbol
from ptxlint.records import record

# Registers followed back from an operand to the parameter it was loaded from (nvcc needs one or
# two: a load and an addition).
_MAX_DEFINITIONS = 8
_WORD = 0xFFFFFFFF


@record(slots=True)
class ParameterOffset:
    """An operand that is parameter number ``position`` of its function plus ``offset`` (a 32-bit
    constant: for a TMEM address, lanes in bits 31–16 and columns in bits 15–0)."""

    position: int
    offset: int

    def applied_to(self, argument: TensorAddress) -> TensorAddress | None:
        """The address the callee uses when the caller passes ``argument``."""
        address = add_values(argument, self.offset, 32)
        return address if type(address) is TensorAddress else None


def call_arguments(instructions: tuple[Instruction, ...], graph: ControlFlowGraph, index: int) -> tuple[int | None, ...]:
    """For each argument of the `call` at ``index``, the `st.param` of its call sequence that
    writes it (the nearest one before the call in its block), or None."""
    arguments = _argument_names(instructions[index])
    stores: list[int | None] = []
    block = graph.block_of(index)
    for name in arguments:
        found = None
        position = index - 1
        while position >= 0 and graph.block_of(position) == block:
            if _stores_parameter(instructions[position]) == name:
                found = position
                break
            position -= 1
        stores.append(found)
    return tuple(stores)


def argument_stores(instructions: tuple[Instruction, ...], graph: ControlFlowGraph, calls: Iterable[int]) -> list[int]:
    """The `st.param` instructions that write an argument of the `call`s at ``calls``."""
    found: list[int] = []
    for index in calls:
        found.extend(store for store in call_arguments(instructions, graph, index) if store is not None)
    return found


def stored_value(instruction: Instruction) -> Operand | None:
    """What a `st.param` writes."""
    return instruction.operands[1] if len(instruction.operands) == 2 else None


def parameter_offset(function: Function, registers: Registers, operand: Operand, scope: int) -> ParameterOffset | None:
    """``operand`` (a register, or an address `[%r+offset]`, of an instruction in scope
    ``scope``) as one of ``function``'s 32-bit parameters plus a constant, when every register
    on the way has a single unguarded definition (so the same holds on every path): `ld.param`
    of the parameter, `mov` of a register, `add` of an immediate. None otherwise, or when the
    function writes the parameter."""
    offset = 0
    if type(operand) is Address:
        offset = operand.offset
        operand = operand.base
    instructions = function.instructions
    for _ in range(_MAX_DEFINITIONS):
        if type(operand) is not Register:
            return None
        writers = registers.writers.get(registers.key(operand.name, scope), ())
        if len(writers) != 1:
            return None
        definition = instructions[writers[0]]
        scope = definition.scope  # where the registers it reads are named
        base = definition.opcode.base
        if definition.guard is not None or len(definition.operands) < 2:
            return None
        sources = definition.operands[1:]
        if base == "ld" and definition.opcode.has("param"):
            return _loaded_parameter(function, definition, offset)
        if base == "mov" and len(sources) == 1:
            operand = sources[0]
        elif base == "add" and len(sources) == 2 and _word_sized(definition):
            register, addend = sources if type(sources[1]) is Immediate else (sources[1], sources[0])
            if type(addend) is not Immediate or type(addend.value) is not int:
                return None
            offset += addend.value
            operand = register
        else:
            return None
    return None


def _loaded_parameter(function: Function, load: Instruction, offset: int) -> ParameterOffset | None:
    source = load.operands[1]
    if not _word_sized(load) or type(source) is not Address or type(source.base) is not Symbol or source.offset:
        return None
    name = source.base.name
    position = next((position for position, parameter in enumerate(function.parameters) if parameter.name == name), None)
    if position is None or any(_stores_parameter(instruction) == name for instruction in function.instructions):
        return None
    return ParameterOffset(position, offset & _WORD)


def _word_sized(instruction: Instruction) -> bool:
    return any(modifier in ("b32", "u32", "s32") for modifier in instruction.opcode.modifiers)


def _stores_parameter(instruction: Instruction) -> str | None:
    """The `.param` variable a `st.param` writes at offset 0 (a whole argument), or None."""
    stored = callgraph.parameter_store(instruction)
    return stored[0] if stored is not None and stored[1] == 0 else None


def _argument_names(call: Instruction) -> list[str | None]:
    """The `.param` variables a `call` passes, in order (None for an argument that is not one)."""
    return [element.name if type(element) is Symbol else None for element in callgraph.call_arguments(call)]
