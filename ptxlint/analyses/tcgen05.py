"""The tcgen05 state of a thread along its paths: which `tcgen05.ld`/`st` it issued and has not
yet waited for, and which tensor-memory allocations it has not yet freed.

Both are in the :class:`Payload` of a :class:`~ptxlint.analyses.path_sensitive.PathSensitiveAnalysis`:

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

from typing import Iterable, NamedTuple

from ptxlint.analyses.path_sensitive import PathSensitiveAnalysis, PathState
from ptxlint.analyses.path_witness import BranchStep, branch_steps, witness_path
from ptxlint.analyses.tcgen05_hand_offs import FirstHandOffs, hand_offs_in, settles_before_next_barrier
from ptxlint.analyses.tcgen05_scan import called_operations
from ptxlint.analyses.threads.branch_sides import BranchTable, warp_list
from ptxlint.analyses.tmem_footprint import disjoint, footprint
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
    unread: frozenset[str]  # destination registers of a load not read since it was issued

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

# Operations that change a payload (besides calls).
_TRACKED = frozenset({"ld", "st", WAIT_LD, WAIT_ST, "alloc", "dealloc"})


class _TensorMemoryState(PathSensitiveAnalysis[Payload]):
    """Pending accesses and live allocations of a thread, per path class."""

    def __init__(
        self,
        branches: BranchTable,
        function: Function,
        summaries: dict[str, frozenset[str]],
        candidates: Iterable[int],
        keep_every_fact: bool = False,
    ) -> None:
        """``candidates``: the indices of the instructions that may change a payload (see
        :func:`tensor_memory_instructions`)."""
        self.function = function
        self.summaries = summaries
        instructions = function.instructions
        names = branches.values.names
        self._changing = frozenset(index for index in candidates if _changes_payload(instructions[index]))
        # Each load's (load, register) pairs, and per instruction reading some of those
        # registers, the pairs its read consumes: the reads of any other register observe nothing.
        self._loaded: dict[int, frozenset[tuple[int, str]]] = {}
        loads_writing: dict[str, list[int]] = {}
        for index in self._changing:
            instruction = instructions[index]
            if operation(instruction.opcode.base, instruction.opcode.modifiers) == "ld":
                registers = _loaded_registers(instruction)
                self._loaded[index] = frozenset((index, register) for register in registers)
                for register in registers:
                    loads_writing.setdefault(register, []).append(index)
        consumed: dict[int, set[tuple[int, str]]] = {}
        readers = names.readers
        for register, loads in loads_writing.items():
            for reader in readers.get(register, ()):
                consumed.setdefault(reader, set()).update((load, register) for load in loads)
        self._consumed = {index: frozenset(pairs) for index, pairs in consumed.items()}
        super().__init__(branches, keep_every_fact)

    def initial_payload(self) -> Payload:
        return _NOTHING

    def changing_instructions(self) -> frozenset[int]:
        return self._changing

    def observing_instructions(self) -> frozenset[int]:
        return frozenset(self._consumed)

    def observing(self, payload: Payload) -> bool:
        return bool(payload.unread)

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
        return Payload(accesses, allocations, unread)


def _changes_payload(instruction: Instruction) -> bool:
    base = instruction.opcode.base
    return base == "call" or (base == "tcgen05" and operation(base, instruction.opcode.modifiers) in _TRACKED)


def _retire(accesses: frozenset[tuple[int, str]], kind: str) -> frozenset[tuple[int, str]]:
    """``accesses`` without those of ``kind``, which a wait retires."""
    return frozenset(access for access in accesses if access[1] != kind)


def _loaded_registers(instruction: Instruction) -> frozenset[str]:
    """Every register a `tcgen05.ld` writes: all operands before the TMEM address (the vector,
    and `redval` of `tcgen05.ld.red`, which lowering counts as a source)."""
    names: set[str] = set()
    for operand in instruction.operands:
        if type(operand) is Address:
            break
        names.update(register.name for register in registers_in(operand))
    return frozenset(names)


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


class TensorMemoryFacts:
    """The `tcgen05_pending` pass on one function, as answers: the rules ask, the solved path
    analysis stays inside. What an edge carries is computed once per edge and what a search
    finds once per access (or barrier), so the rules' questions cost about one walk of the CFG
    however many accesses and hand-offs a function has."""

    def __init__(self, analysis: _TensorMemoryState, solution: Solution[PathState[Payload]]) -> None:
        self._analysis = analysis
        self._solution = solution
        self._cfg = solution.cfg
        self._function = analysis.function
        self._state_before = StatesBefore(solution, analysis)
        self._edges: dict[tuple[int, int], _EdgeFacts] = {}
        self._pending: dict[Payload, frozenset[Pending]] = {}
        self._first_hand_offs: FirstHandOffs | None = None
        self._settles: dict[tuple[int, str], bool] = {}

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
        instructions = self._function.instructions
        return any(
            operation(instructions[index].opcode.base, instructions[index].opcode.modifiers) in ("ld", "st")
            for index in self._cfg.blocks[block].instruction_indices
        )

    def columns_disjoint(self, access: int, index: int, warps: int) -> bool:
        """Whether, in each of ``warps`` (at least one), the TMEM columns of the access at
        ``access`` and of instruction ``index`` provably differ."""
        values = self._analysis.branches.values
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
        return branch_steps(graph, self._analysis.branches, path)

    # -- hand-offs (see ptxlint/isa/hand_offs.py)

    def first_hand_off(self, item: Pending, index: int) -> bool:
        """Whether the hand-off at ``index`` is the first one ``item`` reaches, still in flight,
        on some path (the ones after it repeat its finding)."""
        if self._first_hand_offs is None:
            self._first_hand_offs = FirstHandOffs(
                self._cfg, hand_offs_in(self._function), lambda source, target: self._edge(source, target).in_flight
            )
        return self._first_hand_offs.first(item.index, index)

    def settles_before_next_barrier(self, barrier: int, item: Pending) -> bool:
        """Whether the CTA barrier at ``barrier`` hands ``item`` over to nobody: on every path
        from it the thread waits for accesses of ``item``'s kind, then passes another CTA
        barrier, before anything touches tensor memory in conflict, frees it or hands over."""
        key = (barrier, item.kind)
        known = self._settles.get(key)
        if known is None:
            known = self._settles[key] = settles_before_next_barrier(
                self._cfg, self._function, self._analysis.summaries, barrier, item.kind
            )
        return known

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
        everything = analysis.changing_instructions()  # deallocations among them
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
            return "dealloc" in (called_operations(instruction, self._analysis.summaries) or frozenset())
        return operation(instruction.opcode.base, instruction.opcode.modifiers) == "dealloc"

    def allocation_witness(self, leak: ExitLeak) -> list[BranchStep]:
        """The branches of a feasible path from the allocation to the end that holds it (none
        when the allocation is in the block that ends)."""
        graph = self._cfg
        if graph.block_of(leak.allocation) == leak.block:
            return []
        path = witness_path(graph, lambda source, target: leak.allocation in self._edge(source, target).allocations, leak.allocation, leak.block)
        return branch_steps(graph, self._analysis.branches, path)

    # -- internals

    def _edge(self, source: int, target: int) -> _EdgeFacts:
        """What flows along ``source → target`` (the solver's exit state of ``source`` refined
        by the edge), once per edge."""
        key = (source, target)
        known = self._edges.get(key)
        if known is not None:
            return known
        state = self._solution.block_exit.get(source)
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


def _solve(context: ModuleContext, function: Function, keep_every_fact: bool = False) -> tuple[_TensorMemoryState, Solution[PathState[Payload]]]:
    """The path analysis of ``function`` and its fixed point (``keep_every_fact``: see
    :class:`~ptxlint.analyses.path_sensitive.PathSensitiveAnalysis`; tests compare the two)."""
    scan = context.result("tcgen05_scan")
    analysis = _TensorMemoryState(
        context.result("warp_branches", function),
        function,
        scan.callee_operations,
        scan.instructions(function),
        keep_every_fact,
    )
    return analysis, solve_forward(analysis.branches.values.cfg, analysis)


def _run(context: ModuleContext, function: Function) -> TensorMemoryFacts:
    return TensorMemoryFacts(*_solve(context, function))


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
        "tcgen05_pending",
        "the `tcgen05.ld`/`st` a thread has not waited for and the allocations it has not freed, per path",
        _run,
        per_function=True,
        requires=("warp_branches", "tcgen05_scan"),
        printer=_describe_pending,
    ),
)
