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
graph and reports that the result is incomplete. Between block visits it checks the file's time
budget (:func:`ptxlint.context.current_deadline`), which raises to stop the whole analysis.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import Callable, Generic, Iterator, Protocol, Sequence, TypeVar

from ptxlint.cfg import ControlFlowGraph
from ptxlint.context import current_deadline
from ptxlint.ir import Instruction

State = TypeVar("State")

# Visits allowed per block before the solver concludes the analysis does not converge.
_VISITS_PER_BLOCK = 64
# Block visits between two looks at the clock (a visit is microseconds, the clock ~50 ns).
_VISITS_PER_DEADLINE_CHECK = 16


class ForwardAnalysis(Protocol[State]):
    """A lattice plus transfer functions. ``join`` must be commutative, associative, idempotent,
    with ``bottom()`` as identity; ``transfer`` and ``refine`` must be monotone.

    A sparse analysis may also define ``instructions_of(block) -> Sequence[int]``: the
    instructions of the block whose transfer can change the state, in order. The solver and
    :func:`instruction_states` then visit only those; without it they visit every instruction."""

    def bottom(self) -> State: ...

    def entry(self) -> State: ...

    def join(self, first: State, second: State) -> State: ...

    def transfer(self, index: int, instruction: Instruction, state: State) -> State: ...

    def refine(self, source: int, target: int, state: State) -> State:
        """The state along the edge ``source → target`` (identity unless the analysis knows
        something about the branch)."""
        ...


@dataclass(frozen=True)
class Solution(Generic[State]):
    cfg: ControlFlowGraph
    block_entry: dict[int, State]
    block_exit: dict[int, State]
    converged: bool

    def entry_state(self, block: int, analysis: ForwardAnalysis[State]) -> State:
        return self.block_entry.get(block, analysis.bottom())


def solve_forward(cfg: ControlFlowGraph, analysis: ForwardAnalysis[State]) -> Solution[State]:
    """Iterate to the least fixed point, visiting blocks in reverse post-order priority."""
    if not cfg.blocks:
        return Solution(cfg, {}, {}, True)
    order = cfg.rpo_number
    refine = getattr(analysis, "refine", None)
    instructions_of = _instructions_of(cfg, analysis)
    instructions = cfg.function.instructions
    transfer = analysis.transfer
    block_entry: dict[int, State] = {0: analysis.entry()}
    block_exit: dict[int, State] = {}
    pending = [(order[0], 0)]
    queued = {0}
    budget = _VISITS_PER_BLOCK * len(order) + 16
    deadline = current_deadline()
    while pending:
        budget -= 1
        if budget < 0:
            return Solution(cfg, block_entry, block_exit, False)
        if budget % _VISITS_PER_DEADLINE_CHECK == 0:
            deadline.check()
        _, block = heapq.heappop(pending)
        queued.discard(block)
        state = block_entry[block]
        for index in instructions_of(block):
            state = transfer(index, instructions[index], state)
        block_exit[block] = state
        for successor in cfg.blocks[block].successors:
            if successor == cfg.exit:
                continue
            incoming = refine(block, successor, state) if refine is not None else state
            previous = block_entry.get(successor)
            merged = incoming if previous is None else analysis.join(previous, incoming)
            if previous is None or (merged is not previous and merged != previous):
                block_entry[successor] = merged
                if successor not in queued:
                    queued.add(successor)
                    heapq.heappush(pending, (order[successor], successor))
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
    sparse = getattr(analysis, "instructions_of", None)
    if sparse is not None:
        return sparse
    blocks = cfg.blocks
    return lambda block: blocks[block].instruction_indices
