"""Branch conditions: one reading of what a comparison says, one test of when two say
contradicting things, and the edges a correlated branch makes infeasible.

Every analysis that asks which branches are infeasible after another reads conditions here:
uniformity's correlated branches (:func:`correlated_branches`) and the path contexts of the
path-sensitive solver (:mod:`ptxlint.analyses.threads.path_contexts`).

- :func:`read_comparison`: an integer `setp` as a canonical :data:`Condition` over register keys
  (whatever the caller keys registers by: scoped keys, names) and constants, and the predicate's
  value when it holds. The relations are typed like PTX's (`eq.b32`, `lt.s32`, `lt.u64`): `ne` is a
  negated `eq`, `ge` a negated `lt`, `gt` a swapped `lt`, constants are read as unsigned numbers
  of the comparison's width, so `setp.ne.s32 %p3, %r1, -1` and `setp.eq.u32 %p6, %r1,
  4294967295` name one condition. A predicate is a condition of its own (`is`).
- :func:`values_where`: the values a register may hold where a comparison of it with a constant
  has a given truth, as intervals of unsigned numbers; :func:`contradicts`: two such facts that
  no value satisfies (`warp == 0` and `warp < 4` false, `r <s 0` and `r <u 2147483520`).
- :func:`correlated_branches`: through `and`/`or`/`not` of comparisons, the edges a branch that
  splits the threads makes infeasible (the second `if (warp == 0)` after the first one failed).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable, Mapping, Protocol, Sequence, Union

from ptxlint import cfg as cfg_module
from ptxlint import ir
from ptxlint.isa.comparisons import AS_LESS_THAN, MIRRORED, NEGATED, RELATIONS
from ptxlint.isa.types import integer_types

Term = Union[str, int]  # a register key or an unsigned constant
# (relation, left, right): (`eq.b32` | `lt.s32` | `lt.u32` …, term, term), or ("is", predicate, None).
Condition = tuple[str, Term, Union[Term, None]]
Fact = tuple[Condition, bool]  # a condition and its value
# Where a fact holds: (register key, width, the register's values as unsigned intervals).
Values = tuple[str, int, tuple[tuple[int, int], ...]]


@lru_cache(maxsize=None)
def _typed_relation(modifiers: tuple[str, ...]) -> tuple[str, int, bool] | None:
    """An integer `setp`'s order, width and signedness (from its modifiers), or None."""
    relation = RELATIONS.get(modifiers[0]) if modifiers else None
    types = integer_types(modifiers)
    if relation is None or len(types) != 1:
        return None
    width, signed = types[0]
    return relation.order, width, signed and not relation.unsigned


@lru_cache(maxsize=None)
def _relation_form(relation: str) -> tuple[str, bool, int] | None:
    """(order, signed, width) of a canonical relation (`lt.s32`: lt, signed, 32); None for `is`."""
    order, _, kind = relation.partition(".")
    if order not in ("eq", "lt") or kind[:1] not in ("s", "u", "b") or not kind[1:].isdigit():
        return None
    return order, kind[0] == "s", int(kind[1:])


def equality(width: int, left: Term, right: Term) -> Condition:
    """`left == right` at ``width`` bits, in canonical operand order."""
    return with_terms(f"eq.b{width}", left, right)


def with_terms(relation: str, left: Term, right: Term) -> Condition:
    """A condition of ``relation`` on two terms, in canonical operand order (an equality's
    operands sorted, so that `a == b` and `b == a` are one condition)."""
    if relation[:2] == "eq" and str(right) < str(left):
        return relation, right, left
    return relation, left, right


def read_comparison(instruction: ir.Instruction, key_of: Callable[[ir.Register], str | None]) -> tuple[Condition, bool] | None:
    """The canonical condition an integer `setp` computes over ``key_of``'s register keys and
    constants, and the predicate's value when it holds; None for float, combining (`setp.eq.and`)
    and unreadable forms, or when ``key_of`` does not key a register it reads."""
    sources = instruction.sources
    if instruction.opcode.base != "setp" or len(sources) != 2:
        return None
    typed = _typed_relation(instruction.opcode.modifiers)
    if typed is None:
        return None
    order, width, signed = typed
    left, right = _term(sources[0], key_of, width), _term(sources[1], key_of, width)
    if left is None or right is None:
        return None
    canonical, swap, polarity = AS_LESS_THAN[order]
    if swap:
        left, right = right, left
    if canonical == "eq":
        return with_terms(f"eq.b{width}", left, right), polarity
    return (f"lt.{'s' if signed else 'u'}{width}", left, right), polarity


def _term(operand: ir.Operand, key_of: Callable[[ir.Register], str | None], width: int) -> Term | None:
    if type(operand) is ir.Register:
        return key_of(operand)
    if type(operand) is ir.Immediate and type(operand.value) is int:
        return operand.value & ((1 << width) - 1)
    return None


@lru_cache(maxsize=1 << 14)
def values_where(condition: Condition, holds: bool) -> Values | None:
    """The values of the register a comparison with a constant tests, where the comparison is
    ``holds``: its key, the width, and up to two intervals of unsigned numbers (a signed
    comparison's negatives are the top half). None for other conditions."""
    form = _relation_form(condition[0])
    if form is None:
        return None
    order, signed, width = form
    _, left, right = condition
    if type(left) is str and type(right) is int:
        register, constant = left, right
    elif type(left) is int and type(right) is str:
        register, constant, order = right, left, MIRRORED[order]
    else:
        return None
    if not holds:
        order = NEGATED[order]
    modulus = 1 << width
    if signed:
        low, high = -(modulus >> 1), (modulus >> 1) - 1
        if constant > high:
            constant -= modulus
    else:
        low, high = 0, modulus - 1
    spans = {
        "lt": ((low, constant - 1),),
        "le": ((low, constant),),
        "gt": ((constant + 1, high),),
        "ge": ((constant, high),),
        "eq": ((constant, constant),),
        "ne": ((low, constant - 1), (constant + 1, high)),
    }[order]
    intervals: list[tuple[int, int]] = []
    for first, last in spans:
        first, last = max(first, low), min(last, high)
        if first > last:
            continue
        if first < 0:  # signed negatives are the top half of the unsigned range
            intervals.append((first + modulus, min(last, -1) + modulus))
            first = 0
        if first <= last:
            intervals.append((first, last))
    return register, width, tuple(intervals)


def disjoint(first: Sequence[tuple[int, int]], second: Sequence[tuple[int, int]]) -> bool:
    """Whether two sets of intervals share no value."""
    return all(a_last < b_first or b_last < a_first for a_first, a_last in first for b_first, b_last in second)


def contradicts(known: Fact, asked: Fact) -> bool:
    """Whether no value satisfies both facts: the one condition with both values, or two
    comparisons of one register with constants whose values do not meet."""
    if known[0] == asked[0]:
        return known[1] != asked[1]
    first = values_where(*known)
    if first is None:
        return False
    second = values_where(*asked)
    return second is not None and first[0] == second[0] and first[1] == second[1] and disjoint(first[2], second[2])


# ----------------------------------------------------------------------------- correlated branches

# Per branch block: (a comparison's predicate key, which must be CTA-uniform at run time, the
# edges (source block, target block) its value makes infeasible).
Correlated = dict[int, tuple[tuple[str, tuple[tuple[int, int], ...]], ...]]

# Many branches on one register (a loop nest on one condition): relating them all would be
# quadratic; they are left unrelated.
_MAX_RELATED_EDGES = 64


class ScopedNames(Protocol):
    """Register keys: a register name at a scope resolved to its declaration, and the keys
    written more than once."""

    @property
    def written_more_than_once(self) -> frozenset[str]: ...

    def key(self, name: str, scope: int) -> str: ...


class Branch(Protocol):
    """A conditional branch: its block, its `bra`, the successors threads can go on in, and the
    one it jumps to."""

    @property
    def block(self) -> int: ...

    @property
    def instruction(self) -> ir.Instruction: ...

    @property
    def live(self) -> frozenset[int]: ...

    @property
    def taken(self) -> int: ...


class _Definitions:
    """The registers written once and the instruction defining each, read through predicate
    logic."""

    def __init__(self, function: ir.Function, names: ScopedNames, visited: Sequence[int]) -> None:
        self.instructions = instructions = function.instructions
        self.names = names
        self.by_key: dict[str, int] = {}
        repeated = names.written_more_than_once
        for index in visited:  # the definitions of every register a branch condition reads
            instruction = instructions[index]
            for operand in instruction.destinations:
                for register in ir.registers_in(operand):
                    key = names.key(register.name, instruction.scope)
                    if key not in repeated:
                        self.by_key[key] = index

    def comparison(self, key: str) -> tuple[Condition, bool, bool] | None:
        """The comparison of a register written once with a constant that defines predicate
        ``key`` through `not`/`mov`: (condition, the predicate's value when it holds, whether a
        `not` came between)."""
        flipped = False
        for _ in range(8):
            index = self.by_key.get(key)
            if index is None:
                return None
            instruction = self.instructions[index]
            base = instruction.opcode.base
            if base in ("not", "mov") and instruction.opcode.has("pred") and len(instruction.sources) == 1:
                operand = instruction.sources[0]
                if type(operand) is not ir.Register:
                    return None
                flipped ^= base == "not"
                key = self.names.key(operand.name, instruction.scope)
                continue
            if len(instruction.destinations) != 1 or type(instruction.destinations[0]) is not ir.Register:
                return None
            found = read_comparison(instruction, lambda register: self._written_once(register, instruction.scope))
            if found is None or values_where(found[0], True) is None:
                return None
            return found[0], found[1], flipped
        return None

    def _written_once(self, register: ir.Register, scope: int) -> str | None:
        key = self.names.key(register.name, scope)
        return key if key in self.by_key else None

    def requirements(
        self, key: str, not_all_false: bool, not_all_true: bool, found: list[tuple[str, bool]], depth: int, top: bool = True,
    ) -> None:
        """The operands of the `and`/`or`/`not` tree defining predicate ``key`` that must have
        one value in every thread when they are CTA-uniform, given that ``key`` is not false in
        every thread (``not_all_false``) and/or not true in every thread (``not_all_true``)."""
        index = self.by_key.get(key)
        if index is None or depth > 8:
            return
        instruction = self.instructions[index]
        base = instruction.opcode.base
        if base == "setp":
            if top:
                return  # the condition itself: it is not CTA-uniform while the branch splits threads
            if not_all_false:
                found.append((key, True))
            if not_all_true:
                found.append((key, False))
            return
        if not instruction.opcode.has("pred") or base not in ("not", "mov", "and", "or"):
            return
        operands = [operand for operand in instruction.sources if type(operand) in (ir.Register, ir.Negated)]
        if len(operands) != len(instruction.sources):
            return
        if base == "not":
            not_all_false, not_all_true = not_all_true, not_all_false
        elif base == "and":
            not_all_true = False  # some operand is not all true: says nothing about each
        elif base == "or":
            not_all_false = False
        if not not_all_false and not not_all_true:
            return
        for operand in operands:
            negated = type(operand) is ir.Negated
            register = operand.operand if negated else operand  # type: ignore[union-attr]  # Negated when `negated`
            if type(register) is not ir.Register:
                continue
            falsehood, truth = (not_all_true, not_all_false) if negated else (not_all_false, not_all_true)
            still_top = top and base in ("not", "mov")  # still the condition itself
            self.requirements(self.names.key(register.name, instruction.scope), falsehood, truth, found, depth + 1, still_top)


def correlated_branches(
    function: ir.Function, graph: cfg_module.ControlFlowGraph, names: ScopedNames, branches: Mapping[int, Branch],
    visited: Sequence[int],
) -> Correlated:
    """Branches whose splitting the threads makes some other edges infeasible: the condition is
    `and`/`or`/`not` of comparisons, a comparison operand that is CTA-uniform must then have one
    value (`%p12 = !(%p5 && warp == 0)` splits threads only when `%p5` is true), and an edge
    guarded by a comparison of the same register with a constant may contradict it (`%p5 = %r4
    <u 2147483520` true, the edge taken when `%r4 <s 0`). Per branch block: (the comparison's
    predicate key, which must be CTA-uniform at run time, the edges it makes infeasible)."""
    definitions = _Definitions(function, names, visited)
    # The values each edge of a branch on a comparison leaves the compared register.
    edge_values: dict[tuple[str, int], list[tuple[tuple[int, int], tuple[tuple[int, int], ...]]]] = {}
    for info in branches.values():
        instruction = info.instruction
        guard = instruction.guard
        if guard is None or instruction.opcode.base != "bra" or type(guard.predicate) is not ir.Register:
            continue
        found = definitions.comparison(names.key(guard.predicate.name, instruction.scope))
        if found is None:
            continue
        condition, polarity, flipped = found
        for successor in info.live | {info.taken}:
            if successor == graph.exit:
                continue
            truth = (successor == info.taken) ^ guard.negated ^ flipped
            values = values_where(condition, truth == polarity)
            assert values is not None  # a comparison with a constant
            register, width, intervals = values
            edge_values.setdefault((register, width), []).append(((info.block, successor), intervals))
    edge_values = {key: edges for key, edges in edge_values.items() if len(edges) <= _MAX_RELATED_EDGES}
    if not edge_values:
        return {}
    correlated: Correlated = {}
    for info in branches.values():
        guard = info.instruction.guard
        if guard is None or type(guard.predicate) is not ir.Register:
            continue
        requirements: list[tuple[str, bool]] = []
        definitions.requirements(names.key(guard.predicate.name, info.instruction.scope), True, True, requirements, 0)
        if not requirements:
            continue
        candidates: list[tuple[str, tuple[tuple[int, int], ...]]] = []
        for leaf, required in requirements:
            found = definitions.comparison(leaf)
            if found is None or found[2]:
                continue
            values = values_where(found[0], required == found[1])
            assert values is not None
            register, width, intervals = values
            edges = tuple(
                edge
                for edge, others in edge_values.get((register, width), ())
                if edge[0] != info.block and disjoint(intervals, others)
            )
            if edges:
                candidates.append((leaf, edges))
        if candidates:
            correlated[info.block] = tuple(candidates)
    return correlated
