"""## What it does
Reports a `shfl.sync`, `vote.sync`, `match.sync`, `redux.sync`, `elect.sync` or `bar.warp.sync`
that every lane of a warp executes while its constant membermask leaves some of them out:
`__shfl_sync(0x1f, threadIdx.x / 32, 0)` run by the whole warp, a 16-lane reduction with the mask
`0xffff` run by all 32 lanes.

## Why is this bad?
The membermask names the lanes taking part, and it must name every lane that executes the
instruction: "the behavior is undefined if the executing thread is not in the membermask" (PTX
ISA, `shfl.sync`, `vote.sync`, `match.sync`, `redux.sync`, `elect.sync`, `bar.warp.sync`). Older
GPUs forgave it; Hopper does not reliably: CUTLASS replaced its `__shfl_sync(0x1f, …)` warp-index
broadcast with `0xffffffff` to make its kernels work on H100, and the same idiom lives on in code
that copied it. `ptxas` accepts it.

## Example
```ptx
.version 8.6
.target sm_90a
.address_size 64
.visible .entry kernel(.param .u64 out)
{
	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	shfl.sync.idx.b32 %r3|%p1, %r2, 0, 31, 31;
	st.global.u32 [%rd1], %r3;
	ret;
}
```

## Use instead
Name every lane that executes it (`0xffffffff` for the whole warp; the lanes of each group for
a sub-warp reduction, computed from the lane index):
```ptx
.version 8.6
.target sm_90a
.address_size 64
.visible .entry kernel(.param .u64 out)
{
	.reg .pred %p<2>;
	.reg .b32 %r<4>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	shfl.sync.idx.b32 %r3|%p1, %r2, 0, 31, -1;
	st.global.u32 [%rd1], %r3;
	ret;
}
```

## Exceptions
Only instructions whole warps execute are judged: under a guard or branch that may split a warp
(the lanes that get there are then what PTX107 looks at), after an exit some threads may have
taken, or inside a `.func`, the executing lanes are not known for certain. A mask computed at run
time (CUB's logical-warp masks, `__activemask()`) is not judged; one the kernel writes with a
single `mov` of a constant, as nvcc does, is. Lanes are told from `%tid.x` under the block
assumption of PTX101 (`assume-1d-block`). A block is taken to be whole warps unless the kernel
declares fewer threads: a kernel written for blocks smaller than a warp (a reduction instantiated
for 16 threads with mask `0xffff`) declares it with `__launch_bounds__(16)` (`.maxntid 16`), and
is then not reported; the finding says when it rests on this.
"""

from __future__ import annotations

from typing import Iterable

from ptxlint.context import ModuleContext
from ptxlint.diagnostics import Diagnostic, Severity
from ptxlint.lazy_imports import lazy_module
from ptxlint.rules.base import Rule
from ptxlint.rules.convergence_messages import lane_phrase, mask_labels, membermask_name

convergence = lazy_module("ptxlint.analyses.convergence")


def check(context: ModuleContext) -> Iterable[Diagnostic]:
    for site in context.result("convergence"):
        if site.requirement.membermask is None:
            continue
        excluded = convergence.lanes_outside_mask(site)
        if excluded is None:
            continue
        name = membermask_name(site)
        warp = f" of warp {excluded.warp}" if excluded.warp else ""
        message = (
            f"`{name}` runs in {lane_phrase(excluded.lanes)}{warp}, which its membermask "
            f"`{excluded.mask:#010x}` leaves out: a lane outside the mask must not execute it"
        )
        help = (
            f"name every lane that executes `{name}` in the mask (`0xffffffff` for the whole warp, CUDA's "
            "`__shfl_sync(0xffffffff, …)`), or compute each group's mask from the lane index for a sub-warp operation"
        )
        notes = (
            (
                "the kernel does not declare its block size, so it is taken to be whole warps; a kernel launched "
                "with fewer threads than the mask's lanes says so with `__launch_bounds__(N)` (`.maxntid N`)",
            )
            if excluded.assumed
            else ()
        )
        yield RULE.diagnostic(site.instruction.span, message, labels=mask_labels(site), help=help, notes=notes)


RULE = Rule(
    code="PTX108",
    name="membermask-excludes-executing-lane",
    severity=Severity.ERROR,
    summary="A shuffle, vote or warp barrier executed by lanes its constant membermask leaves out",
    docs=__doc__ or "",
    check=check,
    requires=("convergence",),
    tags=("correctness", "convergence"),
    precision="high",
)
