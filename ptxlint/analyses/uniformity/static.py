"""What the analysis of one function prepares once, before any round of the interprocedural
iteration: the kind of each instruction (how its result is computed), the instructions visited
(the slice :mod:`.relevance` finds), the keys each writes, its branches, their correlations and
the liveness of the registers the state holds."""

from __future__ import annotations

from typing import Collection, Sequence, Union

from ptxlint import cfg as cfg_module
from ptxlint import ir
from ptxlint.analyses.registers import Liveness, Registers, live_in
from ptxlint.analyses.uniformity.branches import BranchInfo, find_branches
from ptxlint.analyses.threads.conditions import Correlated, correlated_branches
from ptxlint.analyses.uniformity.registers import InvariantRegisters, RegisterNames
from ptxlint.dataflow import indices_by_block
from ptxlint.isa.aligned import Collective
from ptxlint.analyses.uniformity.kinds import (
    _KINDS, CALL, ELECT, EXIT, SHUFFLE, SOURCES, STORE_PARAMETER, instruction_kind,
)
from ptxlint.analyses.uniformity.local_frame import LocalFrame
from ptxlint.analyses.uniformity.relevance import FunctionShape, Relevance
from ptxlint.records import record

# An instruction's kind and the keys of the registers it writes, each with whether the state
# holds it (None: nobody reads its result).
WritePlan = tuple[int, Union[tuple[tuple[str, bool], ...], None]]


@record(slots=True)
class StaticFacts:
    """What the analysis of one function needs that does not change between the rounds of the
    interprocedural iteration (made by :func:`prepare_static`)."""

    names: RegisterNames
    branches: dict[int, BranchInfo]
    # Branch blocks by their reconvergence point (immediate post-dominator).
    ending_at: dict[int, set[int]]
    # Per instruction (only visited ones are read): its kind and the keys it writes.
    plans: list[WritePlan]
    # No generic pointer to `.local` memory is ever made: only this function's `st.local`s
    # write it.
    private_local: bool
    local_frame: LocalFrame | None  # its `.local` memory slot by slot, when private
    correlated: Correlated
    visited_by_block: Sequence[Sequence[int]]
    invariant: InvariantRegisters
    liveness: Liveness
    key_bits: dict[str, int]
    recorded_blocks: frozenset[int]  # the blocks holding facts to record
    # Per recorded block, its visited instructions up to the last whose facts are recorded (a
    # collective, a call, a `.param` store): what the replay after the fixed point transfers.
    replayed: dict[int, Sequence[int]]
    solved_blocks: frozenset[int] | None  # the blocks whose states matter (None: every block)


def function_shape(
    function: ir.Function, graph: cfg_module.ControlFlowGraph, collectives: dict[int, Collective], registers: Registers
) -> FunctionShape:
    """The kind of each instruction, the branches and whether `.local` memory is private: what
    the slices of :mod:`.relevance` and the rest of the preparation start from."""
    instructions = function.instructions
    known_kinds = _KINDS  # per opcode text: most instructions need no call
    kinds = [known_kinds.get(instruction.opcode.text, -1) for instruction in instructions]
    for index, kind in enumerate(kinds):
        if kind < 0:
            kinds[index] = instruction_kind(instructions[index].opcode)
    # `.local` memory is per thread; when no generic pointer to it is ever made, only this
    # function's `st.local` write it, so a `ld.local` reads one of the values stored there.
    private_local = not any(
        instruction.opcode.base == "cvta" and instruction.opcode.has("local") for instruction in instructions
    )
    return FunctionShape(function, graph, kinds, find_branches(function, graph, collectives), private_local, registers)


def prepare_static(shape: FunctionShape, collectives: dict[int, Collective], relevance: Relevance | None) -> StaticFacts:
    """Registers, branches and their post-dominators, the instructions visited (the slice
    ``relevance``; every instruction when None) and what each visited instruction writes."""
    function, graph, registers, kinds = shape.function, shape.graph, shape.registers, shape.kinds
    instructions = function.instructions
    solved_blocks: frozenset[int] | None = None
    if relevance is None:
        visited: Sequence[int] = range(len(instructions))
        valued: Collection[int] = visited
        branches = shape.branches
        recorded = set(collectives) | {index for index, kind in enumerate(kinds) if kind in (CALL, STORE_PARAMETER)}
        recorded_blocks = frozenset(block.index for block in graph.blocks if _records_facts(function, block, collectives))
    else:
        visited = sorted(relevance.relevant)
        valued = relevance.valued
        branches = relevance.branches
        recorded = relevance.recorded
        # The blocks holding facts to record, and those whose states matter: the blocks from
        # which one of them can be reached (what follows the last collective, call or return
        # store changes none).
        recorded_blocks = frozenset(graph.block_of(index) for index in recorded)
        solved_blocks = graph.reaching(recorded_blocks)
    visited_by_block = indices_by_block(graph, visited)
    # The keys each visited instruction writes, resolved once: the counts of writes, the write
    # plans and the value numbering all read them.
    key = registers.key
    written: dict[int, tuple[str, ...]] = {}
    register = ir.Register
    for index in visited:
        instruction = instructions[index]
        count = instruction.destination_count
        if count:
            scope = instruction.scope
            first = instruction.operands[0]
            if count == 1 and type(first) is register:  # the common case: one plain register
                written[index] = (key(first.name, scope),)
            else:
                written[index] = tuple(
                    key(found.name, scope) for operand in instruction.destinations for found in ir.registers_in(operand)
                )
    names = RegisterNames(registers, written)
    # Per visited instruction: how its result is computed and the keys of the registers it
    # writes (with whether each is flow-sensitive), so the transfer does no name lookups.
    # An instruction whose result nobody reads writes nothing (``defined`` stays None).
    unvisited: WritePlan = (SOURCES, None)  # never read
    plans: list[WritePlan] = [unvisited] * len(instructions)
    for index in visited:
        plans[index] = write_plan(kinds[index], written.get(index, ()), names) if index in valued else (kinds[index], None)
    ending_at: dict[int, set[int]] = {}
    for info in branches.values():
        if info.post_dominator is not None:
            ending_at.setdefault(info.post_dominator, set()).add(info.block)
    correlated = correlated_branches(function, graph, names, branches, visited)
    invariant = InvariantRegisters(function, written, names)
    # Which of the registers the state holds (those written more than once) each block may
    # still read, and each one's bit.
    liveness = live_in(graph, registers, sorted(names.written_more_than_once))
    key_bits = liveness.bits
    replayed = {block: _through_last_recorded(visited_by_block[block], recorded) for block in recorded_blocks}
    return StaticFacts(
        names, branches, ending_at, plans, shape.private_local, shape.local_frame, correlated, visited_by_block, invariant, liveness, key_bits,
        recorded_blocks, replayed, solved_blocks,
    )


def _through_last_recorded(visited: Sequence[int], recorded: Collection[int]) -> Sequence[int]:
    """``visited`` up to and including the last instruction whose facts the replay records:
    what follows it in the block changes no recorded fact."""
    for position in range(len(visited) - 1, -1, -1):
        index = visited[position]
        if index in recorded:
            return visited[: position + 1]
    return ()



def _records_facts(function: ir.Function, block: cfg_module.Block, collectives: dict[int, Collective]) -> bool:
    """Whether ``block`` holds an instruction whose facts the analysis records: a collective, a
    call, or (in a function that returns a value) a store that may set it."""
    instructions = function.instructions
    for index in block.instruction_indices:
        base = instructions[index].opcode.base
        if index in collectives or base == "call" or (base == "st" and function.return_parameters):
            return True
    return False


def write_plan(kind: int, written: tuple[str, ...], names: RegisterNames) -> WritePlan:
    """``kind`` with the keys ``written`` (what the instruction writes), each with whether the
    state holds it."""
    if not written or kind in (ELECT, SHUFFLE, CALL, EXIT):
        return kind, ()
    sensitive = names.written_more_than_once
    return kind, tuple((key, key in sensitive or key.startswith("param:")) for key in written)


def fresh_register_index(function: ir.Function) -> Registers:
    return Registers(function)
