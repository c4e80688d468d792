"""The wording the convergence rules (PTX101–PTX105) share: how a cause varies, the labels on
the guard, branch or exit and its divergent source, and one finding per cause."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Callable, Iterable, Iterator

from ptxlint.diagnostics import Diagnostic, Label
from ptxlint.lazy_imports import lazy_module

aligned = lazy_module("ptxlint.isa.aligned")
convergence = lazy_module("ptxlint.analyses.convergence")
tid_fields = lazy_module("ptxlint.analyses.threads.tid_fields")
lane_sets = lazy_module("ptxlint.analyses.threads.lane_sets")

if TYPE_CHECKING:
    from ptxlint.analyses.uniformity import Divergence


def variation(level: tid_fields.Level) -> str:
    """How a condition at ``level`` varies, as a phrase ("varies within a warp")."""
    return {
        tid_fields.Level.THREAD: "varies within a warp",
        tid_fields.Level.WARP: "differs between the warps of a warpgroup",
        tid_fields.Level.WARPGROUP: "differs between warpgroups",
        tid_fields.Level.CTA: "is uniform",
    }[level]


def condition_variation(divergence: Divergence, warp_scoped: bool = False) -> str:
    """How the condition of a guard, branch or exit varies. For a collective of one warp, a bounds
    check on the thread index says when it splits one, so that a reader can tell whether the
    kernel's launch rules that out."""
    if divergence.bounded and warp_scoped:
        return "compares the thread index with a bound that may fall inside a warp"
    return variation(divergence.level)


def cause_phrase(divergence: Divergence, warp_scoped: bool = False) -> str:
    """"its guard `%p1` varies within a warp" / "the branch on `%p2` … varies within a warp"."""
    if divergence.kind == "guard":
        return f"its guard `{divergence.subject}` {condition_variation(divergence, warp_scoped)}"
    if divergence.kind == "paths":
        return f"the branches on the way (such as the one on `{divergence.subject}`) let only some warps reach it"
    return f"it is inside a branch on `{divergence.subject}`, which {condition_variation(divergence, warp_scoped)}"


def cause_labels(divergence: Divergence, warp_scoped: bool = False) -> list[Label]:
    """The guard, branch or exit, and the divergent source behind its condition (``warp_scoped``:
    for a collective of one warp)."""
    varies = condition_variation(divergence, warp_scoped)
    if divergence.kind == "guard":
        labels = [Label(divergence.span, f"guard `{divergence.subject}` {varies}")]
    elif divergence.kind == "branch":
        labels = [Label(divergence.span, f"this branch on `{divergence.subject}` {varies}")]
    elif divergence.kind == "exit-branch":
        labels = [Label(divergence.span, f"this branch on `{divergence.subject}` leads to an exit and {varies}")]
    elif divergence.kind == "paths":
        reach = f" ({divergence.origin.message})" if divergence.origin is not None else ""
        return [Label(divergence.span, f"the paths through this branch and those before it bring whole warps{reach}")]
    else:
        labels = [Label(divergence.span, f"threads may exit here ({variation(divergence.level)})")]
    if divergence.origin is not None and divergence.origin.span != divergence.span:
        labels.append(Label(divergence.origin.span, divergence.origin.message))
    return labels


def call_labels(site: convergence.Site) -> list[Label]:
    if site.via is None:
        return []
    return [Label(site.via.instruction.span, f"`{convergence.short_opcode(site.via.instruction.opcode)}` in `{site.via.function}` is reached from this call")]


def subject(site: convergence.Site) -> str:
    """What the message is about: the collective, or the call that reaches it."""
    if site.via is None:
        return f"`{site.short_name}`"
    return f"this call reaches `{site.short_name}` (in `{site.via.function}`), which"


def first_per_cause(
    candidates: Iterable[tuple[convergence.Site, Divergence]], report: Callable[[convergence.Site, Divergence], Diagnostic]
) -> Iterator[Diagnostic]:
    """One finding per cause (a guard, branch or exit) and function, at the first collective it
    affects; every further collective the same cause reaches is named by a label of its own, so a
    terminal reader sees them and a review bot can annotate each (SARIF related locations)."""
    groups: dict[tuple, list[tuple[convergence.Site, Divergence]]] = {}
    for site, divergence in candidates:
        key = (id(site.function), divergence.kind, divergence.index if divergence.kind != "guard" else site.index)
        groups.setdefault(key, []).append((site, divergence))
    for members in groups.values():
        site, divergence = members[0]
        diagnostic = report(site, divergence)
        others = list({member.index: member for member, _ in members if member.index != site.index}.values())
        if others:
            # A line the finding already labels (PTX102's other copy of a barrier) keeps its own
            # words and is marked affected, rather than labelled twice.
            affected = {other.instruction.span for other in others}
            kept = tuple(replace(label, also_affected=True) if label.span in affected else label for label in diagnostic.labels)
            labelled = {label.span for label in kept}
            labels = tuple(
                Label(other.instruction.span, f"{subject_phrase(other)} is affected the same way", also_affected=True)
                for other in others
                if other.instruction.span not in labelled
            )
            plural = "s" if len(others) > 1 else ""
            note = f"{len(others)} more collective{plural} after it {'are' if len(others) > 1 else 'is'} affected the same way"
            diagnostic = replace(diagnostic, labels=kept + labels, notes=diagnostic.notes + (note,))
        yield diagnostic


def membermask_name(site: convergence.Site) -> str:
    """`shfl.sync`, `vote.sync`, `bar.warp.sync`: a membermask collective as CUDA programmers
    know it (PTX107, PTX108)."""
    opcode = site.instruction.opcode
    return "bar.warp.sync" if opcode.base == "bar" else f"{opcode.base}.sync"


def mask_labels(site: convergence.Site) -> list[Label]:
    """The `mov` that set a membermask collective's mask, where a register holds it."""
    if site.mask is None or site.mask_set_at is None:
        return []
    return [Label(site.mask_set_at, f"the mask `{site.mask:#010x}` is set here")]


def lane_phrase(lanes: int) -> str:
    """"lane 0" or "lanes 16-31" for a lane mask."""
    noun = "lane" if lanes & (lanes - 1) == 0 else "lanes"
    return f"{noun} {lane_sets.ranges(lanes)}"


def subject_phrase(site: convergence.Site) -> str:
    """A label's name for a site: "`bar.sync`", or "this call (reaching `bar.sync`)"."""
    if site.via is None:
        return f"`{site.short_name}`"
    return f"this call (reaching `{site.short_name}`)"


# What to do about a convergence finding, at the level of the source people write. The warp index
# computed from `threadIdx.x` is uniform in fact, but a compiler (and ptxlint) can only see that
# once it is broadcast from one lane, as CUTLASS's `canonical_warp_idx_sync()` does.
WARP_INDEX = "the warp index (`__shfl_sync(0xffffffff, threadIdx.x / 32, 0)`, CUTLASS's `canonical_warp_idx_sync()`)"
WARPGROUP_INDEX = "the warpgroup index (`__shfl_sync(0xffffffff, threadIdx.x / 128, 0)`, CUTLASS's `canonical_warp_group_idx()`)"
ONE_THREAD = "keep only the one-thread work under `elect.sync` (`cute::elect_one_sync()`)"


def divergence_help(site: convergence.Site, divergence: Divergence) -> str:
    """PTX101: how to let the whole warp (or warpgroup) execute an aligned instruction."""
    name = f"`{site.short_name}`"
    if site.requirement.scope == aligned.Scope.WARPGROUP and divergence.level != tid_fields.Level.THREAD:
        return (
            f"all four warps of a warpgroup must execute {name} together: branch on {WARPGROUP_INDEX}, "
            "not on a warp index that splits a warpgroup"
        )
    if site.requirement.scope == aligned.Scope.WARP and divergence.bounded:
        return (
            f"every lane of the warp must execute {name} (it is `.aligned`): test the bound once per warp (on the "
            "index of the warp's first lane, `i - lane < n`) and give the lanes past it neutral data; if the launch "
            "keeps the bound a multiple of 32, suppress this finding saying so"
        )
    if site.requirement.scope == aligned.Scope.WARP:
        whole, uniform = "every lane of the warp", f"a warp-uniform value such as {WARP_INDEX}"
    else:
        whole, uniform = "every thread of the warpgroup", f"a warpgroup-uniform value such as {WARPGROUP_INDEX}"
    return (
        f"{whole} must execute {name} (it is `.aligned`): move it out of the branch, or branch on {uniform} "
        f"instead of `threadIdx.x < 16`; {ONE_THREAD}"
    )


def barrier_help(site: convergence.Site, divergence: Divergence) -> str:
    """PTX102: how to let every participating thread reach a CTA barrier."""
    if divergence.level == tid_fields.Level.THREAD:
        return (
            "every thread of a warp must reach the barrier together: call `__syncthreads()` (`bar.sync 0`) after "
            "the branch joins (`if (threadIdx.x < n) { … } __syncthreads();`); to synchronise only some warps, "
            "give a named barrier their thread count (`bar.sync id, count` with an id other than 0, which "
            f"`__syncthreads()` uses; CUTLASS's `NamedBarrier::sync(count, id)`) and choose them by {WARP_INDEX}"
        )
    return (
        "a barrier without a thread count waits for every thread of the CTA: move it where all warps reach it, "
        "or give it the number of threads of the warps that do (`bar.sync id, count`, a multiple of 32, with an id "
        "other than 0, which `__syncthreads()` uses; CUTLASS's `NamedBarrier::sync(count, id)`)"
    )


def exit_help(site: convergence.Site, divergence: Divergence) -> str:
    """PTX104: how to keep threads alive until a collective that needs them."""
    name = f"`{site.short_name}`"
    uniform = {
        aligned.Scope.WARP: f"warp-uniform (a test of {WARP_INDEX})",
        aligned.Scope.WARPGROUP: f"warpgroup-uniform (a test of {WARPGROUP_INDEX})",
    }[site.requirement.scope]
    return (
        f"keep every thread that {name} needs alive until it: instead of an early `return` (or `exit`) for the "
        "threads with no work, guard the work itself (`if (i < n) { … }`) and let all threads reach the "
        f"collective; or make the exit condition {uniform}"
    )
