"""What the analysis of one function prepares once, before any round of the interprocedural
iteration: the kind of each instruction (how its result is computed), the sparse slice of
instructions whose transfer can change a fact a rule reads, the keys each writes, its branches,
their correlations and the liveness of the registers the state holds."""

from __future__ import annotations

from typing import Callable, Collection, Sequence, Union

from ptxlint import cfg as cfg_module
from ptxlint import ir
from ptxlint.analyses.registers import Liveness, Registers, live_in
from ptxlint.analyses.uniformity.branches import BranchInfo, find_branches
from ptxlint.analyses.threads.conditions import Correlated, correlated_branches
from ptxlint.analyses.uniformity.registers import InvariantRegisters, RegisterNames
from ptxlint.dataflow import indices_by_block
from ptxlint.isa.aligned import Collective
from ptxlint.isa.barriers import BARRIER_BASES
from ptxlint.records import record

# Results that differ per lane whatever the inputs: per-lane fragments of matrix instructions,
# atomics, and waits that may succeed in some lanes first.
_PER_LANE_BASES = frozenset(
    {"atom", "wmma", "mma", "ldmatrix", "movmatrix", "wgmma", "tex", "tld4", "suld", "txq", "suq", "activemask"}
)
_WARP_RESULT_BASES = frozenset({"vote", "redux"})

_PREDICATE_LOGIC = frozenset({"mov", "not", "and", "or", "xor"})
LANE_ARITHMETIC = frozenset({"mov", "cvt", "shr", "shl", "and", "div", "rem", "mul", "mad", "bfe", "add", "sub", "or", "xor"})

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


def prepare_static(
    function: ir.Function,
    graph: cfg_module.ControlFlowGraph,
    collectives: dict[int, Collective],
    dense: bool,
    registers: Registers,
) -> StaticFacts:
    """Registers, branches and their post-dominators, the sparse slice (every instruction when
    ``dense``) and what each visited instruction writes."""
    instructions = function.instructions
    known_kinds = _KINDS  # per opcode text: most instructions need no call
    kinds = [known_kinds.get(instruction.opcode.text, -1) for instruction in instructions]
    for index, kind in enumerate(kinds):
        if kind < 0:
            kinds[index] = instruction_kind(instructions[index].opcode)
    branches = find_branches(function, graph, collectives)
    # `.local` memory is per thread; when no generic pointer to it is ever made, only this
    # function's `st.local` write it, so a `ld.local` reads one of the values stored there.
    private_local = not any(
        instruction.opcode.base == "cvta" and instruction.opcode.has("local") for instruction in instructions
    )
    # The blocks holding facts to record, and those whose states matter: the blocks from
    # which one of them can be reached (what follows the last collective, call or return
    # store changes none).
    recorded_blocks = frozenset(block.index for block in graph.blocks if _records_facts(function, block, collectives))
    solved_blocks: frozenset[int] | None = None
    if dense:
        visited: Sequence[int] = range(len(instructions))
        valued: Collection[int] = visited
    else:
        solved_blocks = solved = graph.reaching(recorded_blocks)
        relevant, valued, branches = _relevant_instructions(
            function, graph, kinds, collectives, private_local, registers, branches,
            seeds=[index for block in sorted(solved) for index in graph.blocks[block].instruction_indices],
        )
        visited = sorted(relevant)
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
    replayed = {
        block: _through_last_recorded(visited_by_block[block], kinds, collectives) for block in recorded_blocks
    }
    return StaticFacts(
        names, branches, ending_at, plans, private_local, correlated, visited_by_block, invariant, liveness, key_bits,
        recorded_blocks, replayed, solved_blocks,
    )


def _through_last_recorded(visited: Sequence[int], kinds: list[int], collectives: dict[int, Collective]) -> Sequence[int]:
    """``visited`` up to and including the last instruction whose facts the replay records:
    what follows it in the block changes no recorded fact."""
    for position in range(len(visited) - 1, -1, -1):
        index = visited[position]
        if index in collectives or kinds[index] in _RECORDED_KINDS:
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


def _relevant_instructions(
    function: ir.Function, graph: cfg_module.ControlFlowGraph, kinds: list[int], collectives: dict[int, Collective],
    private_local: bool, registers: Registers, branches: dict[int, BranchInfo], seeds: Sequence[int],
) -> tuple[set[int], set[int], dict[int, BranchInfo]]:
    """The instructions whose transfer can change a fact the rules read, as LLVM's analysis
    follows def-use chains instead of visiting everything, among them those whose result is
    read (``valued``), and the branches that matter. Collectives are relevant for their guard
    and the operands that must be uniform; exits, calls and `.param` stores always; every
    instruction writing a register a relevant instruction reads is valued, transitively. A
    branch matters when its influence region (the blocks its paths pass before they meet
    again) holds a relevant instruction, or when it sends threads to an exit or a trap: only
    then can whether it splits the threads change a fact. The others are left out with the
    slices of their conditions, which were most of what the solver visited (a loop test whose
    loop holds no collective, the bounds checks around a kernel's math). Only the instructions
    of ``seeds`` start a chain (those in the blocks the solver visits)."""
    chains = _DefUseChains(function, kinds, collectives, private_local, registers)
    seeded = set(seeds)
    chains.follow(
        [index for index in seeds if kinds[index] in _ALWAYS_RELEVANT or index in collectives],
        valued=lambda index: kinds[index] in _ALWAYS_RELEVANT,
    )
    # Branches that matter whatever their region holds: their exit marks reach every later fact.
    kept = {block: info for block, info in branches.items() if info.exits_elsewhere or info.traps}
    enclosing = graph.regions_holding(list(branches))
    position = {block: number for number, block in enumerate(branches)}
    blocks = list(branches)
    kept_mask = 0
    for block in kept:
        kept_mask |= 1 << position[block]
    marked_until = 0  # chains.order[:marked_until] have had their blocks' enclosing branches kept
    added = list(kept)
    block_of = graph.block_of
    while True:
        chains.follow([branches[block].index for block in added if branches[block].index in seeded], valued=lambda index: True)
        order = chains.order
        wanted = 0
        for index in order[marked_until:]:
            wanted |= enclosing.get(block_of(index), 0)
        marked_until = len(order)
        wanted &= ~kept_mask
        if not wanted:
            break
        kept_mask |= wanted
        added = []
        while wanted:
            lowest = wanted & -wanted
            added.append(blocks[lowest.bit_length() - 1])
            wanted ^= lowest
        kept.update((block, branches[block]) for block in added)
    return chains.relevant, chains.valued, {block: info for block, info in branches.items() if block in kept}


class _DefUseChains:
    """The relevant and valued instructions of :func:`_relevant_instructions`, grown by
    following def-use chains back from the instructions added (in the order they are found)."""

    def __init__(
        self, function: ir.Function, kinds: list[int], collectives: dict[int, Collective], private_local: bool,
        registers: Registers,
    ) -> None:
        self._instructions = function.instructions
        self._collectives = collectives
        self._registers = registers
        self._private_local = private_local
        # What `ld.local` reads (LOCAL_KEY): every `st.local`.
        self._local_writers = [index for index, kind in enumerate(kinds) if kind == STORE_LOCAL] if private_local else []
        self.relevant: set[int] = set()
        self.valued: set[int] = set()
        self.order: list[int] = []  # every relevant instruction, in the order found
        self._followed: set[str] = set()

    def follow(self, starts: Sequence[int], valued: Callable[[int], bool]) -> None:
        """Add ``starts`` (valued where ``valued`` says: their results are read; otherwise
        collectives, relevant for their guard and uniform operands) and what they read."""
        work: list[int] = []
        for index in starts:
            if index in self.relevant and (index in self.valued or not valued(index)):
                continue
            if valued(index):
                self.valued.add(index)
            if index not in self.relevant:
                self.relevant.add(index)
                self.order.append(index)
            work.append(index)
        instructions = self._instructions
        registers = self._registers
        writers = registers.writers
        key = registers.key
        followed = self._followed
        relevant, valued_set, order = self.relevant, self.valued, self.order
        while work:
            index = work.pop()
            instruction = instructions[index]
            guard = instruction.guard
            names: Sequence[str]
            if index in valued_set and (guard is None or type(guard.predicate) is ir.Register):
                names = registers.reads(index)  # its sources and guard, shared with the other passes
            else:
                if index in valued_set:
                    read = instruction.sources
                else:
                    operands = instruction.operands
                    read = tuple(operands[position] for position in self._collectives[index].uniform_operands if position < len(operands))
                scope = instruction.scope
                found = [key(register.name, scope) for operand in read for register in ir.registers_in(operand)]
                if guard is not None:
                    found.extend(key(register.name, scope) for register in ir.registers_in(guard.predicate))
                names = found
            if self._private_local and index in valued_set and instruction.opcode.base in ("ld", "ldu") and instruction.opcode.has("local"):
                names = [*names, LOCAL_KEY]
            for name in names:
                if name in followed:
                    continue
                followed.add(name)
                for writer in self._local_writers if name == LOCAL_KEY else writers.get(name, ()):
                    if writer not in valued_set:
                        valued_set.add(writer)
                        if writer not in relevant:
                            relevant.add(writer)
                            order.append(writer)
                        work.append(writer)


# How an instruction's result is computed (see DataTransfer.value).
VARYING, WARP_RESULT, LOAD, BARRIER, SETP, PREDICATE, ARITHMETIC, SOURCES, SELECT = range(9)
ELECT, SHUFFLE, CALL, EXIT, STORE_PARAMETER, STORE_LOCAL = range(9, 15)
LOCAL_KEY = "local:"  # the side-table entry for what a function stores to its `.local` memory
_KINDS: dict[str, int] = {}
# Instructions that change the state whatever registers they write (see _relevant_instructions).
_ALWAYS_RELEVANT = frozenset({EXIT, CALL, STORE_PARAMETER})
# Instructions whose replay records something besides collectives: call sites' arguments, the
# values a function returns.
_RECORDED_KINDS = frozenset({CALL, STORE_PARAMETER})


def instruction_kind(opcode: ir.Opcode) -> int:
    known = _KINDS.get(opcode.text)
    if known is not None:
        return known
    base = opcode.base
    if base in ("exit", "ret"):
        kind = EXIT
    elif base == "st" and opcode.has("param"):
        kind = STORE_PARAMETER
    elif base == "st" and opcode.has("local"):
        kind = STORE_LOCAL
    elif base == "elect":
        kind = ELECT
    elif base == "shfl":
        kind = SHUFFLE
    elif base == "call":
        kind = CALL
    elif base in _PER_LANE_BASES or base == "tcgen05" or base == "mbarrier" or (base == "match" and opcode.has("any")):
        kind = VARYING
    elif base in _WARP_RESULT_BASES or base == "match":
        kind = WARP_RESULT
    elif base in ("ld", "ldu"):
        kind = LOAD
    elif base in BARRIER_BASES:
        kind = BARRIER
    elif base == "setp":
        kind = SETP
    elif base in _PREDICATE_LOGIC and opcode.has("pred"):
        kind = PREDICATE
    elif base in LANE_ARITHMETIC:
        kind = ARITHMETIC
    elif base in ("selp", "slct"):
        kind = SELECT
    else:
        kind = SOURCES
    _KINDS[opcode.text] = kind
    return kind


def write_plan(kind: int, written: tuple[str, ...], names: RegisterNames) -> WritePlan:
    """``kind`` with the keys ``written`` (what the instruction writes), each with whether the
    state holds it."""
    if not written or kind in (ELECT, SHUFFLE, CALL, EXIT):
        return kind, ()
    sensitive = names.written_more_than_once
    return kind, tuple((key, key in sensitive or key.startswith("param:")) for key in written)


def fresh_register_index(function: ir.Function) -> Registers:
    return Registers(function)
