"""## What it does
Reports a `tcgen05.dealloc` that may free tensor memory while another warp, or with
`.cta_group::2` the peer CTA, may still be accessing it: a `tcgen05.ld`, `st`, `mma`, `cp` or
`shift` made by warps that do not execute the dealloc (the warps are those the analysis of warp
roles proves), from which the freeing warp can reach the dealloc without waiting for anyone.
Waiting means a CTA barrier that waits (`bar.sync`, `barrier.sync`, `bar.red`; `__syncthreads()`,
a named barrier's `arrive_and_wait`) or a wait on an mbarrier the accessing warps arrive on
(`mbarrier.arrive`, `tcgen05.commit`: CUTLASS's `tmem_deallocation` barrier), between the access
and the dealloc, or after the point where the accessing and the freeing warps went their
separate ways. For a
`.cta_group::2` dealloc, the pair's MMAs, copies and shifts also write the peer CTA's tensor
memory, and a CTA barrier does not reach the peer: only a cluster barrier
(`barrier.cluster.wait`) or an mbarrier wait orders them. The finding shows the access, the
branches of the path to the dealloc, and which warps free.

## Why is this bad?
`tcgen05.dealloc` returns the columns to the allocator at once; another CTA scheduled on the SM
may allocate them next. Every access to the columns must be complete and ordered before the
dealloc (PTX ISA §9.7.16.6.4): the accessing warps wait for their loads and stores
(`tcgen05.wait::ld`/`st`) or MMAs (commit and an mbarrier wait) and then synchronise with the
freeing warp, which only then deallocates. Without that barrier the freeing warp races ahead:
the other warps' loads read columns that no longer belong to the kernel, their stores and MMAs
corrupt another kernel's accumulator.

## Example
```ptx
.version 8.6
.target sm_100a
.address_size 64
.shared .align 4 .b32 slot;
.visible .entry kernel(.param .u64 out)
.reqntid 128
{
	.reg .b32 %r<12>;
	.reg .b64 %rd<4>;
	.reg .pred %p<2>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 32;
	@%p1 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 32;
	bar.sync 0;
	ld.shared.u32 %r2, [slot];
	shl.b32 %r3, %r1, 16;
	and.b32 %r4, %r3, 6291456;
	add.s32 %r5, %r2, %r4;
	tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r6}, [%r5];
	tcgen05.wait::ld.sync.aligned;
	st.global.u32 [%rd1], %r6;
	@%p1 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 32;
	ret;
}
```

## Use instead
```ptx
.version 8.6
.target sm_100a
.address_size 64
.shared .align 4 .b32 slot;
.visible .entry kernel(.param .u64 out)
.reqntid 128
{
	.reg .b32 %r<12>;
	.reg .b64 %rd<4>;
	.reg .pred %p<2>;
	ld.param.u64 %rd1, [out];
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 32;
	@%p1 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 32;
	bar.sync 0;
	ld.shared.u32 %r2, [slot];
	shl.b32 %r3, %r1, 16;
	and.b32 %r4, %r3, 6291456;
	add.s32 %r5, %r2, %r4;
	tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r6}, [%r5];
	tcgen05.wait::ld.sync.aligned;
	st.global.u32 [%rd1], %r6;
	tcgen05.fence::before_thread_sync;
	bar.sync 0;
	tcgen05.fence::after_thread_sync;
	@%p1 tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 32;
	ret;
}
```

## Exceptions
Only warps the roles prove are not the freeing ones count: where the analysis cannot tell which
warps access or free, nothing is reported, and an access by the freeing warp itself is ordered
by program order (whether it completed is PTX202's question). Any CTA barrier that waits counts,
whatever its id and count; an mbarrier wait counts when the accessing warps arrive on that
barrier anywhere in the function, or when the barrier, or some arrive's, is not known; a call
is taken to wait (its body may): the check misses a dealloc ordered by the wrong barrier rather
than report a correct one. A role branch counts only when no path from its freeing side to the
dealloc waits (a loop on both sides that may run no iteration leaves a wait-free path that no
warp takes alone). Accesses that come after the dealloc on every path are not races with it,
nor are accesses to another allocation when the addresses tell the two apart (the shared-memory
slot each `tcgen05.alloc` wrote its address to).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Iterator

from ptxlint.context import ModuleContext
from ptxlint.diagnostics import Diagnostic, Label, Severity
from ptxlint.ir import Function
from ptxlint.rules.base import Rule
from ptxlint.rules.tcgen05_messages import warps_text, witness_labels

if TYPE_CHECKING:
    from ptxlint.analyses.tcgen05.frees import FreeRace


def check(context: ModuleContext) -> Iterable[Diagnostic]:
    scan = context.result("tcgen05_scan")
    for function in context.module.functions:
        if function.has_body and "dealloc" in scan.operations(function):
            yield from _check_function(context, function)


def _check_function(context: ModuleContext, function: Function) -> Iterator[Diagnostic]:
    races = context.result("tcgen05_frees", function).races()
    by_dealloc: dict[int, list[FreeRace]] = {}
    for race in races:
        by_dealloc.setdefault(race.dealloc, []).append(race)
    for dealloc, found in sorted(by_dealloc.items()):
        yield _report(function, dealloc, found)


def _accessor(race: FreeRace) -> str:
    return "the peer CTA" if race.peer_cta else warps_text(race.other_warps)


def _report(function: Function, dealloc: int, races: list[FreeRace]) -> Diagnostic:
    instructions = function.instructions
    freeing = instructions[dealloc]
    # The witness follows the last access in program order: the one nearest the free.
    shown = max(races, key=lambda race: race.access)
    access = instructions[shown.access]
    operation = f"tcgen05.{access.opcode.modifiers[0]}"
    labels = [
        Label(instructions[race.access].span, f"`tcgen05.{instructions[race.access].opcode.modifiers[0]}` by {_accessor(race)}")
        for race in races
    ]
    freeing_warps = warps_text(shown.freeing_warps)
    witness = [
        Label(access.span, f"`{operation}` by {_accessor(shown)}"),
        *witness_labels(shown.steps),
        Label(freeing.span, f"freed by {freeing_warps}, with no barrier since"),
    ]
    if shown.peer_cta:
        message = (
            f"`tcgen05.dealloc` (`.cta_group::2`) may free tensor memory the peer CTA's `{operation}` on line "
            f"{access.span.line} still uses: no cluster barrier or mbarrier wait between them"
        )
        help_text = (
            "synchronise the pair after its last tensor-memory access and before either CTA deallocates: a cluster "
            "barrier (`barrier.cluster.arrive` + `barrier.cluster.wait`, `cute::cluster_sync()`), or an mbarrier the "
            "peer arrives on and this CTA waits on (CUTLASS's `tmem_deallocation` barrier)"
        )
    else:
        message = (
            f"`tcgen05.dealloc` by {freeing_warps} may free tensor memory that {_accessor(shown)} may still access "
            f"(`{operation}` on line {access.span.line}): no barrier between the access and the dealloc"
        )
        help_text = (
            "after their last access (and its `tcgen05.wait::ld`/`st`, or the MMA's commit and mbarrier wait), make the "
            "other warps synchronise with the freeing warp before it deallocates: `tcgen05.fence::before_thread_sync; "
            "bar.sync` (`__syncthreads()`), a named barrier, or an mbarrier they arrive on and it waits on (CUTLASS: "
            "the `tmem_deallocation` barrier)"
        )
    return RULE.diagnostic(freeing.opcode_span, message, labels=labels, help=help_text, witness=witness)


RULE = Rule(
    code="PTX204",
    name="tmem-dealloc-races-access",
    severity=Severity.ERROR,
    summary="A `tcgen05.dealloc` that another warp's (or the peer CTA's) tensor-memory access is not ordered before",
    docs=__doc__ or "",
    check=check,
    requires=("tcgen05_scan", "tcgen05_frees"),
    tags=("correctness", "tcgen05", "memory-ordering"),
    precision="high",
)
