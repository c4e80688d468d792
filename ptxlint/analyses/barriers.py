"""The CTA barriers of a function: each `bar`/`barrier` instruction's operation, and its barrier id
and thread count where they are constants (the `barriers` pass: what PTX103 and PTX106 read);
and which of them different warps wait at in the same phase (the `barrier_meetings` pass: what
PTX102 and PTX103 read)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ptxlint.analyses.launch import WARP_SIZE
from ptxlint.analyses.registers import Registers
from ptxlint.context import ModuleContext
from ptxlint.graphs import reachable_marks
from ptxlint.ir import Function, Instruction, Operand
from ptxlint.isa.barriers import BARRIER_BASES, CtaBarrier, cta_barrier_of
from ptxlint.passes import Describe, Pass
from ptxlint.records import record

if TYPE_CHECKING:
    from ptxlint.analyses.threads.reach import ThreadReach
    from ptxlint.cfg import ControlFlowGraph

BARRIER_IDS = 16  # barriers 0..15 per CTA

#: A use's thread count when it has no count operand: every thread of the CTA.
CTA = "cta"
#: A use's thread count when it is not a constant whole number of warps.
UNKNOWN = "unknown"


@record(slots=True)
class BarrierUse:
    """One CTA barrier instruction: what it does (its form, :mod:`ptxlint.isa.barriers`), on
    which barrier, with how many threads."""

    index: int
    instruction: Instruction
    form: CtaBarrier
    barrier: int | None  # None: not a constant (or out of range)
    count: int | str  # a constant, CTA or UNKNOWN

    @property
    def operation(self) -> str:
        """sync, arrive or red."""
        return self.form.operation

    @property
    def waits(self) -> bool:
        """`sync` and `red` wait for the barrier to complete; `arrive` does not."""
        return self.form.waits

    @property
    def aligned(self) -> bool:
        """`bar.*` is `barrier.*.aligned`: every thread of a warp must execute the same one."""
        return self.form.aligned

    @property
    def name(self) -> str:
        return self.form.name

    @property
    def identifier_operand(self) -> Operand:
        """The operand naming the barrier."""
        assert self.form.identifier is not None  # the pass keeps only barriers with an id
        return self.instruction.operands[self.form.identifier]

    @property
    def count_operand(self) -> Operand | None:
        """The operand giving the thread count (None: every thread of the CTA)."""
        position = self.form.thread_count
        return None if position is None else self.instruction.operands[position]


def _barrier_uses(context: ModuleContext, function: Function) -> tuple[BarrierUse, ...]:
    found = []
    names: Registers | None = None
    for index, instruction in enumerate(function.instructions):
        if instruction.opcode.base not in BARRIER_BASES:
            continue
        form = cta_barrier_of(instruction)
        if form is None or form.identifier is None:
            continue
        if names is None:
            names = context.result("registers", function)
        identifier = names.constant(instruction.operands[form.identifier], instruction.scope)
        barrier = None if identifier is None else identifier.value
        if barrier is not None and not 0 <= barrier < BARRIER_IDS:
            barrier = None
        count: int | str
        if form.thread_count is None:
            count = CTA
        else:
            constant = names.constant(instruction.operands[form.thread_count], instruction.scope)
            value = None if constant is None else constant.value
            # A count that is not a whole number of warps is PTX405's (ptxas rejects it).
            count = value if value is not None and value > 0 and value % WARP_SIZE == 0 else UNKNOWN
        found.append(BarrierUse(index, instruction, form, barrier, count))
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


@record(slots=True)
class Meeting:
    """Another instruction of the same barrier that other warps wait at in the same phase as
    the use asked about: ``warps_here`` wait at that use, the disjoint ``warps_there`` at
    ``other``."""

    other: BarrierUse
    warps_here: int
    warps_there: int


class BarrierMeetings:
    """Which waiting, aligned uses of one barrier id different warps meet at apart: the `.aligned`
    rule is that the threads that meet at a barrier execute the same instruction, and an
    instruction on no path to the other (nor the other to it) is waited at in the same phase."""

    def __init__(self, apart: dict[int, tuple[Meeting, ...]]) -> None:
        self._apart = apart

    def apart(self, index: int) -> tuple[Meeting, ...]:
        """The other uses of the barrier waited at by the instruction at ``index`` (uses with a
        thread count meet only counted ones, a full-CTA use only full-CTA ones), in file order,
        that disjoint, non-empty sets of warps wait at in the same phase."""
        return self._apart.get(index, ())


def _barrier_meetings(context: ModuleContext, function: Function) -> BarrierMeetings:
    groups: dict[tuple[int, bool], list[BarrierUse]] = {}
    for use in context.result("barriers", function):
        if use.waits and use.aligned and use.barrier is not None and use.count != UNKNOWN:
            groups.setdefault((use.barrier, use.count == CTA), []).append(use)
    candidates = [uses for uses in groups.values() if len(uses) > 1]
    if not candidates:
        return BarrierMeetings({})
    # First the pairs no path orders (the CFG alone: a kernel's successive `__syncthreads()`
    # are all ordered), then, for those only, which warps wait at each: most functions never
    # need the roles. Each candidate use is one bit; one pass each way over the CFG gives, per
    # block, the uses it reaches and those that reach it.
    graph: ControlFlowGraph = context.result("cfg", function)
    candidates = [group for group in candidates if not _chained(group, graph)]
    if not candidates:
        return BarrierMeetings({})
    uses = [use for group in candidates for use in group]
    bit = {use.index: 1 << position for position, use in enumerate(uses)}
    marks: dict[int, int] = {}
    for use in uses:
        block = graph.block_of(use.index)
        marks[block] = marks.get(block, 0) | bit[use.index]
    nodes = range(graph.exit + 1)
    downstream = reachable_marks(nodes, graph.successors, marks)
    upstream = reachable_marks(nodes, graph.predecessors, marks)
    by_bit = {bit[use.index]: use for use in uses}
    unordered: list[tuple[BarrierUse, BarrierUse]] = []
    for group in candidates:
        earlier_uses = 0  # the bits of the group's uses before ``later``
        for later in group:
            block = graph.block_of(later.index)
            unrelated = earlier_uses & ~(downstream[block] | upstream[block])
            while unrelated:  # nearly always empty: then nothing is done per pair
                lowest = unrelated & -unrelated
                unordered.append((by_bit[lowest], later))
                unrelated ^= lowest
            earlier_uses |= bit[later.index]
    if not unordered:
        return BarrierMeetings({})
    roles: ThreadReach = context.result("roles", function)
    apart: dict[int, list[Meeting]] = {}
    for earlier, later in unordered:
        here, there = roles.warps_at(later.index, later.instruction), roles.warps_at(earlier.index, earlier.instruction)
        if not here or not there or here & there:
            continue
        apart.setdefault(later.index, []).append(Meeting(earlier, here, there))
        apart.setdefault(earlier.index, []).append(Meeting(later, there, here))
    return BarrierMeetings({index: tuple(sorted(found, key=lambda meeting: meeting.other.index)) for index, found in apart.items()})


def _chained(group: list[BarrierUse], graph: ControlFlowGraph) -> bool:
    """Whether dominance alone orders every use of ``group``: taken in reverse post-order, each
    block dominates the next or is post-dominated by it, so each use reaches the next and, by
    transitivity, every later one. The usual shape (a kernel's successive barriers), proven in
    one pass; a group it does not prove goes to the exact test."""
    order = graph.rpo_number
    blocks = [graph.block_of(use.index) for use in group]
    if any(block not in order for block in blocks):
        return False
    blocks.sort(key=order.__getitem__)
    return all(
        first == second or graph.dominates(first, second) or graph.post_dominates(second, first)
        for first, second in zip(blocks, blocks[1:])
    )


def _describe_meetings(meetings: BarrierMeetings, function: Function) -> Describe | None:
    """``apart 12`` on a barrier that other warps wait at, in the same phase, at line 12."""

    def describe(index: int, instruction: Instruction) -> str:
        lines = [str(meeting.other.instruction.span.line) for meeting in meetings.apart(index)]
        return f"apart {' '.join(lines)}" if lines else ""

    return describe


PASSES = (
    Pass(
        "barrier_meetings",
        "which instructions of one barrier different warps wait at in the same phase",
        _barrier_meetings,
        per_function=True,
        requires=("barriers", "roles", "cfg"),
        printer=_describe_meetings,
    ),
    Pass(
        "barriers",
        "each CTA barrier's operation, and its barrier id and thread count where they are constants",
        _barrier_uses,
        per_function=True,
        requires=("registers",),
        printer=_describe_uses,
    ),
)
