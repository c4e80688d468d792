"""The collective sites of a module with the uniformity facts at each: what the convergence
rules (PTX101–PTX105) read (their shared wording lives beside them, in
``rules/convergence_messages.py``).

A *site* is a collective instruction, or a call to a function that reaches one (the call must
then satisfy the collective's requirement, and is where the finding goes).
"""

from __future__ import annotations

from typing import Callable, Iterator

from typing import TYPE_CHECKING

from ptxlint import ir
from ptxlint.analyses.threads.tid_fields import Level
from ptxlint.context import ModuleContext
from ptxlint.isa.aligned import COLLECTIVE_BASES, Collective, Scope
from ptxlint.isa.barriers import barrier_name
from ptxlint.passes import Describe, Pass
from ptxlint.records import record

if TYPE_CHECKING:
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
    return tuple(_sites_in(context.result("uniformity")))


def _sites_in(result: ModuleUniformity) -> Iterator[Site]:
    from ptxlint.analyses.uniformity import iter_function_facts

    for analysed in iter_function_facts(result):
        instructions = analysed.function.instructions
        found: list[Site] = []
        for index, requirement in analysed.collectives.items():
            facts = analysed.facts.get(index)
            if facts is not None:
                found.append(Site(analysed, index, instructions[index], requirement, facts, None))
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
        requires=("uniformity",),
        printer=_describe_sites,
    ),
)
