"""The branches of a function as the control-divergence transfer sees them: each with its
reconvergence point (immediate post-dominator) and which of its successors lead straight to an
exit (nvcc's early return) or a trap (which ends the whole grid)."""

from __future__ import annotations


from ptxlint import cfg as cfg_module
from ptxlint import ir
from ptxlint.isa.aligned import Collective
from ptxlint.records import record


@record(slots=True)
class BranchInfo:
    """A block ending in a branch with more than one way out."""

    block: int
    index: int  # the branch instruction
    instruction: ir.Instruction
    post_dominator: int | None  # where the paths from it meet again
    live: frozenset[int]  # successors that do not lead straight to an exit or trap
    exits_elsewhere: bool  # some successor leads straight to an exit
    taken: int  # the block a `bra` jumps to (the other successor is the fall-through)
    traps: bool  # some successor leads straight to a trap


def find_branches(function: ir.Function, graph: cfg_module.ControlFlowGraph, collectives: dict[int, Collective]) -> dict[int, BranchInfo]:
    """Blocks ending in a branch with more than one way out, with their post-dominator and which
    successors lead straight to an exit (`@p bra EXIT; … EXIT: ret;`) or a trap."""
    dead_ends = _dead_ends(graph, function, collectives)
    post_dominators = graph.immediate_post_dominators
    branches = {}
    for block in graph.blocks:
        if block.end == block.start:
            continue
        last = function.instructions[block.end - 1]
        if last.opcode.base not in ("bra", "brx"):
            continue
        successors = [successor for successor in block.successors if successor != graph.exit]
        if len(successors) < 2:
            continue
        live = frozenset(successor for successor in successors if successor not in dead_ends)
        exits_elsewhere = any(dead_ends.get(successor) == "exit" for successor in successors)
        traps = any(dead_ends.get(successor) == "trap" for successor in successors)
        post_dominator = post_dominators.get(block.index)
        branches[block.index] = BranchInfo(
            block.index,
            block.end - 1,
            last,
            None if post_dominator == block.index else post_dominator,
            live,
            exits_elsewhere,
            block.successors[0],
            traps,
        )
    return branches


def _dead_ends(graph: cfg_module.ControlFlowGraph, function: ir.Function, collectives: dict[int, Collective]) -> dict[int, str]:
    """Blocks that end the thread at once ("exit": nothing but branches before an `exit` or a
    kernel `ret`, the shape of nvcc's early return) or end the grid ("trap": a trap with no
    collective on the way). In a `.func`, `ret` returns to the caller: not an end."""
    fates: dict[int, str] = {}
    instructions = function.instructions
    with_collectives = {graph.block_of(index) for index in collectives}
    for block_index in reversed(graph.reverse_post_order):
        block = graph.blocks[block_index]
        if block.end == block.start or block_index in with_collectives:
            continue
        last = instructions[block.end - 1]
        only_control = all(instructions[index].opcode.base in _CONTROL_ONLY for index in block.instruction_indices)
        own_end = _end_kind(last, function) if last.guard is None else None
        if own_end == "exit" and only_control:
            fates[block_index] = "exit"
            continue
        if own_end == "trap":
            fates[block_index] = "trap"
            continue
        successors = block.successors
        if graph.exit in successors or any(successor not in fates for successor in successors):
            continue
        successor_fates = {fates[successor] for successor in successors}
        if successor_fates == {"trap"}:
            fates[block_index] = "trap"
        elif only_control:
            fates[block_index] = "exit"
    return fates


_CONTROL_ONLY = frozenset({"bra", "exit", "ret"})


def _end_kind(last: ir.Instruction, function: ir.Function) -> str | None:
    base = last.opcode.base
    if base == "exit" or (base == "ret" and function.is_kernel):
        return "exit"
    if cfg_module.ends_grid(last):
        return "trap"
    return None


# ----------------------------------------------------------------------------- correlated conditions
