"""## What it does
Reports an mbarrier that the async proxy signals — a TMA or bulk copy with
`.mbarrier::complete_tx::bytes`, multicast or not — after its `mbarrier.init` with no
`fence.mbarrier_init.release.cluster` between them on some path (within the CTA, a
`fence.proxy.async` also does; multicast copies reach other CTAs and need the cluster fence).

## Why is this bad?
`mbarrier.init` is a generic-proxy write of the barrier object. The copy engine completes its
transactions on the barrier through the async proxy, which is not ordered with that write
without a fence (PTX ISA, `mbarrier.init` and "Proxies"; `fence.mbarrier_init` exists for exactly
this). Without it the first copy may signal a barrier that, to the async proxy, is not yet
initialised: lost transactions and a consumer that waits forever, or, in a cluster, a peer's
multicast landing on garbage.

## Example
```ptx
.version 8.6
.target sm_90a
.address_size 64
.extern .shared .align 1024 .b8 smem[];
.shared .align 8 .b64 full;
.visible .entry load_tile(.param .u64 tensor_map)
.reqntid 128
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<2>;
	.reg .pred %p<3>;
	ld.param.u64 %rd1, [tensor_map];
	mov.u32 %r1, %tid.x;
	setp.eq.s32 %p1, %r1, 0;
	@%p1 mbarrier.init.shared::cta.b64 [full], 1;
	bar.sync 0;
	mov.u32 %r2, 0;
	@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [full], 4096;
	@%p1 cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [%rd1, {%r2}], [full];
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [full], 0;
	@!%p2 bra WAIT;
	ret;
}
```

## Use instead
```ptx
.version 8.6
.target sm_90a
.address_size 64
.extern .shared .align 1024 .b8 smem[];
.shared .align 8 .b64 full;
.visible .entry load_tile(.param .u64 tensor_map)
.reqntid 128
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<2>;
	.reg .pred %p<3>;
	ld.param.u64 %rd1, [tensor_map];
	mov.u32 %r1, %tid.x;
	setp.eq.s32 %p1, %r1, 0;
	@%p1 mbarrier.init.shared::cta.b64 [full], 1;
	fence.mbarrier_init.release.cluster;
	bar.sync 0;
	mov.u32 %r2, 0;
	@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [full], 4096;
	@%p1 cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [%rd1, {%r2}], [full];
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [full], 0;
	@!%p2 bra WAIT;
	ret;
}
```

## Exceptions
The initialising thread and the copying thread may be different roles (a consumer thread
initialises, the producer warp copies): an `mbarrier.init` left unfenced before a barrier every
thread of the CTA meets (`bar.sync 0`, `__syncthreads()`, the cluster barrier) counts on every
path after it. Hand-offs through an mbarrier or a named barrier of some warps only are not
followed that way. Only barriers ptxlint can name are compared (a `.shared` variable and constant offset); where the
barrier address is unknown nothing is reported. A call is assumed to fence. Remote arrives on a
peer CTA's barrier (`mapa` addresses) are not followed, nor is `tcgen05.commit`: the ISA does not
say that its arrive goes through the async proxy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from ptxlint.context import ModuleContext
from ptxlint.diagnostics import Diagnostic, Label, Severity
from ptxlint.lazy_imports import lazy_module
from ptxlint.rules.async_proxy_messages import analysed_functions, buffer_name, by, opcode_name
from ptxlint.rules.base import Rule
from ptxlint.rules.tcgen05_messages import witness_labels

proxies = lazy_module("ptxlint.isa.proxies")

if TYPE_CHECKING:
    from ptxlint.analyses.asynchronous.proxy import AsyncProxyFacts
    from ptxlint.ir import Function

_HELP = (
    "after initialising the barriers, execute `fence.mbarrier_init.release.cluster` (CUTLASS: "
    "`cutlass::arch::fence_barrier_init()`; libcu++: `cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, "
    "cuda::ptx::scope_cluster)`), then the CTA or cluster barrier, before any copy uses them"
)


def check(context: ModuleContext) -> Iterable[Diagnostic]:
    for function, facts in analysed_functions(context):
        reported: set[int] = set()
        for use in facts.instructions("load", "barrier use"):
            across_ctas = proxies.reaches_other_ctas(function.instructions[use].opcode.modifiers)
            inits = [init for init in facts.unfenced_inits(use, across_ctas) if init not in reported]
            if inits:
                reported.update(inits)
                yield _report(facts, function, inits[-1], use, across_ctas)


def _report(facts: AsyncProxyFacts, function: Function, init: int, use: int, across_ctas: bool) -> Diagnostic:
    instructions = function.instructions
    user = opcode_name(function, use)
    barrier = buffer_name(facts.barrier(use))
    fence = "`fence.mbarrier_init.release.cluster`" if across_ctas else "`fence.mbarrier_init` or `fence.proxy.async`"
    return RULE.diagnostic(
        instructions[use].opcode_span,
        f"`{user}` signals mbarrier {barrier} through the async proxy, but its `mbarrier.init` on line "
        f"{instructions[init].span.line} is not followed by {fence} on some path",
        labels=(
            Label(instructions[init].span, f"initialised here through the generic proxy{by(facts, init)}"),
            Label(instructions[use].span, f"signalled through the async proxy{by(facts, use)}"),
        ),
        help=_HELP,
        witness=[
            Label(instructions[init].span, f"`mbarrier.init` of {barrier}"),
            *witness_labels(facts.witness(init, use, "inits", "inits_cta") if across_ctas else facts.witness(init, use, "inits")),
            Label(instructions[use].span, f"`{user}` signals it from the async proxy"),
        ],
    )


RULE = Rule(
    code="PTX503",
    name="mbarrier-init-not-fenced",
    severity=Severity.ERROR,
    summary="An mbarrier signalled by TMA or bulk copies with no `fence.mbarrier_init` after its `mbarrier.init`",
    docs=__doc__ or "",
    check=check,
    requires=("async_scan", "async_proxy"),
    tags=("correctness", "async-proxy", "mbarrier"),
    precision="high",
)
