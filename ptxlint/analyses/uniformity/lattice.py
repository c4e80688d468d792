"""The uniformity lattice: values, divergences and the states of the forward analysis.

A register's :class:`Value` is a :class:`~ptxlint.analyses.threads.tid_fields.Level` (CTA-uniform ⊑
warpgroup-uniform ⊑ warp-uniform ⊑ thread-varying), optionally its exact symbolic form (see
``thread_index.py``), and the :class:`Origin` that made it non-uniform, for diagnostic labels. A
:class:`Divergence` says why an instruction runs with part of the threads; a :class:`State` is
what flows along the control-flow graph. Every join here returns one of its arguments itself
when that is the join, so states keep comparing by identity (the solver's fast path).
"""

from __future__ import annotations

from typing import Union


from ptxlint import ir
from ptxlint.analyses.threads.tid_fields import Constant, Form, Level, Multiple
from ptxlint.analyses.threads.lane_sets import Threads
from ptxlint.records import record
from ptxlint.source import Span


@record(slots=True)
class Origin:
    """Where a value became non-uniform: a span and a fact about it ("`%tid.x` varies per
    thread")."""

    span: Span
    message: str


@record(slots=True)
class Value:
    """``bits`` is the value's exact symbolic form when known: a `%tid.x` bit field, a constant,
    or a uniform multiple of a power of two (the name is kept short: it is read everywhere)."""

    level: Level
    bits: Form | None = None
    origin: Origin | None = None


UNIFORM = Value(Level.CTA)


def join(first: Value, second: Value) -> Value:
    """The least value above both: the larger level with its origin (the earlier origin on a
    tie, so the result does not depend on visiting order); the bit field survives only when
    both agree."""
    if first is second:
        return first
    bits = first.bits if first.bits == second.bits else None
    if first.level != second.level:
        larger = first if first.level > second.level else second
        return larger if larger.bits == bits else Value(larger.level, bits, larger.origin)
    origin = _earlier(first.origin, second.origin)
    if bits == first.bits and origin == first.origin:
        return first
    return Value(first.level, bits, origin)


def _earlier(first: Origin | None, second: Origin | None) -> Origin | None:
    if first is None or second is None:
        return first or second
    return first if first.span.start <= second.span.start else second


def at_least(value: Value, level: Level, origin: Origin | None) -> Value:
    """``value`` raised to ``level`` (the level of the control it was computed under)."""
    if value.level >= level:
        return value
    return Value(level, None, origin)


def with_level(level: Level, origin: Origin | None) -> Value:
    return UNIFORM if level == Level.CTA else Value(level, None, origin)


# ----------------------------------------------------------------------------- arguments


@record(slots=True)
class Fields:
    """An aggregate argument (a `.param .b8 param0[12]` its call sites fill with `st.param` at
    byte offsets), field by field: a callee that reads one field is not told the others.
    ``by_offset`` is sorted by offset."""

    by_offset: tuple[tuple[int, Value], ...]

    def whole(self) -> Value:
        """Every field joined: what a read of the whole aggregate, or of bytes no field
        covers exactly, may see."""
        result = self.by_offset[0][1]
        for _, value in self.by_offset[1:]:
            result = join(result, value)
        return result

    def read(self, offset: int, size: int | None) -> Value:
        """What reading ``size`` bytes at ``offset`` sees: the fields stored in that range
        (their join), or every field when the size is unknown or none starts there."""
        if size is None or all(start != offset for start, _ in self.by_offset):
            return self.whole()
        inside = [value for start, value in self.by_offset if offset <= start < offset + size]
        result = inside[0]
        for value in inside[1:]:
            result = join(result, value)
        return result


# What an argument carries into a parameter: one value, or one per field of an aggregate.
Argument = Union[Value, Fields]


def join_arguments(first: Argument, second: Argument) -> Argument:
    """Two call sites' arguments joined, field by field where either is an aggregate (a field
    only one of them stores keeps that one's value)."""
    if type(first) is Value and type(second) is Value:
        return join(first, second)
    fields: dict[int, Value] = {}
    for argument in (first, second):
        if type(argument) is Fields:
            for offset, value in argument.by_offset:
                known = fields.get(offset)
                fields[offset] = value if known is None else join(known, value)
    for argument in (first, second):
        if type(argument) is Value:
            fields = {offset: join(value, argument) for offset, value in fields.items()}
    return Fields(tuple(sorted(fields.items())))


def argument_value(argument: Argument) -> Value:
    """The argument as one value (every field joined)."""
    return argument.whole() if isinstance(argument, Fields) else argument


# ----------------------------------------------------------------------------- divergence


@record(slots=True)
class Divergence:
    """Why an instruction runs with part of the threads: a guard, an enclosing branch, or an
    exit that other threads took. ``span`` points at the guard or branch or exit, ``origin`` at
    the source of its condition."""

    # "guard", "branch", "exit" (an exit instruction some threads executed before), or
    # "exit-branch" (a branch that sent some threads to an exit: the others never passed one)
    kind: str
    level: Level
    index: int  # the instruction: the guarded one, the branch, or the exit (or its branch)
    span: Span
    subject: str  # the condition (`%p1`) or the exit instruction text
    origin: Origin | None
    # At warp level: the condition provably differs between warps of one warpgroup (an exact
    # `%tid.x` set such as `warp & 3 == 0`), not merely "warp-uniform, not proven
    # warpgroup-uniform" (a join, a load, a warp reduction). Warpgroup-aligned instructions are
    # only reported under proven splits (see PTX101's Exceptions).
    proven: bool = False
    # At thread level: the condition compares the thread index with a bound no constant fixes
    # (``TidBound``): it splits at most one warp, and does whenever the bound falls inside one.
    bounded: bool = False

    @property
    def rank(self) -> tuple[int, bool]:
        """How bad it is: the level, then a proven split before an unproven one."""
        return (self.level, self.proven)


@record(slots=True)
class State:
    """``values``: registers written more than once, by key (never mutated once in a state).
    ``control``: (branch block, divergence) for every divergent branch whose influence region
    we are in. ``exits``: exits some threads may have taken before.
    ``threads``: which threads reach this point (``ptxlint/analyses/threads/lane_sets.py``), None
    when unknown."""

    values: dict[str, Value]
    control: tuple[tuple[int, Divergence], ...] = ()
    exits: tuple[Divergence, ...] = ()
    threads: Threads | None = None


EMPTY_STATE = State({})


def join_values(first: dict[str, Value], second: dict[str, Value]) -> dict[str, Value]:
    """The join of two register maps; ``first`` itself when that is the join (most registers of
    two states are the same objects: only what differs is joined, and copied only then). A
    register absent on one side holds an unknown but uniform-looking value there."""
    joined = None
    shared = 0  # keys of ``second`` that ``first`` has
    for key, value in second.items():
        current = first.get(key)
        if current is not None:
            shared += 1
            if current is value:
                continue
        merged = join(current if current is not None else UNIFORM, value)
        if merged is not current and merged != current:
            if joined is None:
                joined = dict(first)
            joined[key] = merged
    if shared < len(first):
        for key in first.keys() - second.keys():
            current = first[key]
            merged = join(current, UNIFORM)
            if merged is not current and merged != current:
                if joined is None:
                    joined = dict(first)
                joined[key] = merged
    return first if joined is None else joined


def ranks_above(first: Divergence, second: Divergence) -> bool:
    """``first`` stands for both: worse, or as bad and from an earlier branch (so that a later
    equal branch changes nothing)."""
    return worse(first, second) or (not worse(second, first) and first.index < second.index)


def join_control(
    first: tuple[tuple[int, Divergence], ...], second: tuple[tuple[int, Divergence], ...]
) -> tuple[tuple[int, Divergence], ...]:
    """The join of two control sets, (branch block, divergence) sorted by block: per block the
    worse divergence. One linear merge; returns ``first`` or ``second`` itself when it already is
    the join, so that states keep comparing by identity."""
    if first is second or not second:
        return first
    if not first:
        return second
    merged: list[tuple[int, Divergence]] = []
    append = merged.append
    keeps_first = keeps_second = True
    i = j = 0
    n, m = len(first), len(second)
    while i < n and j < m:
        a, b = first[i], second[j]
        ka, kb = a[0], b[0]
        if ka == kb:
            if a is b or a[1] is b[1]:
                append(a)
            elif worse(b[1], a[1]):
                append(b)
                keeps_first = False
            else:  # on a tie, the first side's entry (as before the merge was linear)
                append(a)
                keeps_second = False
            i += 1
            j += 1
        elif ka < kb:
            append(a)
            keeps_second = False
            i += 1
        else:
            append(b)
            keeps_first = False
            j += 1
    if i < n:
        merged.extend(first[i:])
        keeps_second = False
    if j < m:
        merged.extend(second[j:])
        keeps_first = False
    if keeps_first:
        return first
    if keeps_second:
        return second
    return tuple(merged)


def join_exits(first: tuple[Divergence, ...], second: tuple[Divergence, ...]) -> tuple[Divergence, ...]:
    """The join of two sets of exit marks sorted by instruction index (see :func:`join_control`)."""
    if first is second or not second:
        return first
    if not first:
        return second
    merged: dict[int, Divergence] = {}
    for entry in first + second:
        current = merged.get(entry.index)
        if current is None or worse(entry, current):
            merged[entry.index] = entry
    result = tuple(sorted(merged.values(), key=lambda entry: entry.index))
    return first if result == first else result


def worse(first: Divergence, second: Divergence) -> bool:
    """``first`` ranks above ``second``: a larger level, or a proven warpgroup split at the same
    level."""
    return first.level > second.level or (first.level == second.level and first.proven and not second.proven)


def control_origin(execution: Divergence) -> Origin:
    known = _CONTROL_ORIGINS.get(id(execution))
    if known is None or known[0] is not execution:
        known = _CONTROL_ORIGINS[id(execution)] = (execution, _describe_control(execution))
        if len(_CONTROL_ORIGINS) > 4096:
            _CONTROL_ORIGINS.clear()
            _CONTROL_ORIGINS[id(execution)] = known
    return known[1]


_CONTROL_ORIGINS: dict[int, tuple[Divergence, Origin]] = {}


# The cause label of an `elect.sync` predicate, and of what copies it (`selp d, 1, 0, p`, a value
# written under `@p`): CUTLASS's elect_one_sync().
ELECTED = "`elect.sync`: true in one lane"


def _describe_control(execution: Divergence) -> Origin:
    if execution.origin is not None and execution.origin.message == ELECTED:
        return execution.origin  # `@p mov r, 1` of an elected `p`: the election is the cause
    what = "guard" if execution.kind == "guard" else "branch"
    return Origin(execution.span, f"written under a {what} on `{execution.subject}`, which is {execution.level.adjective}")


def at_most(value: Value, level: Level) -> Value:
    """``value`` lowered to ``level`` (a collapse rule proved it more uniform)."""
    if value.level <= level:
        return value
    if level == Level.CTA and value.bits is None:
        return UNIFORM
    return Value(level, value.bits, value.origin if level > Level.CTA else None)


def constant_of(value: Value) -> int | None:
    return value.bits.value if type(value.bits) is Constant else None


def multiple_of(bits: int) -> Value:
    return Value(Level.CTA, Multiple(bits)) if bits > 0 else UNIFORM


def without_bits(value: Value) -> Value:
    return value if value.bits is None else Value(value.level, None, value.origin)


def subject_text(operand: ir.Operand) -> str:
    if type(operand) in (ir.Register, ir.SpecialRegister, ir.Symbol):
        return operand.name  # type: ignore[union-attr]
    return "the condition"
