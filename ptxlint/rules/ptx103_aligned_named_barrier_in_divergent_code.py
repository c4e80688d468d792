"""## What it does
Reports a named barrier waited on at two different instructions by different warps that meet
there: `bar.sync 1, 256` in the producer's branch and another `bar.sync 1, 256` in the consumer's,
or two groups of warps each waiting on barrier 1 at their own copy of it.

## Why is this bad?
An aligned barrier (`bar.sync`, `bar.red`, `barrier.sync.aligned`) must be executed by the
threads that meet at it at the same instruction. Hardware counts arrivals per barrier id, so two
copies of the barrier in different role branches complete together, but which copy's threads
are released with which is not defined: NVIDIA's runtime checker (`compute-sanitizer --tool
synccheck`) reports "Barrier error detected. Divergent thread(s) in block" for both shapes. It is
also a sign of a barrier id reused by two groups for different purposes.

## Example
```ptx
.version 9.0
.target sm_90a
.address_size 64
.visible .entry kernel()
.reqntid 256, 1, 1
{
	.reg .pred %p<2>;
	.reg .b32 %r<3>;
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 7;
	setp.ne.u32 %p1, %r2, 0;
	@%p1 bra CONSUMER;
	bar.sync 1, 256;
	bra.uni DONE;
CONSUMER:
	bar.sync 1, 256;
DONE:
	ret;
}
```

## Use instead
The side that only signals arrives (`bar.arrive`), the side that needs the data waits: the
producer/consumer form of a named barrier, which may sit at different instructions:
```ptx
.version 9.0
.target sm_90a
.address_size 64
.visible .entry kernel()
.reqntid 256, 1, 1
{
	.reg .pred %p<2>;
	.reg .b32 %r<3>;
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 7;
	setp.ne.u32 %p1, %r2, 0;
	@%p1 bra CONSUMER;
	bar.arrive 1, 256;
	bra.uni DONE;
CONSUMER:
	bar.sync 1, 256;
DONE:
	ret;
}
```

## Exceptions
Reported only when it is proven: the barrier id and the thread count are constants, the two
instructions wait (`bar.arrive` may be anywhere), the warps that can reach one never reach the
other (branches on the warp index, from `.reqntid` or the one-dimensional block assumption), and
no path leads from one to the other (then the same or other threads use the id again in a later
phase, which is legal). A counted barrier executed by exactly its participants at one
instruction, the warp-specialised idiom, is correct and never reported. The full-CTA barrier
(`bar.sync 0` with no count) executed through different copies is PTX102's; exits before a
barrier are PTX104's. Barriers in `.func`s are judged only where the warps that run them are known.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Iterator

from ptxlint.context import ModuleContext
from ptxlint.diagnostics import Diagnostic, Label, Severity
from ptxlint.ir import Function
from ptxlint.lazy_imports import lazy_module
from ptxlint.rules.base import Rule

lane_sets = lazy_module("ptxlint.analyses.threads.lane_sets")

if TYPE_CHECKING:
    from ptxlint.analyses.barriers import BarrierMeetings, BarrierUse, Meeting


def check(context: ModuleContext) -> Iterable[Diagnostic]:
    for function in context.module.functions:
        if function.has_body:
            yield from _check_function(context, function)


def _check_function(context: ModuleContext, function: Function) -> Iterator[Diagnostic]:
    meetings: BarrierMeetings = context.result("barrier_meetings", function)
    for use in context.result("barriers", function):
        if type(use.count) is not int:
            continue  # the full-CTA barrier met apart is PTX102's
        earlier = next((meeting for meeting in meetings.apart(use.index) if meeting.other.index < use.index), None)
        if earlier is not None:
            yield _report(use, earlier)


def _report(later: BarrierUse, meeting: Meeting) -> Diagnostic:
    earlier, barrier = meeting.other, later.barrier
    here, there = lane_sets.ranges(meeting.warps_here), lane_sets.ranges(meeting.warps_there)
    return RULE.diagnostic(
        later.instruction.span,
        f"barrier {barrier} is waited on here by warps {here} and on line {earlier.instruction.span.line} by warps "
        f"{there}: threads that meet at one barrier must execute the same instruction",
        labels=(Label(earlier.instruction.span, f"warps {there} wait on barrier {barrier} here"),),
        help=f"let every participant execute one `{later.name} {barrier}, {later.count}` after the branches join, "
        "or make the side that only signals `bar.arrive`",
    )


RULE = Rule(
    code="PTX103",
    name="aligned-named-barrier-in-divergent-code",
    severity=Severity.ERROR,
    summary="A named barrier waited on at different instructions by the warps that meet at it",
    docs=__doc__ or "",
    check=check,
    requires=("barriers", "barrier_meetings"),
    tags=("correctness", "convergence"),
    precision="high",
)
