"""## What it does
Reports three breaches of the register discipline of `wgmma.mma_async`, the asynchronous
warpgroup MMA of Hopper (sm_90a), on any feasible path (branches on the same condition are
correlated; loop back edges are followed), with the path as a witness:

- an instruction that reads or writes the accumulator (`d`) registers, or the A-fragment
  registers, of a `wgmma.mma_async` still in flight: not retired by a `wgmma.wait_group N`
  after its `wgmma.commit_group` (the wait retires all but the N most recent committed groups);
- a `wgmma.mma_async` whose accumulator or A registers another instruction accessed since the
  last `wgmma.fence`, or that a kernel reaches with no `wgmma.fence` at all;
- a `wgmma.wait_group` reached with a `wgmma.mma_async` issued and never committed: a wait
  retires committed groups only, so it does not wait for that MMA.

## Why is this bad?
The PTX ISA (PTX 8.x §9.7.15.5.2 `wgmma.mma_async`, §9.7.15.7.1–3 `wgmma.fence`,
`wgmma.commit_group`, `wgmma.wait_group`) makes each of these undefined behaviour: "accessing
the accumulator register or the input register containing the fragments of matrix A of a
`wgmma.mma_async` instruction without first performing a `wgmma.wait_group` instruction that
waits on a wgmma-group including that `wgmma.mma_async` instruction", and a `wgmma.fence` must
separate "a register access by a thread in the warpgroup and any `wgmma.mma_async` instruction
that accesses the same registers" and come before the first `wgmma.mma_async`. The tensor core
reads and writes those registers in the background: an early read sees a partial sum, an early
write is lost or corrupts the result. ptxas papers over some of these where it sees them, and
says so in advisories (`-v` not needed): C7517 "warpgroup.wait is injected ... to allow use of
registers defined by GMMA", C7519 "warpgroup.arrive is injected ... to allow use of registers in
GMMA", C7514/C7515 "wgmma.mma_async instructions are serialized due to non wgmma instructions
reading (defining) accumulator registers of a wgmma between start and end of the pipeline
stage". That costs the overlap the asynchronous MMA exists for, it misses cases
(a missing commit, an overwritten A fragment), and it is not what the ISA promises.

## Example
```ptx
.version 8.0
.target sm_90a
.address_size 64
.visible .entry kernel(.param .u64 out, .param .u64 descs)
.reqntid 128
{
	.reg .f32 %f<6>;
	.reg .b64 %rd<5>;
	ld.param.u64 %rd1, [out];
	ld.param.u64 %rd2, [descs];
	mov.f32 %f1, 0f00000000;
	mov.f32 %f2, 0f00000000;
	mov.f32 %f3, 0f00000000;
	mov.f32 %f4, 0f00000000;
	wgmma.fence.sync.aligned;
	wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd2, %rd2, 1, 1, 1, 0, 0;
	wgmma.commit_group.sync.aligned;
	add.f32 %f5, %f1, %f2;
	wgmma.wait_group.sync.aligned 0;
	st.global.f32 [%rd1], %f5;
	ret;
}
```

## Use instead
```ptx
.version 8.0
.target sm_90a
.address_size 64
.visible .entry kernel(.param .u64 out, .param .u64 descs)
.reqntid 128
{
	.reg .f32 %f<6>;
	.reg .b64 %rd<5>;
	ld.param.u64 %rd1, [out];
	ld.param.u64 %rd2, [descs];
	mov.f32 %f1, 0f00000000;
	mov.f32 %f2, 0f00000000;
	mov.f32 %f3, 0f00000000;
	mov.f32 %f4, 0f00000000;
	wgmma.fence.sync.aligned;
	wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, %f4}, %rd2, %rd2, 1, 1, 1, 0, 0;
	wgmma.commit_group.sync.aligned;
	wgmma.wait_group.sync.aligned 0;
	add.f32 %f5, %f1, %f2;
	st.global.f32 [%rd1], %f5;
	ret;
}
```

## Exceptions
Accumulator accesses by a later `wgmma.mma_async` of the same shape need neither a wait nor a
fence (the ISA orders chained MMAs), so the pipelined k-loop — `wgmma.fence`, MMAs,
`wgmma.commit_group`, `wgmma.wait_group 1` — is correct, as is reading accumulators after a
`wait_group 1` when the group still pending is a newer one. Two MMAs reading one A fragment
only read it (an RS GEMM split along N). A `wgmma.mma_async` of another shape is checked like any
other access. Registers are compared by name: a copy made before the MMA and read while it runs
is fine. One missing fence is reported once, at the first MMA it leaves unfenced (the others of
the same stretch are named), and one missing wait once per MMA, at the first access. A call to a
function whose body is not in the module, or that issues `wgmma` itself, is assumed to fence and
to wait for everything; a `.func` is assumed entered fenced with nothing in flight.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Iterator

from ptxlint.context import ModuleContext
from ptxlint.diagnostics import Diagnostic, Label, Severity
from ptxlint.ir import Function, registers_in
from ptxlint.lazy_imports import lazy_module
from ptxlint.rules.base import Rule
from ptxlint.rules.tcgen05_messages import witness_labels

wgmma_operands = lazy_module("ptxlint.analyses.asynchronous.wgmma_operands")

if TYPE_CHECKING:
    from ptxlint.analyses.asynchronous.wgmma_groups import InFlight, UnfencedAccess, WgmmaFacts

_MMA = "`wgmma.mma_async`"
_WAIT_HELP = (
    "wait for the group holding the MMA first: `wgmma.wait_group.sync.aligned N` with N at most the number of newer "
    "committed groups (CUTLASS/CuTe `warpgroup_wait<N>()`), and pin the accumulators with `warpgroup_fence_operand(accum)` "
    "after the wait so the compiler cannot move their uses above it"
)
_FENCE_HELP = (
    "put `wgmma.fence.sync.aligned` between the last access and the MMA (CUTLASS/CuTe `warpgroup_fence_operand(accum)` then "
    "`warpgroup_arrive()`)"
)
_COMMIT_HELP = (
    "commit the MMAs before waiting: `wgmma.commit_group.sync.aligned` (CUTLASS/CuTe `warpgroup_commit_batch()`) before "
    "`wgmma.wait_group` (`warpgroup_wait<N>()`)"
)


def check(context: ModuleContext) -> Iterable[Diagnostic]:
    for function in context.module.functions:
        # The cheap scan first: a module without wgmma loads no solver.
        if function.has_body and wgmma_operands.has_wgmma(function):
            facts = context.result("wgmma_groups", function)
            if facts is not None:
                yield from _check_function(function, facts)


def _check_function(function: Function, facts: WgmmaFacts) -> Iterator[Diagnostic]:
    uncommitted_at_wait: set[int] = set()
    for wait in facts.waits():
        missing = facts.uncommitted_before(wait)
        if missing:
            uncommitted_at_wait.update(missing)
            yield _uncommitted(function, facts, wait, missing)
    # One finding per missing fence: the MMAs after the first in one fence-free stretch are
    # named as affected the same way.
    unfenced_mmas = [(mma, unfenced) for mma in facts.mmas() if (unfenced := facts.unfenced_access(mma)) is not None]
    while unfenced_mmas:
        mma, unfenced = unfenced_mmas.pop(0)
        same = [other for other, _ in unfenced_mmas if facts.same_fence_region(mma, other)]
        unfenced_mmas = [(other, why) for other, why in unfenced_mmas if other not in same]
        yield _unfenced(function, mma, unfenced, same)
    # One finding per MMA in flight: the first instruction (in program order) touching it.
    reported = set(uncommitted_at_wait)
    for index in sorted(set(facts.accessors()) | set(facts.mmas())):
        hazards = [item for item in facts.conflicting_in_flight(index) if item.mma not in reported]
        if hazards:
            reported.update(item.mma for item in hazards)
            yield _in_flight(function, facts, index, hazards)


def _in_flight(function: Function, facts: WgmmaFacts, index: int, hazards: list[InFlight]) -> Diagnostic:
    instruction = function.instructions[index]
    first = hazards[0]
    mma = function.instructions[first.mma]
    state = "committed but not waited for" if first.committed else "not even committed"
    written = {register.name for operand in instruction.destinations for register in registers_in(operand)}
    verb = "writes" if written.intersection(first.registers) else "reads"
    return RULE.diagnostic(
        instruction.opcode_span,
        f"`{instruction.opcode.text}` {verb} {_register_list(first.registers)} of the {_MMA} on line {mma.span.line} "
        f"while it is in flight ({state}): no `wgmma.wait_group` retires it first",
        labels=[Label(function.instructions[item.mma].span, f"{_MMA} still running here") for item in hazards],
        help=_WAIT_HELP if first.committed else _COMMIT_HELP,
        witness=[
            Label(mma.span, f"{_MMA} issued"),
            *witness_labels(facts.in_flight_witness(first.mma, index)),
            Label(instruction.span, "its registers accessed before the wait"),
        ],
    )


def _unfenced(function: Function, mma: int, unfenced: UnfencedAccess, same: list[int]) -> Diagnostic:
    instruction = function.instructions[mma]
    affected = [Label(function.instructions[other].span, f"{_MMA} not fenced either", also_affected=True) for other in same]
    if unfenced.access is not None:
        access = function.instructions[unfenced.access]
        return RULE.diagnostic(
            instruction.opcode_span,
            f"{_MMA} uses {_register_list(unfenced.registers)}, accessed by `{access.opcode.text}` on line {access.span.line} with no "
            "`wgmma.fence` in between",
            labels=[Label(access.span, "register accessed here, not fenced from the MMA"), *affected],
            help=_FENCE_HELP,
        )
    return RULE.diagnostic(
        instruction.opcode_span,
        f"{_MMA} can run with no `wgmma.fence` since the kernel started: the ISA requires one before the first MMA",
        labels=affected,
        help=_FENCE_HELP,
    )


def _uncommitted(function: Function, facts: WgmmaFacts, wait: int, missing: list[int]) -> Diagnostic:
    instruction = function.instructions[wait]
    first = function.instructions[missing[0]]
    return RULE.diagnostic(
        instruction.opcode_span,
        f"`wgmma.wait_group` does not wait for the {_MMA} on line {first.span.line}: it was never committed "
        "(a wait retires committed groups only)",
        labels=[Label(function.instructions[mma].span, f"{_MMA} issued, no `wgmma.commit_group` after it") for mma in missing],
        help=_COMMIT_HELP,
        witness=[
            Label(first.span, f"{_MMA} issued"),
            *witness_labels(facts.uncommitted_witness(missing[0], wait)),
            Label(instruction.span, "wait reached before any commit"),
        ],
    )


def _register_list(names: tuple[str, ...]) -> str:
    shown = ", ".join(f"`{name}`" for name in names[:4])
    return shown + (f" and {len(names) - 4} more" if len(names) > 4 else "")


RULE = Rule(
    code="PTX505",
    name="wgmma-registers-unsynchronized",
    severity=Severity.ERROR,
    summary="wgmma accumulator/A registers touched while the MMA runs, not fenced before it, or waited for without a commit",
    docs=__doc__ or "",
    check=check,
    requires=("wgmma_groups",),
    tags=("correctness", "wgmma", "async"),
    precision="high",
)
