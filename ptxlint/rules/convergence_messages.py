"""The wording the convergence rules (PTX101–PTX105) share: how a cause varies, the labels on
the guard, branch or exit and its divergent source, and one finding per cause."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Callable, Iterable, Iterator

from ptxlint.analyses.convergence import Site, short_opcode
from ptxlint.analyses.lanes import Level
from ptxlint.diagnostics import Diagnostic, Label

if TYPE_CHECKING:
    from ptxlint.analyses.uniformity import Divergence


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
