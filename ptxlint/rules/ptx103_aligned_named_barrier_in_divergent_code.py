"""## What it does
Reports an aligned barrier with a thread count (`bar.sync 1, 128`, `bar.arrive 2, 160`) under
control that is uniform within each warp but differs between warps: the warp-specialised
producer/consumer pattern. Off by default.

## Why is this bad?
The ISA says an aligned barrier must be executed by all threads of the CTA at the same
instruction, and calls anything else undefined; compute-sanitizer's `synccheck` reports it.
In practice, hardware counts warps arriving at a named barrier, and CUTLASS and other
warp-specialised kernels rely on exactly this (each role arrives at its own `bar.sync id, count`).
Enable this rule if you want the strict reading, for instance when you run `synccheck` in CI.

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
	bar.arrive 1, 256;
	bra.uni DONE;
CONSUMER:
	bar.sync 1, 256;
DONE:
	ret;
}
```

## Use instead
The non-aligned `barrier.sync`/`barrier.arrive`, which allow threads to arrive from different
places (slightly slower on some architectures):
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
	barrier.arrive 1, 256;
	bra.uni DONE;
CONSUMER:
	barrier.sync 1, 256;
DONE:
	ret;
}
```

## Exceptions
Control that varies within a warp is an error reported by PTX102, not this rule. The trade-off
is deliberate: this is the idiom of every warp-specialised CUTLASS kernel, and it works on all
current hardware, so the rule is off unless you ask for the strict reading.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from ptxlint.analyses.convergence import Site
from ptxlint.analyses.lanes import Level
from ptxlint.analyses.uniformity import Divergence
from ptxlint.context import ModuleContext
from ptxlint.diagnostics import Diagnostic, Severity
from ptxlint.rules.base import Rule
from ptxlint.rules.convergence_messages import call_labels, cause_labels, cause_phrase, first_per_cause, subject


def check(context: ModuleContext) -> Iterable[Diagnostic]:
    return first_per_cause(_candidates(context), _report)


def _candidates(context: ModuleContext) -> Iterator[tuple[Site, Divergence]]:
    for site in context.result("convergence"):
        requirement = site.requirement
        execution = site.facts.execution
        if not requirement.barrier or not requirement.aligned or not requirement.thread_count or execution is None:
            continue
        if Level.CTA < execution.level < Level.THREAD:
            yield site, execution


def _report(site: Site, execution: Divergence) -> Diagnostic:
    message = f"{subject(site)} is aligned but reached from warp-uniform control that differs across the CTA: {cause_phrase(execution)}"
    return RULE.diagnostic(
        site.instruction.span,
        message,
        labels=call_labels(site) + cause_labels(execution),
        help="use the non-aligned `barrier.sync`/`barrier.arrive` with the same id and count",
    )


RULE = Rule(
    code="PTX103",
    name="aligned-named-barrier-in-divergent-code",
    severity=Severity.WARNING,
    summary="An aligned barrier with a thread count inside warp-specialised (warp-uniform, CTA-varying) control",
    docs=__doc__ or "",
    check=check,
    requires=("convergence",),
    enabled_by_default=False,
    tags=("correctness", "convergence", "pedantic"),
    precision="medium",
)
