"""Which instructions of each function the uniformity analysis must visit: those whose transfer
can change a fact a rule reads, as LLVM's analysis follows def-use chains instead of visiting
everything, and the branches whose splitting of the threads can change such a fact.

A fact a rule reads sits at a collective, or at a call whose callee reaches one or exits. What
the facts depend on is found backwards, through registers and through the `.param` variables
that carry call arguments and return values — across calls too: a call's argument matters only
where its callee reads that parameter for a fact, and a function's return value only where some
caller reads the result for one. Those two answers depend on each other across the call graph
(callers tell callees which results they read, callees tell callers which parameters they
read); :func:`module_relevance` grows both until neither changes. A debug build calls a helper
for every copy and index computation, and before the slice crossed calls every call's arguments,
and every branch around a call, were visited."""

from __future__ import annotations

from typing import Callable, Iterable, Mapping, Sequence

from ptxlint import cfg as cfg_module
from ptxlint import ir
from ptxlint.analyses.registers import Registers
from ptxlint.analyses.uniformity.branches import BranchInfo
from ptxlint.analyses.uniformity.kinds import CALL, EXIT, LOAD, LOCAL_KEY, STORE_LOCAL, STORE_PARAMETER
from ptxlint.analyses.uniformity.local_frame import LocalFrame
from ptxlint.callgraph import call_arguments, call_results, callee_name, parameter_store
from ptxlint.isa.aligned import Collective
from ptxlint.records import record

PARAMETER_PREFIX = "param:"  # the key of a `.param` variable in the def-use chains (and states)


@record(slots=True)
class CallNeeds:
    """What the facts of a function's callers and callees ask of its slice: the call sites whose
    execution is a fact (the callee reaches a collective or exits), per call site the argument
    positions the callee reads (None: every one, an unknown callee), and whether some caller
    reads what the function returns."""

    executed_calls: frozenset[int]
    argument_positions: Mapping[int, frozenset[int] | None]
    returns_read: bool


@record(slots=True)
class Relevance:
    """A function's slice: the ``relevant`` instructions (visited), the ``valued`` ones (their
    results are read), the ``recorded`` ones (whose facts the replay records: collectives,
    calls and `.param` stores in the slice), the branches that matter, and what the slice asks
    of other functions: its own parameters it reads (positions) and the call sites whose
    results it reads."""

    relevant: frozenset[int]
    valued: frozenset[int]
    recorded: frozenset[int]
    branches: dict[int, BranchInfo]
    parameters_read: frozenset[int]
    results_read: frozenset[int]


class FunctionShape:
    """What a function's slices are computed from, once: its instructions' kinds, its branches,
    whether its `.local` memory is private, and where its `.param` variables are written."""

    def __init__(
        self, function: ir.Function, graph: cfg_module.ControlFlowGraph, kinds: Sequence[int],
        branches: dict[int, BranchInfo], private_local: bool, registers: Registers,
    ) -> None:
        self.function = function
        self.graph = graph
        self.kinds = kinds
        self.branches = branches
        self.private_local = private_local
        self.registers = registers
        instructions = function.instructions
        # `.local` memory slot by slot, where only this function's stores write it.
        self.local_frame: LocalFrame | None = None
        if private_local:
            stores = [index for index, kind in enumerate(kinds) if kind == STORE_LOCAL]
            loads = [index for index, kind in enumerate(kinds) if kind == LOAD and instructions[index].opcode.has("local")]
            if loads:
                self.local_frame = LocalFrame(function, registers, stores, loads)
        self.parameter_positions = {parameter.name: position for position, parameter in enumerate(function.parameters)}
        self.return_names = frozenset(parameter.name for parameter in function.return_parameters)
        # Per `.param` variable, the instructions that write it (a `st.param`, a call returning
        # into it) by block, in order; and which of them replace its whole value.
        self.parameter_writers: dict[str, dict[int, list[int]]] = {}
        self.whole_writes: set[int] = set()
        self.calls: list[int] = []
        self.return_stores: list[int] = []
        for index, kind in enumerate(kinds):
            if kind == STORE_PARAMETER:
                target = parameter_store(instructions[index])
                if target is not None:
                    name, offset = target
                    self._add_writer(name, index, whole=offset == 0)
                    if name in self.return_names:
                        self.return_stores.append(index)
            elif kind == CALL:
                self.calls.append(index)
                for element in call_results(instructions[index]):
                    if type(element) is ir.Symbol:
                        self._add_writer(element.name, index, whole=True)

    def _add_writer(self, name: str, index: int, whole: bool) -> None:
        self.parameter_writers.setdefault(name, {}).setdefault(self.graph.block_of(index), []).append(index)
        if whole:
            self.whole_writes.add(index)

    def reaching_writers(self, name: str, at: int) -> Iterable[int]:
        """The writes of `.param` variable ``name`` whose value instruction ``at`` may read: back
        from ``at`` through its block and up a chain of single predecessors to the last write of
        the whole variable (a write at an offset only adds to it), else every write of it."""
        by_block = self.parameter_writers.get(name)
        if not by_block:
            return ()
        graph = self.graph
        block = graph.block_of(at)
        limit = at
        found: list[int] = []
        for _ in range(len(graph.blocks)):
            for writer in reversed(by_block.get(block, ())):
                if writer < limit:
                    found.append(writer)
                    if writer in self.whole_writes:
                        return found
            predecessors = graph.predecessors(block)
            if len(predecessors) != 1 or predecessors[0] == graph.block_of(at):
                break
            block, limit = predecessors[0], len(self.function.instructions)
        return [writer for writers in by_block.values() for writer in writers]


def _loaded_variable(instruction: ir.Instruction) -> str | None:
    """The `.param` variable a `ld.param` reads: None for any other load."""
    if not instruction.opcode.has("param"):
        return None
    for operand in instruction.sources:
        if type(operand) is ir.Address and type(operand.base) is ir.Symbol:
            return operand.base.name
    return None


def function_slice(shape: FunctionShape, collectives: dict[int, Collective], needs: CallNeeds) -> Relevance:
    """The slice of one function given what its callers and callees ask. The collectives and
    exits are always in it; a branch is kept when its influence region (the blocks its paths pass
    before they meet again) holds an instruction of the slice, or when it sends threads to an exit
    or a trap: only then can whether it splits the threads change a fact. The others are left out
    with the slices of their conditions."""
    kinds = shape.kinds
    graph = shape.graph
    seeds = [index for index, kind in enumerate(kinds) if kind == EXIT]
    seeds.extend(sorted(needs.executed_calls | needs.argument_positions.keys()))
    if needs.returns_read:
        seeds.extend(shape.return_stores)
    arguments = needs.argument_positions
    # Only the blocks from which a recorded fact can be reached are solved: nothing after the
    # last of them starts a chain.
    recorded = set(collectives) | {index for index in seeds if kinds[index] in (CALL, STORE_PARAMETER)}
    solved = graph.reaching({graph.block_of(index) for index in recorded})
    chains = _DefUseChains(shape, collectives, arguments)
    # A call is in the slice for its execution and its arguments; its result only when read.
    chains.follow(
        [index for index in sorted(collectives) if graph.block_of(index) in solved]
        + [index for index in seeds if kinds[index] == CALL and graph.block_of(index) in solved],
        valued=False,
    )
    chains.follow([index for index in seeds if kinds[index] != CALL and graph.block_of(index) in solved], valued=True)
    branches = shape.branches
    # Branches that matter whatever their region holds: their exit marks reach every later fact.
    kept = {block: info for block, info in branches.items() if info.exits_elsewhere or info.traps}
    enclosing = graph.regions_holding(list(branches))
    blocks = list(branches)
    position = {block: number for number, block in enumerate(blocks)}
    kept_mask = 0
    for block in kept:
        kept_mask |= 1 << position[block]
    marked_until = 0  # chains.order[:marked_until] have had their blocks' enclosing branches kept
    added = list(kept)
    block_of = graph.block_of
    while True:
        chains.follow([branches[block].index for block in added if block in solved], valued=True)
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
    recorded.update(index for index in chains.relevant if kinds[index] in (CALL, STORE_PARAMETER))
    return Relevance(
        frozenset(chains.relevant), frozenset(chains.valued), frozenset(recorded),
        {block: info for block, info in branches.items() if block in kept},
        frozenset(chains.parameters_read), frozenset(chains.results_read),
    )


class _DefUseChains:
    """The relevant and valued instructions of :func:`function_slice`, grown by following
    def-use chains back from the instructions added (in the order they are found): through
    registers, the `.param` variables of calls (a call site's arguments the callee reads, the
    result a `ld.param` reads back), and `.local` memory."""

    def __init__(self, shape: FunctionShape, collectives: dict[int, Collective], arguments: Mapping[int, frozenset[int] | None]) -> None:
        self._shape = shape
        self._instructions = shape.function.instructions
        self._collectives = collectives
        self._registers = shape.registers
        self._arguments = arguments
        # What a `ld.local` reads: the stores to the places it may read (see LocalFrame).
        frame = shape.local_frame
        self._local_reads = frame.loads if frame is not None else {}
        self._local_writers = frame.writers if frame is not None else {}
        self.relevant: set[int] = set()
        self.valued: set[int] = set()
        self.order: list[int] = []  # every relevant instruction, in the order found
        self.parameters_read: set[int] = set()
        self.results_read: set[int] = set()
        self._followed: set[str] = set()

    def follow(self, starts: Sequence[int], valued: bool) -> None:
        """Add ``starts`` (valued: their results are read; otherwise collectives, relevant for
        their guard and uniform operands, or calls, for their guard and the arguments their
        callees read) and what they read."""
        work: list[int] = []
        for index in starts:
            if index in self.relevant and (index in self.valued or not valued):
                continue
            if valued:
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
        shape = self._shape
        kinds = shape.kinds
        parameter_registers = registers.register_parameters
        while work:
            index = work.pop()
            instruction = instructions[index]
            guard = instruction.guard
            names: Sequence[str]
            if index in valued_set and (guard is None or type(guard.predicate) is ir.Register):
                names = registers.reads(index)  # its sources and guard, shared with the other passes
            else:
                requirement = self._collectives.get(index)
                if index in valued_set or requirement is None:
                    read = instruction.sources
                else:
                    operands = instruction.operands
                    read = tuple(operands[position] for position in requirement.uniform_operands if position < len(operands))
                scope = instruction.scope
                found = [key(register.name, scope) for operand in read for register in ir.registers_in(operand)]
                if guard is not None:
                    found.extend(key(register.name, scope) for register in ir.registers_in(guard.predicate))
                names = found
            reached: list[int] = []
            kind = kinds[index]
            if kind == CALL:
                reached.extend(self._argument_writers(index, instruction))
            elif kind == LOAD and index in valued_set:
                local_keys = self._local_reads.get(index)
                if local_keys is not None:
                    names = [*names, *local_keys]
                variable = _loaded_variable(instruction)
                if variable is not None:
                    position = shape.parameter_positions.get(variable)
                    if position is not None:
                        self.parameters_read.add(position)
                    reached.extend(shape.reaching_writers(variable, index))
            for name in names:
                if name in followed:
                    continue
                followed.add(name)
                position = parameter_registers.get(name)
                if position is not None:  # a `.reg` parameter: what a caller passes may be read
                    self.parameters_read.add(position)
                reached.extend(self._local_writers.get(name, ()) if name.startswith(LOCAL_KEY) else writers.get(name, ()))
            for writer in reached:
                if kinds[writer] == CALL:
                    self.results_read.add(writer)
                if writer not in valued_set:
                    valued_set.add(writer)
                    if writer not in relevant:
                        relevant.add(writer)
                        order.append(writer)
                    work.append(writer)

    def _argument_writers(self, index: int, instruction: ir.Instruction) -> list[int]:
        """The `st.param`s of the arguments of call ``index`` its callee reads."""
        if index not in self._arguments:
            return []
        positions = self._arguments[index]
        found: list[int] = []
        for position, argument in enumerate(call_arguments(instruction)):
            if type(argument) is ir.Symbol and (positions is None or position in positions):
                found.extend(self._shape.reaching_writers(argument.name, index))
        return found


def module_relevance(
    order: Sequence[str],
    shapes: Callable[[str], FunctionShape],
    collectives: Mapping[str, dict[int, Collective]],
    analysed: Callable[[str], bool],
    executed: Callable[[str], bool],
) -> dict[str, Relevance]:
    """Every function's slice (``order``: the functions analysed, callers first), with what each
    asks of its callers and callees grown to a fixed point: which parameters each reads, and of
    which functions some caller reads the result. ``executed(callee)``: whether a call's own
    execution is a fact (its callee reaches a collective or exits); ``analysed(name)``: whether
    the function's body is analysed (a call to anything else has no argument a slice reads). A
    caller that is not analysed reaches no collective: what it reads matters to no fact."""
    parameters_read: dict[str, frozenset[int]] = {name: frozenset() for name in order}
    returns_read: set[str] = set()
    slices: dict[str, Relevance] = {}
    asked: dict[str, CallNeeds | None] = {}
    changed = True
    while changed:
        changed = False
        for name in order:
            shape = shapes(name)
            needs = _needs(shape, name, parameters_read, returns_read, analysed, executed)
            if name in slices and asked[name] == needs:
                continue
            asked[name] = needs
            found = slices[name] = function_slice(shape, collectives[name], needs)
            if found.parameters_read != parameters_read[name]:
                parameters_read[name] = parameters_read[name] | found.parameters_read
                changed = True
            for call in found.results_read:
                callee = callee_name(shape.function.instructions[call])
                if callee is not None and callee not in returns_read:
                    returns_read.add(callee)
                    changed = True
    return slices


def _needs(
    shape: FunctionShape, name: str, parameters_read: Mapping[str, frozenset[int]], returns_read: set[str],
    analysed: Callable[[str], bool], executed: Callable[[str], bool],
) -> CallNeeds:
    executed_calls: set[int] = set()
    arguments: dict[int, frozenset[int] | None] = {}
    instructions = shape.function.instructions
    for index in shape.calls:
        callee = callee_name(instructions[index])
        if callee is None:
            executed_calls.add(index)
            arguments[index] = None
            continue
        if executed(callee):
            executed_calls.add(index)
        if analysed(callee):
            positions = parameters_read.get(callee, frozenset())
            if positions:
                arguments[index] = positions
    return CallNeeds(frozenset(executed_calls), arguments, name in returns_read)
