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
from typing import Iterable, Iterator

from ptxlint.analyses.registers import Registers
from ptxlint.cfg import ControlFlowGraph
from ptxlint.analyses.threads.values import FunctionValues
from ptxlint.context import ModuleContext
from ptxlint.ir import Function, Immediate, Instruction, Register
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
    """The registers (scoped keys) whose conditions a path context tracks: those a test can
    meet a fact about that an earlier test established (see :func:`condition_registers`). Only
    their definitions are worth remembering, and only tests of them add facts: a kernel has
    thousands of `setp` whose outcome no other test can contradict."""

    keys: frozenset[str]

    def matters(self, key: str) -> bool:
        return key in self.keys


def condition_registers(graph: ControlFlowGraph, registers: Registers, every: bool = False) -> ConditionRegisters:
    """The registers a test (a guard, on a branch or any instruction) reads through the
    unguarded `setp`, `mov` and `not` that compute its predicate — its *condition* — kept when a
    fact established at one test can still be known at another that reads them:

    * the register is in the conditions of two tests, or of one predicate that guards twice;
    * or the one test that reads it can be reached again, around a cycle, without passing a
      write of the register (which forgets the fact): a loop-invariant `warp == 0` tested inside
      the persistent-tile loop;
    * or a `mov` sets it to a constant (a fact of its own) that may reach the test unforgotten:
      a loop counter's start tested at the loop's top.

    The whole condition of every test that reads such a register is tracked: the facts of both
    tests, down to what they have in common (`not.pred %p2, %p1` and a test of each), and never a
    fact naming a register whose writes go unseen. A fact about any other register could only
    ever be compared with itself. ``every``: the registers of every test's condition (what the
    tests compare the tracked facts against)."""
    instructions = graph.function.instructions

    def defines_a_condition(index: int) -> bool:
        return instructions[index].guard is None and instructions[index].opcode.base in ("setp", "mov", "not")

    tests: dict[str, list[int]] = {}
    for index, instruction in enumerate(instructions):
        guard = instruction.guard
        if guard is not None and type(guard.predicate) is Register:
            tests.setdefault(registers.key(guard.predicate.name, instruction.scope), []).append(index)
    if every:
        return ConditionRegisters(frozenset(registers.backward_slice(tests, through=defines_a_condition)[0]))
    conditions = {
        predicate: registers.backward_slice((predicate,), through=defines_a_condition)[0] for predicate in tests
    }
    # Per register of some condition: the tests that read it.
    readers: dict[str, list[int]] = {}
    for predicate, condition in conditions.items():
        for key in condition:
            readers.setdefault(key, []).extend(tests[predicate])
    shared = {key for key, reading in readers.items() if _facts_meet(graph, registers, key, reading)}
    tracked: set[str] = set()
    for condition in conditions.values():
        if not shared.isdisjoint(condition):
            tracked.update(condition)
    return ConditionRegisters(frozenset(tracked))


def _facts_meet(graph: ControlFlowGraph, registers: Registers, key: str, tests: list[int]) -> bool:
    """Whether a fact about register ``key`` established at one point may be known at a test
    that reads it (``tests``): a second test, the one test again, or a `mov` of a constant."""
    if len(tests) > 1:
        return True
    test = tests[0]
    instructions = graph.function.instructions
    writers = registers.writers.get(key, ())
    block = graph.block_of(test)
    if graph.on_cycle(block) and not any(graph.cuts_every_cycle(graph.block_of(writer), block) for writer in writers):
        return True
    return any(
        _sets_a_constant(instructions[source]) and not _forgotten_between(graph, writers, source, test)
        for source in writers
    )


def _sets_a_constant(instruction: Instruction) -> bool:
    """An unguarded `mov`/`not` of an immediate: a path context learns the value it writes."""
    operands = instruction.operands
    return (
        instruction.guard is None and instruction.opcode.base in ("mov", "not")
        and len(operands) == 2 and type(operands[1]) is Immediate
    )


def _forgotten_between(graph: ControlFlowGraph, writers: Iterable[int], source: int, test: int) -> bool:
    """Whether another of ``writers`` (a register's) runs on every path from instruction
    ``source`` to instruction ``test``, so that what ``source`` taught is forgotten by then: one
    after ``source`` in its block (unless ``test`` comes first, in the same block), or one before
    ``test`` in its block that ``source`` does not come between."""
    source_block, test_block = graph.block_of(source), graph.block_of(test)
    same_block = source_block == test_block
    for writer in writers:
        if writer == source:
            continue
        block = graph.block_of(writer)
        if block == source_block and writer > source and not (same_block and source < test < writer):
            return True
        if block == test_block and writer < test and not (same_block and writer < source < test):
            return True
    return False


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
        """The registers whose conditions path contexts track (shared by the path-sensitive
        analyses)."""
        return condition_registers(self.cfg, self.registers)

    @functools.cached_property
    def every_condition_register(self) -> ConditionRegisters:
        """The registers of every test's condition, tracked or not (the reference the tracked
        facts are tested against)."""
        return condition_registers(self.cfg, self.registers, every=True)

    def defining(self, conditions: ConditionRegisters) -> frozenset[int]:
        """The instructions that write a register of ``conditions``."""
        writers = self.registers.writers
        return frozenset(index for key in conditions.keys for index in writers.get(key, ()))

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
