"""Path-sensitive forward analyses: the state is a small set of *path classes*, each a payload
(what the rule tracks: pending loads, live allocations) with a :class:`PathContext` — what the
branches taken so far say: the outcome of conditions on registers not written since, and the
warps still possible.

Two paths with the same payload merge into one class whose context keeps only what both know, so
the number of classes is bounded by the number of distinct payloads. A branch whose condition
contradicts a class's context (the second `if (warp == 0)` after the first one failed) removes
that class from the edge: such a path is infeasible.

Conditions are setp comparisons of integer registers and immediates in a canonical form
(`ne` is a negated `eq`, `ge` a negated `lt`, `gt` a swapped `lt`), so `setp.ne %p3, %r1, 0`
and a later `setp.eq %p6, %r1, 0` name the same condition. A predicate register is also a
condition of its own (for `elect.sync` predicates, which no comparison defines); `not.pred` and
`mov.pred` define one predicate by another, and conditions on an unchanged copy
(`mov.b32 %r35, %r1`) are conditions on the original. Only registers some guard depends on
(:class:`~ptxlint.analyses.roles.ConditionRegisters`) are tracked, and on entering a block a
context keeps only the facts a later test there can still meet (:meth:`PathContext.relevant_to`).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Callable, Hashable, Iterable

from ptxlint.analyses.registers import live_in
from ptxlint.analyses.roles import Branch, BranchTable, all_warps
from ptxlint.cfg import ControlFlowGraph
from ptxlint.dataflow import Solution, indices_by_block
from ptxlint.diagnostics import Label
from ptxlint.ir import Immediate, Instruction, Pair, Register

# More path classes than this at one point collapse into one (a safety valve, never expected).
MAX_CLASSES = 64

Condition = tuple  # ("eq" | "lt.s" | "lt.u" | "is", left, right)

_RELATIONS = {
    # relation: (canonical, swap operands, holds when the canonical condition is true)
    "eq": ("eq", False, True), "ne": ("eq", False, False),
    "lt": ("lt", False, True), "ge": ("lt", False, False),
    "gt": ("lt", True, True), "le": ("lt", True, False),
    "lo": ("lt.u", False, True), "hs": ("lt.u", False, False),
    "hi": ("lt.u", True, True), "ls": ("lt.u", True, False),
}


def _operand_key(operand) -> str | int | None:
    if type(operand) is Register:
        return operand.name
    if type(operand) is Immediate and type(operand.value) is int:
        return operand.value
    return None


def comparison(instruction: Instruction) -> tuple[Condition, bool] | None:
    """The canonical condition an integer `setp` computes and the predicate's value when it
    holds, or None for float, combining and unreadable forms."""
    modifiers = instruction.opcode.modifiers
    sources = instruction.sources
    if instruction.opcode.base != "setp" or len(modifiers) < 2 or len(sources) != 2:
        return None
    relation = _RELATIONS.get(modifiers[0])
    kind = modifiers[-1][:1]
    if relation is None or kind not in ("s", "u", "b"):
        return None
    left, right = _operand_key(sources[0]), _operand_key(sources[1])
    if left is None or right is None:
        return None
    canonical, swap, polarity = relation
    if canonical == "lt":
        canonical = "lt.s" if kind == "s" else "lt.u"
    if swap:
        left, right = right, left
    if canonical == "eq" and str(right) < str(left):
        left, right = right, left
    return (canonical, left, right), polarity


def _equality(left, right) -> Condition:
    """`left == right` in canonical operand order."""
    return ("eq", right, left) if str(right) < str(left) else ("eq", left, right)


@dataclass(slots=True)
class PathContext:
    """What the branches on a path established: ``outcomes`` (condition, value) pairs, the
    ``predicates`` defined by comparisons (register, condition, value when it holds) and the
    bit mask of warps that may be on the path.

    Immutable in use (path classes share contexts, and they are hashed), but not frozen: the
    solver builds hundreds of thousands of them, and a frozen dataclass's constructor costs five
    times as much."""

    warps: int
    outcomes: frozenset = frozenset()
    predicates: frozenset = frozenset()
    copies: frozenset = frozenset()  # (register, the register it was copied from)
    # Indexes over the facts, computed on first use (see :meth:`mentioned`,
    # :meth:`definitions` and :meth:`predicate_registers`) and handed on to contexts with the
    # same facts (or, for the sets of registers, fewer); not part of equality.
    _mentioned: frozenset | None = field(default=None, compare=False, repr=False)
    _definitions: dict | None = field(default=None, compare=False, repr=False)
    _predicate_registers: frozenset | None = field(default=None, compare=False, repr=False)
    # Path states are sets of (payload, context) rebuilt at every step, mostly from the same
    # contexts: the hash is computed once.
    _hash: int | None = field(default=None, compare=False, repr=False)

    def __hash__(self) -> int:
        known = self._hash
        if known is None:
            known = hash((self.warps, self.outcomes, self.predicates, self.copies))
            self._hash = known
        return known

    def merge(self, other: PathContext) -> PathContext:
        if self == other:
            return self
        # The common facts mention no register that either side's facts do not.
        mentioned = _common(self._mentioned, other._mentioned)
        predicates = self.predicates & other.predicates
        same_predicates = predicates == self.predicates == other.predicates
        return PathContext(
            self.warps | other.warps,
            self.outcomes & other.outcomes,
            predicates,
            self.copies & other.copies,
            mentioned,
            self._definitions if same_predicates else None,
            _common(self._predicate_registers, other._predicate_registers),
        )

    def mentioned(self) -> frozenset[str]:
        """Every register the facts depend on (a superset once some facts are forgotten)."""
        names = self._mentioned
        if names is None:
            found: set = set()
            for (_, left, right), _ in self.outcomes:
                found.update((left, right))
            for name, (_, left, right), _ in self.predicates:
                found.update((name, left, right))
            for copy, source in self.copies:
                found.update((copy, source))
            names = frozenset(name for name in found if type(name) is str)
            self._mentioned = names
        return names

    def predicate_registers(self) -> frozenset[str]:
        """Every register the predicate definitions mention (a superset once some are
        forgotten): most writes leave the definitions alone, which this tells cheaply."""
        names = self._predicate_registers
        if names is None:
            names = frozenset(_registers_of_definitions(self.predicates))
            self._predicate_registers = names
        return names

    def definitions(self) -> dict[str, tuple[tuple[Condition, bool], ...]]:
        """The predicate definitions by predicate register."""
        found = self._definitions
        if found is None:
            found = _with_definitions({}, self.predicates)
            self._definitions = found
        return found

    def original(self, name: str | int) -> str | int:
        """The register ``name`` is an unchanged copy of (`mov.b32 %r35, %r1`: %r1), so that
        conditions on copies are conditions on the original."""
        for _ in range(len(self.copies)):
            source = next((source for copy, source in self.copies if copy == name), None)
            if source is None:
                break
            name = source
        return name

    def after(self, instruction: Instruction, written: tuple[str, ...]) -> PathContext:
        """Forget what the instruction's writes invalidate and remember what a `setp`, `mov` or
        `not` defines; for instructions that write a register some branch condition depends on
        (facts mention no other register)."""
        context = self
        if (self.outcomes or self.predicates or self.copies) and not self.mentioned().isdisjoint(written):
            context = self._forget(written)
        base = instruction.opcode.base
        if base == "setp":
            context = context._define(instruction)
        elif (base == "mov" or base == "not") and instruction.guard is None and len(instruction.operands) == 2:
            context = context._copy(instruction)
        return context

    def assume(self, predicate: str, value: bool, warps: int) -> PathContext | None:
        """This context on a path where ``predicate`` is ``value``, which only ``warps`` allow;
        None if that is infeasible."""
        warps &= self.warps
        if not warps:
            return None
        if ((("is", predicate, None), value)) in self.outcomes:
            # Known already, and so is everything its definitions imply.
            return self.within(warps)
        outcomes = self.outcomes
        added: set = set()
        pending = [(("is", predicate, None), value)]
        while pending:
            fact = pending.pop()
            if fact in outcomes or fact in added:
                continue
            condition, holds = fact
            if _contradicts(outcomes, condition, holds) or _contradicts(added, condition, holds):
                return None
            added.add(fact)
            if condition[0] == "is":
                # Follow what defined the predicate: `not.pred %p2, %p1` and `setp.eq %p1, %r1, 0`.
                pending.extend(
                    (definition, holds == polarity)
                    for definition, polarity in self.definitions().get(condition[1], ())
                )
        outcomes = outcomes.union(added)
        # The new outcomes mention the predicate and what its definitions mention: the indexes
        # carry over.
        mentioned = self._mentioned
        if mentioned is not None and predicate not in mentioned:
            mentioned = mentioned | {predicate}
        return PathContext(
            warps, outcomes, self.predicates, self.copies, mentioned, self._definitions, self._predicate_registers
        )

    def relevant_to(self, live: frozenset[str]) -> PathContext:
        """This context without the facts no later test can meet, where only the registers
        ``live`` are read before being written again: a later test derives conditions on live
        registers, on what the definitions of live predicates compare, and on the originals of
        live copies, so a fact naming anything else can never be contradicted. (nvcc writes each
        predicate once and tests it once: without this, the definition of every `setp` passed
        would stay in the context to the end of the kernel.)"""
        if not (self.outcomes or self.predicates or self.copies):
            return self
        mentioned = self.mentioned()
        if mentioned <= live:
            return self
        definitions = self.definitions()
        relevant = set(live & mentioned)
        pending = list(relevant)
        while pending:
            name = pending.pop()
            reached = [operand for condition, _ in definitions.get(name, ()) for operand in condition[1:]]
            reached.extend(source for copy, source in self.copies if copy == name)
            for operand in reached:
                if type(operand) is str and operand not in relevant:
                    relevant.add(operand)
                    pending.append(operand)
        outcomes = frozenset(
            fact for fact in self.outcomes if all(type(name) is not str or name in relevant for name in fact[0][1:])
        )
        predicates = frozenset(entry for entry in self.predicates if entry[0] in relevant)
        copies = frozenset(pair for pair in self.copies if pair[0] in relevant)
        if len(outcomes) == len(self.outcomes) and len(predicates) == len(self.predicates) and len(copies) == len(self.copies):
            return self
        return PathContext(self.warps, outcomes, predicates, copies, frozenset(relevant))

    def within(self, warps: int) -> PathContext | None:
        """This context on a path only ``warps`` (of its own) can take; None if none can."""
        warps &= self.warps
        if not warps:
            return None
        if warps == self.warps:
            return self
        return PathContext(
            warps, self.outcomes, self.predicates, self.copies, self._mentioned, self._definitions, self._predicate_registers
        )

    def _forget(self, written: tuple[str, ...]) -> PathContext:
        # Registers are named `%…`, so testing whole tuples against ``gone`` tests their registers.
        gone = set(written)
        outcomes = frozenset(fact for fact in self.outcomes if gone.isdisjoint(fact[0]))
        predicates, definitions, predicate_registers = self.predicates, self._definitions, self._predicate_registers
        if not self.predicate_registers().isdisjoint(gone):
            predicates = frozenset(
                entry for entry in self.predicates if entry[0] not in gone and gone.isdisjoint(entry[1])
            )
            definitions = None
            predicate_registers = self._predicate_registers - gone
        copies = self.copies
        if copies:
            copies = frozenset(pair for pair in copies if gone.isdisjoint(pair))
        # What is left mentions none of the forgotten registers (and maybe fewer others).
        mentioned = None if self._mentioned is None else self._mentioned - gone
        return PathContext(self.warps, outcomes, predicates, copies, mentioned, definitions, predicate_registers)

    def _copy(self, instruction: Instruction) -> PathContext:
        """`mov.pred p, 1` makes a known outcome; `mov.pred q, p` and `not.pred q, p` define
        ``q`` by ``p`` (nvcc carries "this warp allocated" in such a predicate); `mov r, 5`
        makes `r == 5` known."""
        destination, source = instruction.operands
        if type(destination) is not Register:
            return self
        positive = instruction.opcode.base == "mov"
        if "pred" in instruction.opcode.modifiers:
            if type(source) is Immediate and type(source.value) is int:
                fact = (("is", destination.name, None), bool(source.value) == positive)
                return self._adding(self.outcomes | {fact}, self.predicates, self.copies, (destination.name,))
            if type(source) is Register:
                definition = (destination.name, ("is", source.name, None), positive)
                return self._adding(self.outcomes, self.predicates | {definition}, self.copies, (destination.name, source.name), (definition,))
            return self
        if not positive:
            return self
        if type(source) is Register and source.name != destination.name:
            copy = (destination.name, self.original(source.name))
            return self._adding(self.outcomes, self.predicates, self.copies | {copy}, copy)
        if type(source) is Immediate and type(source.value) is int:
            condition = _equality(destination.name, source.value)
            return self._adding(self.outcomes | {(condition, True)}, self.predicates, self.copies, (destination.name,))
        return self

    def _define(self, instruction: Instruction) -> PathContext:
        found = comparison(instruction)
        if found is None or instruction.guard is not None:
            return self
        condition, polarity = found
        condition = (condition[0], self.original(condition[1]), self.original(condition[2]))
        if condition[0] == "eq":
            condition = _equality(condition[1], condition[2])
        destination = instruction.destinations[0] if instruction.destinations else None
        definitions = []
        if type(destination) is Register:
            definitions.append((destination.name, condition, polarity))
        elif type(destination) is Pair:
            for operand, value in ((destination.first, polarity), (destination.second, not polarity)):
                if type(operand) is Register:
                    definitions.append((operand.name, condition, value))
        if not definitions:
            return self
        names = [definition[0] for definition in definitions] + [name for name in condition[1:] if type(name) is str]
        return self._adding(self.outcomes, self.predicates | frozenset(definitions), self.copies, names, definitions)

    def _adding(self, outcomes: frozenset, predicates: frozenset, copies: frozenset, names, defined=()) -> PathContext:
        """A context with more facts, which mention the registers ``names``; ``defined`` are the
        new predicate definitions."""
        mentioned = None if self._mentioned is None else self._mentioned.union(names)
        definitions = self._definitions if not defined or self._definitions is None else _with_definitions(dict(self._definitions), defined)
        predicate_registers = self._predicate_registers
        if defined and predicate_registers is not None:
            predicate_registers = predicate_registers.union(_registers_of_definitions(defined))
        return PathContext(self.warps, outcomes, predicates, copies, mentioned, definitions, predicate_registers)


def _common(first: frozenset | None, second: frozenset | None) -> frozenset | None:
    """A superset of the registers two merged contexts' facts mention in common: either side's
    own, when known (None: neither is). Intersecting would be exact but costs more than the
    index saves."""
    return second if first is None else first


def _registers_of_definitions(definitions: Iterable) -> set[str]:
    found: set[str] = set()
    for name, (_, left, right), _ in definitions:
        found.add(name)
        found.update(operand for operand in (left, right) if type(operand) is str)
    return found


def _with_definitions(found: dict, predicates: Iterable) -> dict:
    """``found`` (predicate register → its definitions) with ``predicates`` added."""
    for name, condition, polarity in predicates:
        known = found.get(name, ())
        if (condition, polarity) not in known:
            found[name] = known + ((condition, polarity),)
    return found


def _contradicts(outcomes: frozenset | set, condition: Condition, holds: bool) -> bool:
    if (condition, not holds) in outcomes:
        return True
    if condition[0] != "eq" or not holds:
        return False
    # x == a and x == b with different constants a and b cannot both hold.
    variable, constant = (condition[1], condition[2]) if type(condition[2]) is int else (condition[2], condition[1])
    if type(constant) is not int:
        return False
    for (relation, left, right), known in outcomes:
        if not known or relation != "eq":
            continue
        other = right if left == variable else left if right == variable else None
        if type(other) is int and other != constant:
            return True
    return False


PathState = frozenset  # of (payload, PathContext), one context per payload


class PathSensitiveAnalysis:
    """The lattice and edge refinement shared by the tcgen05 analyses. Subclasses say how an
    instruction changes a payload (:meth:`step`) and which instructions do
    (:meth:`changing_instructions`)."""

    def __init__(self, branches: BranchTable, keep_every_fact: bool = False) -> None:
        """``keep_every_fact``: never drop facts that can no longer matter (slower, and the same
        result: what tests compare against)."""
        self.branches = branches
        self.warp_count = branches.warp_count
        self._defining = branches.defining
        self._changing = self.changing_instructions()
        self._observing = self.observing_instructions()
        # Every other instruction leaves the state as it is (see :meth:`transfer`).
        visited = self._defining | self._changing | self._observing
        self._visited_by_block = indices_by_block(branches.values.cfg, visited)
        names = branches.values.names
        self._written = {index: names.writes(index) for index in visited}
        # Which condition registers each block may still read: the facts worth keeping there.
        self._live_in = None if keep_every_fact else live_in(branches.values.cfg, names, branches.condition_registers.names)
        self._summaries: set = set()  # payloads made by collapse (see _bounded)

    # -- what subclasses provide

    def initial_payload(self) -> Hashable:
        raise NotImplementedError

    def changing_instructions(self) -> frozenset[int]:
        """The indices of the instructions :meth:`step` may change a payload at."""
        raise NotImplementedError

    def step(self, index: int, instruction: Instruction, payload):
        raise NotImplementedError

    def observing_instructions(self) -> frozenset[int]:
        """The indices of the instructions :meth:`observe` may change a payload at."""
        return frozenset()

    def observe(self, index: int, instruction: Instruction, payload):
        """How merely executing an instruction changes a payload (reads of registers); applied
        to every class, guarded or not."""
        return payload

    def collapse(self, payloads: Iterable) -> Hashable:
        """One payload standing for many (used only past :data:`MAX_CLASSES`)."""
        raise NotImplementedError

    def covers(self, summary, payload) -> bool:
        """Whether a payload made by :meth:`collapse` already stands for ``payload``."""
        return summary == payload

    # -- the lattice

    def bottom(self) -> PathState:
        return frozenset()

    def entry(self) -> PathState:
        return frozenset({(self.initial_payload(), PathContext(all_warps(self.warp_count)))})

    def join(self, first: PathState, second: PathState) -> PathState:
        if not first:
            return second
        if not second or first == second:
            return first
        classes = dict(first)
        for payload, context in second:
            known = classes.get(payload)
            classes[payload] = context if known is None else known.merge(context)
        return self._bounded(classes)

    def instructions_of(self, block: int) -> list[int]:
        """The instructions of ``block`` that can change a payload or a fact (see
        :func:`ptxlint.dataflow.solve_forward`)."""
        return self._visited_by_block[block]

    def transfer(self, index: int, instruction: Instruction, state: PathState) -> PathState:
        if not state:
            return state
        changes = index in self._changing
        defines = index in self._defining
        if not changes and not defines:
            return self._observe_all(index, instruction, state)
        observes = index in self._observing
        written = self._written[index]
        classes: dict = {}
        changed = False
        for payload, context in state:
            new_payload = self.observe(index, instruction, payload) if observes else payload
            if changes and instruction.guard is not None:
                self._guarded_step(index, instruction, new_payload, context, defines, classes)
                changed = True
                continue
            if changes:
                new_payload = self.step(index, instruction, new_payload)
            new_context = context.after(instruction, written) if defines else context
            changed = changed or new_payload is not payload or new_context is not context
            _add(classes, new_payload, new_context)
        return self._bounded(classes) if changed else state

    def _observe_all(self, index: int, instruction: Instruction, state: PathState) -> PathState:
        """The state after an instruction that only reads (it writes no condition register)."""
        observed = [(self.observe(index, instruction, payload), context) for payload, context in state]
        if all(new is old for (new, _), (old, _) in zip(observed, state)):
            return state
        classes: dict = {}
        for payload, context in observed:
            _add(classes, payload, context)
        return self._bounded(classes)

    def refine(self, source: int, target: int, state: PathState) -> PathState:
        if not state:
            return state
        branch = self.branches.branch(source)
        if branch is not None:
            state = self.assume_branch(branch, target, state)
        return self._relevant(target, state)

    def _relevant(self, block: int, state: PathState) -> PathState:
        """``state`` with only the facts that can still matter in ``block`` and after it."""
        if self._live_in is None:
            return state
        live = self._live_in.names(block)
        trimmed = [(payload, context.relevant_to(live)) for payload, context in state]
        if all(relevant is context for (_, relevant), (_, context) in zip(trimmed, state)):
            return state
        classes: dict = {}
        for payload, context in trimmed:
            _add(classes, payload, context)
        return frozenset(classes.items())

    def assume_branch(self, branch: Branch, target: int, state: PathState) -> PathState:
        return self._assume(branch.predicate, branch.outcome(target), branch.warps_to(target), state)

    def assume_guard(self, index: int, instruction: Instruction, state: PathState) -> PathState:
        """The classes in which a guarded instruction executes."""
        guard = instruction.guard
        if guard is None or type(guard.predicate) is not Register:
            return state
        holds = not guard.negated
        return self._assume(guard.predicate.name, holds, self.branches.guard_warps(index, instruction)[holds], state)

    def _assume(self, predicate: str, value: bool, warps: int, state: PathState) -> PathState:
        """The classes of ``state`` on paths where ``predicate`` is ``value``, which only
        ``warps`` allow."""
        classes: dict = {}
        changed = False
        for payload, context in state:
            assumed = context.assume(predicate, value, warps)
            if assumed is not None:
                _add(classes, payload, assumed)
            changed = changed or assumed is not context
        return frozenset(classes.items()) if changed else state

    # -- internals

    def _guarded_step(self, index, instruction, payload, context, defines, classes) -> None:
        """A guarded instruction splits a class: it executes where the guard holds."""
        written = self._written[index]

        def after(context: PathContext) -> PathContext:
            return context.after(instruction, written) if defines else context

        guard = instruction.guard
        if type(guard.predicate) is not Register:
            _add(classes, self.step(index, instruction, payload), after(context))
            return
        name = guard.predicate.name
        warps = self.branches.guard_warps(index, instruction)
        executes = context.assume(name, not guard.negated, warps[not guard.negated])
        skips = context.assume(name, guard.negated, warps[guard.negated])
        if executes is not None:
            _add(classes, self.step(index, instruction, payload), after(executes))
        if skips is not None:
            _add(classes, payload, after(skips))

    def _bounded(self, classes: dict) -> PathState:
        """At most :data:`MAX_CLASSES` path classes: past that they collapse into one summary.
        A summary then absorbs every class it stands for, so that the state at a join settles
        instead of alternating between the summary alone and the summary beside a class it
        covers (which no fixed point would end). Compiled code never gets this far."""
        if self._summaries:
            self._absorb(classes)
        if len(classes) <= MAX_CLASSES:
            return frozenset(classes.items())
        contexts = list(classes.values())
        merged = contexts[0]
        for context in contexts[1:]:
            merged = merged.merge(context)
        summary = self.collapse(classes.keys())
        self._summaries.add(summary)
        return frozenset({(summary, merged)})

    def _absorb(self, classes: dict) -> None:
        """Merge into each summary among ``classes`` the other classes it covers."""
        for summary in [payload for payload in classes if payload in self._summaries]:
            if summary not in classes:
                continue
            for payload in [payload for payload in classes if payload != summary and self.covers(summary, payload)]:
                classes[summary] = classes[summary].merge(classes.pop(payload))


def _add(classes: dict, payload, context: PathContext) -> None:
    known = classes.get(payload)
    classes[payload] = context if known is None else known.merge(context)


# ----------------------------------------------------------------------------- witnesses


@dataclass(frozen=True)
class WitnessPath:
    """A feasible path to a bug: its ``edges`` in order, and the blocks from which the bug's end
    is still reachable (``reaching``), which tell the branches that decide the path from those
    that lead to the bug either way."""

    edges: list[tuple[int, int]]
    reaching: frozenset[int]


def witness_path(
    cfg: ControlFlowGraph,
    analysis: PathSensitiveAnalysis,
    solution: Solution[PathState],
    origin: int,
    end_block: int,
    holds: Callable[[object], bool],
    passable: Callable[[int], bool] = lambda block: True,
) -> WitnessPath | None:
    """A path from the block of instruction ``origin`` to ``end_block`` along which some path
    class satisfying ``holds`` flows, through blocks that are ``passable``: searched backwards
    from the end, so every edge is one the analysis found feasible. The search covers every
    block that reaches the end, so that the witness can say which branches matter."""
    origin_block = cfg.block_of(origin)
    next_edge: dict[int, tuple[int, int]] = {}
    visited = {end_block}
    first_edge: tuple[int, int] | None = None
    queue = deque([end_block])
    while queue:
        block = queue.popleft()
        for predecessor in cfg.predecessors(block):
            if predecessor not in solution.block_exit:
                continue
            flowing = analysis.refine(predecessor, block, solution.block_exit[predecessor])
            if not any(holds(payload) for payload, _ in flowing):
                continue
            if predecessor == origin_block and first_edge is None:
                first_edge = (predecessor, block)
            if predecessor not in visited and passable(predecessor):
                visited.add(predecessor)
                next_edge.setdefault(predecessor, (predecessor, block))
                queue.append(predecessor)
    if first_edge is None:
        return None
    return WitnessPath([first_edge] + _edges_to_end(first_edge[1], end_block, next_edge), frozenset(visited | {origin_block}))


def _edges_to_end(block: int, end_block: int, next_edge: dict[int, tuple[int, int]]) -> list[tuple[int, int]]:
    edges = []
    while block != end_block:
        edge = next_edge[block]
        edges.append(edge)
        block = edge[1]
    return edges


def branch_labels(cfg: ControlFlowGraph, branches: BranchTable, path: WitnessPath | None) -> list[Label]:
    """One witness step per conditional branch on the path, saying which way it went. A step is
    essential when the branch decides the path: going the other way would not reach the bug, or
    the branch loops back. The others (both ways lead to the bug) are kept for `--show-all-steps`."""
    labels: list[Label] = []
    if path is None:
        return labels
    order = cfg.rpo_number
    for source, target in path.edges:
        branch = branches.branch(source)
        if branch is None:
            continue
        taken = target == branch.taken
        other = next((successor for successor in cfg.successors(source) if successor != target), None)
        loops = order.get(target, 0) <= order.get(source, 0)
        guard = f"{'!' if branch.negated else ''}{branch.predicate}"
        verb = "taken" if taken else "not taken"
        message = f"branch on `{guard}` {verb}" + (" (loops back)" if loops else "")
        decides = loops or other is None or other not in path.reaching
        labels.append(Label(branch.instruction.span, message, essential=decides))
    return labels
