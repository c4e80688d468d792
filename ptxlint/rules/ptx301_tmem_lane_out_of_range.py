"""## What it does
Reports a `tcgen05.ld` or `tcgen05.st` that some warp executes with an address whose lanes lie
outside the quarter of tensor memory that warp may access: lanes 32·(w mod 4) … 32·(w mod 4)+31
for warp w of the CTA. The address's lane field is bits 31–16; `.32x32b` touches 32 lanes from
it, the `.16x*` shapes 16, and `.16x32bx2` also 16 at `taddr + immHalfSplitoff`. Each warp that
can reach the instruction is evaluated on its own: the warp count comes from `.reqntid` or
`.maxntid`, branches on the warp index narrow it, and the address is followed from
`tcgen05.alloc` (lane 0, read back from its shared-memory slot, also by warps that did not
allocate) through arithmetic on the warp index (`(warp & 3) << 21`, shuffles of `%tid.x / 32`,
`%tid.y` of a `.reqntid 32, 4` block, `(tid.x + tid.y * ntid.x) / 32`) and through the bit
fields of the address (`(base & 0xFFFF) | lane << 16`, `bfi`, `bfe`, `prmt`, `mad`). A `.func`
whose address is one of its parameters plus a constant is checked for each call that passes it
an address the caller computes per warp (nvcc's `st.param` in the call sequence): the finding is
at the `.func`'s access, with the call. Only proven violations are reported.

## Why is this bad?
A warp can only reach its own lane quarter with `tcgen05.ld`/`st` (PTX ISA §9.7.16.8.1). A
warp-specialised epilogue whose warps 4–7 compute lane offsets from the warp index without
`mod 4` addresses lanes 128 and above, or another warp's lanes: the behaviour is undefined, and
in practice the tile comes back garbled or the kernel faults.

## Example
```ptx
.version 8.6
.target sm_100a
.address_size 64
.shared .align 4 .b32 slot;
.visible .entry kernel()
.reqntid 256
{
	.reg .b32 %r<8>;
	.reg .pred %p<2>;
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 32;
	ld.shared.u32 %r3, [slot];
	setp.lt.u32 %p1, %r2, 4;
	@%p1 bra DONE;
	shl.b32 %r4, %r2, 21;
	add.s32 %r5, %r3, %r4;
	tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r6, %r7}, [%r5];
	tcgen05.wait::ld.sync.aligned;
DONE:
	tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r3, 32;
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
.reqntid 256
{
	.reg .b32 %r<8>;
	.reg .pred %p<2>;
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [slot], 32;
	ld.shared.u32 %r3, [slot];
	setp.lt.u32 %p1, %r2, 4;
	@%p1 bra DONE;
	and.b32 %r4, %r2, 3;
	shl.b32 %r4, %r4, 21;
	add.s32 %r5, %r3, %r4;
	tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r6, %r7}, [%r5];
	tcgen05.wait::ld.sync.aligned;
DONE:
	tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r3, 32;
	ret;
}
```

## Exceptions
Addresses the analysis cannot follow (kernel parameters, a `.func`'s parameters beyond a
constant offset or from a caller that does not compute them, values loaded from memory other
than the allocation's shared-memory slot) are never reported; a slot the function also stores to is read
as the allocation's address only after the allocation on the same path, and `%tid.y`/`%tid.z`
are followed only where `.reqntid` fixes the block's shape. An unknown value added to a TMEM
address is taken to move only its column. Without `.reqntid`/`.maxntid` the block may have up to 32 warps;
then only instructions that branches restrict to some warps are checked, since the kernel may be
launched with a single warpgroup. `%warpid` is not a warp index (it can change during execution)
and is never followed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Iterator

from ptxlint.context import ModuleContext
from ptxlint.diagnostics import Diagnostic, Label, Severity
from ptxlint.ir import Address, Function, Immediate, Instruction
from ptxlint.isa.tcgen05 import LANE_SHIFT, SPLIT_SHAPE, accessible_lanes, data_movement_shape, lanes_touched, operation
from ptxlint.rules.base import Rule

if TYPE_CHECKING:
    from ptxlint.analyses.threads.reach import ThreadReach
    from ptxlint.analyses.threads.values_lattice import TensorAddress


def check(context: ModuleContext) -> Iterable[Diagnostic]:
    scan = context.result("tcgen05_scan")
    for function in context.module.functions:
        if function.has_body and scan.issues_accesses(function):
            yield from _check_function(context, function)


def _check_function(context: ModuleContext, function: Function) -> Iterator[Diagnostic]:
    roles: ThreadReach | None = None
    for index in context.result("tcgen05_scan").instructions(function):
        instruction = function.instructions[index]
        if operation(instruction.opcode.base, instruction.opcode.modifiers) not in ("ld", "st"):
            continue
        if roles is None:
            roles = context.result("roles", function)
        violations = list(_violations(roles, index, instruction))
        if violations:
            yield _report(instruction, violations)
        elif not function.is_kernel:
            found = _through_a_call(context, function, roles, index, instruction)
            if found is not None:
                yield found


def _violations(roles: ThreadReach, index: int, instruction: Instruction) -> Iterator[tuple[int, range, range]]:
    """(warp, lanes it touches, lanes it may touch) for each warp that breaks the rule."""
    warps = roles.warps_at(index, instruction)
    if not roles.warp_count_known and warps == roles.everyone:
        return
    address = next((operand for operand in instruction.operands if type(operand) is Address), None)
    if address is not None:
        yield from _outside_quarters(instruction, roles.tensor_addresses(index, address, warps))


def _outside_quarters(instruction: Instruction, addresses: Iterable[tuple[int, TensorAddress]]) -> Iterator[tuple[int, range, range]]:
    """Of (warp, the address it uses), those whose access leaves the warp's lane quarter."""
    count = lanes_touched(instruction.opcode.modifiers)
    if count is None:
        return
    for warp, entry in addresses:
        allowed = accessible_lanes(warp)
        for first in _first_lanes(instruction, entry):
            touched = range(first, first + count)
            if touched.start < allowed.start or touched.stop > allowed.stop:
                yield warp, touched, allowed
                break


def _through_a_call(
    context: ModuleContext, function: Function, roles: ThreadReach, index: int, instruction: Instruction
) -> Diagnostic | None:
    """The access of a `.func` whose address is one of its parameters plus a constant: checked
    for the warps of each caller that pass it an address they compute (the first call with a
    violation is reported)."""
    address = next((operand for operand in instruction.operands if type(operand) is Address), None)
    if address is None or not roles.reachable(index):
        return None
    parameter = context.result("warp_values", function).parameter_offset(index, address)
    if parameter is None:
        return None
    calls = context.result("call_graph")
    for site in calls.callers.get(function.name, ()):
        caller = calls.functions[site.caller]
        arguments = context.result("warp_values", caller).call_arguments(site.instruction_index)
        argument = arguments[parameter.position] if parameter.position < len(arguments) else None
        if argument is None:
            continue
        store, value = argument
        caller_roles = context.result("roles", caller)
        warps = caller_roles.warps_at(site.instruction_index, site.instruction) & roles.warps_at(index, instruction)
        if not caller_roles.warp_count_known and warps == caller_roles.everyone:
            continue
        used = (
            (warp, parameter.applied_to(passed)) for warp, passed in caller_roles.tensor_addresses(store, value, warps)
        )
        violations = list(_outside_quarters(instruction, ((warp, entry) for warp, entry in used if entry is not None)))
        if violations:
            line = caller.instructions[store].span.line
            label = Label(
                site.instruction.opcode_span,
                f"called from `{caller.name}`, which passes the address (`st.param` on line {line})",
            )
            return _report(instruction, violations, (label,))
    return None


def _first_lanes(instruction: Instruction, address: TensorAddress) -> list[int]:
    """The first lane of each access: one, or two for `.16x32bx2` (at `taddr + immHalfSplitoff`)."""
    lanes = [address.lane]
    if data_movement_shape(instruction.opcode.modifiers) == SPLIT_SHAPE:
        offset = next((operand.value for operand in instruction.operands if type(operand) is Immediate), None)
        if type(offset) is int:
            column = address.column if address.column is not None else 0
            lanes.append(address.lane + ((column + offset) >> LANE_SHIFT))
    return lanes


def _lanes(lanes: range) -> str:
    return f"{lanes.start}–{lanes.stop - 1}"


def _report(instruction: Instruction, violations: list[tuple[int, range, range]], labels: tuple[Label, ...] = ()) -> Diagnostic:
    warp, touched, allowed = violations[0]
    name = f"tcgen05.{instruction.opcode.modifiers[0]}"
    notes = tuple(
        f"warp {other} accesses lanes {_lanes(lanes)}, it may only access {_lanes(quarter)}"
        for other, lanes, quarter in violations[1:]
    )
    return RULE.diagnostic(
        instruction.opcode_span,
        f"`{name}`: warp {warp} accesses lanes {_lanes(touched)}, it may only access {_lanes(allowed)}",
        labels=labels,
        notes=notes,
        help="a warp may touch only the 32 lanes of its quarter, `32 * (warp % 4)` onwards: put that in bits 31–16 of "
        "the address (`base + ((32 * (warp % 4)) << 16)`, the warp index from `canonical_warp_idx_sync()`), or give "
        "this access to the warp whose quarter it is (in CuTe, partition the TMEM copy by the thread index)",
    )


RULE = Rule(
    code="PTX301",
    name="tmem-lane-out-of-range",
    severity=Severity.ERROR,
    summary="A `tcgen05.ld`/`st` outside the TMEM lane quarter of the warp executing it",
    docs=__doc__ or "",
    check=check,
    requires=("tcgen05_scan", "roles", "warp_values", "call_graph"),
    tags=("correctness", "tcgen05"),
    precision="high",
)
