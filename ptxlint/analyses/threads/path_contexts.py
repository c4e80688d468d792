"""Path contexts: what the branches taken so far say about a path. A :class:`PathContext`
holds the outcome of conditions on registers not written since, the predicate definitions that
relate predicates to such conditions, and the warps still possible; it tells when a further
branch or guard contradicts them (the second `if (warp == 0)` after the first one failed, or
`warp < 4` after `warp == 5`), which makes that path infeasible.
:mod:`ptxlint.analyses.path_sensitive` pairs a context with each class of paths.

Conditions are read and compared by :mod:`ptxlint.analyses.threads.conditions`, over registers
by the scoped keys of :mod:`ptxlint.analyses.registers`: `setp.ne %p3, %r1, 0` and a later
`setp.eq %p6, %r1, 0` name the same condition, and a `p` two inline-asm blocks each declare is
two registers. A predicate register is also a condition of its own (for `elect.sync` predicates,
which no comparison defines); `not.pred` and `mov.pred` define one predicate by another, and
conditions on an unchanged copy (`mov.b32 %r35, %r1`) are conditions on the original. Only
the conditions some fact can meet at a test are tracked
(:class:`~ptxlint.analyses.threads.branch_sides.ConditionRegisters`), and on entering a block a
context keeps only the facts a later test there can still meet (:meth:`PathContext.relevant_to`).
"""

from __future__ import annotations

from dataclasses import field
from typing import Iterable, Sequence, overload

from ptxlint.analyses.registers import Registers
from ptxlint.analyses.threads.conditions import Condition, Fact, contradicts, equality, read_comparison, values_where, with_terms
from ptxlint.ir import Immediate, Instruction, Pair, Register
from ptxlint.isa.types import integer_types
from ptxlint.records import record

Definition = tuple[str, Condition, bool]  # a predicate, a condition, the predicate's value when it holds


@record(frozen=False, slots=True, weakref_slot=True)
class PathContext:
    """What the branches on a path established: ``outcomes`` (condition, value) pairs, the
    ``predicates`` defined by comparisons (register, condition, value when it holds) and the
    bit mask of warps that may be on the path.

    Immutable in use (path classes share contexts, and they are hashed), but not frozen: the
    solver builds hundreds of thousands of them, and a frozen dataclass's constructor costs five
    times as much."""

    warps: int
    outcomes: frozenset[Fact] = frozenset()
    predicates: frozenset[Definition] = frozenset()
    copies: frozenset[tuple[str, str]] = frozenset()  # (register, the register it was copied from)
    # Indexes over the facts, computed on first use (see :meth:`mentioned`,
    # :meth:`definitions` and :meth:`predicate_registers`) and handed on to contexts with the
    # same facts (or, for the sets of registers, fewer); not part of equality.
    _mentioned: frozenset[str] | None = field(default=None, compare=False, repr=False)
    _definitions: dict[str, tuple[Fact, ...]] | None = field(default=None, compare=False, repr=False)
    _predicate_registers: frozenset[str] | None = field(default=None, compare=False, repr=False)
    # Path states are sets of (payload, context) rebuilt at every step, mostly from the same
    # contexts: the hash is computed once.
    _hash: int | None = field(default=None, compare=False, repr=False)
    # relevant_to's answers by the live set asked about: the same context enters the same
    # blocks at every iteration of the solver, and from every class that shares it.
    _relevant: dict[frozenset[str], PathContext] | None = field(default=None, compare=False, repr=False)
    # Whether this is the one context a path-sensitive analysis keeps for these facts (see
    # ``PathSensitiveAnalysis._frozen``): states are rebuilt from such contexts at every step.
    shared: bool = field(default=False, compare=False, repr=False)

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
            found: set[str | int | None] = set()
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

    @overload
    def original(self, name: str) -> str: ...

    @overload
    def original(self, name: str | int) -> str | int: ...

    def original(self, name: str | int) -> str | int:
        """The register ``name`` is an unchanged copy of (`mov.b32 %r35, %r1`: %r1), so that
        conditions on copies are conditions on the original."""
        for _ in range(len(self.copies)):
            source = next((source for copy, source in self.copies if copy == name), None)
            if source is None:
                break
            name = source
        return name

    def after(self, instruction: Instruction, written: Sequence[str], registers: Registers) -> PathContext:
        """Forget what the instruction's writes (``written``, by key) invalidate and remember
        what a `setp`, `mov` or `not` defines; for instructions that write a register some
        branch condition depends on (facts mention no other register). ``registers`` resolves
        the registers the instruction names at its scope."""
        context = self
        if (self.outcomes or self.predicates or self.copies) and not self.mentioned().isdisjoint(written):
            context = self._forget(written)
        base = instruction.opcode.base
        if base == "setp":
            context = context._define(instruction, registers)
        elif (base == "mov" or base == "not") and instruction.guard is None and len(instruction.operands) == 2:
            context = context._copy(instruction, registers)
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
        added: set[Fact] = set()
        pending: list[Fact] = [(("is", predicate, None), value)]
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
                    for definition, polarity in self.definitions().get(condition[1], ())  # type: ignore[arg-type]  # "is": a predicate
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
        known = self._relevant
        if known is None:
            known = self._relevant = {}
        else:
            found = known.get(live)
            if found is not None:
                return found
        found = known[live] = self._relevant_to(live)
        return found

    def _relevant_to(self, live: frozenset[str]) -> PathContext:
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

    def _forget(self, written: Sequence[str]) -> PathContext:
        # Registers are named `%…`, so testing whole tuples against ``gone`` tests their registers.
        gone = set(written)
        outcomes = frozenset(fact for fact in self.outcomes if gone.isdisjoint(fact[0]))
        predicates, definitions, predicate_registers = self.predicates, self._definitions, self._predicate_registers
        if not self.predicate_registers().isdisjoint(gone):
            predicates = frozenset(
                entry for entry in self.predicates if entry[0] not in gone and gone.isdisjoint(entry[1])
            )
            definitions = None
            predicate_registers = self.predicate_registers() - gone  # computed just above
        copies = self.copies
        if copies:
            copies = frozenset(pair for pair in copies if gone.isdisjoint(pair))
        # What is left mentions none of the forgotten registers (and maybe fewer others).
        mentioned = None if self._mentioned is None else self._mentioned - gone
        return PathContext(self.warps, outcomes, predicates, copies, mentioned, definitions, predicate_registers)

    def _copy(self, instruction: Instruction, registers: Registers) -> PathContext:
        """`mov.pred p, 1` makes a known outcome; `mov.pred q, p` and `not.pred q, p` define
        ``q`` by ``p`` (nvcc carries "this warp allocated" in such a predicate); `mov r, 5`
        makes `r == 5` known."""
        destination, source = instruction.operands
        if type(destination) is not Register:
            return self
        scope = instruction.scope
        written = registers.key(destination.name, scope)
        positive = instruction.opcode.base == "mov"
        if "pred" in instruction.opcode.modifiers:
            if type(source) is Immediate and type(source.value) is int:
                fact = (("is", written, None), bool(source.value) == positive)
                return self._adding(self.outcomes | {fact}, self.predicates, self.copies, (written,))
            if type(source) is Register:
                read = registers.key(source.name, scope)
                definition = (written, ("is", read, None), positive)
                return self._adding(self.outcomes, self.predicates | {definition}, self.copies, (written, read), (definition,))
            return self
        if not positive:
            return self
        if type(source) is Register:
            read = registers.key(source.name, scope)
            if read == written:
                return self
            copy = (written, self.original(read))
            return self._adding(self.outcomes, self.predicates, self.copies | {copy}, copy)
        types = integer_types(instruction.opcode.modifiers)
        if type(source) is Immediate and type(source.value) is int and len(types) == 1:
            width = types[0][0]
            condition = equality(width, written, source.value & ((1 << width) - 1))
            return self._adding(self.outcomes | {(condition, True)}, self.predicates, self.copies, (written,))
        return self

    def _define(self, instruction: Instruction, registers: Registers) -> PathContext:
        if instruction.guard is not None:
            return self
        scope = instruction.scope

        def key_of(register: Register) -> str:
            return registers.key(register.name, scope)

        found = read_comparison(instruction, key_of)
        if found is None:
            return self
        (relation, left, right), polarity = found
        assert right is not None  # a comparison
        condition = with_terms(relation, self.original(left), self.original(right))
        destination = instruction.destinations[0] if instruction.destinations else None
        definitions: list[Definition] = []
        if type(destination) is Register:
            definitions.append((key_of(destination), condition, polarity))
        elif type(destination) is Pair:
            for operand, value in ((destination.first, polarity), (destination.second, not polarity)):
                if type(operand) is Register:
                    definitions.append((key_of(operand), condition, value))
        if not definitions:
            return self
        names = [definition[0] for definition in definitions] + [name for name in condition[1:] if type(name) is str]
        return self._adding(self.outcomes, self.predicates | frozenset(definitions), self.copies, names, definitions)

    def _adding(
        self, outcomes: frozenset[Fact], predicates: frozenset[Definition], copies: frozenset[tuple[str, str]],
        names: Iterable[str], defined: Iterable[Definition] = (),
    ) -> PathContext:
        """A context with more facts, which mention the registers ``names``; ``defined`` are the
        new predicate definitions."""
        mentioned = None if self._mentioned is None else self._mentioned.union(names)
        definitions = self._definitions if not defined or self._definitions is None else _with_definitions(dict(self._definitions), defined)
        predicate_registers = self._predicate_registers
        if defined and predicate_registers is not None:
            predicate_registers = predicate_registers.union(_registers_of_definitions(defined))
        return PathContext(self.warps, outcomes, predicates, copies, mentioned, definitions, predicate_registers)


def _common(first: frozenset[str] | None, second: frozenset[str] | None) -> frozenset[str] | None:
    """A superset of the registers two merged contexts' facts mention in common: either side's
    own, when known (None: neither is). Intersecting would be exact but costs more than the
    index saves."""
    return second if first is None else first


def _registers_of_definitions(definitions: Iterable[Definition]) -> set[str]:
    found: set[str] = set()
    for name, (_, left, right), _ in definitions:
        found.add(name)
        found.update(operand for operand in (left, right) if type(operand) is str)
    return found


def _with_definitions(found: dict[str, tuple[Fact, ...]], predicates: Iterable[Definition]) -> dict[str, tuple[Fact, ...]]:
    """``found`` (predicate register → its definitions) with ``predicates`` added."""
    for name, condition, polarity in predicates:
        known = found.get(name, ())
        if (condition, polarity) not in known:
            found[name] = known + ((condition, polarity),)
    return found


def _contradicts(outcomes: frozenset[Fact] | set[Fact], condition: Condition, holds: bool) -> bool:
    """Whether a known outcome contradicts ``condition`` being ``holds``: the same condition
    with the other value, or a comparison of the same register with a constant whose values do
    not meet (:func:`~ptxlint.analyses.threads.conditions.contradicts`)."""
    if (condition, not holds) in outcomes:
        return True
    asked = values_where(condition, holds)
    if asked is None:
        return False
    register = asked[0]
    return any(register in known[0][1:] and contradicts(known, (condition, holds)) for known in outcomes)
