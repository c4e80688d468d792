"""## What it does
Reports a warp-aligned instruction or a warpgroup-aligned one that may run after some threads of
its warp (warpgroup) exited: a guarded `exit` or kernel `ret` on the path to it, or a branch that
sends some of them to one.

## Why is this bad?
Exited threads never arrive. A warp-aligned instruction (`mma.sync`, `ldmatrix`, `wmma.*`,
`tcgen05.*`) then runs with part of the warp, which is undefined behaviour: the missing lanes'
fragments are garbage, or the warp hangs. The usual source is a guarded `exit` at the top of a
kernel, or the branch nvcc emits for `if (threadIdx.x >= n) return;` (`@%p bra $L__exit; …
$L__exit: ret;`), followed by tensor-core code.

## Example
```ptx
.version 9.0
.target sm_90a
.address_size 64
.visible .entry kernel(.param .u32 n)
{
	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	.shared .align 16 .b8 tile[512];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %tid.x;
	setp.ge.u32 %p1, %r2, %r1;
	@%p1 exit;
	mov.u32 %r3, tile;
	ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r2}, [%r3];
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
	.reg .b32 %r<4>;
	.shared .align 16 .b8 tile[512];
	ld.param.u32 %r1, [n];
	mov.u32 %r2, %tid.x;
	setp.ge.u32 %p1, %r2, %r1;
	mov.u32 %r3, tile;
	ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r2}, [%r3];
	@%p1 exit;
	ret;
}
```

## Exceptions
The exit may be written either way, a guarded `exit` or a branch around one: the bug and the
rule are the same. An exit taken by whole warps (its condition is warp-uniform) does not affect
warp-aligned instructions of the remaining warps, and is not reported for them. `ret` from a
`.func` returns to the caller and `trap` ends the whole grid; neither is an exit of part of a
warp. CTA barriers are not reported, with or without a thread count: the ISA releases a barrier
that only exited threads hold up, and `bar.sync` waits only for the non-exited threads of each
warp, so `if (i >= n) return; __syncthreads();` is well defined (compute-sanitizer's synccheck
agrees). For warpgroup-aligned instructions (`wgmma.*`, `setmaxnreg`), an exit taken by whole
warps is reported only when its condition provably splits a warpgroup (`warp == 1`,
`%tid.x >= 64`), as in PTX101: a warp-uniform condition that is not proven to split one (a
scheduler result reduced across the warp, a loaded flag) is accepted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Iterator

from ptxlint.context import ModuleContext
from ptxlint.diagnostics import Diagnostic, Severity
from ptxlint.lazy_imports import lazy_module
from ptxlint.rules.base import Rule
from ptxlint.rules.convergence_messages import call_labels, cause_labels, condition_variation, exit_help, first_per_cause, subject

aligned = lazy_module("ptxlint.isa.aligned")
convergence = lazy_module("ptxlint.analyses.convergence")

if TYPE_CHECKING:
    from ptxlint.analyses.uniformity import Divergence


def check(context: ModuleContext) -> Iterable[Diagnostic]:
    return first_per_cause(_candidates(context), _report)


def _tolerated(site: convergence.Site) -> aligned.Scope | None:
    """The scope whose exits the site tolerates when uniform over it, or None when exits do not
    matter to it: a CTA barrier waits only for threads that have not exited."""
    requirement = site.requirement
    if requirement.barrier or not requirement.aligned:
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
    scope = f"its {site.requirement.scope.noun}"
    warp_scoped = site.requirement.scope == aligned.Scope.WARP
    if exit_mark.kind == "exit-branch":
        where = f"the branch at line {exit_mark.span.line} sends threads to an exit and"
    else:
        where = f"the exit at line {exit_mark.span.line}"
    message = (
        f"{subject(site)} may run after some threads of {scope} exited: "
        f"{where} depends on `{exit_mark.subject}`, which {condition_variation(exit_mark, warp_scoped)}"
    )
    return RULE.diagnostic(
        site.instruction.span, message, labels=call_labels(site) + cause_labels(exit_mark, warp_scoped), help=exit_help(site, exit_mark)
    )


RULE = Rule(
    code="PTX104",
    name="exit-before-collective",
    severity=Severity.ERROR,
    summary="A warp- or warpgroup-aligned instruction that may run after part of its warp or warpgroup exited",
    docs=__doc__ or "",
    check=check,
    requires=("convergence",),
    tags=("correctness", "convergence"),
    precision="high",
)
