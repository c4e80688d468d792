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
"""

from __future__ import annotations

from typing import Iterable, NamedTuple

from ptxlint.analyses.path_sensitive import PathSensitiveAnalysis, PathState
from ptxlint.analyses.roles import BranchTable
from ptxlint.analyses.tcgen05_scan import called_operations
from ptxlint.context import ModuleContext
from ptxlint.dataflow import Solution, StatesBefore, solve_forward
from ptxlint.diagnostics import Label
from ptxlint.ir import Address, Function, Instruction, registers_in
from ptxlint.isa.tcgen05 import WAIT_LD, WAIT_ST, operation
from ptxlint.passes import Describe, Pass


# ----------------------------------------------------------------------------- pending ld/st


class Pending(NamedTuple):
    """A pending access as the rules see it."""

    index: int  # the `tcgen05.ld`/`st` instruction
    kind: str  # "ld" or "st"
    unread: frozenset[str]  # destination registers of a load not read since it was issued

    @property
    def values_consumed(self) -> bool:
        return self.kind == "ld" and not self.unread


class Payload(NamedTuple):
    """What one path class tracks. A load's unread registers are kept as (load, register) pairs
    in one set, so that a read consumes them with one set difference whatever the number of
    pending loads; two payloads are equal exactly when their :attr:`pending` views are."""

    accesses: frozenset  # (index, kind) of the `tcgen05.ld`/`st` not yet waited for
    allocations: frozenset  # indices of the `tcgen05.alloc`s (or allocating calls) not yet freed
    unread: frozenset = frozenset()  # (load index, register): destinations of pending loads not read yet

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


class TensorMemoryState(PathSensitiveAnalysis):
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
        self._loaded: dict[int, frozenset] = {}
        loads_writing: dict[str, list[int]] = {}
        for index in self._changing:
            instruction = instructions[index]
            if operation(instruction.opcode.base, instruction.opcode.modifiers) == "ld":
                registers = _loaded_registers(instruction)
                self._loaded[index] = frozenset((index, register) for register in registers)
                for register in registers:
                    loads_writing.setdefault(register, []).append(index)
        consumed: dict[int, set] = {}
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
            # Issued again (a loop): its registers are all unread again.
            unread = frozenset(pair for pair in unread if pair[0] != index).union(self._loaded[index])
        return Payload(accesses | {(index, kind)}, allocations, unread)

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


def _retire(accesses: frozenset, kind: str) -> frozenset:
    """``accesses`` without those of ``kind``, which a wait retires."""
    return frozenset(access for access in accesses if access[1] != kind)


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


def function_state(context: ModuleContext, function: Function, keep_every_fact: bool = False) -> FunctionState:
    scan = context.result("tcgen05_scan")
    analysis = TensorMemoryState(
        context.result("warp_branches", function),
        function,
        scan.callee_operations,
        scan.instructions(function),
        keep_every_fact,
    )
    return FunctionState(analysis, solve_forward(analysis.branches.values.cfg, analysis))


def _loaded_registers(instruction: Instruction) -> frozenset[str]:
    """Every register a `tcgen05.ld` writes: all operands before the TMEM address (the vector,
    and `redval` of `tcgen05.ld.red`, which lowering counts as a source)."""
    names: set[str] = set()
    for operand in instruction.operands:
        if type(operand) is Address:
            break
        names.update(register.name for register in registers_in(operand))
    return frozenset(names)


def may_have_pending(pending: FunctionState, block: int) -> bool:
    """Cheap filter: a reachable block entered with an access in flight, or issuing one."""
    entry = pending.solution.block_entry.get(block)
    if entry is None:
        return False
    if any(payload.accesses for payload, _ in entry):
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


def _describe_pending(pending: FunctionState, function: Function) -> Describe:
    """Before each instruction, over every path class: the accesses not yet waited for and the
    allocations not yet freed, by the line that issued them (``pending ld@36 allocated @21``)."""
    instructions = function.instructions

    def describe(index: int, instruction: Instruction) -> str:
        if pending.solution.cfg.block_of(index) not in pending.solution.block_entry:
            return "unreachable"
        state = pending.state_before(index)
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
        function_state,
        per_function=True,
        requires=("warp_branches", "tcgen05_scan"),
        printer=_describe_pending,
    ),
)
