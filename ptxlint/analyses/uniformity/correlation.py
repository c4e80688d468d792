"""Branch-condition correlation: when a branch splits the threads only if some CTA-uniform
comparison in its condition holds, the edges guarded by a contradicting comparison of the same
register cannot be taken meanwhile (the second `if (warp == 0)` after the first one failed), and
the threads it split meet again earlier than its post-dominator says."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Sequence, overload

from ptxlint import cfg as cfg_module
from ptxlint import ir
from ptxlint.analyses.uniformity.registers import RegisterNames
from ptxlint.isa.comparisons import MIRRORED, NEGATED, relation_of
from ptxlint.isa.types import integer_types

if TYPE_CHECKING:
    from ptxlint.analyses.uniformity.branches import BranchInfo

# `setp.lt.s32 p, r, 4` on a register written once: (register key, comparison, constant, signed, width).
Comparison = tuple[str, str, int, bool, int]
# Per branch block: (a comparison's predicate key, which must be CTA-uniform at run time, the
# edges (source block, target block) its value makes infeasible).
Correlated = dict[int, tuple[tuple[str, tuple[tuple[int, int], ...]], ...]]

def correlated_branches(
    function: ir.Function, graph: cfg_module.ControlFlowGraph, names: RegisterNames, branches: dict[int, BranchInfo],
    visited: Sequence[int],
) -> Correlated:
    """Branches whose splitting the threads makes some other edges infeasible: the condition is
    `and`/`or`/`not` of comparisons, a comparison operand that is CTA-uniform must then have one
    value (`%p12 = !(%p5 && warp == 0)` splits threads only when `%p5` is true), and an edge
    guarded by a comparison of the same register with a constant may contradict it (`%p5 = %r4
    <u 2147483520` true, the edge taken when `%r4 <s 0`). Per branch block: (the comparison's
    predicate key, which must be CTA-uniform at run time, the edges it makes infeasible)."""
    instructions = function.instructions
    definitions: dict[str, int] = {}
    repeated = names.written_more_than_once
    for index in visited:  # the definitions of every register a branch condition reads
        instruction = instructions[index]
        for operand in instruction.destinations:
            for register in ir.registers_in(operand):
                key = names.key(register.name, instruction.scope)
                if key not in repeated:
                    definitions[key] = index
    # The constraint each edge of a branch on a comparison puts on the compared register.
    edge_constraints: dict[tuple[str, int], list[tuple[tuple[int, int], list[tuple[int, int]]]]] = {}
    for info in branches.values():
        instruction = info.instruction
        guard = instruction.guard
        if guard is None or instruction.opcode.base != "bra" or type(guard.predicate) is not ir.Register:
            continue
        found = _comparison_of(guard.predicate, instruction.scope, names, definitions, instructions)
        if found is None:
            continue
        comparison, flipped = found
        for successor in info.live | {info.taken}:
            if successor == graph.exit:
                continue
            truth = (successor == info.taken) ^ guard.negated ^ flipped
            register, width, intervals = _constraint(comparison, truth)
            edge_constraints.setdefault((register, width), []).append(((info.block, successor), intervals))
    # Many branches on one register (a loop nest on one condition): relating them all would be
    # quadratic; leave them unrelated.
    edge_constraints = {key: edges for key, edges in edge_constraints.items() if len(edges) <= _MAX_RELATED_EDGES}
    if not edge_constraints:
        return {}
    correlated: Correlated = {}
    for info in branches.values():
        guard = info.instruction.guard
        if guard is None or type(guard.predicate) is not ir.Register:
            continue
        requirements: list[tuple[str, bool]] = []
        key = names.key(guard.predicate.name, info.instruction.scope)
        _requirements(key, True, True, names, definitions, instructions, requirements, 0)
        if not requirements:
            continue
        candidates: list[tuple[str, tuple[tuple[int, int], ...]]] = []
        for leaf, required in requirements:
            comparison = _comparison_of_key(leaf, names, definitions, instructions)
            if comparison is None:
                continue
            register, width, intervals = _constraint(comparison, required)
            edges = tuple(
                edge
                for edge, others in edge_constraints.get((register, width), ())
                if edge[0] != info.block and _disjoint(intervals, others)
            )
            if edges:
                candidates.append((leaf, edges))
        if candidates:
            correlated[info.block] = tuple(candidates)
    return correlated


def _requirements(
    key: str, not_all_false: bool, not_all_true: bool, names: RegisterNames, definitions: dict[str, int],
    instructions: tuple[ir.Instruction, ...], found: list[tuple[str, bool]], depth: int, top: bool = True,
) -> None:
    """The operands of the `and`/`or`/`not` tree defining predicate ``key`` that must have one
    value in every thread when they are CTA-uniform, given that ``key`` is not false in every
    thread (``not_all_false``) and/or not true in every thread (``not_all_true``)."""
    index = definitions.get(key)
    if index is None or depth > 8:
        return
    instruction = instructions[index]
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
        _requirements(names.key(register.name, instruction.scope), falsehood, truth, names, definitions, instructions, found, depth + 1, still_top)


def _comparison_of(
    predicate: ir.Register, scope: int, names: RegisterNames, definitions: dict[str, int], instructions: tuple[ir.Instruction, ...]
) -> tuple[Comparison, bool] | None:
    """The comparison defining a predicate through `not`/`mov` (and whether it is negated)."""
    return _comparison_of_key(names.key(predicate.name, scope), names, definitions, instructions, with_flip=True)


@overload
def _comparison_of_key(
    key: str, names: RegisterNames, definitions: dict[str, int], instructions: tuple[ir.Instruction, ...],
    with_flip: Literal[False] = False,
) -> Comparison | None: ...


@overload
def _comparison_of_key(
    key: str, names: RegisterNames, definitions: dict[str, int], instructions: tuple[ir.Instruction, ...],
    with_flip: Literal[True],
) -> tuple[Comparison, bool] | None: ...


def _comparison_of_key(
    key: str, names: RegisterNames, definitions: dict[str, int], instructions: tuple[ir.Instruction, ...], with_flip: bool = False
) -> Comparison | tuple[Comparison, bool] | None:
    flipped = False
    for _ in range(8):
        index = definitions.get(key)
        if index is None:
            return None
        instruction = instructions[index]
        base = instruction.opcode.base
        if base in ("not", "mov") and instruction.opcode.has("pred") and len(instruction.sources) == 1:
            operand = instruction.sources[0]
            if type(operand) is not ir.Register:
                return None
            flipped ^= base == "not"
            key = names.key(operand.name, instruction.scope)
            continue
        comparison = _comparison(instruction, names, definitions)
        if comparison is None:
            return None
        if with_flip:
            return comparison, flipped
        return comparison if not flipped else None
    return None


_MAX_RELATED_EDGES = 64


def _comparison(instruction: ir.Instruction, names: RegisterNames, definitions: dict[str, int]) -> Comparison | None:
    """`setp.cmp.type p, r, constant` on a register written once: (register key, comparison,
    constant, signed, width), or None."""
    opcode = instruction.opcode
    if opcode.base != "setp" or len(instruction.sources) != 2 or len(instruction.destinations) != 1:
        return None
    if type(instruction.destinations[0]) is not ir.Register:
        return None
    relation = relation_of(opcode.modifiers)
    types = integer_types(opcode.modifiers)
    if relation is None or len(types) != 1:
        return None
    comparison = relation.order
    left, right = instruction.sources
    if type(left) is ir.Immediate and type(right) is ir.Register:
        left, right = right, left
        comparison = MIRRORED[comparison]
    if type(left) is not ir.Register or type(right) is not ir.Immediate or not isinstance(right.value, int):
        return None
    key = names.key(left.name, instruction.scope)
    if key not in definitions:
        return None
    width, signed = types[0]
    signed = signed and not relation.unsigned
    return key, comparison, right.value, signed, width


def _constraint(comparison: Comparison, truth: bool) -> tuple[str, int, list[tuple[int, int]]]:
    """The register's values (as unsigned ``width``-bit numbers) in which the comparison has the
    given truth: up to two intervals."""
    key, operation, constant, signed, width = comparison
    if not truth:
        operation = NEGATED[operation]
    modulus = 1 << width
    constant &= modulus - 1
    if signed:
        low, high = -(modulus >> 1), (modulus >> 1) - 1
        if constant > high:
            constant -= modulus
    else:
        low, high = 0, modulus - 1
    spans = {
        "lt": [(low, constant - 1)],
        "le": [(low, constant)],
        "gt": [(constant + 1, high)],
        "ge": [(constant, high)],
        "eq": [(constant, constant)],
        "ne": [(low, constant - 1), (constant + 1, high)],
    }[operation]
    intervals = []
    for first, last in spans:
        first, last = max(first, low), min(last, high)
        if first > last:
            continue
        if first < 0:  # signed negatives are the top half of the unsigned range
            intervals.append((first + modulus, min(last, -1) + modulus))
            first = 0
        if first <= last:
            intervals.append((first, last))
    return key, width, intervals


def _disjoint(first: list[tuple[int, int]], second: list[tuple[int, int]]) -> bool:
    return all(a_last < b_first or b_last < a_first for a_first, a_last in first for b_first, b_last in second)
