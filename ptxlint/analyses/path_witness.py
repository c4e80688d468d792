"""Witness paths for the findings of the path-sensitive analyses: a feasible path from where a
bug starts to where it shows, and the branch steps that tell which way each branch went and which
of them decide the path. Facts only (spans, predicates, directions): the rules word them.
"""

from __future__ import annotations

from collections import deque
from typing import Callable

from ptxlint.analyses.registers import register_of_key
from ptxlint.analyses.threads.branch_sides import BranchTable
from ptxlint.cfg import ControlFlowGraph
from ptxlint.records import record
from ptxlint.source import Span


@record
class WitnessPath:
    """A feasible path to a bug: its ``edges`` in order, and the blocks from which the bug's end
    is still reachable (``reaching``), which tell the branches that decide the path from those
    that lead to the bug either way."""

    edges: list[tuple[int, int]]
    reaching: frozenset[int]


@record(slots=True)
class BranchStep:
    """One conditional branch on a witness path: where it is, what it tests (`predicate`, the
    register's name as written, `negated` for `@!p`), whether it was taken and loops back, and
    whether it decides the path (going the other way would not reach the bug, or it loops back)."""

    span: Span
    predicate: str
    negated: bool
    taken: bool
    loops: bool
    essential: bool


def witness_path(
    cfg: ControlFlowGraph,
    carries: Callable[[int, int], bool],
    origin: int,
    end_block: int,
    passable: Callable[[int], bool] = lambda block: True,
) -> WitnessPath | None:
    """A path from the block of instruction ``origin`` to ``end_block`` along edges that
    ``carries(source, target)`` (some feasible path class along the edge has the bug's fact),
    through blocks that are ``passable``: searched backwards from the end, so every edge is one
    the analysis found feasible. The search covers every block that reaches the end, so that the
    witness can say which branches matter."""
    origin_block = cfg.block_of(origin)
    next_edge: dict[int, tuple[int, int]] = {}
    visited = {end_block}
    first_edge: tuple[int, int] | None = None
    queue = deque([end_block])
    while queue:
        block = queue.popleft()
        for predecessor in cfg.predecessors(block):
            if not carries(predecessor, block):
                continue
            if predecessor == origin_block and first_edge is None:
                first_edge = (predecessor, block)
            if predecessor not in visited and passable(predecessor):
                visited.add(predecessor)
                next_edge.setdefault(predecessor, (predecessor, block))
                queue.append(predecessor)
    if first_edge is None:
        return None
    return WitnessPath([first_edge] + _edges_to_end(first_edge[1], end_block, next_edge), frozenset(visited | {origin_block}))


def _edges_to_end(block: int, end_block: int, next_edge: dict[int, tuple[int, int]]) -> list[tuple[int, int]]:
    edges = []
    while block != end_block:
        edge = next_edge[block]
        edges.append(edge)
        block = edge[1]
    return edges


def branch_steps(cfg: ControlFlowGraph, branches: BranchTable, path: WitnessPath | None) -> list[BranchStep]:
    """One step per conditional branch on the path, in order."""
    steps: list[BranchStep] = []
    if path is None:
        return steps
    order = cfg.rpo_number
    for source, target in path.edges:
        branch = branches.branch(source)
        if branch is None:
            continue
        other = next((successor for successor in cfg.successors(source) if successor != target), None)
        loops = order.get(target, 0) <= order.get(source, 0)
        decides = loops or other is None or other not in path.reaching
        predicate = register_of_key(branch.predicate)  # the name the user reads
        steps.append(BranchStep(branch.instruction.span, predicate, branch.negated, target == branch.taken, loops, decides))
    return steps
