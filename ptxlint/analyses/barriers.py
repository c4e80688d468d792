"""The CTA barriers of a function: each `bar`/`barrier` instruction's operation, and its barrier id
and thread count where they are constants. What the named-barrier rules (PTX103, PTX106) read."""

from __future__ import annotations

from dataclasses import dataclass

from ptxlint.analyses.launch import WARP_SIZE
from ptxlint.analyses.registers import Registers
from ptxlint.context import ModuleContext
from ptxlint.ir import Function, Immediate, Instruction, Operand, Register
from ptxlint.passes import Describe, Pass

_OPERATIONS = ("sync", "arrive", "red")
_WAITS = frozenset({"sync", "red"})
BARRIER_IDS = 16  # barriers 0..15 per CTA

#: A use's thread count when it has no count operand: every thread of the CTA.
CTA = "cta"
#: A use's thread count when it is not a constant whole number of warps.
UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class BarrierUse:
    """One CTA barrier instruction: what it does, on which barrier, with how many threads."""

    index: int
    instruction: Instruction
    operation: str  # sync, arrive or red
    barrier: int | None  # None: not a constant (or out of range)
    count: int | str  # a constant, CTA or UNKNOWN

    @property
    def waits(self) -> bool:
        """`sync` and `red` wait for the barrier to complete; `arrive` does not."""
        return self.operation in _WAITS

    @property
    def aligned(self) -> bool:
        """`bar.*` is `barrier.*.aligned`: every thread of a warp must execute the same one."""
        return self.instruction.opcode.base == "bar" or "aligned" in self.instruction.opcode.modifiers

    @property
    def name(self) -> str:
        opcode = self.instruction.opcode
        cta = ".cta" if "cta" in opcode.modifiers else ""
        return f"{opcode.base}{cta}.{self.operation}"


def barrier_operands(instruction: Instruction) -> tuple[str, Operand, Operand | None] | None:
    """For a CTA barrier (`bar{.cta}.op a{, b}`, `barrier{.cta}.op{.aligned} a{, b}`, `bar.red`
    with its destination first and predicate last): its operation, its id operand and its count
    operand (None when it has none). None for anything else (`bar.warp.sync`, `barrier.cluster`)."""
    opcode = instruction.opcode
    if opcode.base not in ("bar", "barrier"):
        return None
    modifiers = opcode.modifiers
    if "warp" in modifiers or "cluster" in modifiers:
        return None
    operation = next((modifier for modifier in modifiers if modifier in _OPERATIONS), None)
    if operation is None:
        return None
    operands = instruction.operands
    first = instruction.destination_count
    last = len(operands) - (1 if operation == "red" else 0)
    if last <= first:
        return None
    return operation, operands[first], operands[first + 1] if last - first >= 2 else None


def _constant(operand: Operand, function: Function, names: Registers, scope: int) -> int | None:
    """An integer immediate, or a register (read at ``scope``) whose every definition is an
    unguarded `mov` of the same integer immediate."""
    if type(operand) is Immediate:
        return operand.value if type(operand.value) is int else None
    if type(operand) is not Register:
        return None
    values = set()
    for index in names.writers.get(names.key(operand.name, scope), ()):
        definition = function.instructions[index]
        if definition.opcode.base != "mov" or definition.guard is not None or len(definition.operands) != 2:
            return None
        source = definition.operands[1]
        if type(source) is not Immediate or type(source.value) is not int:
            return None
        values.add(source.value)
    return values.pop() if len(values) == 1 else None


def _barrier_uses(context: ModuleContext, function: Function) -> tuple[BarrierUse, ...]:
    found = []
    names: Registers | None = None
    for index, instruction in enumerate(function.instructions):
        if instruction.opcode.base not in ("bar", "barrier"):
            continue
        parts = barrier_operands(instruction)
        if parts is None:
            continue
        if names is None:
            names = context.result("registers", function)
        operation, identifier, count_operand = parts
        barrier = _constant(identifier, function, names, instruction.scope)
        if barrier is not None and not 0 <= barrier < BARRIER_IDS:
            barrier = None
        count: int | str
        if count_operand is None:
            count = CTA
        else:
            value = _constant(count_operand, function, names, instruction.scope)
            # A count that is not a whole number of warps is PTX405's (ptxas rejects it).
            count = value if value is not None and value > 0 and value % WARP_SIZE == 0 else UNKNOWN
        found.append(BarrierUse(index, instruction, operation, barrier, count))
    return tuple(found)


def _describe_uses(uses: tuple[BarrierUse, ...], function: Function) -> Describe | None:
    """``sync 1 256`` on each CTA barrier: operation, barrier id and count (``?`` where they are
    not constants, ``cta`` for every thread)."""
    by_index = {use.index: use for use in uses}
    if not by_index:
        return None

    def describe(index: int, instruction: Instruction) -> str:
        use = by_index.get(index)
        if use is None:
            return ""
        barrier = "?" if use.barrier is None else str(use.barrier)
        count = "?" if use.count == UNKNOWN else str(use.count)
        return f"{use.operation} {barrier} {count}"

    return describe


PASSES = (
    Pass(
        "barriers",
        "each CTA barrier's operation, and its barrier id and thread count where they are constants",
        _barrier_uses,
        per_function=True,
        requires=("registers",),
        printer=_describe_uses,
    ),
)
