"""## What it does
Reports a `tcgen05.alloc` from which the kernel can reach its end without a `tcgen05.dealloc`.
Only feasible paths count: branches on the same condition, or on conditions over the warp index
that agree, are correlated, so allocating under `warp == 0` and freeing under a second test of
`warp == 0` is correct. The finding shows the branches of an offending path.

## Why is this bad?
Everything a CTA allocates in tensor memory must be deallocated before the kernel exits (PTX ISA
§9.7.16.1). A leaked allocation is undefined behaviour; in practice a later CTA on the same SM
can block forever in its own `tcgen05.alloc`, which shows up as a hang far from the bug.

## Example
```ptx
.version 8.6
.target sm_100a
.address_size 64
.shared .align 4 .b32 slot;
.visible .entry kernel(.param .u32 n)
.reqntid 128
{
	.reg .b32 %r<3>;
	.reg .pred %p<2>;
	ld.param.u32 %r1, [n];
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 32;
	ld.shared.u32 %r2, [slot];
	setp.eq.s32 %p1, %r1, 0;
	@%p1 bra DONE;
	tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 32;
DONE:
	ret;
}
```

## Use instead
```ptx
.version 8.6
.target sm_100a
.address_size 64
.shared .align 4 .b32 slot;
.visible .entry kernel(.param .u32 n)
.reqntid 128
{
	.reg .b32 %r<3>;
	.reg .pred %p<2>;
	ld.param.u32 %r1, [n];
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 32;
	ld.shared.u32 %r2, [slot];
	tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r2, 32;
	ret;
}
```

## Exceptions
Any `tcgen05.dealloc` counts, whatever its address and column count. An allocation that a thread
which does not hold it deallocates (another warp owns the teardown, as in CUTLASS's attention
kernels) is not reported for the allocating thread's exit. A call to a function that
deallocates counts as a dealloc, one to a function that allocates as an alloc, and one to a
function whose body is not in the module is assumed to deallocate. Paths that end in `trap` or in a
failed `assert` (a call to `__assertfail`, which never returns) are not reported: they never
reach the kernel's end. Only kernels are checked: a `.func` may hand its allocation back to its caller.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Iterator

from ptxlint.context import ModuleContext
from ptxlint.diagnostics import Diagnostic, Label, Severity
from ptxlint.ir import Function
from ptxlint.lazy_imports import lazy_module
from ptxlint.rules.base import Rule
from ptxlint.rules.tcgen05_messages import witness_labels

callgraph = lazy_module("ptxlint.callgraph")

if TYPE_CHECKING:
    from ptxlint.analyses.tcgen05.pending import ExitLeak, TensorMemoryFacts


def check(context: ModuleContext) -> Iterable[Diagnostic]:
    for kernel in context.module.kernels:
        if _allocates(context, kernel):
            yield from _check_kernel(context, kernel)


def _allocates(context: ModuleContext, kernel: Function) -> bool:
    scan = context.result("tcgen05_scan")
    if "alloc" in scan.operations(kernel):
        return True
    if not any(instruction.opcode.base == "call" for instruction in kernel.instructions):
        return False
    return "alloc" in scan.callee_operations.get(kernel.name, frozenset())


def _check_kernel(context: ModuleContext, kernel: Function) -> Iterator[Diagnostic]:
    allocations = context.result("tcgen05_pending", kernel)
    leaks = allocations.live_allocations_at_exit()
    if not leaks:
        return
    freed_by_others = allocations.freed_by_others()
    for leak in leaks:
        if leak.allocation not in freed_by_others:
            yield _report(allocations, kernel, leak)


def _report(allocations: TensorMemoryFacts, kernel: Function, leak: ExitLeak) -> Diagnostic:
    instruction = kernel.instructions[leak.allocation]
    notes = ()
    if instruction.opcode.base == "call":
        notes = (f"`{callgraph.callee_name(instruction)}` allocates tensor memory",)
    end = kernel.instructions[leak.end].span if leak.end is not None else kernel.span
    return RULE.diagnostic(
        instruction.opcode_span,
        f"tensor memory allocated here is not deallocated on some path to the end of kernel `{kernel.name}`",
        labels=(Label(end, "the kernel can end here with the allocation live"),),
        notes=notes,
        witness=[
            Label(instruction.span, "tensor memory allocated"),
            *witness_labels(allocations.allocation_witness(leak)),
            Label(end, "the kernel ends without `tcgen05.dealloc`"),
        ],
        help="free the columns on every path to the kernel's end, early returns included: `tcgen05.dealloc` with the "
        "same column count, from a whole warp of this CTA, after the last access (CuTe: the allocator's `free`, "
        "as `cute::TMEM::Allocator1Sm` or `Allocator2Sm`); or allocate only after the early return",
    )


RULE = Rule(
    code="PTX203",
    name="tmem-alloc-without-dealloc",
    severity=Severity.ERROR,
    summary="A `tcgen05.alloc` with a feasible path to the kernel's end that never deallocates",
    docs=__doc__ or "",
    check=check,
    requires=("tcgen05_scan", "tcgen05_pending"),
    tags=("correctness", "tcgen05", "resource-leak"),
    precision="high",
)
