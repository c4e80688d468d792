"""## What it does
Reports a warp-aligned instruction, a warpgroup-aligned one, or a barrier without a thread count
that may run after some threads of its warp (warpgroup) exited: a guarded `exit` or kernel `ret`
on the path to it, or a branch that sends some of them to one.

## Why is this bad?
Exited threads never arrive. A warp-aligned instruction then runs with part of the warp, which is
undefined behaviour, and a barrier waits for threads that are gone. The usual source is a
guarded `exit` at the top of a kernel, or the branch nvcc emits for `if (threadIdx.x >= n)
return;` (`@%p bra $L__exit; … $L__exit: ret;`), followed by a barrier or tensor-core code.

## Example
```ptx
.version 9.0
.target sm_90a
.address_size 64
.visible .entry kernel(.param .u32 n)
{
	.reg .pred %p<2>;
	.reg .b32 %r<3>;
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %tid.x;
	setp.ge.u32 %p1, %r2, %r1;
	@%p1 exit;
	bar.sync 0;
	ret;
}
```

## Use instead
Keep every thread alive until the collective and skip only the work:
```ptx
.version 9.0
.target sm_90a
.address_size 64
.visible .entry kernel(.param .u32 n)
{
	.reg .pred %p<2>;
	.reg .b32 %r<3>;
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %tid.x;
	setp.ge.u32 %p1, %r2, %r1;
	bar.sync 0;
	@%p1 exit;
	ret;
}
```

## Exceptions
The exit may be written either way, a guarded `exit` or a branch around one: the bug and the
rule are the same. An exit taken by whole warps (its condition is warp-uniform) does not affect warp-aligned
instructions of the remaining warps, and is not reported for them. `ret` from a `.func` returns
to the caller and `trap` ends the whole grid; neither is an exit of part of a warp. Barriers with
a thread count are only waited on by the threads counted, so they are not reported either.
For warpgroup-aligned instructions (`wgmma.*`, `setmaxnreg`), an exit taken by whole warps is
reported only when its condition provably splits a warpgroup (`warp == 1`, `%tid.x >= 64`), as
in PTX101: a warp-uniform condition that is not proven to split one (a scheduler result reduced
across the warp, a loaded flag) is accepted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Iterator

from ptxlint.context import ModuleContext
from ptxlint.diagnostics import Diagnostic, Severity
from ptxlint.lazy_imports import lazy_module
from ptxlint.rules.base import Rule
from ptxlint.rules.convergence_messages import call_labels, cause_labels, exit_help, first_per_cause, subject, variation

aligned = lazy_module("ptxlint.isa.aligned")
convergence = lazy_module("ptxlint.analyses.convergence")

if TYPE_CHECKING:
    from ptxlint.analyses.uniformity import Divergence


def check(context: ModuleContext) -> Iterable[Diagnostic]:
    return first_per_cause(_candidates(context), _report)


def _tolerated(site: convergence.Site) -> aligned.Scope | None:
    """The scope whose exits the site tolerates when uniform over it (whole warps may leave a CTA
    barrier), or None when exits do not matter to it."""
    requirement = site.requirement
    if requirement.barrier:
        return None if requirement.thread_count else aligned.Scope.WARP
    if not requirement.aligned:
        return None
    return requirement.scope


def _candidates(context: ModuleContext) -> Iterator[tuple[convergence.Site, Divergence]]:
    for site in context.result("convergence"):
        tolerated = _tolerated(site)
        if tolerated is None:
            continue
        cause = convergence.exit_cause(site, tolerated)
        if cause is not None:
            yield site, cause


def _report(site: convergence.Site, exit_mark: Divergence) -> Diagnostic:
    scope = "the CTA" if site.requirement.scope == aligned.Scope.CTA else f"its {site.requirement.scope.noun}"
    if exit_mark.kind == "exit-branch":
        where = f"the branch at line {exit_mark.span.line} sends threads to an exit and"
    else:
        where = f"the exit at line {exit_mark.span.line}"
    message = (
        f"{subject(site)} may run after some threads of {scope} exited: "
        f"{where} depends on `{exit_mark.subject}`, which {variation(exit_mark.level)}"
    )
    return RULE.diagnostic(
        site.instruction.span, message, labels=call_labels(site) + cause_labels(exit_mark), help=exit_help(site, exit_mark)
    )


RULE = Rule(
    code="PTX104",
    name="exit-before-collective",
    severity=Severity.ERROR,
    summary="A collective that may run after part of its warp or CTA exited",
    docs=__doc__ or "",
    check=check,
    requires=("convergence",),
    tags=("correctness", "convergence"),
    precision="high",
)
