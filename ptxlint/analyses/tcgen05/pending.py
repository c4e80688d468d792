"""The tcgen05 state of a thread along its paths: which `tcgen05.ld`/`st` it issued and has not
yet waited for, and which tensor-memory allocations it has not yet freed.

Both are in the :class:`Payload` that :class:`_TensorMemoryPayloads` steps for a
:class:`~ptxlint.analyses.path_sensitive.PathSensitiveAnalysis`:

- the pending accesses (rules see them as :class:`Pending`). `tcgen05.ld` and `tcgen05.st` add
  one; `tcgen05.wait::ld` (`::st`) retires every pending load (store). Each pending load also
  remembers which of its destination registers have not been read yet: once all have been, the
  load has necessarily completed (its values cannot exist before it does), which is all a
  hand-off needs — though not a later MMA overwriting the same TMEM, which the ISA says still
  needs the wait.
- the allocations: the `tcgen05.alloc`s not followed by a `tcgen05.dealloc`.

Calls: a callee that (transitively) waits or deallocates does so for its caller; a callee whose
body is not in the module may do anything, so it retires everything (no finding beats a guess).

The pass's result, :class:`TensorMemoryFacts`, answers the tensor-memory rules' questions (what
is pending before an instruction, which hand-off an access reaches first, which allocations live
to the end, the witness path of a finding) as facts; the solver and its states stay in here.
"""

from __future__ import annotations

from typing import Callable, Iterable, NamedTuple, Sequence

from ptxlint.analyses.path_sensitive import PathSensitiveAnalysis, PathState
from ptxlint.analyses.path_witness import BranchStep, branch_steps, witness_path
from ptxlint.analyses.registers import Registers
from ptxlint.analyses.tcgen05.hand_offs import FirstHandOffs, free_before_wait, hand_offs_in, settles_before_next_barrier
from ptxlint.analyses.tcgen05.scan import TensorMemoryScan, called_operations
from ptxlint.analyses.threads.branch_sides import BranchTable, warp_list
from ptxlint.callgraph import callee_name
from ptxlint.analyses.tcgen05.footprint import disjoint, footprint
from ptxlint.context import ModuleContext
from ptxlint.dataflow import Solution, StatesBefore, solve_forward
from ptxlint.ir import Address, Function, Instruction, registers_in
from ptxlint.isa.tcgen05 import WAIT_LD, WAIT_ST, operation
from ptxlint.passes import Describe, Pass


# ----------------------------------------------------------------------------- pending ld/st


class Pending(NamedTuple):
    """A pending access as the rules see it."""

    index: int  # type: ignore[assignment]  # the `tcgen05.ld`/`st` instruction (shadows tuple.index)
    kind: str  # "ld" or "st"
    unread: frozenset[str]  # destination registers (keys) of a load not read since it was issued

    @property
    def values_consumed(self) -> bool:
        return self.kind == "ld" and not self.unread


class Payload(NamedTuple):
    """What one path class tracks. A load's unread registers are kept as (load, register) pairs
    in one set, so that a read consumes them with one set difference whatever the number of
    pending loads; two payloads are equal exactly when their :attr:`pending` views are."""

    accesses: frozenset[tuple[int, str]]  # (index, kind) of the `tcgen05.ld`/`st` not yet waited for
    allocations: frozenset[int]  # indices of the `tcgen05.alloc`s (or allocating calls) not yet freed
    unread: frozenset[tuple[int, str]] = frozenset()  # (load index, register): destinations of pending loads not read yet

    @property
    def pending(self) -> frozenset[Pending]:
        """The pending accesses, each with its own unread registers."""
        unread: dict[int, set[str]] = {}
        for load, register in self.unread:
            unread.setdefault(load, set()).add(register)
        return frozenset(Pending(index, kind, frozenset(unread.get(index, ()))) for index, kind in self.accesses)


_NOTHING = Payload(frozenset(), frozenset())

# The unread "register" of a load a callee returned in flight (see ``_TensorMemoryPayloads._call``).
_RETURNED_IN_FLIGHT = ""

# Operations that change a payload (besides calls).
_TRACKED = frozenset({"ld", "st", WAIT_LD, WAIT_ST, "alloc", "dealloc"})


class _TensorMemoryPayloads:
    """Pending accesses and live allocations of a thread: how instructions change them (a
    :class:`~ptxlint.analyses.path_sensitive.PathPayloads`)."""

    def __init__(
        self,
        branches: BranchTable,
        function: Function,
        summaries: dict[str, frozenset[str]],
        candidates: Iterable[int],
        returned: Callable[[str], frozenset[tuple[str, bool]]] = lambda name: frozenset(),
    ) -> None:
        """``candidates``: the indices of the instructions that may change a payload (see
        :func:`tensor_memory_instructions`); ``returned(name)``: what the `.func` called ``name``
        may leave pending when it returns, as (kind, in flight) pairs."""
        self.function = function
        self.summaries = summaries
        self._returned = returned
        instructions = function.instructions
        keys = branches.registers
        self._changing = frozenset(index for index in candidates if _changes_payload(instructions[index]))
        # Each load's (load, register) pairs, and per instruction reading some of those
        # registers, the pairs its read consumes: the reads of any other register observe nothing.
        self._loaded: dict[int, frozenset[tuple[int, str]]] = {}
        loads_writing: dict[str, list[int]] = {}
        for index in self._changing:
            instruction = instructions[index]
            if operation(instruction.opcode.base, instruction.opcode.modifiers) == "ld":
                registers = _loaded_registers(instruction, keys)
                self._loaded[index] = frozenset((index, register) for register in registers)
                for register in registers:
                    loads_writing.setdefault(register, []).append(index)
        consumed: dict[int, set[tuple[int, str]]] = {}
        readers = keys.readers
        for register, loads in loads_writing.items():
            for reader in readers.get(register, ()):
                consumed.setdefault(reader, set()).update((load, register) for load in loads)
        self._consumed = {index: frozenset(pairs) for index, pairs in consumed.items()}

    def initial_payload(self) -> Payload:
        return _NOTHING

    def issues_access(self, index: int) -> bool:
        """Whether instruction ``index`` issues a `tcgen05.ld`/`st`, or is a call that may return
        one unwaited."""
        instruction = self.function.instructions[index]
        opcode = instruction.opcode
        if opcode.base == "call":
            name = callee_name(instruction) if index in self._changing else None
            return name is not None and bool(self._returned(name))
        return opcode.base == "tcgen05" and operation(opcode.base, opcode.modifiers) in ("ld", "st")

    def changing_instructions(self) -> frozenset[int]:
        return self._changing

    def observing_instructions(self) -> frozenset[int]:
        return frozenset(self._consumed)

    def meeting_instructions(self) -> frozenset[int]:
        return frozenset()

    def meet(self, payloads: Sequence[Payload]) -> Sequence[Payload] | None:
        return None

    def observe(self, index: int, instruction: Instruction, payload: Payload) -> Payload:
        """Reading a pending load's destination registers consumes them."""
        consumed = self._consumed[index]
        if payload.unread.isdisjoint(consumed):
            return payload
        return Payload(payload.accesses, payload.allocations, payload.unread - consumed)

    def step(self, index: int, instruction: Instruction, payload: Payload) -> Payload:
        opcode = instruction.opcode
        if opcode.base == "call":
            return self._call(index, instruction, payload)
        kind = operation(opcode.base, opcode.modifiers)
        accesses, allocations, unread = payload
        if kind == "alloc":
            return Payload(accesses, allocations | {index}, unread)
        if kind == "dealloc":
            return Payload(accesses, frozenset(), unread)
        if kind == WAIT_LD:
            return Payload(_retire(accesses, "ld"), allocations)  # every unread pair is a load's
        if kind == WAIT_ST:
            return Payload(_retire(accesses, "st"), allocations, unread)
        if kind == "ld":
            # Issued again (a loop): its registers are all unread again. Every pair of this load
            # is one of ``_loaded[index]``, so the union is all it takes.
            unread = unread | self._loaded[index]
        return Payload(accesses | {(index, kind)}, allocations, unread)  # type: ignore[arg-type]  # "ld" or "st": the tracked rest

    def covers(self, summary: Payload, payload: Payload) -> bool:
        return (
            payload.accesses <= summary.accesses
            and payload.allocations <= summary.allocations
            and payload.unread <= summary.unread
        )

    def collapse(self, payloads: Iterable[Payload]) -> Payload:
        payloads = list(payloads)
        return Payload(
            frozenset().union(*(payload.accesses for payload in payloads)),
            frozenset().union(*(payload.allocations for payload in payloads)),
            frozenset().union(*(payload.unread for payload in payloads)),
        )

    def _call(self, index: int, instruction: Instruction, payload: Payload) -> Payload:
        """A callee with no body in the module may wait and deallocate: assume it does."""
        operations = called_operations(instruction, self.summaries)
        if operations is None:
            return _NOTHING
        accesses, allocations, unread = payload
        if WAIT_LD in operations:
            accesses, unread = _retire(accesses, "ld"), frozenset()
        if WAIT_ST in operations:
            accesses = _retire(accesses, "st")
        if "dealloc" in operations:
            allocations = frozenset()
        elif "alloc" in operations:
            allocations = allocations | {index}
        if "ld" in operations or "st" in operations:
            name = callee_name(instruction)
            for kind, in_flight in self._returned(name) if name is not None else ():
                # The callee's unwaited access continues in the caller as one issued by the call;
                # a load whose registers the callee left unread stays in flight through the
                # pseudo-register "", which nothing reads.
                accesses = accesses | {(index, kind)}
                if kind == "ld" and in_flight:
                    unread = unread | {(index, _RETURNED_IN_FLIGHT)}
        return Payload(accesses, allocations, unread)


def _changes_payload(instruction: Instruction) -> bool:
    base = instruction.opcode.base
    return base == "call" or (base == "tcgen05" and operation(base, instruction.opcode.modifiers) in _TRACKED)


def _retire(accesses: frozenset[tuple[int, str]], kind: str) -> frozenset[tuple[int, str]]:
    """``accesses`` without those of ``kind``, which a wait retires."""
    return frozenset(access for access in accesses if access[1] != kind)


def _loaded_registers(instruction: Instruction, registers: Registers) -> frozenset[str]:
    """Every register a `tcgen05.ld` writes, by key: all operands before the TMEM address (the
    vector, and `redval` of `tcgen05.ld.red`, which lowering counts as a source)."""
    keys: set[str] = set()
    scope = instruction.scope
    for operand in instruction.operands:
        if type(operand) is Address:
            break
        keys.update(registers.key(register.name, scope) for register in registers_in(operand))
    return frozenset(keys)


# ----------------------------------------------------------------------------- the result


class _EdgeFacts(NamedTuple):
    """What flows along one CFG edge, over the feasible path classes there."""

    accesses: frozenset[int]  # the pending `tcgen05.ld`/`st`
    in_flight: frozenset[int]  # those of them not known complete (a load some register of which is unread, a store)
    allocations: frozenset[int]  # the live allocations


_NO_FACTS = _EdgeFacts(frozenset(), frozenset(), frozenset())


class ExitLeak(NamedTuple):
    """An allocation some feasible path still holds when the function ends."""

    allocation: int  # the `tcgen05.alloc` (or allocating call)
    end: int | None  # the last instruction of the block that leaves for the end (None: an empty block)
    block: int  # that block, for :meth:`TensorMemoryFacts.allocation_witness`


class _EdgeFlow:
    """What flows along each edge of one solved function (the solver's exit state of the source
    refined by the edge), computed once per edge. Its own object, which refers to nothing that
    refers back to it: the searches keep its bound methods, and a cycle through the facts would
    keep the function's whole solution alive until the cyclic collector ran."""

    def __init__(self, analysis: PathSensitiveAnalysis[Payload], solution: Solution[PathState[Payload]]) -> None:
        self._analysis = analysis
        self._exits = solution.block_exit
        self._edges: dict[tuple[int, int], _EdgeFacts] = {}

    def accesses(self, source: int, target: int) -> frozenset[int]:
        """The accesses pending along the edge."""
        return self.facts(source, target).accesses

    def in_flight(self, source: int, target: int) -> frozenset[int]:
        """The accesses still in flight along the edge (a load whose registers were all read is
        pending, not in flight)."""
        return self.facts(source, target).in_flight

    def facts(self, source: int, target: int) -> _EdgeFacts:
        key = (source, target)
        known = self._edges.get(key)
        if known is not None:
            return known
        state = self._exits.get(source)
        if not state:
            known = _NO_FACTS
        else:
            accesses: set[int] = set()
            in_flight: set[int] = set()
            allocations: set[int] = set()
            for payload, _ in self._analysis.refine(source, target, state):
                unread_loads = {load for load, _ in payload.unread}
                for access, kind in payload.accesses:
                    accesses.add(access)
                    if kind != "ld" or access in unread_loads:
                        in_flight.add(access)
                allocations.update(payload.allocations)
            known = _EdgeFacts(frozenset(accesses), frozenset(in_flight), frozenset(allocations))
        self._edges[key] = known
        return known


class TensorMemoryFacts:
    """The `tcgen05_pending` pass on one function, as answers: the rules ask, the solved path
    analysis stays inside. What an edge carries is computed once per edge and what a search
    finds once per access (or barrier), so the rules' questions cost about one walk of the CFG
    however many accesses and hand-offs a function has."""

    def __init__(
        self,
        payloads: _TensorMemoryPayloads,
        branches: BranchTable,
        analysis: PathSensitiveAnalysis[Payload],
        solution: Solution[PathState[Payload]],
    ) -> None:
        self._payloads = payloads
        self._branches = branches
        self._analysis = analysis
        self._solution = solution
        self._cfg = solution.cfg
        self._function = payloads.function
        self._state_before = StatesBefore(solution, analysis)
        self._flow = _EdgeFlow(analysis, solution)
        self._edge = self._flow.facts
        self._pending: dict[Payload, frozenset[Pending]] = {}
        self._first_hand_offs: FirstHandOffs | None = None
        self._first_unwaited: FirstHandOffs | None = None
        self._settles: dict[tuple[int, str], bool] = {}
        self._frees: dict[tuple[int, int], int | None] = {}

    # -- pending accesses

    def pending_before(self, index: int) -> list[tuple[Pending, int]]:
        """The accesses that may be pending when instruction ``index`` executes (its own guard
        assumed to hold), each with the warps of the path classes it is pending in, in the
        order they were issued."""
        if not self._may_have_pending(self._cfg.block_of(index)):
            return []
        instruction = self._function.instructions[index]
        state = self._analysis.assume_guard(index, instruction, self._state_before(index))  # type: ignore[arg-type]  # reachable
        found: dict[Pending, int] = {}
        for payload, context in state:
            for item in self._pending_of(payload):
                found[item] = found.get(item, 0) | context.warps
        return sorted(found.items(), key=lambda entry: entry[0].index)

    def _pending_of(self, payload: Payload) -> frozenset[Pending]:
        """``payload.pending``, once per payload (successive hand-offs see the same ones)."""
        known = self._pending.get(payload)
        if known is None:
            known = self._pending[payload] = payload.pending
        return known

    def _may_have_pending(self, block: int) -> bool:
        """Cheap filter: a reachable block entered with an access in flight, or issuing one."""
        entry = self._solution.block_entry.get(block)
        if entry is None:
            return False
        if any(payload.accesses for payload, _ in entry):
            return True
        issues = self._payloads.issues_access
        return any(issues(index) for index in self._cfg.blocks[block].instruction_indices)

    def columns_disjoint(self, access: int, index: int, warps: int) -> bool:
        """Whether, in each of ``warps`` (at least one), the TMEM columns of the access at
        ``access`` and of instruction ``index`` provably differ."""
        values = self._branches.values
        instructions = self._function.instructions
        for warp in warp_list(warps):
            if not disjoint(footprint(values, access, instructions[access], warp), footprint(values, index, instructions[index], warp)):
                return False
        return warps != 0

    def access_witness(self, item: Pending, index: int) -> list[BranchStep]:
        """The branches of a feasible path on which ``item`` is still pending at instruction
        ``index`` (none when both are in one block, the access first)."""
        graph = self._cfg
        if graph.block_of(item.index) == graph.block_of(index) and item.index < index:
            return []
        path = witness_path(graph, lambda source, target: item.index in self._edge(source, target).accesses, item.index, graph.block_of(index))
        return branch_steps(graph, self._branches, path)

    # -- hand-offs (see ptxlint/isa/hand_offs.py)

    def first_hand_off(self, item: Pending, index: int) -> bool:
        """Whether the hand-off at ``index`` is the first one ``item`` reaches on some path (the
        ones after it repeat its finding): still in flight, or for a load whose registers have
        all been read, still not waited for."""
        if item.values_consumed:
            if self._first_unwaited is None:
                self._first_unwaited = FirstHandOffs(
                    self._cfg, hand_offs_in(self._function), self._flow.accesses
                )
            return self._first_unwaited.first(item.index, index)
        if self._first_hand_offs is None:
            self._first_hand_offs = FirstHandOffs(
                self._cfg, hand_offs_in(self._function), self._flow.in_flight
            )
        return self._first_hand_offs.first(item.index, index)

    def freed_before_wait(self, item: Pending, hand_off: int) -> int | None:
        """A `tcgen05.dealloc` (or a call that deallocates) this thread reaches from the hand-off
        at ``hand_off`` before it waits for ``item``, on a feasible path, or None: that the
        thread itself, or another warp it lets through (the warp that frees after the barrier),
        frees tensor memory the access is not ordered before. The register dependence of a
        load whose values were read orders nothing in tensor memory (PTX ISA §9.7.16.6.4.5)."""
        key = (item.index, hand_off)
        if key not in self._frees:
            self._frees[key] = free_before_wait(
                self._cfg,
                self._function,
                self._payloads.summaries,
                lambda source, target: item.index in self._edge(source, target).accesses,
                hand_off,
                item.kind,
            )
        return self._frees[key]

    def free_witness(self, item: Pending, hand_off: int, free: int) -> list[BranchStep]:
        """The branches of a feasible path from the hand-off at ``hand_off`` to the free at
        ``free`` on which ``item`` is still pending (none when both are in one block)."""
        graph = self._cfg
        if graph.block_of(hand_off) == graph.block_of(free) and hand_off < free:
            return []
        path = witness_path(graph, lambda source, target: item.index in self._edge(source, target).accesses, hand_off, graph.block_of(free))
        return branch_steps(graph, self._branches, path)

    def settles_before_next_barrier(self, barrier: int, item: Pending) -> bool:
        """Whether the CTA barrier at ``barrier`` hands ``item`` over to nobody: on every path
        from it the thread waits for accesses of ``item``'s kind, then passes another CTA
        barrier, before anything touches tensor memory in conflict, frees it or hands over."""
        key = (barrier, item.kind)
        known = self._settles.get(key)
        if known is None:
            known = self._settles[key] = settles_before_next_barrier(
                self._cfg, self._function, self._payloads.summaries, barrier, item.kind
            )
        return known

    # -- returns

    def returned_pending(self) -> frozenset[tuple[str, bool]]:
        """What the function may leave pending when it returns, as (kind, in flight) pairs: a
        `.func`'s caller inherits these at the call."""
        graph = self._cfg
        returned: set[tuple[str, bool]] = set()
        for block in graph.predecessors(graph.exit):
            state = self._solution.block_exit.get(block)
            if not state:
                continue
            for payload, _ in self._analysis.refine(block, graph.exit, state):
                unread_loads = {load for load, _ in payload.unread}
                returned.update((kind, kind != "ld" or access in unread_loads) for access, kind in payload.accesses)
        return frozenset(returned)

    # -- allocations

    def live_allocations_at_exit(self) -> list[ExitLeak]:
        """The allocations some feasible path class still holds when the function ends, by
        allocation, each with the first block found that leaves for the end holding it."""
        graph = self._cfg
        leaks: dict[int, int] = {}
        for block in graph.predecessors(graph.exit):
            for allocation in self._edge(block, graph.exit).allocations:
                leaks.setdefault(allocation, block)
        blocks = graph.blocks
        return [
            ExitLeak(allocation, blocks[block].end - 1 if blocks[block].end > blocks[block].start else None, block)
            for allocation, block in sorted(leaks.items())
        ]

    def freed_by_others(self) -> frozenset[int]:
        """Allocations some thread that does not hold them deallocates: ownership passes to
        another warp (CUTLASS's FMHA allocates in the MMA warp and frees in the correction
        warps), so the allocating thread's own exit is no leak."""
        analysis = self._analysis
        instructions = self._function.instructions
        held_elsewhere: set[int] = set()
        everything = self._payloads.changing_instructions()  # deallocations among them
        for index in everything:
            instruction = instructions[index]
            if not self._deallocates(instruction):
                continue
            before = self._state_before(index)
            if before is None:
                continue
            for payload, _ in analysis.assume_guard(index, instruction, before):
                held_elsewhere.update(everything - payload.allocations)
        return frozenset(held_elsewhere)

    def _deallocates(self, instruction: Instruction) -> bool:
        if instruction.opcode.base == "call":
            return "dealloc" in (called_operations(instruction, self._payloads.summaries) or frozenset())
        return operation(instruction.opcode.base, instruction.opcode.modifiers) == "dealloc"

    def allocation_witness(self, leak: ExitLeak) -> list[BranchStep]:
        """The branches of a feasible path from the allocation to the end that holds it (none
        when the allocation is in the block that ends)."""
        graph = self._cfg
        if graph.block_of(leak.allocation) == leak.block:
            return []
        path = witness_path(graph, lambda source, target: leak.allocation in self._edge(source, target).allocations, leak.allocation, leak.block)
        return branch_steps(graph, self._branches, path)


class ReturnedAccesses:
    """The `tcgen05_returns` pass: what each `.func` may leave pending when it returns, solved
    callees first when a caller first asks. A function on a call cycle with the caller being
    solved returns nothing (no finding beats a guess); the facts solved for a `.func` along
    the way are the ones its own `tcgen05_pending` result reuses.

    It keeps neither the context nor itself inside what it solves: each analysis gets a lookup
    over a table of its callees' answers. A reference back would close a cycle through every
    solved function, which only the cyclic collector could free."""

    def __init__(self, context: ModuleContext) -> None:
        self._scan: TensorMemoryScan = context.result("tcgen05_scan")
        self._bodies = {function.name: function for function in context.module.functions if function.has_body}
        # By function object, not name: a module may (wrongly) define two functions of one name.
        self._facts: dict[int, TensorMemoryFacts] = {}
        self._returned: dict[str, frozenset[tuple[str, bool]]] = {}
        self._solving: set[str] = set()

    def returned(self, context: ModuleContext, name: str) -> frozenset[tuple[str, bool]]:
        """(kind, in flight) of the `tcgen05.ld`/`st` the `.func` ``name`` may return unwaited."""
        known = self._returned.get(name)
        if known is not None:
            return known
        function = self._bodies.get(name)
        operations = self._scan.callee_operations.get(name, frozenset())
        if function is None or function.is_kernel or name in self._solving or ("ld" not in operations and "st" not in operations):
            return _NOTHING_RETURNED
        known = self._returned[name] = self.facts(context, function).returned_pending()
        return known

    def returned_by_callees(self, context: ModuleContext, function: Function) -> Callable[[str], frozenset[tuple[str, bool]]]:
        """What each function ``function`` calls returns, solved now, as a lookup over a table
        of them alone."""
        table: dict[str, frozenset[tuple[str, bool]]] = {}
        for instruction in function.instructions:
            name = callee_name(instruction)
            if name is not None and name not in table:
                table[name] = self.returned(context, name)
        return lambda name: table.get(name, _NOTHING_RETURNED)

    def facts(self, context: ModuleContext, function: Function, keep_every_fact: bool = False) -> TensorMemoryFacts:
        """``function`` solved, with its callees' returned accesses."""
        known = self._facts.get(id(function)) if not keep_every_fact else None
        if known is not None:
            return known
        self._solving.add(function.name)
        try:
            returned = self.returned_by_callees(context, function)
            known = TensorMemoryFacts(*_solve_with(context, function, returned, keep_every_fact))
        finally:
            self._solving.discard(function.name)
        if not keep_every_fact:
            self._facts[id(function)] = known
        return known


_NOTHING_RETURNED: frozenset[tuple[str, bool]] = frozenset()


def _solve_with(
    context: ModuleContext,
    function: Function,
    returned: Callable[[str], frozenset[tuple[str, bool]]],
    keep_every_fact: bool,
) -> tuple[_TensorMemoryPayloads, BranchTable, PathSensitiveAnalysis[Payload], Solution[PathState[Payload]]]:
    scan = context.result("tcgen05_scan")
    branches: BranchTable = context.result("warp_branches", function)
    payloads = _TensorMemoryPayloads(branches, function, scan.callee_operations, scan.instructions(function), returned)
    analysis = PathSensitiveAnalysis(branches, payloads, keep_every_fact)
    return payloads, branches, analysis, solve_forward(branches.cfg, analysis)


def _solve(
    context: ModuleContext, function: Function, keep_every_fact: bool = False,
) -> tuple[PathSensitiveAnalysis[Payload], Solution[PathState[Payload]]]:
    """The path analysis of ``function`` and its fixed point (``keep_every_fact``: see
    :class:`~ptxlint.analyses.path_sensitive.PathSensitiveAnalysis`; tests compare the two)."""
    returned = context.result("tcgen05_returns").returned_by_callees(context, function)
    _, _, analysis, solution = _solve_with(context, function, returned, keep_every_fact)
    return analysis, solution


def _run(context: ModuleContext, function: Function) -> TensorMemoryFacts:
    return context.result("tcgen05_returns").facts(context, function)  # type: ignore[no-any-return]


def _returns(context: ModuleContext) -> ReturnedAccesses:
    return ReturnedAccesses(context)


def _describe_pending(facts: TensorMemoryFacts, function: Function) -> Describe:
    """Before each instruction, over every path class: the accesses not yet waited for and the
    allocations not yet freed, by the line that issued them (``pending ld@36 allocated @21``)."""
    instructions = function.instructions
    solution = facts._solution
    state_before = facts._state_before

    def describe(index: int, instruction: Instruction) -> str:
        if solution.cfg.block_of(index) not in solution.block_entry:
            return "unreachable"
        state: PathState[Payload] = state_before(index)  # type: ignore[assignment]  # reachable
        accesses = sorted({access for payload, _ in state for access in payload.accesses})
        allocations = sorted({allocation for payload, _ in state for allocation in payload.allocations})
        parts = []
        if accesses:
            parts.append("pending " + " ".join(f"{kind}@{instructions[at].span.line}" for at, kind in accesses))
        if allocations:
            parts.append("allocated " + " ".join(f"@{instructions[at].span.line}" for at in allocations))
        return " ".join(parts) or "-"

    return describe


PASSES = (
    Pass(
        "tcgen05_returns",
        "the `tcgen05.ld`/`st` each `.func` may return to its caller unwaited",
        _returns,
        requires=("warp_branches", "tcgen05_scan"),
    ),
    Pass(
        "tcgen05_pending",
        "the `tcgen05.ld`/`st` a thread has not waited for and the allocations it has not freed, per path",
        _run,
        per_function=True,
        requires=("warp_branches", "tcgen05_scan", "tcgen05_returns"),
        printer=_describe_pending,
    ),
)
