"""## What it does
Reports a `shfl.sync`, `vote.sync`, `match.sync`, `redux.sync`, `elect.sync` or `bar.warp.sync`
whose constant membermask names lanes that never execute it, while other lanes of the same warp
do: the shuffle of a warp reduction under `if (lane < 16)` with the mask `0xffffffff`, a
`__syncwarp()` only lane 0 reaches. Also a full-mask one inside a bounds check on the thread
index (`if (i < n)`, `i = blockIdx.x * blockDim.x + threadIdx.x`): the lanes past the bound skip
it whenever the bound is not a multiple of 32.

## Why is this bad?
Each lane that executes a membermask instruction waits until every lane its mask names has
executed an instance with the same qualifiers and mask, or has exited (PTX ISA, `shfl.sync`,
`vote.sync`, `bar.warp.sync`). Lanes that skip it and go on leave the others waiting: if they
then wait at a CTA barrier for those lanes, the block deadlocks; if they execute a shuffle later,
the two are paired and exchange the wrong values; a shuffle that reads one of them gets an
undefined value. The CUDA programming model makes such a call undefined outright. `ptxas`
accepts it, and before sm_70 it often worked, because a warp ran in lockstep.

## Example
```ptx
.version 8.6
.target sm_90a
.address_size 64
.visible .entry kernel(.param .u64 out)
{
	.reg .pred %p<3>;
	.reg .b32 %r<6>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 31;
	setp.gt.u32 %p1, %r2, 15;
	@%p1 bra $L__store;
	shfl.sync.down.b32 %r3|%p2, %r1, 8, 31, -1;
	add.s32 %r1, %r1, %r3;
$L__store:
	st.global.u32 [%rd1], %r1;
	ret;
}
```

## Use instead
Name in the mask exactly the lanes that get there (`__shfl_down_sync(0x0000ffff, …)` for lanes
0–15), or let every lane execute the shuffle and keep only its use under the branch:
```ptx
.version 8.6
.target sm_90a
.address_size 64
.visible .entry kernel(.param .u64 out)
{
	.reg .pred %p<3>;
	.reg .b32 %r<6>;
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	and.b32 %r2, %r1, 31;
	setp.gt.u32 %p1, %r2, 15;
	@%p1 bra $L__store;
	shfl.sync.down.b32 %r3|%p2, %r1, 8, 31, 65535;
	add.s32 %r1, %r1, %r3;
$L__store:
	st.global.u32 [%rd1], %r1;
	ret;
}
```

## Exceptions
Lanes are reported when they are proven never to get there (the branches on the way are exact
functions of `%tid.x` or `%laneid`: `lane < 16`, `threadIdx.x == 0`), or when a full mask meets
a bounds check on the thread index: a comparison of `%tid.x` plus a CTA-uniform offset with a
CTA-uniform bound, alone or combined with warp-uniform conditions (`x < width && y < height`
with `y` from `%tid.y`). The mask must be a constant. Other branches on data (a loaded value), a
loop whose trip count differs between lanes, a mask computed at run time (`__activemask()`,
`__ballot_sync`) and a collective inside a `.func` are not judged. Lanes that
exited before it (`if (lane >= 16) return;`) drop out of the wait, so a collective some thread may
have exited before is not reported. On sm_70 and later the lanes that skip it may instead execute
another instance with the same opcode and mask (an `else` branch with a shuffle of its own): such
an instance, reached by lanes that skip this one and by none that get here, excuses it. Lanes
are told from `%tid.x` under the block assumption of PTX101 (one dimension, or an x extent that is
a multiple of 32; `assume-1d-block = false` turns the thread sets, and this rule, off for other
shapes). Lanes that execute an instance but are left out of its mask are PTX108's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Iterator

from ptxlint.context import ModuleContext
from ptxlint.diagnostics import Diagnostic, Severity
from ptxlint.lazy_imports import lazy_module
from ptxlint.rules.base import Rule
from ptxlint.rules.convergence_messages import cause_labels, first_per_cause, lane_phrase, mask_labels, membermask_name

convergence = lazy_module("ptxlint.analyses.convergence")

if TYPE_CHECKING:
    from ptxlint.analyses.uniformity import Divergence


def check(context: ModuleContext) -> Iterable[Diagnostic]:
    return first_per_cause(_candidates(context), _report)


def _candidates(context: ModuleContext) -> Iterator[tuple[convergence.Site, Divergence]]:
    sites = context.result("convergence")
    for site in sites:
        if site.requirement.membermask is None or site.facts.execution is None:
            continue
        if convergence.lanes_left_out(site, sites) is not None or convergence.split_by_bound(site, sites) is not None:
            yield site, site.facts.execution


def _report(site: convergence.Site, execution: Divergence) -> Diagnostic:
    left_out = convergence.lanes_left_out(site, [site])
    if left_out is None:
        return _report_bound(site, execution)
    name = membermask_name(site)
    warp = f" of warp {left_out.warp}" if left_out.warp else ""
    one = left_out.present & (left_out.present - 1) == 0
    message = (
        f"`{name}` waits for {lane_phrase(left_out.missing)}{warp}, which its membermask `{left_out.mask:#010x}` names "
        f"but which never execute it: only {lane_phrase(left_out.present)} {'gets' if one else 'get'} here"
    )
    suggested = left_out.mask & left_out.present
    help = (
        f"name only the lanes that get here in the mask (`{suggested:#010x}`), or execute `{name}` in "
        "every lane the mask names and keep only the use of its result under the branch; lanes that skip it must "
        "exit, or execute an instance with the same opcode and mask themselves"
    )
    return RULE.diagnostic(site.instruction.span, message, labels=cause_labels(execution, warp_scoped=True) + mask_labels(site), help=help)


def _report_bound(site: convergence.Site, execution: Divergence) -> Diagnostic:
    """The lanes past a bound on the thread index (`if (i < n)`): which ones is not known."""
    name = membermask_name(site)
    where = "its guard" if execution.kind == "guard" else f"the branch on line {execution.span.line}"
    message = (
        f"`{name}` waits for every lane of its warp (membermask `{site.mask:#010x}`), but {where} compares the "
        f"thread index with a bound (`{execution.subject}`): the lanes past it never get here whenever the bound "
        "is not a multiple of 32"
    )
    help = (
        f"execute `{name}` in every lane and keep only the use of its result under the bounds check "
        "(`v += __shfl_down_sync(0xffffffff, v, 8); if (i < n) …`), or give it the mask of the lanes that pass "
        "(`__ballot_sync(0xffffffff, i < n)`)"
    )
    return RULE.diagnostic(site.instruction.span, message, labels=cause_labels(execution, warp_scoped=True) + mask_labels(site), help=help)


RULE = Rule(
    code="PTX107",
    name="partial-membermask-collective",
    severity=Severity.ERROR,
    summary="A shuffle, vote or warp barrier whose membermask names lanes that never execute it",
    docs=__doc__ or "",
    check=check,
    requires=("convergence",),
    tags=("correctness", "convergence"),
    precision="high",
)
