"""## What it does
Reports an operand that the ISA requires to be the same in every thread of the warp but that
varies per thread: the tensor-memory address of `tcgen05.ld`/`tcgen05.st`, the address and
column count of `tcgen05.alloc`/`tcgen05.dealloc`, the address and stride of
`wmma.load`/`wmma.store`, the id and thread count of a CTA barrier.

## Why is this bad?
The instruction is executed once for the whole warp, with one value of the operand; which
thread's value is used is not defined. A per-thread tensor-memory address usually means the code
tried to address each thread's lane itself, which the warp-collective form already does.

## Example
```ptx
.version 9.0
.target sm_100a
.address_size 64
.visible .entry kernel(.param .u32 taddr)
{
	.reg .b32 %r<6>;
	ld.param.u32 %r1, [taddr];
	mov.u32 %r2, %tid.x;
	add.u32 %r3, %r1, %r2;
	tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r4, %r5}, [%r3];
	tcgen05.wait::ld.sync.aligned;
	ret;
}
```

## Use instead
Pass the warp's base address; each thread receives its own lane's data:
```ptx
.version 9.0
.target sm_100a
.address_size 64
.visible .entry kernel(.param .u32 taddr)
{
	.reg .b32 %r<6>;
	ld.param.u32 %r1, [taddr];
	mov.u32 %r2, %tid.x;
	and.b32 %r3, %r2, 96;
	shl.b32 %r3, %r3, 16;
	add.u32 %r3, %r1, %r3;
	tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r4, %r5}, [%r3];
	tcgen05.wait::ld.sync.aligned;
	ret;
}
```

## Exceptions
Not reported when the instruction itself already runs under thread-varying control (PTX101 or
PTX102 reports that, and values written there vary for the same reason). Values loaded from a
uniform address are taken to be uniform, as LLVM does.
"""

from __future__ import annotations

from typing import Iterable

from ptxlint.context import ModuleContext
from ptxlint.diagnostics import Diagnostic, Label, Severity
from ptxlint.lazy_imports import lazy_module
from ptxlint.rules.base import Rule
from ptxlint.rules.convergence_messages import WARP_INDEX

tid_fields = lazy_module("ptxlint.analyses.threads.tid_fields")


def check(context: ModuleContext) -> Iterable[Diagnostic]:
    for site in context.result("convergence"):
        if site.via is not None or site.facts.execution_level == tid_fields.Level.THREAD:
            continue
        operands = site.instruction.operands
        for position, value in sorted(site.facts.operands.items()):
            if value.level != tid_fields.Level.THREAD:
                continue
            operand = operands[position]
            text = _source_text(context, operand.span)
            message = f"operand `{text}` of `{site.short_name}` must be the same in every thread of the warp, but it varies per thread"
            labels = [Label(value.origin.span, value.origin.message)] if value.origin is not None else []
            yield RULE.diagnostic(operand.span, message, labels=labels, help=_help(site.short_name, site.requirement.barrier))


def _help(name: str, barrier: bool) -> str:
    if name.startswith("tcgen05"):
        return (
            "a tensor-memory address must be the same in every lane: the base `tcgen05.alloc` wrote to shared "
            "memory, plus the warp's lane quarter in bits 31–16 (`((warp % 4) * 32) << 16`, with `warp` "
            f"{WARP_INDEX}); each lane's row follows from the access shape, not from its address"
        )
    if barrier:  # a CTA barrier's id and thread count
        return f"compute the barrier id and thread count from constants or {WARP_INDEX}, not from `threadIdx.x`"
    return (
        f"compute it from warp-uniform values, such as {WARP_INDEX} rather than `threadIdx.x`, or broadcast one "
        "lane's value with `__shfl_sync(0xffffffff, value, 0)`"
    )


def _source_text(context: ModuleContext, span) -> str:
    return context.module.source.data[span.start : span.end].decode("utf-8", "replace")


RULE = Rule(
    code="PTX105",
    name="nonuniform-collective-operand",
    severity=Severity.ERROR,
    summary="An operand that must be warp-uniform (a tensor-memory address, a barrier id, …) varies per thread",
    docs=__doc__ or "",
    check=check,
    requires=("convergence",),
    tags=("correctness", "convergence"),
    precision="high",
)
