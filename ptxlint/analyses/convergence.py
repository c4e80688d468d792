"""What the convergence rules (PTX101–PTX105) share: the collective sites of a module with the
uniformity facts at each, and the wording of causes and labels.

A *site* is a collective instruction, or a call to a function that reaches one (the call must
then satisfy the collective's requirement, and is where the finding goes).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Iterable, Iterator

from ptxlint import ir
from ptxlint.analyses.lanes import Level
from ptxlint.analyses.uniformity import (
    CalledCollective,
    Divergence,
    FunctionUniformity,
    InstructionFacts,
    iter_function_facts,
    module_uniformity,
)
from ptxlint.context import ModuleContext
from ptxlint.diagnostics import Diagnostic, Label
from ptxlint.isa.aligned import Collective, Scope


@dataclass(frozen=True, slots=True)
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
    first = opcode.modifiers[0] if opcode.modifiers else ""
    if opcode.base in ("bar", "barrier") and first in ("cta", "cluster") and len(opcode.modifiers) > 1:
        return f"{opcode.base}.{first}.{opcode.modifiers[1]}"
    return f"{opcode.base}.{first}" if first else opcode.base


def sites(context: ModuleContext) -> Iterator[Site]:
    """Every reachable collective and every call reaching one, in file order."""
    for analysed in iter_function_facts(module_uniformity(context)):
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
    (PTX101, PTX102): the guard or enclosing branch, else a branch earlier on the path that sent
    the other threads to an exit (they never arrive, yet none of the threads here passed an exit,
    which is PTX104's case). ``breaks`` says which divergences matter to the collective."""
    execution = site.facts.execution
    if execution is not None and breaks(execution):
        return execution
    return next((mark for mark in site.facts.exits if mark.kind == "exit-branch" and breaks(mark)), None)


def variation(level: Level) -> str:
    """How a condition at ``level`` varies, as a phrase ("varies within a warp")."""
    return {
        Level.THREAD: "varies within a warp",
        Level.WARP: "differs between the warps of a warpgroup",
        Level.WARPGROUP: "differs between warpgroups",
        Level.CTA: "is uniform",
    }[level]


def cause_phrase(divergence: Divergence) -> str:
    """"its guard `%p1` varies within a warp" / "the branch on `%p2` … varies within a warp"."""
    if divergence.kind == "guard":
        return f"its guard `{divergence.subject}` {variation(divergence.level)}"
    if divergence.kind == "exit-branch":
        return (
            f"it is past a branch on `{divergence.subject}`, which {variation(divergence.level)}, "
            "that sends the other threads to an exit"
        )
    if divergence.kind == "paths":
        return f"the branches on the way (such as the one on `{divergence.subject}`) let only some warps reach it"
    return f"it is inside a branch on `{divergence.subject}`, which {variation(divergence.level)}"


def cause_labels(divergence: Divergence) -> list[Label]:
    """The guard, branch or exit, and the divergent source behind its condition."""
    if divergence.kind == "guard":
        labels = [Label(divergence.span, f"guard `{divergence.subject}` {variation(divergence.level)}")]
    elif divergence.kind == "branch":
        labels = [Label(divergence.span, f"this branch on `{divergence.subject}` {variation(divergence.level)}")]
    elif divergence.kind == "exit-branch":
        labels = [Label(divergence.span, f"this branch on `{divergence.subject}` {variation(divergence.level)} and leads to an exit")]
    elif divergence.kind == "paths":
        reach = f" ({divergence.origin.message})" if divergence.origin is not None else ""
        return [Label(divergence.span, f"the paths through this branch and those before it bring whole warps{reach}")]
    else:
        labels = [Label(divergence.span, f"threads may exit here ({variation(divergence.level)})")]
    if divergence.origin is not None and divergence.origin.span != divergence.span:
        labels.append(Label(divergence.origin.span, divergence.origin.message))
    return labels


def call_labels(site: Site) -> list[Label]:
    if site.via is None:
        return []
    return [Label(site.via.instruction.span, f"`{short_opcode(site.via.instruction.opcode)}` in `{site.via.function}` is reached from this call")]


def subject(site: Site) -> str:
    """What the message is about: the collective, or the call that reaches it."""
    if site.via is None:
        return f"`{site.short_name}`"
    return f"this call reaches `{site.short_name}` (in `{site.via.function}`), which"


def first_per_cause(
    candidates: Iterable[tuple[Site, Divergence]], report: Callable[[Site, Divergence], Diagnostic]
) -> Iterator[Diagnostic]:
    """One finding per cause (a guard, branch or exit) and function, at the first collective it
    affects; every further collective the same cause reaches is named by a label of its own, so a
    terminal reader sees them and a review bot can annotate each (SARIF related locations)."""
    groups: dict[tuple, list[tuple[Site, Divergence]]] = {}
    for site, divergence in candidates:
        key = (id(site.function), divergence.kind, divergence.index if divergence.kind != "guard" else site.index)
        groups.setdefault(key, []).append((site, divergence))
    for members in groups.values():
        site, divergence = members[0]
        diagnostic = report(site, divergence)
        others = list({member.index: member for member, _ in members if member.index != site.index}.values())
        if others:
            labels = tuple(
                Label(other.instruction.span, f"{subject_phrase(other)} is affected the same way", also_affected=True)
                for other in others
            )
            plural = "s" if len(others) > 1 else ""
            note = f"{len(others)} more collective{plural} after it {'are' if len(others) > 1 else 'is'} affected the same way"
            diagnostic = replace(diagnostic, labels=diagnostic.labels + labels, notes=diagnostic.notes + (note,))
        yield diagnostic


def subject_phrase(site: Site) -> str:
    """A label's name for a site: "`bar.sync`", or "this call (reaching `bar.sync`)"."""
    if site.via is None:
        return f"`{site.short_name}`"
    return f"this call (reaching `{site.short_name}`)"
