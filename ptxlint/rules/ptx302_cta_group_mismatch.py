"""## What it does
Reports a tcgen05 instruction whose `.cta_group` differs from the one the rest of its kernel uses.
The kernel's `.cta_group` is that of its first tcgen05 instruction that has one (`alloc`,
`dealloc`, `relinquish_alloc_permit`, `cp`, `shift`, every `mma` variant, `commit`): its own body
first, then the functions it calls, transitively, in call order. Every later instruction that
disagrees is reported, with the first one as a related location and the call chain in the notes.

## Why is this bad?
PTX requires all tcgen05 instructions of a kernel to use the same `.cta_group`: the tensor-core
state of a CTA is set up for either one CTA or a CTA pair. A `tcgen05.commit.cta_group::1` also
tracks only `::1` operations, so a mixed kernel can signal an mbarrier before an `::2` MMA has
finished. `ptxas` rejects the module, but names no line, and the culprit is often in a helper
function far from the kernel.

## Example
```ptx
.version 8.6
.target sm_100a
.address_size 64
.shared .align 4 .b32 slot;
.visible .entry kernel()
.reqntid 128
{
	.reg .b32 %r<3>;
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 32;
	ld.shared.u32 %r1, [slot];
	tcgen05.dealloc.cta_group::2.sync.aligned.b32 %r1, 32;
	ret;
}
```

## Use instead
```ptx
.version 8.6
.target sm_100a
.address_size 64
.shared .align 4 .b32 slot;
.visible .entry kernel()
.reqntid 128
{
	.reg .b32 %r<3>;
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 32;
	ld.shared.u32 %r1, [slot];
	tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r1, 32;
	ret;
}
```

## Exceptions
Different kernels of one module may use different `.cta_group`s; a function called from kernels
of both kinds is reported for each kernel it disagrees with. `tcgen05.ld`, `st`, `wait` and
`fence` have no `.cta_group`, and the `.cta_group` of `cp.async.bulk.tensor` selects peer-CTA
mbarrier signalling, not tensor-core state, so neither takes part.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Iterator, NamedTuple

from ptxlint.context import ModuleContext
from ptxlint.diagnostics import Diagnostic, Label, Severity
from ptxlint.ir import Function, Instruction
from ptxlint.isa.tcgen05 import CTA_GROUP_OPERATIONS, operation
from ptxlint.rules.base import Rule
from ptxlint.source import Span

if TYPE_CHECKING:
    from ptxlint.callgraph import CallGraph

_PREFIX = "cta_group::"


class GroupedInstruction(NamedTuple):
    function: str
    instruction: Instruction
    cta_group: str  # "cta_group::1"

    @property
    def span(self) -> Span:
        """The `.cta_group::N` modifier itself."""
        position = self.instruction.opcode.modifiers.index(self.cta_group)
        return self.instruction.modifier_span(position)


def check(context: ModuleContext) -> Iterable[Diagnostic]:
    module = context.module
    if not any(_grouped_in(context, function) for function in module.functions):
        return
    calls = context.result("call_graph")
    for kernel in module.kernels:
        yield from _check_kernel(context, kernel.name, calls)


def _check_kernel(context: ModuleContext, kernel: str, calls: CallGraph) -> Iterator[Diagnostic]:
    order = calls.reachable_from(kernel)
    grouped = [
        GroupedInstruction(name, instruction, cta_group)
        for name in order
        for instruction, cta_group in _grouped_in(context, calls.functions[name])
    ]
    if not grouped:
        return
    first = grouped[0]
    chains = calls.first_callers(kernel)
    for found in grouped[1:]:
        if found.cta_group == first.cta_group:
            continue
        opcode = f"{found.instruction.opcode.base}.{found.instruction.opcode.modifiers[0]}"
        yield RULE.diagnostic(
            found.span,
            f"`{opcode}` uses `.{found.cta_group}` but kernel `{kernel}` uses `.{first.cta_group}`",
            labels=(Label(first.span, f"kernel `{kernel}` first uses `.{first.cta_group}` here"),),
            notes=_chain_notes(kernel, found.function, chains),
            help=f"give every tcgen05 instruction of kernel `{kernel}` one `.cta_group`; in CuTe, pair 2-SM MMA atoms "
            "with `cute::TMEM::Allocator2Sm` and 1-SM ones with `Allocator1Sm`",
        )


def _grouped_in(context: ModuleContext, function: Function) -> list[tuple[Instruction, str]]:
    """The instructions of ``function`` with a `.cta_group`, in textual order."""
    found = []
    for index in context.result("tcgen05_scan").instructions(function):
        instruction = function.instructions[index]
        opcode = instruction.opcode
        if operation(opcode.base, opcode.modifiers) not in CTA_GROUP_OPERATIONS:
            continue
        cta_group = opcode.modifier_with_prefix(_PREFIX)
        if cta_group is not None:
            found.append((instruction, cta_group))
    return found


def _chain_notes(kernel: str, function: str, caller_of: dict[str, str]) -> tuple[str, ...]:
    if function == kernel:
        return ()
    chain = [function]
    while chain[-1] in caller_of:
        chain.append(caller_of[chain[-1]])
    path = " → ".join(f"`{name}`" for name in reversed(chain))
    return (f"reached through the calls {path}",)


RULE = Rule(
    code="PTX302",
    name="cta-group-mismatch",
    severity=Severity.ERROR,
    summary="tcgen05 instructions of one kernel with different `.cta_group`s",
    docs=__doc__ or "",
    check=check,
    requires=("tcgen05_scan", "call_graph"),
    tags=("correctness", "tcgen05"),
    precision="very-high",
)
