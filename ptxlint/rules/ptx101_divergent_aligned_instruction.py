"""## What it does
Reports a warp-aligned instruction (`tcgen05.ld/st/wait/alloc/dealloc`, `wmma.*`, `mma.sync`,
`ldmatrix`, `stmatrix`, `barrier.cluster.*.aligned`, …) that may execute with only part of its
warp, and a warpgroup-aligned one (`wgmma.*`, `setmaxnreg`) that may execute with only part of
its warpgroup: its guard, or a branch it sits under, is not uniform over that scope. When the
instruction is in a `.func`, the call made under such control is reported.

## Why is this bad?
`.aligned` means every thread of the warp (warpgroup) must execute this very instruction
together. Executed by part of them, the behaviour is undefined: hangs, garbage in the lanes that
did not take part, or corrupted tensor memory. `ptxas` accepts it silently, and compilers can
create it (jump threading clones a collective into both arms of a divergent branch).

## Example
```ptx
.version 9.0
.target sm_100a
.address_size 64
.visible .entry kernel(.param .u32 taddr)
{
	.reg .pred %p<2>;
	.reg .b32 %r<6>;
	ld.param.u32 %r1, [taddr];
	mov.u32 %r2, %tid.x;
	setp.lt.u32 %p1, %r2, 16;
	@%p1 tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r3, %r4}, [%r1];
	tcgen05.wait::ld.sync.aligned;
	ret;
}
```

## Use instead
Branch on something uniform over the warp, such as the warp index, and let every lane of the
chosen warp execute the instruction:
```ptx
.version 9.0
.target sm_100a
.address_size 64
.visible .entry kernel(.param .u32 taddr)
{
	.reg .pred %p<2>;
	.reg .b32 %r<6>;
	ld.param.u32 %r1, [taddr];
	mov.u32 %r2, %tid.x;
	setp.lt.u32 %p1, %r2, 32;
	@%p1 tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r3, %r4}, [%r1];
	tcgen05.wait::ld.sync.aligned;
	ret;
}
```

## Exceptions
Uniformity is derived from `%tid.x` arithmetic (`>> 5`, `& ~31`, `< 128`), which holds only for
one-dimensional blocks or x extents that are multiples of 32: set `assume-1d-block = false` for
kernels launched with other shapes, or state the shape with `.reqntid`. Under the same
assumption blocks are made of whole warps, so `%ntid.x` is taken to be a multiple of 32: that is
what makes the global warp index `(%ctaid.x * %ntid.x + %tid.x) / 32` warp-uniform (a partial
last warp would break every warp collective anyway). It also means that no warp spans two rows of
the block: `%tid.y` and `%tid.z` are warp-uniform (`if (threadIdx.y == 0)` in a `dim3(32, 4)`
block picks whole warps), and the linear thread index `%tid.y * %ntid.x + %tid.x` (cooperative
groups' `thread_rank()`) is 32 × warp + lane like `%tid.x` in one dimension. With `.reqntid`, the
shape it gives decides instead (rows of 16 threads split warps). Loads from a uniform address are taken to be
uniform, as LLVM does. A collective reached after some threads exited (a guarded `exit`, or a
branch to one) is PTX104, not this rule.

Branches that split a warp are fine when the paths through them bring whole warps back together:
nvcc jump-threads `if (tid == 0) {…} if (warp == 0) {alloc}` so that thread 0 and threads 1..31
reach the alloc along different paths. ptxlint follows the exact `%tid.x` sets of such branch
conditions and accepts a collective that every lane of a warp reaches, and a value set on both
paths (the predicate that later guards the `dealloc`) as warp-uniform. A loop that only part of a
warp goes round again defeats this, and the collective is reported.

Warpgroup-aligned instructions (`wgmma.*`, `setmaxnreg`) need warp-uniform control (a divergence
inside a warp is always reported), but a split between the warps of a warpgroup is reported only
when it is proven: the condition is an exact function of the warp index that takes some warps of a
warpgroup and not the others (`(warp & 3) == 0`, `warp == 1`, `%tid.x >> 5` compared with a value
that is not a multiple of 4), or the paths bring some warps of a warpgroup and certainly not the
others. A condition that is only known to be warp-uniform (it comes through a join of several
paths, a load, a warp vote or reduction, a role computed through selects) is accepted. CUTLASS's
warp-specialised kernels compute warp roles through such chains (`role = warp < 4 ? warp : …`,
each role branch with its own `setmaxnreg`), which the analysis cannot always prove
warpgroup-uniform, and they run correctly; the strict check stays for proven splits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Iterator

from ptxlint.context import ModuleContext
from ptxlint.diagnostics import Diagnostic, Severity
from ptxlint.lazy_imports import lazy_module
from ptxlint.rules.base import Rule
from ptxlint.rules.convergence_messages import (
    call_labels,
    cause_labels,
    cause_phrase,
    divergence_help,
    first_per_cause,
    subject,
)

aligned = lazy_module("ptxlint.isa.aligned")
convergence = lazy_module("ptxlint.analyses.convergence")

if TYPE_CHECKING:
    from ptxlint.analyses.uniformity import Divergence


def check(context: ModuleContext) -> Iterable[Diagnostic]:
    return first_per_cause(_candidates(context), _report)


def _candidates(context: ModuleContext) -> Iterator[tuple[convergence.Site, Divergence]]:
    for site in context.result("convergence"):
        requirement = site.requirement
        if not requirement.aligned or requirement.scope == aligned.Scope.CTA:
            continue
        cause = convergence.execution_cause(site, lambda divergence: convergence.reported(divergence, requirement.scope))
        if cause is not None:
            yield site, cause


def _report(site: convergence.Site, execution: Divergence) -> Diagnostic:
    scope = site.requirement.scope.noun
    warp_scoped = site.requirement.scope == aligned.Scope.WARP
    message = f"{subject(site)} may run with only part of a {scope}: {cause_phrase(execution, warp_scoped)}"
    return RULE.diagnostic(
        site.instruction.span, message, labels=call_labels(site) + cause_labels(execution, warp_scoped), help=divergence_help(site, execution)
    )


RULE = Rule(
    code="PTX101",
    name="divergent-aligned-instruction",
    severity=Severity.ERROR,
    summary="A warp- or warpgroup-aligned instruction that may run with only part of its warp or warpgroup",
    docs=__doc__ or "",
    check=check,
    requires=("convergence",),
    tags=("correctness", "convergence"),
    precision="high",
)
