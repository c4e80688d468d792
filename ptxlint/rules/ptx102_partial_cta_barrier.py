"""## What it does
Reports an aligned CTA barrier (`bar.sync`, `bar.arrive`, `bar.red`, `barrier.sync.aligned`, …)
that may be reached by only part of a warp, and one without a thread count that may be reached
by only part of the CTA: its guard, or a branch it sits under, varies between the threads that
must arrive.

## Why is this bad?
An aligned barrier must be executed by every participating thread at the same instruction. If
some threads skip it, the barrier waits for arrivals that never come (a hang) or completes with
the wrong set of threads, and shared-memory data races follow. The classic source is
`if (threadIdx.x < n) __syncthreads();`.

Every thread arriving is not enough: a warp-specialised kernel whose roles each call
`__syncthreads()` in their own branch has the whole CTA meet at two copies of `bar.sync 0`.
The ISA requires the threads that meet at an aligned barrier to execute the same instruction
(NVIDIA's `compute-sanitizer --tool synccheck` reports it as a divergent barrier). The finding
then names the copy the other warps wait at, and the fix is one barrier after the branches join,
or the non-aligned `barrier.sync`.

## Example
```ptx
.version 9.0
.target sm_90a
.address_size 64
.visible .entry kernel(.param .u32 n, .param .u64 out)
{
	.reg .pred %p<2>;
	.reg .b32 %r<3>;
	.reg .b64 %rd<2>;
	ld.param.u32 %r1, [n];
	ld.param.u64 %rd1, [out];
	mov.u32 %r2, %tid.x;
	setp.ge.u32 %p1, %r2, %r1;
	@%p1 bra SKIP;
	bar.sync 0;
SKIP:
	st.global.u32 [%rd1], %r2;
	ret;
}
```

## Use instead
Reach the barrier with every thread, at the join point of the branch:
```ptx
.version 9.0
.target sm_90a
.address_size 64
.visible .entry kernel(.param .u32 n, .param .u64 out)
{
	.reg .pred %p<2>;
	.reg .b32 %r<3>;
	.reg .b64 %rd<2>;
	ld.param.u32 %r1, [n];
	ld.param.u64 %rd1, [out];
	mov.u32 %r2, %tid.x;
	setp.ge.u32 %p1, %r2, %r1;
	@%p1 bra SKIP;
SKIP:
	bar.sync 0;
	st.global.u32 [%rd1], %r2;
	ret;
}
```

## Exceptions
A barrier with a thread count (`bar.sync 1, 128`) under control that is uniform within each warp
but not across the CTA is the warp-specialisation idiom; it is reported by the off-by-default
PTX103 instead. The non-aligned `barrier.sync` may legally be reached from different places and
is not reported. Threads that exited before the barrier, through a guarded `exit` or a branch to
one, are not waited for: the ISA releases a barrier that only exited threads hold up, so
`if (i >= n) return; __syncthreads();` is not reported.

Comparisons of one register with constants are related: when a branch can split the threads only
if a CTA-uniform comparison in its condition holds (`!(n <u LIMIT && warp == 0)` needs
`n <u LIMIT`), an edge guarded by a contradicting comparison of the same register (`n <s 0`) is
taken by no thread while it splits them, and the split threads meet again where the remaining
paths do (Triton's jump-threaded prologues).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Iterator

from ptxlint.context import ModuleContext
from ptxlint.diagnostics import Diagnostic, Label, Severity
from ptxlint.lazy_imports import lazy_module
from ptxlint.rules.base import Rule
from ptxlint.rules.convergence_messages import (
    barrier_help,
    call_labels,
    cause_labels,
    cause_phrase,
    first_per_cause,
    subject,
)

convergence = lazy_module("ptxlint.analyses.convergence")
lane_sets = lazy_module("ptxlint.analyses.threads.lane_sets")
tid_fields = lazy_module("ptxlint.analyses.threads.tid_fields")

if TYPE_CHECKING:
    from ptxlint.analyses.barriers import BarrierMeetings, Meeting
    from ptxlint.analyses.uniformity import Divergence


def check(context: ModuleContext) -> Iterable[Diagnostic]:
    return first_per_cause(_candidates(context), lambda site, execution: _report(context, site, execution))


def _candidates(context: ModuleContext) -> Iterator[tuple[convergence.Site, Divergence]]:
    for site in context.result("convergence"):
        requirement = site.requirement
        if not requirement.barrier or not requirement.aligned:
            continue
        # Whole warps that branch around a barrier with a thread count are the warp-specialisation
        # idiom (PTX103's question); around one without a count, they are missing arrivals.
        cause = convergence.execution_cause(
            site, lambda divergence: divergence.level == tid_fields.Level.THREAD or not requirement.thread_count
        )
        if cause is not None:
            yield site, cause


def _report(context: ModuleContext, site: convergence.Site, execution: Divergence) -> Diagnostic:
    labels = call_labels(site) + cause_labels(execution)
    help = barrier_help(site, execution)
    meeting = _met_apart(context, site, execution)
    if meeting is not None:
        # Every thread may arrive, each role at its own copy: the `.aligned` rule is what breaks.
        there, line = lane_sets.ranges(meeting.warps_there), meeting.other.instruction.span.line
        message = (
            f"{subject(site)} is waited on here by warps {lane_sets.ranges(meeting.warps_here)} and on line {line} by warps "
            f"{there}: the threads that meet at one aligned barrier must execute the same instruction"
        )
        labels = [Label(meeting.other.instruction.span, f"warps {there} wait at this copy"), *labels]
        help = (
            "let every warp execute one barrier after the role branches join, or use the non-aligned "
            "`barrier.sync`, which threads may reach at different instructions"
        )
    elif execution.level == tid_fields.Level.THREAD:
        message = f"{subject(site)} may be reached by only part of a warp: {cause_phrase(execution)}"
    else:
        message = f"{subject(site)} may be reached by only part of the CTA, and it has no thread count: {cause_phrase(execution)}"
    return RULE.diagnostic(site.instruction.span, message, labels=labels, help=help)


def _met_apart(context: ModuleContext, site: convergence.Site, execution: Divergence) -> Meeting | None:
    """The other copy of the barrier that the rest of the CTA waits at in the same phase, when
    whole warps split between the two."""
    if site.via is not None or execution.level == tid_fields.Level.THREAD or site.requirement.thread_count:
        return None
    meetings: BarrierMeetings = context.result("barrier_meetings", site.function.function)
    return next(iter(meetings.apart(site.index)), None)


RULE = Rule(
    code="PTX102",
    name="partial-cta-barrier",
    severity=Severity.ERROR,
    summary="An aligned CTA barrier that only part of the participating threads may reach",
    docs=__doc__ or "",
    check=check,
    requires=("convergence", "barrier_meetings"),
    tags=("correctness", "convergence"),
    precision="high",
)
