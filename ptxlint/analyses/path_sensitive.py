"""Path-sensitive forward analyses: the state is a small set of *path classes*, each a payload
(what the rule tracks: pending loads, live allocations) with a
:class:`~ptxlint.analyses.threads.path_contexts.PathContext` — what the branches taken so far say: the
outcome of conditions on registers not written since, and the warps still possible.

Two paths with the same payload merge into one class whose context keeps only what both know, so
the number of classes is bounded by the number of distinct payloads. A branch whose condition
contradicts a class's context (the second `if (warp == 0)` after the first one failed) removes
that class from the edge: such a path is infeasible. How conditions are read and compared is
:mod:`ptxlint.analyses.threads.conditions`; the paths shown to the user are
:mod:`ptxlint.analyses.path_witness`.
"""

from __future__ import annotations

import weakref

from typing import Callable, Generic, Hashable, Iterable, Protocol, Sequence, TypeVar

from ptxlint.analyses.threads.path_contexts import PathContext
from ptxlint.analyses.registers import live_in
from ptxlint.analyses.threads.branch_sides import Branch, BranchTable, all_warps
from ptxlint.dataflow import indices_by_block
from ptxlint.cfg import ControlFlowGraph
from ptxlint.ir import Guard, Instruction, Register

# More path classes than this at one point collapse into one (a safety valve, never expected).
MAX_CLASSES = 64

Payload = TypeVar("Payload", bound=Hashable)  # what a family of rules tracks per path class

PathState = frozenset[tuple[Payload, PathContext]]  # one context per payload


class PathPayloads(Protocol[Payload]):
    """What a family of rules tracks on each path, and how instructions change it: the object
    a :class:`PathSensitiveAnalysis` (and a :class:`Screen`) holds and asks."""

    def initial_payload(self) -> Payload:
        """The payload at the function's entry."""
        ...

    def changing_instructions(self) -> frozenset[int]:
        """The indices of the instructions :meth:`step` may change a payload at."""
        ...

    def step(self, index: int, instruction: Instruction, payload: Payload) -> Payload:
        """The payload after instruction ``index`` executes."""
        ...

    def observing_instructions(self) -> frozenset[int]:
        """The indices of the instructions :meth:`observe` may change a payload at."""
        ...

    def observe(self, index: int, instruction: Instruction, payload: Payload) -> Payload:
        """How merely executing an instruction changes a payload (reads of registers); applied
        to every class, guarded or not."""
        ...

    def meeting_instructions(self) -> frozenset[int]:
        """The indices of the instructions every path class meets at (see :meth:`meet`)."""
        ...

    def meet(self, payloads: Sequence[Payload]) -> Sequence[Payload] | None:
        """The payloads of two or more path classes at a meeting instruction, each given what
        the others tell it (in the same order); None: unchanged."""
        ...

    def collapse(self, payloads: Iterable[Payload]) -> Payload:
        """One payload standing for many (used only past :data:`MAX_CLASSES`)."""
        ...

    def covers(self, summary: Payload, payload: Payload) -> bool:
        """Whether a payload made by :meth:`collapse` already stands for ``payload``."""
        ...


class PathSensitiveAnalysis(Generic[Payload]):
    """The lattice of path classes and its edge refinement, shared by the tcgen05 and
    asynchronous analyses. The :class:`PathPayloads` it holds says how an instruction changes
    a payload and which instructions do."""

    def __init__(self, branches: BranchTable, payloads: PathPayloads[Payload], keep_every_fact: bool = False) -> None:
        """``keep_every_fact``: track the conditions of every test and never drop facts that can
        no longer matter (slower, and the same result: what tests compare against)."""
        self._branches = branches
        self._payloads = payloads
        # The payload hooks, bound once: the transfer function calls them per class.
        self._step = payloads.step
        self._observe = payloads.observe
        self._meet = payloads.meet
        # The registers whose conditions the contexts track: a test of any other predicate adds
        # no fact (it could only ever meet itself), only the warps it leaves.
        conditions = branches.every_condition_register if keep_every_fact else branches.condition_registers
        self._tracked = conditions.keys
        self._defining = branches.defining(conditions)
        self._changing = payloads.changing_instructions()
        self._observing = payloads.observing_instructions()
        self._meeting = payloads.meeting_instructions()
        # Every other instruction leaves the state as it is (see :meth:`transfer`).
        visited = self._defining | self._changing | self._observing
        self._visited_by_block = indices_by_block(branches.cfg, visited)
        self._registers = registers = branches.registers
        # What each condition-defining instruction writes (the facts its writes invalidate).
        self._written = {index: registers.writes(index) for index in self._defining}
        # Which condition registers each block may still read: the facts worth keeping there.
        self._live_in = None if keep_every_fact else live_in(branches.cfg, registers, conditions.keys)
        self._summaries: set[Payload] = set()  # payloads made by collapse (see _bounded)
        # One context object per distinct context, by its facts: paths rebuild equal contexts at
        # every step, and the solution's states held a copy of each (and of its sets of facts).
        # Weak, so that the contexts no state holds any more are not kept for sharing.
        self._contexts: weakref.WeakValueDictionary[tuple[object, ...], PathContext] = weakref.WeakValueDictionary()

    # -- the lattice

    def bottom(self) -> PathState[Payload]:
        return frozenset()

    def entry(self) -> PathState[Payload]:
        return frozenset({(self._payloads.initial_payload(), PathContext(all_warps(self._branches.warp_count)))})

    def join(self, first: PathState[Payload], second: PathState[Payload]) -> PathState[Payload]:
        if not first:
            return second
        if not second or first == second:
            return first
        classes = dict(first)
        for payload, context in second:
            known = classes.get(payload)
            classes[payload] = context if known is None else known.merge(context)
        return self._bounded(classes)

    def instructions_of(self, block: int) -> Sequence[int]:
        """The instructions of ``block`` that can change a payload or a fact (see
        :func:`ptxlint.dataflow.solve_forward`)."""
        return self._visited_by_block[block]

    def transfer(self, index: int, instruction: Instruction, state: PathState[Payload]) -> PathState[Payload]:
        if not state:
            return state
        if index in self._meeting and len(state) > 1:
            state = self._met(state)
        changes = index in self._changing
        defines = index in self._defining
        if not changes and not defines:
            return self._observe_all(index, instruction, state)
        observes = index in self._observing
        written = self._written[index] if defines else ()
        classes: dict[Payload, PathContext] = {}
        changed = False
        for payload, context in state:
            new_payload = self._observe(index, instruction, payload) if observes else payload
            if changes and instruction.guard is not None:
                self._guarded_step(index, instruction, new_payload, context, defines, classes)
                changed = True
                continue
            if changes:
                new_payload = self._step(index, instruction, new_payload)
            new_context = context.after(instruction, written, self._registers) if defines else context
            changed = changed or new_payload is not payload or new_context is not context
            _add(classes, new_payload, new_context)
        return self._bounded(classes) if changed else state

    def _observe_all(self, index: int, instruction: Instruction, state: PathState[Payload]) -> PathState[Payload]:
        """The state after an instruction that only reads (it writes no condition register)."""
        observed = [(self._observe(index, instruction, payload), context) for payload, context in state]
        if all(new is old for (new, _), (old, _) in zip(observed, state)):
            return state
        classes: dict[Payload, PathContext] = {}
        for payload, context in observed:
            _add(classes, payload, context)
        return self._bounded(classes)

    def _met(self, state: PathState[Payload]) -> PathState[Payload]:
        """The classes of ``state`` after they meet (see :meth:`PathPayloads.meet`)."""
        classes = list(state)
        met = self._meet([payload for payload, _ in classes])
        if met is None:
            return state
        return frozenset(zip(met, (context for _, context in classes)))

    def refine(self, source: int, target: int, state: PathState[Payload]) -> PathState[Payload]:
        if not state:
            return state
        branch = self._branches.branch(source)
        if branch is not None:
            state = self.assume_branch(branch, target, state)
        return self._relevant(target, state)

    def _relevant(self, block: int, state: PathState[Payload]) -> PathState[Payload]:
        """``state`` with only the facts that can still matter in ``block`` and after it."""
        if self._live_in is None:
            return state
        live = self._live_in.names(block)
        trimmed = [(payload, context.relevant_to(live)) for payload, context in state]
        if all(relevant is context for (_, relevant), (_, context) in zip(trimmed, state)):
            return state
        classes: dict[Payload, PathContext] = {}
        for payload, context in trimmed:
            _add(classes, payload, context)
        return self._frozen(classes)

    def assume_branch(self, branch: Branch, target: int, state: PathState[Payload]) -> PathState[Payload]:
        return self._assume(branch.predicate, branch.outcome(target), branch.warps_to(target), state)

    def assume_guard(self, index: int, instruction: Instruction, state: PathState[Payload]) -> PathState[Payload]:
        """The classes in which a guarded instruction executes."""
        guard = instruction.guard
        if guard is None or type(guard.predicate) is not Register:
            return state
        holds = not guard.negated
        predicate = self._registers.key(guard.predicate.name, instruction.scope)
        return self._assume(predicate, holds, self._branches.guard_warps(index, instruction)[holds], state)

    def _assume(self, predicate: str, value: bool, warps: int, state: PathState[Payload]) -> PathState[Payload]:
        """The classes of ``state`` on paths where ``predicate`` (a register's key) is ``value``,
        which only ``warps`` allow."""
        classes: dict[Payload, PathContext] = {}
        changed = False
        tracked = predicate in self._tracked
        for payload, context in state:
            assumed = context.assume(predicate, value, warps) if tracked else context.within(warps)
            if assumed is not None:
                _add(classes, payload, assumed)
            changed = changed or assumed is not context
        return self._frozen(classes) if changed else state

    # -- internals

    def _guarded_step(
        self, index: int, instruction: Instruction, payload: Payload, context: PathContext, defines: bool,
        classes: dict[Payload, PathContext],
    ) -> None:
        """A guarded instruction splits a class: it executes where the guard holds."""
        written = self._written[index] if defines else ()

        def after(context: PathContext) -> PathContext:
            return context.after(instruction, written, self._registers) if defines else context

        guard: Guard = instruction.guard  # type: ignore[assignment]  # called for guarded instructions only
        if type(guard.predicate) is not Register:
            _add(classes, self._step(index, instruction, payload), after(context))
            return
        predicate = self._registers.key(guard.predicate.name, instruction.scope)
        warps = self._branches.guard_warps(index, instruction)
        if predicate in self._tracked:
            executes = context.assume(predicate, not guard.negated, warps[not guard.negated])
            skips = context.assume(predicate, guard.negated, warps[guard.negated])
        else:
            executes, skips = context.within(warps[not guard.negated]), context.within(warps[guard.negated])
        if executes is not None:
            _add(classes, self._step(index, instruction, payload), after(executes))
        if skips is not None:
            _add(classes, payload, after(skips))

    def _frozen(self, classes: dict[Payload, PathContext]) -> PathState[Payload]:
        """The state of ``classes``, each context the one kept for its facts."""
        return frozenset([
            (payload, context if context.shared else self._shared(context)) for payload, context in classes.items()
        ])

    def _shared(self, context: PathContext) -> PathContext:
        """The context kept for the facts of ``context`` (``context`` itself if none is)."""
        kept = self._contexts.setdefault((context.warps, context.outcomes, context.predicates, context.copies), context)
        kept.shared = True
        return kept

    def _bounded(self, classes: dict[Payload, PathContext]) -> PathState[Payload]:
        """At most :data:`MAX_CLASSES` path classes: past that they collapse into one summary.
        A summary then absorbs every class it stands for, so that the state at a join settles
        instead of alternating between the summary alone and the summary beside a class it
        covers (which no fixed point would end). Compiled code never gets this far."""
        if self._summaries:
            self._absorb(classes)
        if len(classes) <= MAX_CLASSES:
            return self._frozen(classes)
        contexts = list(classes.values())
        merged = contexts[0]
        for context in contexts[1:]:
            merged = merged.merge(context)
        summary = self._payloads.collapse(classes.keys())
        self._summaries.add(summary)
        return frozenset({(summary, merged)})

    def _absorb(self, classes: dict[Payload, PathContext]) -> None:
        """Merge into each summary among ``classes`` the other classes it covers."""
        for summary in [payload for payload in classes if payload in self._summaries]:
            if summary not in classes:
                continue
            for payload in [payload for payload in classes if payload != summary and self._payloads.covers(summary, payload)]:
                classes[summary] = classes[summary].merge(classes.pop(payload))


def _add(classes: dict[Payload, PathContext], payload: Payload, context: PathContext) -> None:
    known = classes.get(payload)
    classes[payload] = context if known is None else known.merge(context)


class Screen(Generic[Payload]):
    """A :class:`PathPayloads`'s payload joined over every path into one, on the plain solver:
    no branch conditions, a guarded instruction may or may not execute. It over-approximates
    every path class, so a question it finds no answer to has none on any feasible path: the
    async-proxy passes run it first and pay for path classes only where it finds something.

    It steps and observes payloads as :meth:`PathSensitiveAnalysis.transfer` does (observation
    first); ``join_payloads`` must over-approximate both of its arguments."""

    def __init__(
        self,
        graph: ControlFlowGraph,
        payloads: PathPayloads[Payload],
        join_payloads: Callable[[Payload, Payload], Payload],
    ) -> None:
        self._entry = payloads.initial_payload()
        self._changing = payloads.changing_instructions()
        self._observing = payloads.observing_instructions()
        self._step = payloads.step
        self._observe = payloads.observe
        self._join_payloads = join_payloads
        self._by_block = indices_by_block(graph, self._changing | self._observing)

    def bottom(self) -> Payload | None:
        return None

    def entry(self) -> Payload | None:
        return self._entry

    def join(self, first: Payload | None, second: Payload | None) -> Payload | None:
        if first is None or first == second:
            return second
        if second is None:
            return first
        return self._join_payloads(first, second)

    def instructions_of(self, block: int) -> Sequence[int]:
        return self._by_block[block]

    def transfer(self, index: int, instruction: Instruction, state: Payload | None) -> Payload | None:
        if state is None:
            return state
        if index in self._observing:
            state = self._observe(index, instruction, state)
        if index in self._changing:
            after = self._step(index, instruction, state)
            state = after if instruction.guard is None else self._join_payloads(after, state)
        return state


def join_groups(first: tuple[frozenset[int], ...], second: tuple[frozenset[int], ...]) -> tuple[frozenset[int], ...]:
    """Committed groups of asynchronous operations (oldest first) joined from the most recent
    back: the k-th newest group of the join holds what either side's k-th newest group holds
    (`wait_group N` keeps the N newest pending on both sides)."""
    if len(first) < len(second):
        first, second = second, first
    offset = len(first) - len(second)
    return first[:offset] + tuple(mine | theirs for mine, theirs in zip(first[offset:], second))
