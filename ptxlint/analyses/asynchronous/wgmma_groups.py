"""The `wgmma` state of a warpgroup's thread along its paths: which `wgmma.mma_async` it issued
and has not yet waited for, whether they were committed, and which of their registers other
instructions touched since the last `wgmma.fence`.

PTX ISA §9.7.15 (wgmma.mma_async, wgmma.fence, wgmma.commit_group, wgmma.wait_group):

- `wgmma.commit_group` batches every `wgmma.mma_async` issued and not yet committed into a new
  wgmma-group (an empty one when there are none);
- `wgmma.wait_group N` waits until at most the N most recent groups are pending: every older
  group is complete, the uncommitted operations are not waited for at all;
- accessing the accumulator (`d`) or the A-fragment registers of a `wgmma.mma_async` before a
  wait that retires its group is undefined;
- `wgmma.fence` must come before the first `wgmma.mma_async`, and between any access to a
  register and a `wgmma.mma_async` using it as accumulator or A fragment, except accumulator
  accesses by `wgmma.mma_async` of the same shape (chained MMAs are ordered by the hardware).

All of it is one :class:`Payload` of a
:class:`~ptxlint.analyses.path_sensitive.PathSensitiveAnalysis`, so branches on the same
condition are correlated and findings come with witness paths. Registers are tracked by *slot*:
the operand vectors (`d`, register A) of the function's `wgmma.mma_async`; an access to any of
their registers marks the slots holding it. Registers are the `registers` pass's scoped keys (a
name an inline-asm block declares is that block's own register); the facts name them as written.

Calls: a callee whose body is in the module and holds no `wgmma` and no call changes nothing;
any other may do anything, so it is assumed to fence and to wait for everything (no finding
beats a guess). A `.func` is entered fenced, with nothing in flight: its caller's business.

The pass's result, :class:`WgmmaFacts`, answers the rules' questions (what is in flight before an
instruction, what was touched since the last fence, what is uncommitted at a wait, witness paths)
as facts; the solver and its states stay in here. Functions without `wgmma.mma_async` are not
analysed at all.
"""

from __future__ import annotations

from collections import deque
from typing import Callable, Iterable, NamedTuple, Sequence

from ptxlint.analyses.path_sensitive import PathSensitiveAnalysis, PathState, Screen, join_groups
from ptxlint.analyses.path_witness import BranchStep, branch_steps, witness_path
from ptxlint.analyses.registers import register_of_key
from ptxlint.analyses.threads.branch_sides import BranchTable
from ptxlint.analyses.asynchronous.wgmma_operands import (
    accumulator_registers,
    fragment_registers,
    has_wgmma,
    quiet_callee,
    shape_of,
    wait_count,
    wgmma_operation,
)
from ptxlint.context import ModuleContext
from ptxlint.dataflow import Solution, StatesBefore, solve_forward
from ptxlint.ir import Function, Instruction, Module
from ptxlint.passes import Describe, Pass

# Committed groups kept apart; older ones merge (a merged group retires later: more in flight,
# never less). A loop that commits without ever waiting is the only way to get there.
MAX_GROUPS = 8


class Payload(NamedTuple):
    """What one path class tracks."""

    uncommitted: frozenset[int]  # `wgmma.mma_async` issued since the last commit
    groups: tuple[frozenset[int], ...]  # committed groups not known complete, oldest first (frozensets of indices)
    touched: frozenset[int]  # slots some other instruction accessed since the last `wgmma.fence`
    unfenced: bool  # no `wgmma.fence` (and no `wgmma.mma_async`) yet on this path

    def in_flight(self) -> frozenset[int]:
        return self.uncommitted.union(*self.groups) if self.groups else self.uncommitted


_DONE = Payload(frozenset(), (), frozenset(), False)


class _WgmmaPayloads:
    """The MMAs of a function, their register slots, and how instructions change a
    :class:`Payload` (a :class:`~ptxlint.analyses.path_sensitive.PathPayloads`)."""

    def __init__(self, branches: BranchTable, function: Function, module: Module) -> None:
        self.function = function
        instructions = function.instructions
        registers = branches.registers
        self.mmas: dict[int, Instruction] = {}
        self.operations: dict[int, str] = {}
        for index, instruction in enumerate(instructions):
            operation = wgmma_operation(instruction)
            if operation is not None:
                self.operations[index] = operation
                if operation == "mma_async":
                    self.mmas[index] = instruction
            elif instruction.opcode.base == "call" and not quiet_callee(module, instruction):
                self.operations[index] = "call"
        # Slots: the distinct operand vectors (d, register A) of the MMAs, and which hold a register.
        slot_ids: dict[frozenset[str], int] = {}
        self.accumulator_slot: dict[int, int] = {}
        self.fragment_slot: dict[int, int] = {}
        self.registers: dict[int, frozenset[str]] = {}  # MMA → its d and A registers (keys)
        self.accumulators: dict[int, frozenset[str]] = {}
        self.fragments: dict[int, frozenset[str]] = {}
        self.shapes: dict[int, str | None] = {}
        for index, instruction in self.mmas.items():
            key, scope = registers.key, instruction.scope
            accumulators = self.accumulators[index] = frozenset(key(name, scope) for name in accumulator_registers(instruction))
            fragments = self.fragments[index] = frozenset(key(name, scope) for name in fragment_registers(instruction))
            self.shapes[index] = shape_of(instruction)
            self.registers[index] = accumulators | fragments
            self.accumulator_slot[index] = slot_ids.setdefault(accumulators, len(slot_ids))
            if fragments:
                self.fragment_slot[index] = slot_ids.setdefault(fragments, len(slot_ids))
        self.slot_registers = {slot: keys for keys, slot in slot_ids.items()}
        self.slots_of: dict[str, frozenset[int]] = {}
        for keys, slot in slot_ids.items():
            for register in keys:
                self.slots_of[register] = self.slots_of.get(register, frozenset()) | {slot}
        # The other instructions that access an MMA register, and the slots each touches.
        touching: dict[int, set[int]] = {}
        for register, slots in self.slots_of.items():
            for index in (*registers.readers.get(register, ()), *registers.writers.get(register, ())):
                if index not in self.mmas:
                    touching.setdefault(index, set()).update(slots)
        self.touches = {index: frozenset(slots) for index, slots in touching.items()}
        self.def_use = registers  # the register model: which instructions read and write each key
        self.kernel = function.is_kernel
        self.branches = branches

    # -- PathPayloads

    def initial_payload(self) -> Payload:
        return Payload(frozenset(), (), frozenset(), self.kernel)

    def changing_instructions(self) -> frozenset[int]:
        return frozenset(self.operations)

    def observing_instructions(self) -> frozenset[int]:
        return frozenset(self.touches)

    def meeting_instructions(self) -> frozenset[int]:
        return frozenset()

    def meet(self, payloads: Sequence[Payload]) -> Sequence[Payload] | None:
        return None

    def observe(self, index: int, instruction: Instruction, payload: Payload) -> Payload:
        """An access to an MMA register marks its slots as touched since the last fence."""
        slots = self.touches[index]
        if slots <= payload.touched:
            return payload
        return payload._replace(touched=payload.touched | slots)

    def step(self, index: int, instruction: Instruction, payload: Payload) -> Payload:
        operation = self.operations[index]
        if operation == "mma_async":
            # Its own slots are ordered from here on (one finding per unfenced access).
            slots = {self.accumulator_slot[index], self.fragment_slot.get(index, -1)}
            return Payload(payload.uncommitted | {index}, payload.groups, payload.touched - slots, False)
        if operation == "fence":
            return Payload(payload.uncommitted, payload.groups, frozenset(), False)
        if operation == "commit_group":
            groups = payload.groups + (payload.uncommitted,)
            if len(groups) > MAX_GROUPS:
                groups = (groups[0] | groups[1], *groups[2:])
            return Payload(frozenset(), groups, payload.touched, payload.unfenced)
        if operation == "wait_group":
            pending = wait_count(instruction)
            if pending is None:
                return payload
            groups = payload.groups[len(payload.groups) - pending :] if pending < len(payload.groups) else payload.groups
            return Payload(payload.uncommitted, groups, payload.touched, payload.unfenced)
        if operation == "call":
            return _DONE
        return payload

    def collapse(self, payloads: Iterable[Payload]) -> Payload:
        payloads = list(payloads)
        in_flight = frozenset().union(*(payload.in_flight() for payload in payloads))
        return Payload(
            frozenset().union(*(payload.uncommitted for payload in payloads)),
            (in_flight,) * MAX_GROUPS,
            frozenset().union(*(payload.touched for payload in payloads)),
            any(payload.unfenced for payload in payloads),
        )

    def covers(self, summary: Payload, payload: Payload) -> bool:
        return (
            payload.uncommitted <= summary.uncommitted
            and payload.in_flight() <= summary.in_flight()
            and payload.touched <= summary.touched
            and (summary.unfenced or not payload.unfenced)
        )


# ----------------------------------------------------------------------------- the result


class InFlight(NamedTuple):
    """A `wgmma.mma_async` not yet waited for, as the rules see it."""

    mma: int  # the `wgmma.mma_async`
    committed: bool  # committed on every path class it is in flight in
    registers: tuple[str, ...]  # its registers the instruction asked about accesses, by name


class UnfencedAccess(NamedTuple):
    """Why a `wgmma.mma_async` is not fenced from earlier register accesses."""

    registers: tuple[str, ...]  # its d / A registers some instruction touched since the last fence, by name
    access: int | None  # one such instruction on a path without a fence (None: not found)
    no_fence_yet: bool  # some path from the kernel's start has no `wgmma.fence` before it


class WgmmaFacts:
    """The `wgmma_groups` pass on one function, as answers."""

    def __init__(self, payloads: _WgmmaPayloads, paths: PathSensitiveAnalysis[Payload], solution: Solution[PathState[Payload]]) -> None:
        self._payloads = payloads
        self._paths = paths
        self._solution = solution
        self._state_before = StatesBefore(solution, paths)
        self._in_flight: dict[Payload, tuple[frozenset[int], frozenset[int]]] = {}
        self._block_in_flight: dict[int, bool] = {}

    def mmas(self) -> list[int]:
        """The `wgmma.mma_async` of the function, in order."""
        return sorted(self._payloads.mmas)

    def waits(self) -> list[int]:
        """The `wgmma.wait_group` of the function, in order."""
        return sorted(index for index, operation in self._payloads.operations.items() if operation == "wait_group")

    def accessors(self) -> list[int]:
        """The instructions other than `wgmma.mma_async` that read or write an MMA's registers."""
        return sorted(self._payloads.touches)

    def _classes(self, index: int) -> PathState[Payload]:
        payloads = self._payloads
        state = self._state_before(index)
        if not state:
            return frozenset()
        return self._paths.assume_guard(index, payloads.function.instructions[index], state)

    def conflicting_in_flight(self, index: int) -> list[InFlight]:
        """The `wgmma.mma_async` that may be in flight before instruction ``index`` and whose
        accumulator or A registers it reads or writes. A `wgmma.mma_async` of the same shape
        using them as its own accumulator is the chaining the ISA allows, and two MMAs reading
        one A fragment only read it: neither is a conflict."""
        payloads = self._payloads
        if index not in payloads.mmas and index not in payloads.touches:
            return []
        if not self._may_be_in_flight(payloads.branches.cfg.block_of(index)):
            return []
        shape = payloads.shapes.get(index)
        if index in payloads.mmas:
            mine, chained = payloads.fragments[index], payloads.accumulators[index]
        else:
            mine = frozenset((*payloads.def_use.reads(index), *payloads.def_use.writes(index)))
            chained = frozenset()
        uncommitted: set[int] = set()
        committed: set[int] = set()
        for payload, _ in self._classes(index):
            mine_uncommitted, mine_committed = self._in_flight_of(payload)
            uncommitted |= mine_uncommitted
            committed |= mine_committed
        found = []
        for mma in sorted(uncommitted | committed):
            if index in payloads.mmas:
                # Another MMA: its A fragment against their accumulators, its accumulators against
                # their A fragment, and accumulators against accumulators only across shapes
                # (chaining). Two MMAs reading one A fragment only read it.
                theirs = payloads.accumulators[mma]
                clash = (mine & theirs) | (chained & payloads.fragments[mma])
                if payloads.shapes[mma] != shape:
                    clash |= chained & theirs
            else:
                clash = mine & payloads.registers[mma]
            if clash:
                found.append(InFlight(mma, mma not in uncommitted, _names(clash)))
        return found

    def _in_flight_of(self, payload: Payload) -> tuple[frozenset[int], frozenset[int]]:
        """A payload's uncommitted and committed MMAs, once per payload (the accessors of a
        block see few distinct ones)."""
        known = self._in_flight.get(payload)
        if known is None:
            known = self._in_flight[payload] = (payload.uncommitted, frozenset().union(*payload.groups))
        return known

    def _may_be_in_flight(self, block: int) -> bool:
        """Cheap filter: a reachable block entered with an MMA in flight, or issuing one."""
        known = self._block_in_flight.get(block)
        if known is None:
            entry = self._solution.block_entry.get(block)
            payloads = self._payloads
            known = entry is not None and (
                any(payload.uncommitted or payload.groups for payload, _ in entry)
                or any(index in payloads.mmas for index in payloads.branches.cfg.blocks[block].instruction_indices)
            )
            self._block_in_flight[block] = known
        return known

    def uncommitted_before(self, index: int) -> list[int]:
        """The `wgmma.mma_async` some feasible path reaches instruction ``index`` with, issued and
        not committed."""
        found: set[int] = set()
        for payload, _ in self._classes(index):
            found |= payload.uncommitted
        return sorted(found)

    def unfenced_access(self, index: int) -> UnfencedAccess | None:
        """For the `wgmma.mma_async` at ``index``: whether some path reaches it with its
        accumulator or A registers accessed by another instruction since the last `wgmma.fence`,
        or without any fence since the kernel's start; None when neither."""
        payloads = self._payloads
        if index not in payloads.mmas:
            return None
        slots = {payloads.accumulator_slot[index], payloads.fragment_slot.get(index, -1)}
        touched_slots: set[int] = set()
        unfenced = False
        for payload, _ in self._classes(index):
            touched_slots |= slots & payload.touched
            unfenced = unfenced or payload.unfenced
        touched = bool(touched_slots)
        if not touched and not unfenced:
            return None
        # The registers of the slots touched (its A fragment, say, when only that was written).
        registers = frozenset().union(*(payloads.slot_registers[slot] for slot in touched_slots))
        access = None
        if touched:  # a write explains the finding better than a read (`setp` of a zero)
            access = self._last_access(index, registers, writes_only=True)
            if access is None:
                access = self._last_access(index, registers, writes_only=False)
        found: tuple[str, ...] = ()
        if access is not None:
            accessed = set(payloads.def_use.reads(access)) | set(payloads.def_use.writes(access))
            found = _names(accessed & registers)
        return UnfencedAccess(found, access, unfenced)

    def _last_access(self, index: int, registers: frozenset[str], writes_only: bool) -> int | None:
        """An instruction accessing (``writes_only``: writing) ``registers`` on a path to
        ``index`` with no `wgmma.fence` (nor call) between: searched backwards from ``index``,
        nearest first."""
        payloads = self._payloads
        graph = self._solution.cfg
        operations = payloads.operations
        touches = payloads.touches
        def_use = payloads.def_use

        def accesses(position: int) -> bool:
            if position not in touches:
                return False
            accessed = def_use.writes(position) if writes_only else (*def_use.reads(position), *def_use.writes(position))
            return not registers.isdisjoint(accessed)

        def stops(position: int) -> bool:
            return operations.get(position) in ("fence", "call")

        block = graph.block_of(index)
        start = graph.blocks[block].start
        for position in range(index - 1, start - 1, -1):
            if accesses(position):
                return position
            if stops(position):
                return None
        seen = {block}
        queue = deque(graph.predecessors(block))
        while queue:
            block = queue.popleft()
            if block in seen or block == graph.exit or block not in self._solution.block_entry:
                continue
            seen.add(block)
            indices = graph.blocks[block].instruction_indices
            stopped = False
            for position in reversed(indices):
                if accesses(position):
                    return position
                if stops(position):
                    stopped = True
                    break
            if not stopped:
                queue.extend(graph.predecessors(block))
        return None

    def same_fence_region(self, first: int, second: int) -> bool:
        """Whether instructions ``first`` < ``second`` are in one block with no `wgmma.fence`
        (nor call) between them: what one missing fence leaves unfenced."""
        payloads = self._payloads
        graph = self._solution.cfg
        if first >= second or graph.block_of(first) != graph.block_of(second):
            return False
        return not any(payloads.operations.get(position) in ("fence", "call") for position in range(first + 1, second))

    def in_flight_witness(self, mma: int, index: int) -> list[BranchStep]:
        """The branches of a feasible path on which ``mma`` is still in flight at ``index``."""
        return self._witness(mma, index, lambda payload: mma in payload.in_flight())

    def uncommitted_witness(self, mma: int, index: int) -> list[BranchStep]:
        """The branches of a feasible path on which ``mma`` is still uncommitted at ``index``."""
        return self._witness(mma, index, lambda payload: mma in payload.uncommitted)

    def _witness(self, origin: int, index: int, holds: Callable[[Payload], bool]) -> list[BranchStep]:
        graph = self._solution.cfg
        if graph.block_of(origin) == graph.block_of(index) and origin < index:
            return []
        payloads = self._payloads

        def carries(source: int, target: int) -> bool:
            state = self._solution.block_exit.get(source)
            if not state:
                return False
            return any(holds(payload) for payload, _ in self._paths.refine(source, target, state))

        path = witness_path(graph, carries, origin, graph.block_of(index))
        return branch_steps(graph, payloads.branches, path)

    def has_hazard(self) -> bool:
        """Whether any question the rule asks has an answer (what the screen asks of itself)."""
        return (
            any(self.uncommitted_before(wait) for wait in self.waits())
            or any(self.unfenced_access(mma) is not None for mma in self.mmas())
            or any(self.conflicting_in_flight(index) for index in sorted(set(self.accessors()) | set(self.mmas())))
        )

    # -- for the printer

    def describe_before(self, index: int) -> str:
        payloads = self._payloads
        if self._solution.cfg.block_of(index) not in self._solution.block_entry:
            return "unreachable"
        state = self._state_before(index) or frozenset()
        lines = payloads.function.instructions
        uncommitted = sorted({mma for payload, _ in state for mma in payload.uncommitted})
        committed = sorted({mma for payload, _ in state for group in payload.groups for mma in group})
        parts = []
        if uncommitted:
            parts.append("uncommitted " + " ".join(f"@{lines[mma].span.line}" for mma in uncommitted))
        if committed:
            parts.append("committed " + " ".join(f"@{lines[mma].span.line}" for mma in committed))
        if any(payload.touched for payload, _ in state):
            parts.append("touched")
        if any(payload.unfenced for payload, _ in state):
            parts.append("unfenced")
        return " ".join(parts) or "-"


def _join_payloads(first: Payload, second: Payload) -> Payload:
    """Sets united, groups joined from the newest back, unfenced on either side."""
    return Payload(
        first.uncommitted | second.uncommitted, join_groups(first.groups, second.groups),
        first.touched | second.touched, first.unfenced or second.unfenced,
    )


class _ScreenFacts(WgmmaFacts):
    """The questions asked of the screen's solution: one joined payload per point, no
    witnesses (a function with a hazard gets the path-sensitive facts instead)."""

    def __init__(self, payloads: _WgmmaPayloads, screen: Screen[Payload], solution: Solution[Payload | None]) -> None:
        self._payloads = payloads
        self._solution = solution  # type: ignore[assignment]  # a screen's: one payload per block, not path classes
        self._screen_states = StatesBefore(solution, screen)
        self._in_flight = {}
        self._block_in_flight = {}
        self.clean = False  # set once has_hazard() found nothing: every question's answer is none

    def uncommitted_before(self, index: int) -> list[int]:
        return [] if self.clean else super().uncommitted_before(index)

    def unfenced_access(self, index: int) -> UnfencedAccess | None:
        return None if self.clean else super().unfenced_access(index)

    def conflicting_in_flight(self, index: int) -> list[InFlight]:
        return [] if self.clean else super().conflicting_in_flight(index)

    def _classes(self, index: int) -> PathState[Payload]:
        state = self._screen_states(index)
        return frozenset({(state, None)}) if state is not None else frozenset()  # type: ignore[arg-type]  # no context

    def _may_be_in_flight(self, block: int) -> bool:
        known = self._block_in_flight.get(block)
        if known is None:
            entry = self._solution.block_entry.get(block)
            payloads = self._payloads
            known = self._block_in_flight[block] = entry is not None and (
                bool(entry.uncommitted or entry.groups)  # type: ignore[attr-defined]  # a payload, see __init__
                or any(index in payloads.mmas for index in payloads.branches.cfg.blocks[block].instruction_indices)
            )
        return known

    def describe_before(self, index: int) -> str:
        if self._solution.cfg.block_of(index) not in self._solution.block_entry:
            return "unreachable"
        lines = self._payloads.function.instructions
        parts = []
        for payload, _ in self._classes(index):
            if payload.uncommitted:
                parts.append("uncommitted " + " ".join(f"@{lines[mma].span.line}" for mma in sorted(payload.uncommitted)))
            committed = sorted(mma for group in payload.groups for mma in group)
            if committed:
                parts.append("committed " + " ".join(f"@{lines[mma].span.line}" for mma in committed))
            if payload.touched:
                parts.append("touched")
            if payload.unfenced:
                parts.append("unfenced")
        return " ".join(parts) or "-"


def _names(keys: Iterable[str]) -> tuple[str, ...]:
    """The registers ``keys`` as the user wrote them, in natural order (`%f2` before `%f10`)."""
    return tuple(sorted({register_of_key(key) for key in keys}, key=_natural))


def _natural(name: str) -> tuple[str, int]:
    digits = name.rstrip("0123456789")
    return (digits, int(name[len(digits) :]) if len(digits) < len(name) else -1)


def _solve(
    context: ModuleContext, function: Function, keep_every_fact: bool = False,
) -> tuple[PathSensitiveAnalysis[Payload], Solution[PathState[Payload]]]:
    """The path analysis of ``function`` and its fixed point (``keep_every_fact``: see
    :class:`~ptxlint.analyses.path_sensitive.PathSensitiveAnalysis`; tests compare the two)."""
    branches: BranchTable = context.result("warp_branches", function)
    analysis = PathSensitiveAnalysis(branches, _WgmmaPayloads(branches, function, context.module), keep_every_fact)
    return analysis, solve_forward(branches.cfg, analysis)


def _run(context: ModuleContext, function: Function) -> WgmmaFacts | None:
    """The facts of a function issuing `wgmma.mma_async`; None for any other (not analysed)."""
    if not has_wgmma(function):
        return None
    branches: BranchTable = context.result("warp_branches", function)
    payloads = _WgmmaPayloads(branches, function, context.module)
    graph = branches.cfg
    screen = Screen(graph, payloads, _join_payloads)
    screened = _ScreenFacts(payloads, screen, solve_forward(graph, screen))
    if not screened.has_hazard():
        screened.clean = True
        return screened
    # The path machinery (liveness of conditions, visit lists) is set up only for a function
    # the screen finds a hazard in.
    analysis = PathSensitiveAnalysis(branches, payloads)
    return WgmmaFacts(payloads, analysis, solve_forward(graph, analysis))


def _describe(facts: WgmmaFacts | None, function: Function) -> Describe | None:
    """Before each instruction: the MMAs not committed and committed but not waited for, by the
    line that issued them, and whether MMA registers were touched since the last fence
    (``uncommitted @12 committed @9 touched``)."""
    if facts is None:
        return None
    return lambda index, instruction: facts.describe_before(index)


PASSES = (
    Pass(
        "wgmma_groups",
        "the `wgmma.mma_async` a warpgroup has not committed or waited for, and the MMA registers touched since the last `wgmma.fence`, per path",
        _run,
        per_function=True,
        requires=("warp_branches",),
        printer=_describe,
    ),
)
