"""Which instructions at most one thread of the CTA executes: those one warp reaches (the
`roles` pass) and past a test that leaves one lane of it — a branch or guarded exit on
`%laneid` or `%tid.x & 31` against a constant (`if (laneid() > 0) return;`), or on an
`elect.sync` predicate (`if (elect_one_sync())`). What such a thread writes, only it wrote: the
async-proxy rules let its own later fence order its own writes across the arrives and barriers
it passes (a controller thread that records, arrives, then fences and copies).

Only shapes that pin a lane by dominance are recognised (the block after the test, and the
blocks it dominates); anything else is assumed to run in several threads, which only ever
reports more.
"""

from __future__ import annotations

from ptxlint.analyses.registers import Registers
from ptxlint.cfg import ControlFlowGraph
from ptxlint.context import ModuleContext
from ptxlint.ir import Function, Immediate, Instruction, Register, SpecialRegister
from ptxlint.passes import Describe, Pass

_WARP_LANES = 31


class LoneThreads:
    """The instructions of one function at most one thread of the CTA executes."""

    def __init__(self, indices: frozenset[int]) -> None:
        self._indices = indices

    def alone(self, index: int) -> bool:
        return index in self._indices


def _run(context: ModuleContext, function: Function) -> LoneThreads:
    instructions = function.instructions
    tests = [index for index, instruction in enumerate(instructions) if _pins_lane_test(instruction)]
    if not tests:
        return LoneThreads(frozenset())
    graph: ControlFlowGraph = context.result("cfg", function)
    registers: Registers = context.result("registers", function)
    pinned: set[int] = set()  # blocks every path to which passed a lane test
    for index in tests:
        instruction = instructions[index]
        guard = instruction.guard
        if guard is None or type(guard.predicate) is not Register:
            continue
        holds_for_one = _one_lane_when(registers.key(guard.predicate.name, instruction.scope), registers)
        if holds_for_one is None:
            continue
        block = graph.block_of(index)
        if graph.blocks[block].end - 1 != index:
            continue  # not the instruction that ends its block
        fallthrough = block + 1
        if instruction.opcode.base == "bra":
            # Taken where the guard holds: the one lane goes there when the guard's truth is its.
            goes_one = holds_for_one is (not guard.negated)
            sides = [successor for successor in graph.successors(block) if (successor != fallthrough) is goes_one]
        else:  # a guarded exit: the lanes for which the guard is false stay
            sides = [fallthrough] if holds_for_one is guard.negated and fallthrough in graph.successors(block) else []
        for side in sides:
            if tuple(graph.predecessors(side)) == (block,):
                pinned.update(other for other in graph.reverse_post_order if graph.dominates(side, other))
    roles = context.result("roles", function)
    alone: set[int] = set()
    for index, instruction in enumerate(instructions):
        if graph.block_of(index) not in pinned:
            continue
        warps = roles.warps_at(index, instruction)
        if warps and warps & (warps - 1) == 0:
            alone.add(index)
    return LoneThreads(frozenset(alone))


def _pins_lane_test(instruction: Instruction) -> bool:
    base = instruction.opcode.base
    return instruction.guard is not None and base in ("bra", "ret", "exit")


def _definition(key: str, registers: Registers) -> Instruction | None:
    found = registers.writers.get(key, ())
    return registers.instructions[found[0]] if len(found) == 1 else None


def _one_lane_when(predicate: str, registers: Registers) -> bool | None:
    """The value of ``predicate`` for which only one lane of a warp can have it: True for an
    `elect.sync` result and for `lane == c`, False for `lane != c`; None when it pins nothing."""
    definition = _definition(predicate, registers)
    if definition is None:
        return None
    base, modifiers = definition.opcode.base, definition.opcode.modifiers
    if base == "elect":
        return True
    if base != "setp" or not modifiers or modifiers[0] not in ("eq", "ne") or len(definition.sources) != 2:
        return None
    left, right = definition.sources
    if type(right) is Register and type(left) is Immediate:
        left, right = right, left
    if type(left) is not Register or type(right) is not Immediate or not _is_lane(registers.key(left.name, definition.scope), registers):
        return None
    return modifiers[0] == "eq"


def _is_lane(key: str, registers: Registers) -> bool:
    """Whether register ``name`` holds the lane index: `%laneid`, or `%tid.x & 31` (the block's x
    extent a multiple of 32 is what makes that the lane: nvcc's `threadIdx.x % 32`)."""
    definition = _definition(key, registers)
    if definition is None:
        return False
    base, sources = definition.opcode.base, definition.sources
    if base == "mov" and len(sources) == 1:
        source = sources[0]
        if type(source) is SpecialRegister:
            return source.name == "%laneid"
        return type(source) is Register and _is_lane(registers.key(source.name, definition.scope), registers)
    if base == "and" and len(sources) == 2:
        value, mask = sources
        if type(value) is Immediate:
            value, mask = mask, value
        return type(mask) is Immediate and mask.value == _WARP_LANES and type(value) is Register and _is_tid_x(registers.key(value.name, definition.scope), registers)
    return False


def _is_tid_x(key: str, registers: Registers) -> bool:
    definition = _definition(key, registers)
    if definition is None or definition.opcode.base != "mov" or len(definition.sources) != 1:
        return False
    source = definition.sources[0]
    return type(source) is SpecialRegister and source.name in ("%tid.x", "%laneid")


def _describe(lone: LoneThreads, function: Function) -> Describe:
    """``alone`` where at most one thread of the CTA executes the instruction."""
    return lambda index, instruction: "alone" if lone.alone(index) else "-"


PASSES = (
    Pass(
        "lone_threads",
        "which instructions at most one thread of the CTA executes (one warp, one lane past a lane test)",
        _run,
        per_function=True,
        requires=("cfg", "registers", "roles"),
        printer=_describe,
    ),
)
