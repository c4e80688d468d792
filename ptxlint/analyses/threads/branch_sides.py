"""Which warps can take each side of a conditional branch or guard.

Warp-specialised kernels give warps roles with branches on the warp index (`if (warp == 0)` the
MMA issuer, `else if (warp >= 4)` the epilogue). Each edge out of a conditional branch is open to
the warps for which the branch predicate, evaluated per warp by
:mod:`ptxlint.analyses.threads.values`, can take that edge (:class:`Branch`); a guard is split the
same way (:meth:`BranchTable.guard_warps`). The reach pass (:mod:`.reach`) carries these splits
along the edges; the path-sensitive analyses read them per path.
"""

from __future__ import annotations

import functools
from typing import Iterator

from ptxlint.analyses.registers import Registers
from ptxlint.cfg import ControlFlowGraph
from ptxlint.analyses.threads.values import FunctionValues
from ptxlint.context import ModuleContext
from ptxlint.ir import Function, Instruction, Register
from ptxlint.passes import Pass
from ptxlint.records import record

_CONDITIONAL = frozenset({"bra", "ret", "exit"})


def all_warps(warp_count: int) -> int:
    return (1 << warp_count) - 1


def warps_where(truth: tuple[bool | None, ...] | None, outcome: bool, warp_count: int) -> int:
    """The warps whose predicate may have value ``outcome`` (unknown entries allow both)."""
    if truth is None:
        return all_warps(warp_count)
    mask = 0
    for warp, value in enumerate(truth):
        if value is None or value == outcome:
            mask |= 1 << warp
    return mask


def warp_list(mask: int) -> list[int]:
    return [warp for warp in range(mask.bit_length()) if mask >> warp & 1]


@record(slots=True)
class Branch:
    """The guarded last instruction of a block: a branch, or an exit that may not happen."""

    instruction: Instruction
    predicate: str  # the predicate register's scoped key (see :mod:`ptxlint.analyses.registers`)
    negated: bool
    taken: int  # the block (or the CFG's exit node) reached when the guard holds
    # The warps in which the predicate may be False, and those in which it may be True (from the
    # value analysis).
    predicate_warps: tuple[int, int]

    def outcome(self, target: int) -> bool:
        """The predicate's value along the edge to ``target``."""
        return (target == self.taken) != self.negated

    def warps_to(self, target: int) -> int:
        """The warps that may take the edge to ``target``."""
        return self.predicate_warps[self.outcome(target)]


def branch_at_end(values: FunctionValues, block: int) -> Branch | None:
    """The conditional branch ending ``block``, if its two edges lead to different places."""
    graph = values.cfg
    node = graph.blocks[block]
    if node.end == node.start:
        return None
    instruction = graph.function.instructions[node.end - 1]
    guard = instruction.guard
    if guard is None or instruction.opcode.base not in _CONDITIONAL or type(guard.predicate) is not Register:
        return None
    successors = node.successors
    if len(successors) != 2:
        return None
    taken = graph.exit if instruction.opcode.base != "bra" else successors[0]
    truth = values.truth_before(node.end - 1, guard.predicate)
    predicate = values.registers.key(guard.predicate.name, instruction.scope)
    return Branch(instruction, predicate, guard.negated, taken, _predicate_warps(truth, values.warp_count))


def _predicate_warps(truth: tuple[bool | None, ...] | None, warp_count: int) -> tuple[int, int]:
    return warps_where(truth, False, warp_count), warps_where(truth, True, warp_count)


@record
class ConditionRegisters:
    """The registers (scoped keys) a branch or guard condition can depend on through `setp`,
    `not.pred` and copies: only their definitions are worth remembering (a debug build has
    thousands of `setp` that no branch tests)."""

    keys: frozenset[str]

    def matters(self, key: str) -> bool:
        return key in self.keys


def condition_registers(instructions: tuple[Instruction, ...], registers: Registers) -> ConditionRegisters:
    """Guard predicates, then (transitively) the registers the unguarded `setp`, `mov` and `not`
    that write them read."""
    guards = [
        registers.key(instruction.guard.predicate.name, instruction.scope)
        for instruction in instructions
        if instruction.guard is not None and type(instruction.guard.predicate) is Register
    ]

    def defines_a_condition(index: int) -> bool:
        return instructions[index].guard is None and instructions[index].opcode.base in ("setp", "mov", "not")

    followed, _ = registers.backward_slice(guards, through=defines_a_condition)
    return ConditionRegisters(frozenset(followed))


class BranchTable:
    """The conditional branch at the end of each block, computed once."""

    def __init__(self, values: FunctionValues) -> None:
        self._values = values
        self._warp_count = values.warp_count
        self._branches = {block: branch_at_end(values, block) for block in values.cfg.reverse_post_order}
        self._guard_warps: dict[int, tuple[int, int]] = {}

    @property
    def values(self) -> FunctionValues:
        """The warp values the branches were evaluated on: what a register is before an
        instruction, for the analyses that read operands beside the branches."""
        return self._values

    @property
    def cfg(self) -> ControlFlowGraph:
        """The function's control-flow graph, whose blocks the branches end."""
        return self._values.cfg

    @property
    def registers(self) -> Registers:
        """The function's register model, whose scoped keys the conditions are read over."""
        return self._values.registers

    @property
    def warp_count(self) -> int:
        """The number of warps the branch sides are told for."""
        return self._warp_count

    @functools.cached_property
    def condition_registers(self) -> ConditionRegisters:
        """The registers branch conditions depend on (shared by the path-sensitive analyses)."""
        return condition_registers(self.cfg.function.instructions, self.registers)

    @functools.cached_property
    def defining(self) -> frozenset[int]:
        """The instructions that write a register some branch condition depends on."""
        writers = self.registers.writers
        return frozenset(index for key in self.condition_registers.keys for index in writers.get(key, ()))

    def branch(self, block: int) -> Branch | None:
        return self._branches.get(block)

    def conditional(self) -> Iterator[tuple[int, Branch]]:
        """Each block that ends in a conditional branch, with the branch, in reverse post-order."""
        return ((block, branch) for block, branch in self._branches.items() if branch is not None)

    def guard_warps(self, index: int, instruction: Instruction) -> tuple[int, int]:
        """The warps in which the guard predicate of instruction ``index`` may be False, and
        those in which it may be True (computed once: path-sensitive analyses ask per class)."""
        known = self._guard_warps.get(index)
        if known is None:
            guard = instruction.guard
            truth = None if guard is None else self._values.truth_before(index, guard.predicate)
            known = self._guard_warps[index] = _predicate_warps(truth, self._warp_count)
        return known


def _branch_table(context: ModuleContext, function: Function) -> BranchTable:
    return BranchTable(context.result("warp_values", function))


PASSES = (
    Pass(
        "warp_branches",
        "per conditional branch and guard, the warps that can take each side",
        _branch_table,
        per_function=True,
        requires=("warp_values",),
    ),
)
