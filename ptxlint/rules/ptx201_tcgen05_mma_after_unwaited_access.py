"""## What it does
Reports a `tcgen05.mma` (any variant), `tcgen05.cp` or `tcgen05.shift` that a thread can reach
while a `tcgen05.ld` it issued has not been waited for with `tcgen05.wait::ld`, or a
`tcgen05.st` with `tcgen05.wait::st`. Paths follow branches and loop back edges: a wait on one
branch only, or a load at the bottom of a loop whose top issues the MMA, is found. Branches on
the same condition are correlated, and accesses whose TMEM columns provably differ are not
reported. The finding shows the pending access and the branches of the path.

## Why is this bad?
`tcgen05.ld` and `tcgen05.st` are asynchronous, and the tensor core does not order them before a
later MMA, copy or shift of the same thread (PTX ISA §9.7.16.6: ld → mma and st → mma are not
pipelined). The MMA can overwrite the accumulator before the load has read it, or read TMEM
before the store has written it. This is the case `tcgen05.wait` exists for; the result is
silently wrong numbers, not a fault.

## Example
```ptx
.version 8.6
.target sm_100a
.address_size 64
.shared .align 4 .b32 slot;
.visible .entry kernel(.param .u64 desc)
.reqntid 32
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<2>;
	.reg .pred %p<2>;
	ld.param.u64 %rd1, [desc];
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 128;
	ld.shared.u32 %r1, [slot];
	mov.b32 %r3, 136316048;
	tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r2}, [%r1];
	setp.ne.b32 %p1, %r2, 0;
	tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd1, %r3, %p1;
	tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r1, 128;
	ret;
}
```

## Use instead
```ptx
.version 8.6
.target sm_100a
.address_size 64
.shared .align 4 .b32 slot;
.visible .entry kernel(.param .u64 desc)
.reqntid 32
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<2>;
	.reg .pred %p<2>;
	ld.param.u64 %rd1, [desc];
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 128;
	ld.shared.u32 %r1, [slot];
	mov.b32 %r3, 136316048;
	tcgen05.ld.sync.aligned.32x32b.x1.b32 {%r2}, [%r1];
	tcgen05.wait::ld.sync.aligned;
	setp.ne.b32 %p1, %r2, 0;
	tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd1, %r3, %p1;
	tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r1, 128;
	ret;
}
```

## Exceptions
Reading the loaded registers does not replace the wait: a register dependency orders the
registers, not the TMEM accesses. An access whose columns are provably disjoint from the MMA's
(same allocation, known offsets, the MMA's N from a constant instruction descriptor or at most
256) is not reported. A call to a function that waits counts as a wait; a call to a function
whose body is not in the module is assumed to wait. Accesses issued in a callee are not followed
into the caller. Kernels that never allocate tensor memory (themselves or through a call) are
not checked: their TMEM accesses are undefined anyway, and such code is a fragment or a test.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Iterator

from ptxlint.context import ModuleContext
from ptxlint.diagnostics import Diagnostic, Label, Severity
from ptxlint.ir import Function, Instruction
from ptxlint.isa.tcgen05 import TENSOR_CORE_OPERATIONS, operation
from ptxlint.rules.base import Rule
from ptxlint.rules.tcgen05_messages import access_name, pending_labels, wait_advice, waiting_instruction, witness_labels

if TYPE_CHECKING:
    from ptxlint.analyses.tcgen05.pending import Pending, TensorMemoryFacts


def check(context: ModuleContext) -> Iterable[Diagnostic]:
    scan = context.result("tcgen05_scan")
    for function in context.module.functions:
        if (
            function.has_body
            and scan.may_have_pending(function)
            and not scan.operations(function).isdisjoint(TENSOR_CORE_OPERATIONS)
            and scan.works_on_allocated(function)
        ):
            yield from _check_function(context, function)


def _is_tensor_core_operation(instruction: Instruction) -> bool:
    return operation(instruction.opcode.base, instruction.opcode.modifiers) in TENSOR_CORE_OPERATIONS


def _check_function(context: ModuleContext, function: Function) -> Iterator[Diagnostic]:
    pending = context.result("tcgen05_pending", function)
    for index in context.result("tcgen05_scan").instructions(function):
        instruction = function.instructions[index]
        if not _is_tensor_core_operation(instruction):
            continue
        hazards = [item for item, warps in pending.pending_before(index) if not pending.columns_disjoint(item.index, index, warps)]
        if hazards:
            yield _report(pending, function, index, instruction, hazards)


def _report(pending: TensorMemoryFacts, function: Function, index: int, instruction: Instruction, hazards: list[Pending]) -> Diagnostic:
    name = _name(instruction)
    first = hazards[0]
    access = function.instructions[first.index]
    wait = waiting_instruction(first.kind)
    labels = pending_labels(function, hazards, "not waited for")
    return RULE.diagnostic(
        instruction.opcode_span,
        f"`{name}` can start while the {access_name(access, first.kind)} on line {access.span.line} is pending: "
        f"no `{wait}` on the path between them",
        labels=labels,
        witness=[
            Label(access.span, f"{access_name(access, first.kind)} " + ("unwaited" if access.opcode.base == "call" else "issued")),
            *witness_labels(pending.access_witness(first, index)),
            Label(instruction.span, f"`{name}` issued before the wait"),
        ],
        help=f"wait with {wait_advice(first.kind)} between the `tcgen05.{first.kind}` and `{name}`",
    )


def _name(instruction: Instruction) -> str:
    return f"tcgen05.{instruction.opcode.modifiers[0]}"


RULE = Rule(
    code="PTX201",
    name="tcgen05-mma-after-unwaited-access",
    severity=Severity.ERROR,
    summary="A tcgen05 MMA, copy or shift that can overtake the thread's pending `tcgen05.ld`/`st`",
    docs=__doc__ or "",
    check=check,
    requires=("tcgen05_scan", "tcgen05_pending"),
    tags=("correctness", "tcgen05", "memory-ordering"),
    precision="high",
)
