"""## What it does
Reports an `mbarrier.expect_tx` (or `mbarrier.arrive.expect_tx`) whose byte count differs from
the bytes the same thread's copies deliver to that barrier — `cp.async.bulk` with
`.mbarrier::complete_tx::bytes` (their size operand), `cp.reduce.async.bulk`, `st.async` and
`red.async` (their type's size), `mbarrier.complete_tx` — on every path to the point where the
thread next waits on an mbarrier, returns or exits. Only where every count is a constant and the
barrier's identity is certain: a `.shared` symbol plus a constant offset, or a register written
once.

## Why is this bad?
A phase of an mbarrier completes when its pending arrivals and its transaction count both reach
zero (PTX ISA, mbarrier, "Phase Completion of the mbarrier object": §9.7.13.15.6 in PTX 8.x).
`expect_tx` raises the count by the bytes announced, each copy lowers it by the bytes it writes. Announce more than you copy and the phase never completes:
every thread waiting on it hangs. Copy more than you announce and the phase completes before the
last copy lands — the consumer reads a tile still being written — and the surplus is charged to
the next phase. The usual cause is a tile size changed in one place only, or one copy of several
forgotten.

## Example
```ptx
.version 8.0
.target sm_90a
.address_size 64
.shared .align 8 .b64 full;
.shared .align 128 .b8 tile[4096];
.visible .entry kernel(.param .u64 src)
.reqntid 128
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<3>;
	.reg .pred %p<3>;
	ld.param.u64 %rd1, [src];
	mov.u32 %r1, %tid.x;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra SYNC;
	mbarrier.init.shared::cta.b64 [full], 1;
	fence.mbarrier_init.release.cluster;
	mbarrier.arrive.expect_tx.shared::cta.b64 _, [full], 4096;
	cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [tile], [%rd1], 2048, [full];
SYNC:
	bar.sync 0;
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [full], 0;
	@!%p2 bra WAIT;
	ret;
}
```

## Use instead
```ptx
.version 8.0
.target sm_90a
.address_size 64
.shared .align 8 .b64 full;
.shared .align 128 .b8 tile[4096];
.visible .entry kernel(.param .u64 src)
.reqntid 128
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<3>;
	.reg .pred %p<3>;
	ld.param.u64 %rd1, [src];
	mov.u32 %r1, %tid.x;
	setp.ne.u32 %p1, %r1, 0;
	@%p1 bra SYNC;
	mbarrier.init.shared::cta.b64 [full], 1;
	fence.mbarrier_init.release.cluster;
	mbarrier.arrive.expect_tx.shared::cta.b64 _, [full], 4096;
	add.s64 %rd2, %rd1, 2048;
	cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [tile], [%rd1], 2048, [full];
	cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [tile+2048], [%rd2], 2048, [full];
SYNC:
	bar.sync 0;
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [full], 0;
	@!%p2 bra WAIT;
	ret;
}
```

## Exceptions
Tensor copies (`cp.async.bulk.tensor`) take their size from the tensor map, and counts in
registers are not followed beyond a `mov` of a constant: either makes the barrier's total
unknown, and nothing is reported. Nor is anything said about a barrier some thread delivers to
without announcing the bytes itself (one lane announces, every lane copies), or that announces
bytes and delivers none itself (the copies are another thread's), a window whose count
differs between paths, a function whose barrier operands are not all certain, or a module that
can signal another CTA's barrier (multicast, or a barrier address from `mapa`): bytes may then
come from elsewhere. Paths on which a thread contributes nothing to a barrier are other threads'
and do not count. A call to a function that may touch mbarriers makes every count unknown.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from ptxlint.context import ModuleContext
from ptxlint.diagnostics import Diagnostic, Label, Severity
from ptxlint.ir import Function
from ptxlint.rules.base import Rule

_HELP = (
    "make the `expect_tx` count the sum of the bytes of the copies signalling this barrier (CUTLASS: the "
    "`TmaTransactionBytes` passed to `pipeline.producer_expect_transaction` / `ClusterTransactionBarrier::"
    "arrive_and_expect_tx`; libcu++: `cuda::device::barrier_arrive_tx(bar, 1, bytes)`), computed from the same "
    "tile sizes as the copies"
)


def check(context: ModuleContext) -> Iterable[Diagnostic]:
    transactions = context.result("tx_bytes")
    for function in context.module.functions:
        if function.has_body:
            yield from _check_function(function, transactions.function(function).mismatches())


def _check_function(function: Function, mismatches) -> Iterator[Diagnostic]:
    instructions = function.instructions
    for mismatch in mismatches:
        expect = instructions[mismatch.expects[0]]
        close = instructions[mismatch.close]
        verdict = (
            "the phase can never complete: its waiters hang"
            if mismatch.expected > mismatch.delivered
            else "the phase completes before the last copy lands"
        )
        name = mismatch.barrier_name
        labels = [Label(instructions[index].span, "also announces bytes on this barrier") for index in mismatch.expects[1:]]
        labels += [Label(instructions[index].span, "delivers bytes to this barrier") for index in mismatch.copies]
        labels.append(Label(close.span, f"`{close.opcode.text}` reached with {mismatch.delivered} bytes delivered"))
        yield RULE.diagnostic(
            expect.opcode_span,
            f"expects {mismatch.expected} transaction bytes on `{name}` but this thread's copies deliver "
            f"{mismatch.delivered} on every path: {verdict}",
            labels=labels,
            help=_HELP,
        )


RULE = Rule(
    code="PTX506",
    name="expect-tx-byte-mismatch",
    severity=Severity.ERROR,
    summary="An mbarrier expect_tx byte count that differs from the constant bytes the thread's copies deliver",
    docs=__doc__ or "",
    check=check,
    requires=("tx_bytes",),
    tags=("correctness", "mbarrier", "async"),
    precision="high",
)
