"""The one dataflow engine: a forward worklist solver over a lattice with join.

An analysis supplies its lattice (``bottom``, ``join``), its entry state, a transfer function per
instruction and, optionally, a refinement per edge (what a branch's condition says on each way
out: the warp roles on the taken side of `setp.eq warp, 0; @p bra`). The solver computes the state
at the entry of every block reachable from the function entry; rules then walk a block with
:func:`instruction_states` to see the (before, after) state of each instruction, as ShellCheck's
checks do.

States must be immutable values with a meaningful ``==`` (frozensets, tuples, frozen dataclasses).
Termination is the lattice's business: finite height, monotone transfer. As a last line of defence
against a non-monotone transfer the solver gives up after a number of visits proportional to the
graph and reports that the result is incomplete. Every block it enters, and every instruction it
passes through a transfer function, is one step of the file's analysis budget
(:func:`ptxlint.analysis_limits.current_budget`), which raises to stop the whole analysis once
the file's step limit (or time budget, when one is set) is spent.
"""

from __future__ import annotations

import bisect
import heapq
from typing import Callable, Collection, Generic, Iterable, Iterator, Protocol, Sequence, TypeVar

from ptxlint.cfg import ControlFlowGraph
from ptxlint.analysis_limits import current_budget
from ptxlint.ir import Instruction
from ptxlint.records import record

State = TypeVar("State")

# Visits allowed per block before the solver concludes the analysis does not converge.
_VISITS_PER_BLOCK = 64


class ForwardAnalysis(Protocol[State]):
    """A lattice plus transfer functions. ``join`` must be commutative, associative, idempotent,
    with ``bottom()`` as identity; ``transfer`` and ``refine`` must be monotone.

    A sparse analysis may also define ``instructions_of(block) -> Sequence[int]``: the
    instructions of the block whose transfer can change the state, in order. The solver and
    :func:`instruction_states` then visit only those; without it they visit every instruction.

    An analysis may also define ``entering(block, state) -> State``: the state a block is entered
    with, sharpened by what the analysis learned elsewhere (a fact that holds wherever two paths
    meet again). The solver joins the incoming states as they are, and hands the block (and the
    solution's ``block_entry``) the sharpened state; it must be monotone in ``state``.

    An analysis may also define ``refine(source, target, state) -> State``: the state along the
    edge ``source → target`` (identity when it is absent: the analysis knows nothing about the
    branch). Like the other two, it is looked up, not required.

    An analysis that keeps part of its facts outside the states (a flow-insensitive side table)
    may define ``revisits() -> Collection[int]``, asked after each block visit: blocks to visit
    again although their entry state did not change (they read a fact that has grown since)."""

    def bottom(self) -> State: ...

    def entry(self) -> State: ...

    def join(self, first: State, second: State) -> State: ...

    def transfer(self, index: int, instruction: Instruction, state: State) -> State: ...


@record
class Solution(Generic[State]):
    """The fixed point of a forward analysis: the state at the entry and exit of each block."""

    cfg: ControlFlowGraph
    block_entry: dict[int, State]
    block_exit: dict[int, State]
    converged: bool

    def entry_state(self, block: int, analysis: ForwardAnalysis[State]) -> State:
        return self.block_entry.get(block, analysis.bottom())


def solve_forward(
    cfg: ControlFlowGraph, analysis: ForwardAnalysis[State], within: Collection[int] | None = None
) -> Solution[State]:
    """Iterate to the least fixed point, visiting blocks in reverse post-order priority.

    ``within``: solve only these blocks, following no edge out of them. The states are those of
    the whole solution when no block outside leads back into them (the blocks from which the
    ones a client reads can be reached: ``ControlFlowGraph.reaching``)."""
    if not cfg.blocks or (within is not None and 0 not in within):
        return Solution(cfg, {}, {}, True)
    order = cfg.rpo_number
    refine = getattr(analysis, "refine", None)
    entering = getattr(analysis, "entering", None)
    revisits = getattr(analysis, "revisits", None)
    instructions_of = _instructions_of(cfg, analysis)
    instructions = cfg.function.instructions
    transfer = analysis.transfer
    arrived: dict[int, State] = {0: analysis.entry()}  # the join of the incoming states
    block_entry = arrived if entering is None else {}
    block_exit: dict[int, State] = {}
    pending = [(order[0], 0)]
    queued = {0}
    visits_left = _VISITS_PER_BLOCK * len(order) + 16
    spend = current_budget().spend
    while pending:
        visits_left -= 1
        if visits_left < 0:
            for reached, state in arrived.items():  # blocks reached but not yet visited
                block_entry.setdefault(reached, state)
            return Solution(cfg, block_entry, block_exit, False)
        _, block = heapq.heappop(pending)
        queued.discard(block)
        visited = instructions_of(block)
        spend(1 + len(visited))  # the file's analysis steps: may raise BudgetExceeded
        state = arrived[block]
        if entering is not None:
            state = block_entry[block] = entering(block, state)
        for index in visited:
            state = transfer(index, instructions[index], state)
        block_exit[block] = state
        for successor in cfg.blocks[block].successors:
            if successor == cfg.exit or (within is not None and successor not in within):
                continue
            incoming = refine(block, successor, state) if refine is not None else state
            previous = arrived.get(successor)
            merged = incoming if previous is None else analysis.join(previous, incoming)
            if previous is None or (merged is not previous and merged != previous):
                arrived[successor] = merged
                if successor not in queued:
                    queued.add(successor)
                    heapq.heappush(pending, (order[successor], successor))
        if revisits is not None:
            for stale in revisits():
                if stale in arrived and stale not in queued:
                    queued.add(stale)
                    heapq.heappush(pending, (order[stale], stale))
    return Solution(cfg, block_entry, block_exit, True)


def instruction_states(
    solution: Solution[State], analysis: ForwardAnalysis[State], block: int
) -> Iterator[tuple[int, Instruction, State, State]]:
    """Each instruction of ``block`` with the state before and after it."""
    state = solution.entry_state(block, analysis)
    instructions = solution.cfg.function.instructions
    for index in _instructions_of(solution.cfg, analysis)(block):
        after = analysis.transfer(index, instructions[index], state)
        yield index, instructions[index], state, after
        state = after


def _instructions_of(cfg: ControlFlowGraph, analysis: ForwardAnalysis[State]) -> Callable[[int], Sequence[int]]:
    sparse: Callable[[int], Sequence[int]] | None = getattr(analysis, "instructions_of", None)
    if sparse is not None:
        return sparse
    blocks = cfg.blocks
    return lambda block: blocks[block].instruction_indices


def indices_by_block(graph: ControlFlowGraph, indices: Iterable[int]) -> Sequence[Sequence[int]]:
    """``indices`` (instruction indices) split by block, each block's in order: what a sparse
    analysis's ``instructions_of`` returns. A range (every instruction) gives each block's own."""
    if type(indices) is range:
        return [block.instruction_indices for block in graph.blocks]
    by_block: list[list[int]] = [[] for _ in graph.blocks]
    block_of = graph.block_of
    for index in sorted(indices):
        by_block[block_of(index)].append(index)
    return by_block


class StatesBefore(Generic[State]):
    """The state before any instruction of a solved function, for analyses that visit only some
    instructions (``instructions_of``): an instruction the solver skips leaves the state as it
    is, so the state before it is the one before the next visited instruction of its block, or
    the block's exit state. A block's states are computed on first demand and kept: rules ask
    about few blocks."""

    def __init__(self, solution: Solution[State], analysis: ForwardAnalysis[State]) -> None:
        self.solution = solution
        self.analysis = analysis
        self._visited_by_block = getattr(analysis, "instructions_of", None)
        self._before: dict[int, State] = {}
        self._walked: set[int] = set()

    def __call__(self, index: int) -> State | None:
        """The state before instruction ``index``; None when its block is unreachable."""
        known = self._before.get(index)
        if known is not None:
            return known
        graph = self.solution.cfg
        block = graph.block_of(index)
        if block not in self.solution.block_entry:
            return None
        visited = self._visited_by_block(block) if self._visited_by_block is not None else graph.blocks[block].instruction_indices
        following = bisect.bisect_left(visited, index)
        if following == len(visited):
            exit_state = self.solution.block_exit.get(block)
            if exit_state is not None:
                return exit_state
            # Reached but never visited: the solver gave up before (it did not converge).
            state = self.solution.entry_state(block, self.analysis)
            for _, _, _, after in instruction_states(self.solution, self.analysis, block):
                state = after
            return state
        if block not in self._walked:
            self._walked.add(block)
            for position, _, state, _ in instruction_states(self.solution, self.analysis, block):
                self._before[position] = state
        return self._before[visited[following]]
