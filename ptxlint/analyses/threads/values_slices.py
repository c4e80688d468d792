"""Which instructions the per-warp values analysis must evaluate: backward slices from what the
tcgen05 rules read (TMEM addresses, MMA descriptors, guard and branch conditions). Everything
else is skipped by :class:`~ptxlint.analyses.threads.values.WarpValues`.
"""

from __future__ import annotations

from typing import Iterable

from ptxlint.analyses.registers import Registers
from ptxlint.ir import Address, Function, Instruction, Operand, Register, SpecialRegister, registers_in
from ptxlint.isa.hand_offs import HAND_OFF_BASES
from ptxlint.records import record

# Guards whose per-warp truth the tcgen05 rules use: branches and exits (which warps go where),
# calls, and the bases of the hand-offs of PTX202 (tcgen05 operations, barriers, arrives, stores).
_GUARDS_THAT_MATTER = frozenset({"bra", "brx", "call"}) | HAND_OFF_BASES


@record
class Slices:
    """Backward slices over registers (by scoped key), flow-insensitive: the instructions whose results
    can reach a TMEM address or an MMA's descriptor (``addresses``), and those that can reach a
    guard or branch condition the rules use (``conditions``). Everything else (epilogue
    arithmetic, stores of results) is skipped by the transfer function; a debug build is mostly
    that."""

    addresses: frozenset[int]
    conditions: frozenset[int]

    @property
    def needed(self) -> frozenset[int]:
        return self.addresses | self.conditions


def slices(function: Function, registers: Registers, argument_stores: Iterable[int] = ()) -> Slices:
    """``argument_stores``: the `st.param` instructions that pass a TMEM address to a callee
    (see :mod:`~ptxlint.analyses.threads.values_parameters`), whose value counts as an address."""
    instructions = function.instructions
    addresses: list[str] = [key for index in argument_stores for key in registers.reads(index)]
    conditions: list[str] = []
    tcgen05: set[int] = set()
    for index, instruction in enumerate(instructions):
        if instruction.opcode.base == "tcgen05":
            addresses.extend(registers.key(name, instruction.scope) for name in _operand_names(instruction))
            tcgen05.add(index)
        guard = instruction.guard
        if guard is not None and type(guard.predicate) is Register and instruction.opcode.base in _GUARDS_THAT_MATTER:
            conditions.append(registers.key(guard.predicate.name, instruction.scope))
    return Slices(
        frozenset(registers.backward_slice(addresses)[1] | tcgen05),
        frozenset(_depends_on_thread_index(instructions, registers, registers.backward_slice(conditions)[1])),
    )


def _depends_on_thread_index(instructions: tuple[Instruction, ...], registers: Registers, within: set[int]) -> set[int]:
    """The instructions of ``within`` whose operands derive from `%tid` (forward,
    flow-insensitive), and every other writer of the registers they write. A condition computed
    from anything else holds alike in every warp, so evaluating it per warp tells nothing about
    roles. But a skipped instruction leaves its destination's old value in the state, so the
    other writers of a register that holds a per-warp value must run too: CUTLASS computes a
    role number from the warp index and rewrites it with a constant on each role's path
    (`shr.s32 %r9, %r8, 2` then `mov.b32 %r9, 1`), and the constant replaces the per-warp
    table. ``within`` is a backward slice: it holds every writer of what its instructions read,
    so the search need not leave it."""
    readers = registers.readers
    writers = registers.writers
    found: set[int] = set()
    for index in within:
        for operand in instructions[index].sources:
            if type(operand) is SpecialRegister and operand.name.startswith("%tid"):
                found.add(index)
                break
    pending = list(found)
    followed: set[str] = set()  # each register's readers and writers are looked at once
    while pending:
        for name in registers.writes(pending.pop()):
            if name in followed:
                continue
            followed.add(name)
            for dependents in (readers.get(name, ()), writers[name]):
                for dependent in dependents:
                    if dependent in within and dependent not in found:
                        found.add(dependent)
                        pending.append(dependent)
    return found


def _operand_names(instruction: Instruction) -> list[str]:
    """The registers of a tcgen05 instruction the rules evaluate: its TMEM and shared-memory
    addresses and an MMA's instruction descriptor (not data vectors or matrix descriptors)."""
    operands: list[Operand] = [operand for operand in instruction.operands if type(operand) is Address]
    if instruction.opcode.modifiers[:1] == ("mma",):
        operands += [operand for operand in instruction.operands[3:] if type(operand) is not Address][:1]
    return [register.name for operand in operands for register in registers_in(operand)]
