"""Which threads reach each instruction, as one result asked two ways: which warps of the CTA may
execute it (:meth:`ThreadReach.warps_at`), and whether at most one thread of the CTA does
(:meth:`ThreadReach.alone`).

Warp-specialised kernels give warps roles with branches on the warp index (`if (warp == 0)` the
MMA issuer, `else if (warp >= 4)` the epilogue). The state is the set of warps that may be at a
point, as a bit mask; each edge out of a conditional branch keeps the warps that can take it
(:mod:`.branch_sides`, from the predicate evaluated per warp by
:mod:`ptxlint.analyses.warp_values`). An instruction that one warp reaches is executed by one
thread when it also lies past a test that leaves one lane of that warp: a branch or guarded exit
on `%laneid` or `%tid.x & 31` against a constant (`if (laneid() > 0) return;`), or on an
`elect.sync` predicate (`if (elect_one_sync())`), whose side dominates it. The sides are those of
the same branch table the warps are carried along. What such a thread writes, only it wrote: the
async-proxy rules let its own later fence order its own writes across the arrives and barriers it
passes (a controller thread that records, arrives, then fences and copies). Only shapes that pin a
lane by dominance are recognised; anything else is assumed to run in several threads, which only
ever reports more.

The exact lanes of each warp, where `%tid.x` conditions decide them, are the lattice of
:mod:`.lane_sets`, which the uniformity analysis carries in its control state.
"""

from __future__ import annotations

import functools
from typing import Mapping

from ptxlint.analyses.threads.branch_sides import BranchTable, all_warps, warp_list
from ptxlint.analyses.threads.lane_sets import ranges
from ptxlint.analyses.warp_value_lattice import TensorAddress, entry_for_warp
from ptxlint.analyses.warp_values import warp_count_of
from ptxlint.cfg import ControlFlowGraph
from ptxlint.context import ModuleContext
from ptxlint.dataflow import Solution, solve_forward
from ptxlint.ir import Function, Immediate, Instruction, Operand, Register, SpecialRegister
from ptxlint.passes import Describe, Pass

_WARP_LANES = 31


class WarpsReaching:
    """Forward analysis: the set of warps that may reach each block."""

    def __init__(self, branches: BranchTable) -> None:
        self.branches = branches
        self.everyone = all_warps(branches.warp_count)

    def bottom(self) -> int:
        return 0

    def entry(self) -> int:
        return self.everyone

    def join(self, first: int, second: int) -> int:
        return first | second

    def transfer(self, index: int, instruction: Instruction, state: int) -> int:
        return state

    def instructions_of(self, block: int) -> tuple[int, ...]:
        """No instruction changes which warps are here: only edges do."""
        return ()

    def refine(self, source: int, target: int, state: int) -> int:
        branch = self.branches.branch(source)
        if branch is None:
            return state
        return state & branch.warps_to(target)


class ThreadReach:
    """Which threads reach each instruction of a function: the warps (its guard included), whether
    at most one thread, and what a TMEM address operand is in each warp."""

    def __init__(
        self,
        branches: BranchTable,
        solution: Solution[int],
        writers: Mapping[str, list[int]],
        warp_count: int,
        warp_count_known: bool,
    ) -> None:
        self._branches = branches
        self._solution = solution
        self._writers = writers
        self.warp_count = warp_count
        self.warp_count_known = warp_count_known  # from `.reqntid`/`.maxntid`, not the 32-warp maximum

    @property
    def everyone(self) -> int:
        return all_warps(self.warp_count)

    def reachable(self, index: int) -> bool:
        """Whether some warp can reach instruction ``index``'s block."""
        return self._solution.cfg.block_of(index) in self._solution.block_entry

    def warps_at(self, index: int, instruction: Instruction) -> int:
        """The warps that may execute instruction ``index`` (its own guard included)."""
        mask = self._solution.block_entry.get(self._solution.cfg.block_of(index), 0)
        if instruction.guard is not None:
            mask &= self._branches.guard_warps(index, instruction)[not instruction.guard.negated]
        return mask

    def alone(self, index: int) -> bool:
        """Whether at most one thread of the CTA executes instruction ``index``: one warp, past a
        lane test that leaves one lane of it."""
        instruction = self._solution.cfg.function.instructions[index]
        if self._solution.cfg.block_of(index) not in self._one_lane_blocks:
            return False
        warps = self.warps_at(index, instruction)
        return warps != 0 and warps & (warps - 1) == 0

    @functools.cached_property
    def _one_lane_blocks(self) -> frozenset[int]:
        """The blocks every path to which passed the side of a lane test that one lane takes."""
        graph: ControlFlowGraph = self._solution.cfg
        instructions = graph.function.instructions
        pinned: set[int] = set()
        for block in graph.reverse_post_order:
            branch = self._branches.branch(block)
            if branch is None:
                continue
            holds_for_one = _one_lane_when(branch.predicate, self._writers, instructions)
            if holds_for_one is None:
                continue
            for side in graph.successors(block):
                if side != graph.exit and branch.outcome(side) is holds_for_one and tuple(graph.predecessors(side)) == (block,):
                    pinned.update(other for other in graph.reverse_post_order if graph.dominates(side, other))
        return frozenset(pinned)

    def tensor_addresses(self, index: int, operand: Operand, warps: int) -> list[tuple[int, TensorAddress]]:
        """For each of ``warps``, in order, the TMEM address ``operand`` of instruction
        ``index`` holds when that warp executes it, where the value analysis knows one."""
        values = self._branches.values
        state = values.state_before(index)
        if state is None:
            return []
        value = values.analysis.value_of(operand, state)
        found = []
        for warp in warp_list(warps):
            entry = entry_for_warp(value, warp)
            if type(entry) is TensorAddress:
                found.append((warp, entry))
        return found


def _definition(name: str, writers: Mapping[str, list[int]], instructions: tuple[Instruction, ...]) -> Instruction | None:
    found = writers.get(name, ())
    return instructions[found[0]] if len(found) == 1 else None


def _one_lane_when(predicate: str, writers: Mapping[str, list[int]], instructions: tuple[Instruction, ...]) -> bool | None:
    """The value of ``predicate`` for which only one lane of a warp can have it: True for an
    `elect.sync` result and for `lane == c`, False for `lane != c`; None when it pins nothing."""
    definition = _definition(predicate, writers, instructions)
    if definition is None:
        return None
    base, modifiers = definition.opcode.base, definition.opcode.modifiers
    if base == "elect":
        return True
    if base != "setp" or not modifiers or modifiers[0] not in ("eq", "ne") or len(definition.sources) != 2:
        return None
    left, right = definition.sources
    if type(right) is Register and type(left) is Immediate:
        left, right = right, left
    if type(left) is not Register or type(right) is not Immediate or not _is_lane(left.name, writers, instructions):
        return None
    return modifiers[0] == "eq"


def _is_lane(name: str, writers: Mapping[str, list[int]], instructions: tuple[Instruction, ...]) -> bool:
    """Whether register ``name`` holds the lane index: `%laneid`, or `%tid.x & 31` (the block's x
    extent a multiple of 32 is what makes that the lane: nvcc's `threadIdx.x % 32`)."""
    definition = _definition(name, writers, instructions)
    if definition is None:
        return False
    base, sources = definition.opcode.base, definition.sources
    if base == "mov" and len(sources) == 1:
        source = sources[0]
        if type(source) is SpecialRegister:
            return source.name == "%laneid"
        return type(source) is Register and _is_lane(source.name, writers, instructions)
    if base == "and" and len(sources) == 2:
        value, mask = sources
        if type(value) is Immediate:
            value, mask = mask, value
        return type(mask) is Immediate and mask.value == _WARP_LANES and type(value) is Register and _is_tid_x(value.name, writers, instructions)
    return False


def _is_tid_x(name: str, writers: Mapping[str, list[int]], instructions: tuple[Instruction, ...]) -> bool:
    definition = _definition(name, writers, instructions)
    if definition is None or definition.opcode.base != "mov" or len(definition.sources) != 1:
        return False
    source = definition.sources[0]
    return type(source) is SpecialRegister and source.name in ("%tid.x", "%laneid")


def _run(context: ModuleContext, function: Function) -> ThreadReach:
    branches = context.result("warp_branches", function)
    solution = solve_forward(branches.values.cfg, WarpsReaching(branches))
    _, known = warp_count_of(context, function)
    return ThreadReach(branches, solution, context.result("registers", function).writers, branches.warp_count, known)


def _describe(reach: ThreadReach, function: Function) -> Describe:
    """Per instruction, the warps that may execute it (its guard included), as the
    tensor-memory rules see them: ``4-7 of 8`` (``of up to 32`` without a launch directive),
    and ``one thread`` where at most one thread of the CTA does."""
    count = f"of {reach.warp_count}" if reach.warp_count_known else f"of up to {reach.warp_count}"

    def describe(index: int, instruction: Instruction) -> str:
        if not reach.reachable(index):
            return "unreachable"
        warps = f"{ranges(reach.warps_at(index, instruction)) or 'none'} {count}"
        return f"{warps}, one thread" if reach.alone(index) else warps

    return describe


PASSES = (
    Pass(
        "roles",
        "which warps of the CTA may execute each instruction, and which instructions at most one thread executes",
        _run,
        per_function=True,
        requires=("warp_branches", "registers"),
        printer=_describe,
    ),
)
