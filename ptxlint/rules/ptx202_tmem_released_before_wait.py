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
delivered its values, so it is not reported, unless the hand-off lets tensor memory be freed
before the thread waits: a `tcgen05.dealloc` the thread reaches from the hand-off (its own, or
another warp's after the barrier, as in Triton's epilogue) with no `tcgen05.wait::ld` between.
A register dependence orders nothing in tensor memory (PTX ISA §9.7.16.6.4.5), so only the wait
orders the load before the free; the finding then shows the load, the hand-off and the
dealloc. `bar.warp.sync` and weak
stores hand nothing over. A call to a function that waits counts as a wait; a call to a function
whose body is not in the module is assumed to wait. A `.func`'s `ret` is not an exit: what it
returns unwaited is pending in its caller from the call on, and reported there. Kernels
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
from ptxlint.lazy_imports import lazy_module
from ptxlint.rules.base import Rule
from ptxlint.rules.tcgen05_messages import access_name, pending_labels, wait_advice, waiting_instruction, warps_text, witness_labels

hand_offs = lazy_module("ptxlint.isa.hand_offs")
isa_barriers = lazy_module("ptxlint.isa.barriers")

if TYPE_CHECKING:
    from ptxlint.analyses.path_witness import BranchStep
    from ptxlint.analyses.threads.reach import ThreadReach
    from ptxlint.analyses.tcgen05.pending import Pending, TensorMemoryFacts


def check(context: ModuleContext) -> Iterable[Diagnostic]:
    scan = context.result("tcgen05_scan")
    for function in context.module.functions:
        if function.has_body and scan.may_have_pending(function) and scan.works_on_allocated(function):
            yield from _check_function(context, function)


def _check_function(context: ModuleContext, function: Function) -> Iterator[Diagnostic]:
    instructions = function.instructions
    events = [
        (index, name)
        for index, instruction in enumerate(instructions)
        if instruction.opcode.base in hand_offs.HAND_OFF_BASES
        and (name := hand_offs.hand_off(instruction.opcode.base, instruction.opcode.modifiers, function.is_kernel))
    ]
    if not events:
        return
    pending = context.result("tcgen05_pending", function)
    for index, name in events:
        opcode = instructions[index].opcode
        barrier = isa_barriers.is_cta_barrier(opcode.base, opcode.modifiers)
        before = [item for item, _ in pending.pending_before(index)]
        in_flight = [
            item
            for item in before
            if not item.values_consumed
            and pending.first_hand_off(item, index)
            and not (barrier and pending.settles_before_next_barrier(index, item))
        ]
        if in_flight:
            # The path shown is that of an access the hand-off follows only around a loop, if
            # there is one: the back edge is what a reader must see.
            around = next((item for item in in_flight if item.index > index), in_flight[0])
            free = pending.freed_before_wait(around, index) if barrier else None
            yield _report(context, pending, function, index, name, in_flight, around, free)
            continue
        # Loads whose values were read, but not waited for, before tensor memory is freed.
        unordered = [
            (item, free)
            for item in before
            if item.values_consumed
            and pending.first_hand_off(item, index)
            and (free := pending.freed_before_wait(item, index)) is not None
        ]
        if unordered:
            item, free = unordered[0]
            yield _report(context, pending, function, index, name, [entry[0] for entry in unordered], item, free)


def _describe(name: str) -> str:
    """A hand-off as the message names it."""
    if name == hand_offs.KERNEL_RET:
        return "the kernel's `ret`"
    if name == hand_offs.RELEASE_STORE:
        return "a release store"
    return f"`{name}`"


def _report(
    context: ModuleContext,
    pending: TensorMemoryFacts,
    function: Function,
    index: int,
    name: str,
    items: list[Pending],
    around: Pending,
    free: int | None,
) -> Diagnostic:
    instructions = function.instructions
    instruction = instructions[index]
    first = items[0]
    access = instructions[first.index]
    wait = waiting_instruction(first.kind)
    consumed = all(item.values_consumed for item in items)
    labels = pending_labels(function, items, "not waited for" if consumed else "still in flight")
    steps = pending.access_witness(around, index)
    witness: list[Label] = []
    if steps or free is not None:
        # The path from the access to the hand-off, when branches decide it, and on to the
        # dealloc the hand-off lets through.
        witness = [
            Label(instructions[around.index].span, f"{access_name(instructions[around.index], around.kind)} issued" if instructions[around.index].opcode.base != "call" else f"{access_name(instructions[around.index], around.kind)} unwaited"),
            *witness_labels(steps),
            Label(instruction.span, f"{_describe(name)} before `{wait}`"),
        ]
    if free is not None:
        freeing = instructions[free]
        roles: ThreadReach = context.result("roles", function)
        warps = roles.warps_at(free, freeing)
        who = f" by {warps_text(warps)}" if warps else ""
        witness += [
            *witness_labels(pending.free_witness(around, index, free)),
            Label(freeing.span, f"tensor memory freed{who}, the access not ordered before it"),
        ]
    what = f"{access_name(access, first.kind)} on line {access.span.line}"
    if consumed and free is not None:
        message = (
            f"{_describe(name)} lets the `tcgen05.dealloc` on line {instructions[free].span.line} free tensor memory "
            f"while the {what} is not waited for: `{wait}` first"
        )
        help_text = f"wait with {wait_advice(first.kind)} before {_describe(name)}: reading the loaded registers does not order the load before the dealloc"
    else:
        message = f"{_describe(name)} while the {what} may be in flight: `{wait}` first"
        help_text = _help(name, first.kind)
    return RULE.diagnostic(instruction.opcode_span, message, labels=labels, help=help_text, witness=witness)


def _help(name: str, kind: str) -> str:
    wait = wait_advice(kind)
    if name.startswith("tcgen05.dealloc"):
        return f"wait with {wait} before freeing the columns"
    if name in (hand_offs.KERNEL_RET, "exit"):
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
    requires=("tcgen05_scan", "tcgen05_pending", "roles"),
    tags=("correctness", "tcgen05", "memory-ordering"),
    precision="high",
)
