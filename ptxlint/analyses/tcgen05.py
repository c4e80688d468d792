"""The tcgen05 state of a thread along its paths: which `tcgen05.ld`/`st` it issued and has not
yet waited for, and which tensor-memory allocations it has not yet freed.

Both are :class:`~ptxlint.analyses.tcgen05_paths.PathSensitiveAnalysis` payloads:

- :class:`PendingAccesses` — a set of :class:`Pending` accesses. `tcgen05.ld` and `tcgen05.st`
  add one; `tcgen05.wait::ld` (`::st`) retires every pending load (store). Each pending load also
  remembers which of its destination registers have not been read yet: once all have been, the
  load has necessarily completed (its values cannot exist before it does), which is all a
  hand-off needs — though not a later MMA overwriting the same TMEM, which the ISA says still
  needs the wait.
- :class:`Allocations` — the set of `tcgen05.alloc`s not followed by a `tcgen05.dealloc`.

Calls: a callee that (transitively) waits or deallocates does so for its caller; a callee whose
body is not in the module may do anything, so it retires everything (no finding beats a guess).
"""

from __future__ import annotations

from typing import Iterable, NamedTuple

from ptxlint.analyses.roles import BranchTable, branch_table
from ptxlint.analyses.tcgen05_paths import PathSensitiveAnalysis, PathState
from ptxlint.analyses.values import StatesBefore
from ptxlint.callgraph import CallGraph, callee_name
from ptxlint.context import ModuleContext
from ptxlint.dataflow import Solution, solve_forward
from ptxlint.diagnostics import Label
from ptxlint.ir import Address, Function, Instruction, registers_in
from ptxlint.isa.tcgen05 import WAIT_LD, WAIT_ST, operation


def tcgen05_operations(function: Function) -> frozenset[str]:
    """The tcgen05 operations a function's own body uses (`ld`, `mma`, `wait::ld`, …)."""
    return frozenset(
        instruction.opcode.modifiers[0]
        for instruction in function.instructions
        if instruction.opcode.base == "tcgen05" and instruction.opcode.modifiers
    )


def callee_operations(context: ModuleContext) -> dict[str, frozenset[str]]:
    """For each function with a body: the tcgen05 operations it or anything it calls uses."""

    def compute() -> dict[str, frozenset[str]]:
        calls = context.cached(CallGraph, lambda: CallGraph(context.module))
        own = {name: tcgen05_operations(function) for name, function in calls.functions.items()}
        return calls.transitive(own, lambda values: frozenset().union(*values))

    return context.cached(("tcgen05", "callee_operations"), compute)


def called_operations(instruction: Instruction, summaries: dict[str, frozenset[str]]) -> frozenset[str] | None:
    """What a `call` does in tcgen05 terms, or None when the callee's body is unknown."""
    name = callee_name(instruction)
    return summaries.get(name) if name is not None else None


# ----------------------------------------------------------------------------- pending ld/st


class Pending(NamedTuple):
    index: int  # the `tcgen05.ld`/`st` instruction
    kind: str  # "ld" or "st"
    unread: frozenset[str]  # destination registers of a load not read since it was issued

    @property
    def values_consumed(self) -> bool:
        return self.kind == "ld" and not self.unread


class Payload(NamedTuple):
    """What one path class tracks."""

    pending: frozenset  # of Pending
    allocations: frozenset  # indices of the `tcgen05.alloc`s (or allocating calls) not yet freed
    unread: frozenset = frozenset()  # destination registers of pending loads not read yet


def _payload(pending: frozenset, allocations: frozenset) -> Payload:
    return Payload(pending, allocations, frozenset().union(*(item.unread for item in pending)))


_NOTHING = Payload(frozenset(), frozenset())

# Operations that change a payload (besides calls).
_TRACKED = frozenset({"ld", "st", WAIT_LD, WAIT_ST, "alloc", "dealloc"})


class TensorMemoryState(PathSensitiveAnalysis):
    """Pending accesses and live allocations of a thread, per path class."""

    def __init__(self, branches: BranchTable, function: Function, summaries: dict[str, frozenset[str]]) -> None:
        self.function = function
        self.summaries = summaries
        # Only registers some `tcgen05.ld` writes can be a pending load's unread registers: the
        # reads of any other register observe nothing.
        loaded: set[str] = set()
        for instruction in function.instructions:
            if operation(instruction.opcode.base, instruction.opcode.modifiers) == "ld":
                loaded |= _loaded_registers(instruction)
        nothing: frozenset[str] = frozenset()
        self._reads = [
            nothing if loaded.isdisjoint(read) else frozenset(read).intersection(loaded)
            for read in branches.values.names.reads
        ]
        super().__init__(branches)

    def initial_payload(self) -> Payload:
        return _NOTHING

    def affects(self, index: int, instruction: Instruction) -> bool:
        opcode = instruction.opcode
        return opcode.base == "call" or operation(opcode.base, opcode.modifiers) in _TRACKED

    def observes(self, index: int, instruction: Instruction) -> bool:
        return bool(self._reads[index])

    def observing(self, payload: Payload) -> bool:
        return bool(payload.unread)

    def observe(self, index: int, instruction: Instruction, payload: Payload) -> Payload:
        """Reading a pending load's destination registers consumes them."""
        read = self._reads[index]
        if read.isdisjoint(payload.unread):
            return payload
        pending = frozenset(
            item if item.unread.isdisjoint(read) else Pending(item.index, item.kind, item.unread - read)
            for item in payload.pending
        )
        return Payload(pending, payload.allocations, payload.unread - read)

    def step(self, index: int, instruction: Instruction, payload: Payload) -> Payload:
        opcode = instruction.opcode
        if opcode.base == "call":
            return self._call(index, instruction, payload)
        kind = operation(opcode.base, opcode.modifiers)
        pending, allocations, _ = payload
        if kind == "alloc":
            return payload._replace(allocations=allocations | {index})
        if kind == "dealloc":
            return payload._replace(allocations=frozenset())
        if kind == WAIT_LD or kind == WAIT_ST:
            retired = "ld" if kind == WAIT_LD else "st"
            return _payload(frozenset(item for item in pending if item.kind != retired), allocations)
        issued = Pending(index, kind, _loaded_registers(instruction) if kind == "ld" else frozenset())
        return _payload(frozenset(item for item in pending if item.index != index) | {issued}, allocations)

    def collapse(self, payloads: Iterable[Payload]) -> Payload:
        payloads = list(payloads)
        return _payload(
            frozenset().union(*(payload.pending for payload in payloads)),
            frozenset().union(*(payload.allocations for payload in payloads)),
        )

    def _call(self, index: int, instruction: Instruction, payload: Payload) -> Payload:
        """A callee with no body in the module may wait and deallocate: assume it does."""
        operations = called_operations(instruction, self.summaries)
        if operations is None:
            return _NOTHING
        retired = {kind for kind, wait in (("ld", WAIT_LD), ("st", WAIT_ST)) if wait in operations}
        pending = frozenset(item for item in payload.pending if item.kind not in retired)
        allocations = payload.allocations
        if "dealloc" in operations:
            allocations = frozenset()
        elif "alloc" in operations:
            allocations = allocations | {index}
        return _payload(pending, allocations)


def pending_items(state: PathState) -> dict[Pending, int]:
    """Every pending access in some path class, with the warps of the classes it is in."""
    found: dict[Pending, int] = {}
    for payload, context in state:
        for item in payload.pending:
            found[item] = found.get(item, 0) | context.warps
    return found


def live_allocations(state: PathState) -> frozenset[int]:
    """Every allocation some path class still holds."""
    return frozenset().union(*(payload.allocations for payload, _ in state))


class FunctionState:
    """The solved analysis of one function; ``state_before(index)`` is the path state before
    any instruction."""

    def __init__(self, analysis: TensorMemoryState, solution: Solution[PathState]) -> None:
        self.analysis = analysis
        self.solution = solution
        self.state_before = StatesBefore(solution, analysis)


def function_state(context: ModuleContext, function: Function) -> FunctionState:
    analysis = TensorMemoryState(context.function_analysis(function, branch_table), function, callee_operations(context))
    return FunctionState(analysis, solve_forward(analysis.branches.values.cfg, analysis))


def issues_tmem_accesses(function: Function) -> bool:
    """The cheap test that lets functions without `tcgen05.ld`/`st` skip the analyses."""
    operations = tcgen05_operations(function)
    return "ld" in operations or "st" in operations


def _loaded_registers(instruction: Instruction) -> frozenset[str]:
    """Every register a `tcgen05.ld` writes: all operands before the TMEM address (the vector,
    and `redval` of `tcgen05.ld.red`, which lowering counts as a source)."""
    names: set[str] = set()
    for operand in instruction.operands:
        if type(operand) is Address:
            break
        names.update(register.name for register in registers_in(operand))
    return frozenset(names)


def works_on_allocated_tmem(context: ModuleContext, function: Function) -> bool:
    """Whether ``function`` can run with tensor memory allocated: a kernel that allocates (itself
    or through a call), or a `.func` in a module where something allocates. TMEM accesses
    anywhere else are undefined whatever their order, so ordering findings there would be noise
    (instruction-list tests, fragments)."""
    summaries = callee_operations(context)
    if function.is_kernel:
        return "alloc" in summaries.get(function.name, frozenset())
    return any("alloc" in operations for operations in summaries.values())


def may_have_pending(pending: FunctionState, block: int) -> bool:
    """Cheap filter: a reachable block entered with an access in flight, or issuing one."""
    entry = pending.solution.block_entry.get(block)
    if entry is None:
        return False
    if any(payload.pending for payload, _ in entry):
        return True
    instructions = pending.analysis.function.instructions
    return any(
        operation(instructions[index].opcode.base, instructions[index].opcode.modifiers) in ("ld", "st")
        for index in pending.solution.cfg.blocks[block].instruction_indices
    )


def waiting_instruction(kind: str) -> str:
    """The wait that retires a pending access of ``kind`` (`ld` or `st`)."""
    return "tcgen05.wait::ld" if kind == "ld" else "tcgen05.wait::st"


def pending_labels(function: Function, items: Iterable[Pending], text: str) -> list[Label]:
    """One label per pending access: "`tcgen05.ld` <text>" on the instruction that issued it."""
    return [Label(function.instructions[item.index].span, f"`tcgen05.{item.kind}` {text}") for item in items]
