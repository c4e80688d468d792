"""Which threads reach each instruction: one forward solve over the threads of the CTA, asked
which warps may execute an instruction (:meth:`ThreadReach.warps_at`) and whether at most one
thread of the CTA does (:meth:`ThreadReach.alone`).

The state is the set of threads that may be at a point, one bit per thread (warp ``w``'s lane
``l`` is bit ``32 * w + l``), and the `elect.sync` sides every path to the point passed. Each edge
out of a conditional branch keeps the threads that can take it:

- the warps for which the branch predicate, evaluated per warp by
  :mod:`ptxlint.analyses.threads.values`, can take that edge (:mod:`.branch_sides`): warp-specialised
  kernels give warps roles with branches on the warp index (`if (warp == 0)` the MMA issuer,
  `else if (warp >= 4)` the epilogue);
- the lanes a lane test lets through: `%laneid` or `%tid.x & 31` compared with a constant
  (`if (laneid() > 0) return;` leaves lane 0 of each warp);
- on the side of an `elect.sync` predicate that one lane takes (`if (elect_one_sync())`), the
  lanes are not known, but that side is remembered: a point every path to which passed it is
  reached by one lane of each warp.

The warps at a point are the projection of its threads. An instruction one warp reaches, with at
most one of its lanes or past an elect side, is executed by one thread: what such a thread
writes, only it wrote, and the async-proxy rules let its own later fence order its own writes
across the arrives and barriers it passes (a controller thread that records, arrives, then
fences and copies).

The lane sets of :mod:`.lane_sets`, which the uniformity analysis carries in its control state,
are finer (exact alternatives, the parts of a thread-varying branch that make the whole again);
the threads here are what any of those alternatives may hold.
"""

from __future__ import annotations

from typing import Mapping

from ptxlint.analyses.registers import Registers
from ptxlint.analyses.threads.branch_sides import BranchTable, all_warps, warp_list
from ptxlint.analyses.threads.lane_sets import WARP_SIZE, ranges, warps_holding, widen_lanes, widen_warps
from ptxlint.analyses.threads.values_lattice import TensorAddress, entry_for_warp
from ptxlint.analyses.threads.values import warp_count_of
from ptxlint.context import ModuleContext
from ptxlint.dataflow import Solution, solve_forward
from ptxlint.ir import Function, Immediate, Instruction, Operand, Register, SpecialRegister
from ptxlint.passes import Describe, Pass

_WARP_LANES = WARP_SIZE - 1
# What a lane condition says of a branch predicate: the lanes of each warp where it holds, or
# that one lane of each warp (which, unknown) has it.
_ELECTED = -1


# The state: the threads that may be at a point, and the `elect.sync` sides (bits by the block
# whose branch it is) every path to the point passed. A plain pair: the solver builds one per edge.
Reaching = tuple[int, int]


class ThreadsReaching:
    """Forward analysis: which threads may reach each block."""

    def __init__(self, branches: BranchTable, lane_conditions: Mapping[int, int]) -> None:
        self.branches = branches
        self.warp_count = branches.warp_count
        self.lane_conditions = lane_conditions  # block → the lane condition of its branch

    def bottom(self) -> Reaching:
        return (0, -1)

    def entry(self) -> Reaching:
        return (widen_warps(all_warps(self.warp_count)), 0)

    def join(self, first: Reaching, second: Reaching) -> Reaching:
        if first == second:
            return first
        return (first[0] | second[0], first[1] & second[1])

    def transfer(self, index: int, instruction: Instruction, state: Reaching) -> Reaching:
        return state

    def instructions_of(self, block: int) -> tuple[int, ...]:
        """No instruction changes which threads are here: only edges do."""
        return ()

    def refine(self, source: int, target: int, state: Reaching) -> Reaching:
        branch = self.branches.branch(source)
        if branch is None:
            return state
        threads, elected = state
        narrowed = threads & widen_warps(branch.warps_to(target))
        condition = self.lane_conditions.get(source)
        if condition is not None:
            holds = branch.outcome(target)
            if condition == _ELECTED:
                if holds:
                    elected |= 1 << source
            else:
                narrowed &= widen_lanes(condition if holds else ~condition & ((1 << WARP_SIZE) - 1), self.warp_count)
        if narrowed == threads and elected == state[1]:
            return state
        return (narrowed, elected)


class ThreadReach:
    """Which threads reach each instruction of a function: the warps (its guard included), whether
    at most one thread, and what a TMEM address operand is in each warp."""

    def __init__(self, branches: BranchTable, solution: Solution[Reaching], warp_count_known: bool) -> None:
        self._branches = branches
        self._solution = solution
        self._warps: dict[int, int] = {}  # block → the warps of its threads
        self.warp_count = branches.warp_count
        self.warp_count_known = warp_count_known  # from `.reqntid`/`.maxntid`, not the 32-warp maximum

    @property
    def everyone(self) -> int:
        return all_warps(self.warp_count)

    def reachable(self, index: int) -> bool:
        """Whether some warp can reach instruction ``index``'s block."""
        return self._solution.cfg.block_of(index) in self._solution.block_entry

    def warps_at(self, index: int, instruction: Instruction) -> int:
        """The warps that may execute instruction ``index`` (its own guard included)."""
        block = self._solution.cfg.block_of(index)
        mask = self._warps.get(block)
        if mask is None:
            reaching = self._solution.block_entry.get(block)
            mask = self._warps[block] = 0 if reaching is None else warps_holding(reaching[0], self.warp_count)
        if instruction.guard is not None:
            mask &= self._branches.guard_warps(index, instruction)[not instruction.guard.negated]
        return mask

    def alone(self, index: int) -> bool:
        """Whether at most one thread of the CTA executes instruction ``index``: one warp, and in
        it one lane, or the lane an `elect.sync` side let through."""
        warps = self.warps_at(index, self._solution.cfg.function.instructions[index])
        if not warps or warps & (warps - 1):
            return False
        threads, elected = self._solution.block_entry[self._solution.cfg.block_of(index)]
        lanes = threads >> (WARP_SIZE * (warps.bit_length() - 1)) & ((1 << WARP_SIZE) - 1)
        return elected != 0 or lanes & (lanes - 1) == 0

    def tensor_addresses(self, index: int, operand: Operand, warps: int) -> list[tuple[int, TensorAddress]]:
        """For each of ``warps``, in order, the TMEM address ``operand`` of instruction
        ``index`` holds when that warp executes it, where the value analysis knows one."""
        value = self._branches.values.value_before(index, operand)
        found = []
        for warp in warp_list(warps):
            entry = entry_for_warp(value, warp)
            if type(entry) is TensorAddress:
                found.append((warp, entry))
        return found


def lane_conditions(branches: BranchTable, registers: Registers) -> dict[int, int]:
    """Block → what its branch predicate says of the lanes (the lanes where it holds, or
    ``_ELECTED``), for the branches that test the lane or an `elect.sync` result. Registers are
    resolved to their declaring scope: two inline-asm blocks that each declare `.reg .pred p;`
    and elect a lane into it hold two predicates, each written once."""
    found = {}
    for block, branch in branches.conditional():
        definition = _definition(branch.predicate, registers)
        if definition is None:
            continue
        base = definition.opcode.base
        if base == "elect":
            found[block] = _ELECTED
        elif base == "setp":
            condition = _lane_comparison(definition, registers)
            if condition is not None:
                found[block] = condition
    return found


def _definition(key: str, registers: Registers) -> Instruction | None:
    found = registers.writers.get(key, ())
    return registers.instructions[found[0]] if len(found) == 1 else None


def _lane_comparison(setp: Instruction, registers: Registers) -> int | None:
    """The lanes of each warp where the `setp` ``setp`` holds: one for `lane == c`, all but one
    for `lane != c`; None when it does not compare the lane with a constant."""
    modifiers = setp.opcode.modifiers
    if not modifiers or modifiers[0] not in ("eq", "ne") or len(setp.sources) != 2:
        return None
    left, right = setp.sources
    if type(right) is Register and type(left) is Immediate:
        left, right = right, left
    if type(left) is not Register or type(right) is not Immediate or not _is_lane(registers.key(left.name, setp.scope), registers):
        return None
    if not isinstance(right.value, int) or not 0 <= right.value <= _WARP_LANES:
        return 0 if modifiers[0] == "eq" else (1 << WARP_SIZE) - 1  # no lane has that index
    lane = 1 << right.value
    return lane if modifiers[0] == "eq" else ~lane & ((1 << WARP_SIZE) - 1)


def _is_lane(key: str, registers: Registers) -> bool:
    """Whether the register ``key`` holds the lane index: `%laneid`, or `%tid.x & 31` (the
    block's x extent a multiple of 32 is what makes that the lane: nvcc's `threadIdx.x % 32`)."""
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
        return (
            type(mask) is Immediate and mask.value == _WARP_LANES and type(value) is Register
            and _is_tid_x(registers.key(value.name, definition.scope), registers)
        )
    return False


def _is_tid_x(key: str, registers: Registers) -> bool:
    definition = _definition(key, registers)
    if definition is None or definition.opcode.base != "mov" or len(definition.sources) != 1:
        return False
    source = definition.sources[0]
    return type(source) is SpecialRegister and source.name in ("%tid.x", "%laneid")


def _run(context: ModuleContext, function: Function) -> ThreadReach:
    branches = context.result("warp_branches", function)
    analysis = ThreadsReaching(branches, lane_conditions(branches, context.result("registers", function)))
    _, known = warp_count_of(context, function)
    return ThreadReach(branches, solve_forward(branches.cfg, analysis), known)


def _describe(reach: ThreadReach, function: Function) -> Describe:
    """Per instruction, the warps that may execute it (its guard included), as the
    tensor-memory rules see them: ``4-7 of 8`` (``of up to 32`` without a launch directive),
    and ``one thread`` where at most one thread of the CTA does."""
    count = f"of {reach.warp_count}" if reach.warp_count_known else f"of up to {reach.warp_count}"

    def describe(index: int, instruction: Instruction) -> str:
        if not reach.reachable(index):
            return "unreachable"
        warps = f"{ranges(reach.warps_at(index, instruction)) or 'none'} {count}"
        return f"{warps}, one thread" if reach.alone(index) else warps

    return describe


PASSES = (
    Pass(
        "roles",
        "which warps of the CTA may execute each instruction, and which instructions at most one thread executes",
        _run,
        per_function=True,
        requires=("warp_branches", "registers"),
        printer=_describe,
    ),
)
