"""## What it does
Reports a point where a thread hands tensor memory over to other threads, frees it or exits while
a `tcgen05.ld` or `tcgen05.st` it issued may still be in flight: an `mbarrier.arrive` (any form,
including `expect_tx` and `cp.async.mbarrier.arrive`), `tcgen05.commit`, `bar.sync`/`bar.arrive`/
`bar.red`, `barrier.*`, `barrier.cluster.arrive`, a release store, a reduction or atomic,
`tcgen05.dealloc`, `exit`, or the kernel's `ret`. Each such point is reported once, with the
pending accesses as related locations.

## Why is this bad?
The other side of the hand-off (the MMA warp waiting on the mbarrier, the warp that deallocates
after the barrier) assumes the TMEM is free. Without `tcgen05.wait::ld` (`::st`) before the
signal, the asynchronous access may still be running when the MMA overwrites the accumulator or
the columns are deallocated and given to someone else: the canonical sequence is
`ld; wait::ld; fence::before_thread_sync; arrive` (PTX ISA §9.7.16.6.4). Exiting with accesses
in flight is undefined behaviour.

## Example
```ptx
.version 8.6
.target sm_100a
.address_size 64
.shared .align 4 .b32 slot;
.shared .align 8 .b64 empty_bar;
.visible .entry kernel()
.reqntid 32
{
	.reg .b32 %r<4>;
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 32;
	ld.shared.u32 %r1, [slot];
	tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r2, %r3}, [%r1];
	tcgen05.fence::before_thread_sync;
	mbarrier.arrive.shared::cta.b64 _, [empty_bar];
	tcgen05.wait::ld.sync.aligned;
	tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r1, 32;
	ret;
}
```

## Use instead
```ptx
.version 8.6
.target sm_100a
.address_size 64
.shared .align 4 .b32 slot;
.shared .align 8 .b64 empty_bar;
.visible .entry kernel()
.reqntid 32
{
	.reg .b32 %r<4>;
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 32;
	ld.shared.u32 %r1, [slot];
	tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r2, %r3}, [%r1];
	tcgen05.wait::ld.sync.aligned;
	tcgen05.fence::before_thread_sync;
	mbarrier.arrive.shared::cta.b64 _, [empty_bar];
	tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r1, 32;
	ret;
}
```

## Exceptions
A `tcgen05.ld` all of whose destination registers have been read before the hand-off has
completed (its values cannot exist earlier), so it is not reported. `bar.warp.sync` and weak
stores hand nothing over. A call to a function that waits counts as a wait; a call to a function
whose body is not in the module is assumed to wait. A `.func`'s `ret` is not an exit. Kernels
that never allocate tensor memory (themselves or through a call) are not checked. Only the first
hand-off on a path after the access is reported: the barriers and atomics that follow it repeat
the same finding. A CTA barrier (`bar.sync`, `barrier.sync`, …) hands nothing over when no
thread can touch the tensor memory after it before this thread's wait: on every path from it,
the wait comes before any tensor-memory write (or, for a store, read), dealloc or other hand-off,
and another CTA barrier follows the wait before them (Triton separates shared-memory stages with
barriers between a `tcgen05.ld` and its wait).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Iterator

from ptxlint.context import ModuleContext
from ptxlint.diagnostics import Diagnostic, Label, Severity
from ptxlint.ir import Function, Instruction
from ptxlint.isa.barriers import is_cta_barrier
from ptxlint.isa.hand_offs import HAND_OFF_BASES, KERNEL_RET, RELEASE_STORE, hand_off
from ptxlint.rules.base import Rule
from ptxlint.rules.tcgen05_messages import pending_labels, wait_advice, waiting_instruction, witness_labels

if TYPE_CHECKING:
    from ptxlint.analyses.path_witness import BranchStep
    from ptxlint.analyses.tcgen05 import Pending


def check(context: ModuleContext) -> Iterable[Diagnostic]:
    scan = context.result("tcgen05_scan")
    for function in context.module.functions:
        if function.has_body and scan.issues_accesses(function) and scan.works_on_allocated(function):
            yield from _check_function(context, function)


def _check_function(context: ModuleContext, function: Function) -> Iterator[Diagnostic]:
    instructions = function.instructions
    events = [
        (index, name)
        for index, instruction in enumerate(instructions)
        if instruction.opcode.base in HAND_OFF_BASES
        and (name := hand_off(instruction.opcode.base, instruction.opcode.modifiers, function.is_kernel))
    ]
    if not events:
        return
    pending = context.result("tcgen05_pending", function)
    for index, name in events:
        opcode = instructions[index].opcode
        barrier = is_cta_barrier(opcode.base, opcode.modifiers)
        in_flight = [
            item
            for item, _ in pending.pending_before(index)
            if not item.values_consumed
            and pending.first_hand_off(item, index)
            and not (barrier and pending.settles_before_next_barrier(index, item))
        ]
        if in_flight:
            # The path shown is that of an access the hand-off follows only around a loop, if
            # there is one: the back edge is what a reader must see.
            around = next((item for item in in_flight if item.index > index), in_flight[0])
            yield _report(function, instructions[index], name, in_flight, around, pending.access_witness(around, index))


def _describe(name: str) -> str:
    """A hand-off as the message names it."""
    if name == KERNEL_RET:
        return "the kernel's `ret`"
    if name == RELEASE_STORE:
        return "a release store"
    return f"`{name}`"


def _report(
    function: Function, instruction: Instruction, name: str, in_flight: list[Pending], around: Pending, steps: list[BranchStep]
) -> Diagnostic:
    first = in_flight[0]
    access = function.instructions[first.index]
    wait = waiting_instruction(first.kind)
    labels = pending_labels(function, in_flight, "still in flight")
    # The path from the access to the hand-off, when branches decide it.
    witness = [
        Label(function.instructions[around.index].span, f"`tcgen05.{around.kind}` issued"),
        *witness_labels(steps),
        Label(instruction.span, f"{_describe(name)} before `{wait}`"),
    ] if steps else []
    return RULE.diagnostic(
        instruction.opcode_span,
        f"{_describe(name)} while the `tcgen05.{first.kind}` on line {access.span.line} may be in flight: "
        f"`{wait}` first",
        labels=labels,
        help=_help(name, first.kind),
        witness=witness,
    )


def _help(name: str, kind: str) -> str:
    wait = wait_advice(kind)
    if name.startswith("tcgen05.dealloc"):
        return f"wait with {wait} before freeing the columns"
    if name in (KERNEL_RET, "exit"):
        return f"wait with {wait} before the thread ends"
    return (
        f"wait with {wait}, then `tcgen05.fence::before_thread_sync`, before telling other threads the tensor "
        "memory is free (in CUTLASS, before the pipeline's `producer_commit`/`consumer_release` or the barrier)"
    )


RULE = Rule(
    code="PTX202",
    name="tmem-released-before-wait",
    severity=Severity.ERROR,
    summary="Tensor memory handed over, freed or abandoned with a `tcgen05.ld`/`st` in flight",
    docs=__doc__ or "",
    check=check,
    requires=("tcgen05_scan", "tcgen05_pending"),
    tags=("correctness", "tcgen05", "memory-ordering"),
    precision="high",
)
