"""## What it does
Reports shared memory written through the generic proxy (`st.shared`, `stmatrix`, `atom.shared`)
and then read through the async proxy — a TMA or bulk store (`cp.async.bulk[.tensor]` from shared
memory, `cp.reduce.async.bulk`), or a `wgmma.mma_async`, `tcgen05.mma` or `tcgen05.cp` operand —
with no `fence.proxy.async` in the writing thread between its write and the hand-off (barrier or
arrive) that lets the issuing thread go on, or, when the writer issues the read itself, before
the read. The finding names the write, the read and the buffer, with the branches of the path.

## Why is this bad?
The generic and async proxies are different paths to memory, and a write through one is not
ordered with a later access through the other, even by a barrier, until a proxy fence
(PTX ISA §8, "Proxies"; `fence.proxy.async`). The fence orders the *executing thread's*
accesses: every thread that wrote must fence before it hands the buffer over, and a fence by the
issuing thread after the barrier orders only its own writes. Without it the TMA store or the
MMA may read stale shared memory. Nothing reports it: the kernel is usually right, by timing.

## Example
```ptx
.version 8.6
.target sm_90a
.address_size 64
.extern .shared .align 1024 .b8 smem[];
.visible .entry store_tile(.param .u64 tensor_map)
.reqntid 128
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<2>;
	.reg .pred %p<2>;
	ld.param.u64 %rd1, [tensor_map];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, smem;
	shl.b32 %r3, %r1, 2;
	add.s32 %r4, %r2, %r3;
	st.shared.u32 [%r4], %r1;
	bar.sync 0;
	setp.eq.s32 %p1, %r1, 0;
	mov.u32 %r5, 0;
	@%p1 cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%rd1, {%r5}], [%r2];
	@%p1 cp.async.bulk.commit_group;
	@%p1 cp.async.bulk.wait_group.read 0;
	ret;
}
```

## Use instead
```ptx
.version 8.6
.target sm_90a
.address_size 64
.extern .shared .align 1024 .b8 smem[];
.visible .entry store_tile(.param .u64 tensor_map)
.reqntid 128
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<2>;
	.reg .pred %p<2>;
	ld.param.u64 %rd1, [tensor_map];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, smem;
	shl.b32 %r3, %r1, 2;
	add.s32 %r4, %r2, %r3;
	st.shared.u32 [%r4], %r1;
	fence.proxy.async.shared::cta;
	bar.sync 0;
	setp.eq.s32 %p1, %r1, 0;
	mov.u32 %r5, 0;
	@%p1 cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%rd1, {%r5}], [%r2];
	@%p1 cp.async.bulk.commit_group;
	@%p1 cp.async.bulk.wait_group.read 0;
	ret;
}
```

## Exceptions
Only writes and reads whose buffer ptxlint can name are compared: the same `.shared` variable at
the same constant offset, or, where both sizes are fixed (a typed store, a non-tensor bulk copy's
size) and the addresses differ by a constant, overlapping bytes (parts that depend on the thread or on a loop counter are offsets within
the buffer, so different pipeline stages at constant offsets are different buffers, and stages
picked by a counter are one). Where either address is unknown no conflict is assumed. A copy
*into* the buffer (a TMA load) between the write and the read supersedes the write. A call is
assumed to fence. A write only one thread of the CTA makes (one warp, past a `%laneid`,
`%tid.x & 31` or `elect.sync` test: a controller thread) stays that thread's own across the
arrives and barriers it passes, so its own later fence orders it; where ptxlint cannot tell that
one thread wrote, a fence after the hand-off does not count.
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
    "execute `fence.proxy.async.shared::cta` in every writing thread after its last write and before "
    "the barrier or arrive that hands the buffer over (CUTLASS: `cutlass::arch::fence_view_async_shared()`; "
    "libcu++: `cuda::ptx::fence_proxy_async(cuda::ptx::space_shared)`)"
)


def check(context: ModuleContext) -> Iterable[Diagnostic]:
    for function, facts in analysed_functions(context):
        reported: set[int] = set()
        for read in facts.instructions("async read", "store"):
            # A write is told at the first async read it meets; the later ones repeat it.
            hazards = [hazard for hazard in facts.unfenced_writes(read) if hazard.write not in reported]
            if hazards:
                reported.update(hazard.write for hazard in hazards)
                yield _report(facts, function, hazards, read)


def _report(facts: AsyncProxyFacts, function: Function, hazards: list[WriteHazard], read: int) -> Diagnostic:
    latest = hazards[-1]
    writer = opcode_name(function, latest.write)
    reader = opcode_name(function, read)
    buffer = buffer_name(facts.buffer_written(latest.write))
    if latest.handed_off:
        why = "a barrier or arrive hands it over before the writing thread executes `fence.proxy.async`"
    else:
        why = "no `fence.proxy.async` comes between the write and the read"
    labels, witness = unfenced_story(
        facts, function, hazards, read,
        ("written through the generic proxy here", f"`{writer}` writes {buffer}", "also written here through the generic proxy, unfenced"),
        ("read through the async proxy", f"`{reader}` reads it through the async proxy"),
    )
    return RULE.diagnostic(
        function.instructions[read].opcode_span,
        f"`{reader}` reads shared memory {buffer} through the async proxy, but the generic-proxy write "
        f"`{writer}` on line {function.instructions[latest.write].span.line} may not be visible to it: {why}",
        labels=labels,
        help=_HELP,
        witness=witness,
    )


RULE = Rule(
    code="PTX501",
    name="async-read-without-proxy-fence",
    severity=Severity.ERROR,
    summary="Shared memory written through the generic proxy is read by TMA, `wgmma` or `tcgen05` without `fence.proxy.async`",
    docs=__doc__ or "",
    check=check,
    requires=("async_scan", "async_proxy"),
    tags=("correctness", "async-proxy", "memory-model"),
    precision="high",
)
