"""The collective sites of a module with the uniformity facts at each: what the convergence
rules (PTX101–PTX105) read (their shared wording lives beside them, in
``rules/convergence_messages.py``).

A *site* is a collective instruction, or a call to a function that reaches one (the call must
then satisfy the collective's requirement, and is where the finding goes).
"""

from __future__ import annotations

from typing import Callable, Iterator, Sequence

from typing import TYPE_CHECKING

from ptxlint import ir
from ptxlint.analyses.threads.tid_fields import Level
from ptxlint.context import ModuleContext
from ptxlint.isa.aligned import COLLECTIVE_BASES, Collective, Scope
from ptxlint.isa.barriers import barrier_name
from ptxlint.passes import Describe, Pass
from ptxlint.records import record
from ptxlint.source import Span

if TYPE_CHECKING:
    from ptxlint.analyses.registers import Registers
    # Only types: the uniformity package is loaded when the pass first needs its result, so a
    # module without collectives never loads it.
    from ptxlint.analyses.uniformity import CalledCollective, Divergence, FunctionUniformity, InstructionFacts, ModuleUniformity


@record(slots=True)
class Site:
    """A collective, or a call reaching one, with its uniformity facts."""

    function: FunctionUniformity
    index: int
    instruction: ir.Instruction
    requirement: Collective
    facts: InstructionFacts
    via: CalledCollective | None  # set when the site is a call reaching the collective
    # A membermask collective's mask, when it is a constant: written in the instruction, or in
    # the one `mov` that writes its register (nvcc's `mov.u32 %r7, -1;` before the shuffle),
    # which ``mask_set_at`` then points at.
    mask: int | None = None
    mask_set_at: Span | None = None

    @property
    def name(self) -> str:
        """The collective's opcode as written (`tcgen05.ld.sync.aligned.32x32b.x2.b32`)."""
        target = self.via.instruction if self.via is not None else self.instruction
        return target.opcode.text

    @property
    def short_name(self) -> str:
        """The operation without its type and shape modifiers (`tcgen05.ld`, `bar.sync`)."""
        target = self.via.instruction if self.via is not None else self.instruction
        return short_opcode(target.opcode)


def short_opcode(opcode: ir.Opcode) -> str:
    """The operation without its type and shape modifiers: a barrier as
    :func:`~ptxlint.isa.barriers.barrier_name` names it, else the base and first modifier."""
    name = barrier_name(opcode.base, opcode.modifiers)
    if name is not None:
        return name
    first = opcode.modifiers[0] if opcode.modifiers else ""
    return f"{opcode.base}.{first}" if first else opcode.base


def _sites(context: ModuleContext) -> tuple[Site, ...]:
    """Every reachable collective and every call reaching one, in file order."""
    if not any(
        instruction.opcode.base in COLLECTIVE_BASES for function in context.module.functions for instruction in function.instructions
    ):
        return ()  # nothing to analyse: not even the uniformity pass is loaded
    return tuple(sites_in(context.result("uniformity"), lambda function: context.result("registers", function)))


def sites_in(result: ModuleUniformity, registers_of: Callable[[ir.Function], Registers]) -> Iterator[Site]:
    """The sites of a uniformity result, function by function, in instruction order; each
    function's registers (``registers_of``) resolve membermasks held in a register."""
    from ptxlint.analyses.uniformity import iter_function_facts

    for analysed in iter_function_facts(result):
        instructions = analysed.function.instructions
        found: list[Site] = []
        for index, requirement in analysed.collectives.items():
            facts = analysed.facts.get(index)
            if facts is not None:
                mask: tuple[int | None, Span | None] = (None, None)
                if requirement.membermask is not None:
                    mask = _constant_mask(instructions[index], requirement.membermask, analysed.function, registers_of)
                found.append(Site(analysed, index, instructions[index], requirement, facts, None, *mask))
        for index, reached in analysed.called.items():
            facts = analysed.facts.get(index)
            if facts is None:
                continue
            for collective in reached:
                found.append(Site(analysed, index, instructions[index], collective.requirement, facts, collective))
        found.sort(key=lambda site: site.index)
        yield from found


def scope_level(scope: Scope) -> Level:
    """The least uniform control a collective of this scope tolerates."""
    return {Scope.WARP: Level.WARP, Scope.WARPGROUP: Level.WARPGROUP, Scope.CTA: Level.CTA}[scope]


def reported(divergence: Divergence, scope: Scope) -> bool:
    """Whether a divergence breaks a collective of ``scope``. A warpgroup collective is reported
    under warp-level control only when the split between the warps of a warpgroup is proven
    (``Divergence.proven``); "warp-uniform, not proven warpgroup-uniform" is accepted."""
    if divergence.level <= scope_level(scope):
        return False
    if scope == Scope.WARPGROUP and divergence.level == Level.WARP:
        return divergence.proven
    return True


def execution_cause(site: Site, breaks: Callable[[Divergence], bool]) -> Divergence | None:
    """Why ``site`` may run with part of its threads, for the rules about divergent control
    (PTX101, PTX102): its guard or the enclosing branch, when ``breaks`` says that divergence
    matters to the collective. Threads that left through an exit earlier on the path, by a guarded
    `exit` or by a branch to one, are PTX104's (:func:`exit_cause`)."""
    execution = site.facts.execution
    return execution if execution is not None and breaks(execution) else None


def exit_cause(site: Site, tolerated: Scope) -> Divergence | None:
    """The first exit before ``site`` that some threads of its ``tolerated`` scope may have taken
    while others go on to it: a guarded `exit` (kernel `ret`) executed by part of them (kind
    ``exit``), or a branch that sends part of them to one (``exit-branch``: what nvcc emits for
    `if (i >= n) return;`). Both shapes are the same bug, so they are one rule's."""
    return next((mark for mark in site.facts.exits if reported(mark, tolerated)), None)


@record(slots=True)
class LeftOut:
    """Lanes a membermask collective waits for that never execute it: in warp ``warp``, the
    ``missing`` lanes its constant ``mask`` names, while the ``present`` lanes may get there."""

    warp: int
    mask: int
    missing: int
    present: int


def lanes_left_out(site: Site, sites: Sequence[Site]) -> LeftOut | None:
    """For a membermask collective (`shfl.sync`, `bar.warp.sync`, …) with a constant mask: the
    first warp that may execute it while lanes its mask names never can (the exact thread sets of
    the uniformity analysis rule them out). None when that is not proven: the mask is not a
    constant, the lanes are not known, some thread may have exited before it (exited lanes drop
    out of the wait), or an instance with the same opcode and mask elsewhere in the function
    (``sites``) may be executed by missing lanes and by none of the present ones: the other arm
    of the branch, which they may meet at on sm_70 and later."""
    lanes, existing, mask = site.facts.lanes, site.facts.warp_lanes, site.mask
    if site.via is not None or lanes is None or existing is None or mask is None or site.facts.exits:
        return None
    for warp, present in enumerate(lanes):
        missing = mask & existing[warp] & ~present  # lanes a partial warp lacks never run at all
        if present and missing and not _met_elsewhere(site, sites, warp, present, missing):
            return LeftOut(warp, mask, missing, present)
    return None


def split_by_bound(site: Site, sites: Sequence[Site]) -> Divergence | None:
    """For a membermask collective whose constant mask names the whole warp: the guard or branch
    it runs under that compares the thread index with a bound no constant fixes (`if (i < n)`,
    :class:`~ptxlint.analyses.threads.tid_fields.TidBound`), which leaves the lanes past the bound
    out of it whenever the bound falls inside a warp. None when there is none, when some thread
    may have exited before it, or when an instance with the same opcode and mask runs under the
    same guard or branch (in its other arm, where the lanes past the bound may meet it)."""
    execution = site.facts.execution
    if site.via is not None or site.mask != _LANES or execution is None or not execution.bounded or site.facts.exits:
        return None
    if execution.kind not in ("branch", "guard"):
        return None
    side = _side(site, execution)
    for other in _matching_instances(site, sites):
        cause = other.facts.execution
        if cause is None or cause.kind != execution.kind:
            continue
        if execution.kind == "guard" and cause.subject == execution.subject:
            return None  # `@%p shfl …; @!%p shfl …`
        if execution.kind == "branch" and cause.index == execution.index and _side(other, cause) not in (None, side):
            return None  # the other arm of the same branch
    return execution


def _side(site: Site, branch: Divergence) -> int | None:
    """The successor of ``branch``'s block that dominates ``site`` (the arm it is in), if one does."""
    graph = site.function.cfg
    block = graph.block_of(site.index)
    return next((arm for arm in graph.successors(graph.block_of(branch.index)) if graph.dominates(arm, block)), None)


@record(slots=True)
class Excluded:
    """Lanes that execute a membermask collective although its constant ``mask`` leaves them
    out: the ``lanes`` of warp ``warp``. ``assumed`` is true when the kernel does not declare its
    block size (`.reqntid`, `.maxntid`), so that those lanes exist only because blocks are taken
    to be whole warps: a kernel launched with fewer threads has no such lanes."""

    warp: int
    mask: int
    lanes: int
    assumed: bool = False


def lanes_outside_mask(site: Site) -> Excluded | None:
    """For a membermask collective with a constant mask that whole warps execute (no guard or
    branch on the way splits a warp, and no thread may have exited before it): the first warp
    with lanes the mask leaves out. Each of them executes it, which the ISA leaves undefined
    (CUTLASS's `__shfl_sync(0x1f, threadIdx.x / 32, 0)`, fixed for Hopper). None when not proven."""
    lanes, mask, execution = site.facts.lanes, site.mask, site.facts.execution
    if site.via is not None or lanes is None or mask is None or site.facts.exits:
        return None
    if execution is not None and execution.level == Level.THREAD:
        return None
    for warp, present in enumerate(lanes):
        outside = present & ~mask
        if outside:
            function = site.function.function
            assumed = function.directive(".reqntid") is None and function.directive(".maxntid") is None
            return Excluded(warp, mask, outside, assumed)
    return None


def _constant_mask(
    instruction: ir.Instruction, position: int, function: ir.Function, registers_of: Callable[[ir.Function], Registers]
) -> tuple[int | None, Span | None]:
    """The value of a membermask operand when it is a constant, and the `mov` that set it."""
    registers = registers_of(function)
    constant = registers.constant(instruction.operands[position], instruction.scope)
    if constant is None:
        return None, None
    set_at = registers.instructions[constant.set_by[0]].span if constant.set_by else None
    return constant.value & _LANES, set_at


def _met_elsewhere(site: Site, sites: Sequence[Site], warp: int, present: int, missing: int) -> bool:
    for other in _matching_instances(site, sites):
        lanes = other.facts.lanes
        if lanes is None or (lanes[warp] & missing and not lanes[warp] & present):
            return True
    return False


def _matching_instances(site: Site, sites: Sequence[Site]) -> Iterator[Site]:
    """The other instances in ``site``'s function that its lanes may meet at instead (sm_70 and
    later): the same opcode and qualifiers, and the same mask (or one not known)."""
    opcode = site.instruction.opcode.text
    for other in sites:
        if other is site or other.via is not None or other.function is not site.function or other.instruction.opcode.text != opcode:
            continue
        if other.mask is None or other.mask == site.mask:
            yield other


_LANES = (1 << 32) - 1


def _describe_sites(sites: tuple[Site, ...], function: ir.Function) -> Describe | None:
    """At each collective (or call reaching one): what it is and the scope that must execute it."""
    here = {site.index: site for site in sites if site.function.function is function}
    if not here:
        return None

    def describe(index: int, instruction: ir.Instruction) -> str:
        site = here.get(index)
        if site is None:
            return ""
        aligned = " aligned" if site.requirement.aligned else ""
        via = f" via {site.via.function}" if site.via is not None else ""
        return f"{site.short_name} needs {site.requirement.scope.noun}{aligned}{via}"

    return describe


PASSES = (
    Pass(
        "convergence",
        "the collectives (and calls reaching one) with the uniformity facts at each",
        _sites,
        requires=("uniformity", "registers"),
        printer=_describe_sites,
    ),
)
