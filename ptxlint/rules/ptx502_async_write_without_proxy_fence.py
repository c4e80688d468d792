"""## What it does
Reports shared memory accessed through the generic proxy (`ld.shared`, `ldmatrix`, `st.shared`,
`stmatrix`) and then overwritten by a copy through the async proxy — a TMA or bulk copy into it
(`cp.async.bulk[.tensor]` … `.mbarrier::complete_tx::bytes`) — with no `fence.proxy.async` in the
accessing thread between its access and the copy or the hand-off (`mbarrier.arrive` on the
stage's empty barrier, a barrier) that releases the buffer, nor in the copying thread between
that hand-off and the copy.

## Why is this bad?
Generic-proxy accesses are not ordered with later async-proxy writes without a proxy fence
(PTX ISA §8, "Proxies"): the copy engine may overwrite the stage before the generic reads of
its previous contents have read them, or a generic write may land after the copy's data. The
release of a pipeline stage is where this goes wrong: consumers that read a stage with
`ld.shared` or `ldmatrix` must fence before they arrive on the empty barrier, or the producer's
next TMA load into the stage may race with their reads.

## Example
```ptx
.version 8.6
.target sm_90a
.address_size 64
.extern .shared .align 1024 .b8 smem[];
.shared .align 8 .b64 full;
.visible .entry reuse_stage(.param .u64 tensor_map, .param .u64 out)
.reqntid 128
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	.reg .pred %p<3>;
	ld.param.u64 %rd1, [tensor_map];
	ld.param.u64 %rd2, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, smem;
	shl.b32 %r3, %r1, 2;
	add.s32 %r4, %r2, %r3;
	ld.shared.u32 %r5, [%r4];
	st.global.u32 [%rd2], %r5;
	bar.sync 0;
	setp.eq.s32 %p1, %r1, 0;
	mov.u32 %r6, 0;
	@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [full], 4096;
	@%p1 cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [%rd1, {%r6}], [full];
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
.visible .entry reuse_stage(.param .u64 tensor_map, .param .u64 out)
.reqntid 128
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	.reg .pred %p<3>;
	ld.param.u64 %rd1, [tensor_map];
	ld.param.u64 %rd2, [out];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, smem;
	shl.b32 %r3, %r1, 2;
	add.s32 %r4, %r2, %r3;
	ld.shared.u32 %r5, [%r4];
	st.global.u32 [%rd2], %r5;
	fence.proxy.async.shared::cta;
	bar.sync 0;
	setp.eq.s32 %p1, %r1, 0;
	mov.u32 %r6, 0;
	@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [full], 4096;
	@%p1 cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [%rd1, {%r6}], [full];
	ret;
}
```

## Exceptions
Stages read only through `wgmma` or `tcgen05.mma` need no fence before they are released: those
reads are themselves in the async proxy, and the MMA's completion (`wgmma.wait_group`,
`tcgen05.commit`) is what the release waits for; such reads are not generic accesses here.
Only accesses on the issuing thread's own paths are followed: a consumer warp that reads a stage
and arrives on its empty barrier while a producer warp in another branch issues the copy is not
seen (the hand-off crosses roles). Buffers are compared as for PTX501 (a `.shared` variable and
constant offset; unknown addresses never conflict). A call is assumed to fence.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from ptxlint.context import ModuleContext
from ptxlint.diagnostics import Diagnostic, Severity
from ptxlint.rules.async_proxy_messages import analysed_functions, buffer_name, opcode_name, unfenced_story
from ptxlint.rules.base import Rule

if TYPE_CHECKING:
    from ptxlint.analyses.asynchronous.proxy import AsyncProxyFacts, WriteHazard
    from ptxlint.ir import Function

_HELP = (
    "execute `fence.proxy.async.shared::cta` in every thread that read or wrote the buffer, after its last "
    "access and before it releases the stage (the `mbarrier.arrive` on the empty barrier, or the barrier) or "
    "issues the copy (libcu++: `cuda::ptx::fence_proxy_async(cuda::ptx::space_shared)`)"
)


def check(context: ModuleContext) -> Iterable[Diagnostic]:
    for function, facts in analysed_functions(context):
        reported: set[int] = set()
        for copy in facts.instructions("load"):
            hazards = [hazard for hazard in facts.unfenced_accesses(copy) if hazard.write not in reported]
            if hazards:
                reported.update(hazard.write for hazard in hazards)
                yield _report(facts, function, hazards, copy)


def _report(facts: AsyncProxyFacts, function: Function, hazards: list[WriteHazard], copy: int) -> Diagnostic:
    latest = hazards[-1]
    accessor = opcode_name(function, latest.write)
    copier = opcode_name(function, copy)
    buffer = buffer_name(facts.buffer(copy))
    verb = "reads" if facts.kind(latest.write) == "read" else "writes"
    if latest.handed_off:
        why = "the buffer is released (a barrier or arrive) with no `fence.proxy.async` before the release or between it and the copy"
    else:
        why = "no `fence.proxy.async` comes between the access and the copy"
    labels, witness = unfenced_story(
        facts, function, hazards, copy,
        (f"{verb} the buffer through the generic proxy", f"`{accessor}` {verb} {buffer}", "also accessed here through the generic proxy, unfenced"),
        ("overwritten through the async proxy", f"`{copier}` overwrites it through the async proxy"),
    )
    return RULE.diagnostic(
        function.instructions[copy].opcode_span,
        f"`{copier}` overwrites shared memory {buffer} through the async proxy, but `{accessor}` on line "
        f"{function.instructions[latest.write].span.line} {verb} it through the generic proxy and is not ordered before the copy: {why}",
        labels=labels,
        help=_HELP,
        witness=witness,
    )


RULE = Rule(
    code="PTX502",
    name="async-write-without-proxy-fence",
    severity=Severity.ERROR,
    summary="Shared memory accessed through the generic proxy is overwritten by a TMA or bulk copy without `fence.proxy.async`",
    docs=__doc__ or "",
    check=check,
    requires=("async_scan", "async_proxy"),
    tags=("correctness", "async-proxy", "pipeline"),
    precision="high",
)
