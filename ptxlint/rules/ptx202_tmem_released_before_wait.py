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

from ptxlint.analyses.tcgen05_scan import called_operations
from ptxlint.context import ModuleContext
from ptxlint.diagnostics import Diagnostic, Severity
from ptxlint.ir import Function, Instruction
from ptxlint.isa.tcgen05 import operation
from ptxlint.rules.base import Rule

if TYPE_CHECKING:
    from ptxlint.analyses.tcgen05 import FunctionState, Pending

# The path analysis is imported inside the functions that use it: a module without tensor-memory
# accesses never loads it (a tenth of the start-up of linting a small kernel).

# Bases whose every form publishes this thread's earlier memory effects to others.
_ALWAYS = frozenset({"atom", "red", "exit"})


# Every base :func:`hand_off` can accept: a cheap first test for a whole function's instructions.
_HAND_OFF_BASES = _ALWAYS | {"ret", "mbarrier", "cp", "tcgen05", "bar", "barrier", "st"}


def hand_off(instruction: Instruction, in_kernel: bool) -> str | None:
    """What kind of hand-off an instruction is (for the message), or None."""
    opcode = instruction.opcode
    base, modifiers = opcode.base, opcode.modifiers
    first = modifiers[0] if modifiers else ""
    if base in _ALWAYS:
        return f"`{base}`"
    if base == "ret":
        return "the kernel's `ret`" if in_kernel else None
    if base == "mbarrier" and first.startswith("arrive"):
        return "`mbarrier.arrive`"
    if base == "cp" and "mbarrier" in modifiers and "arrive" in modifiers:
        return "`cp.async.mbarrier.arrive`"
    if base == "tcgen05" and first in ("commit", "dealloc"):
        return f"`tcgen05.{first}`"
    if base == "bar" and first != "warp":
        return f"`bar.{first}`" if first else "`bar`"
    if base == "barrier" and first != "warp":
        if first == "cluster":
            return "`barrier.cluster.arrive`" if "arrive" in modifiers else None
        return "`barrier`"
    if base == "st" and "release" in modifiers:
        return "a release store"
    return None


def check(context: ModuleContext) -> Iterable[Diagnostic]:
    scan = context.result("tcgen05_scan")
    for function in context.module.functions:
        if function.has_body and scan.issues_accesses(function) and scan.works_on_allocated(function):
            yield from _check_function(context, function)


def _check_function(context: ModuleContext, function: Function) -> Iterator[Diagnostic]:
    from ptxlint.analyses.tcgen05 import may_have_pending, pending_items

    events = [
        index
        for index, instruction in enumerate(function.instructions)
        if instruction.opcode.base in _HAND_OFF_BASES and hand_off(instruction, function.is_kernel)
    ]
    if not events:
        return
    pending = context.result("tcgen05_pending", function)
    graph = pending.solution.cfg
    first_hand_offs = FirstHandOffs(pending, frozenset(events))
    for index in events:
        if not may_have_pending(pending, graph.block_of(index)):
            continue
        instruction = function.instructions[index]
        state = pending.analysis.assume_guard(index, instruction, pending.state_before(index))
        in_flight = sorted(
            (
                item
                for item in pending_items(state)
                if not item.values_consumed
                and first_hand_offs.first(item, index)
                and not (_is_cta_barrier(instruction) and _nothing_touches_tmem_before_wait(pending, index, item))
            ),
            key=lambda item: item.index,
        )
        if in_flight:
            yield _report(function, instruction, hand_off(instruction, function.is_kernel), in_flight)


def _is_cta_barrier(instruction: Instruction) -> bool:
    opcode = instruction.opcode
    first = opcode.modifiers[0] if opcode.modifiers else ""
    return opcode.base in ("bar", "barrier") and first not in ("warp", "cluster")


# What another thread may do to the tensor memory of a pending access after a barrier, by the
# access's kind: overwrite or free what a load reads; also read what a store writes.
_CONFLICTING = {
    "ld": frozenset({"mma", "cp", "st", "shift", "dealloc"}),
    "st": frozenset({"mma", "cp", "st", "shift", "dealloc", "ld"}),
}
# Instructions the search below visits at most, from one barrier; past it the barrier is reported.
_SEARCH_BUDGET = 20_000


def _nothing_touches_tmem_before_wait(pending: FunctionState, barrier: int, item: Pending) -> bool:
    """Whether, on every path from the CTA barrier at ``barrier``, this thread waits for ``item``
    and then passes another CTA barrier before any instruction that conflicts with the access,
    frees tensor memory or hands anything over: then no thread can act on what the barrier
    published before the access completes, and the later barrier is the real hand-off."""
    function = pending.analysis.function
    graph = pending.solution.cfg
    instructions = function.instructions
    summaries = pending.analysis.summaries
    conflicting = _CONFLICTING[item.kind]
    wait = f"wait::{item.kind}"
    budget = _SEARCH_BUDGET
    seen: set[tuple[int, bool]] = set()
    work = [(barrier + 1, False)]
    while work:
        position, waited = work.pop()
        block = graph.block_of(position) if position < len(instructions) else None
        if block is None:
            return False  # the end of the body with nothing after
        end = graph.blocks[block].end
        while position < end:
            budget -= 1
            if budget < 0:
                return False
            instruction = instructions[position]
            opcode = instruction.opcode
            if opcode.base == "call":
                operations = called_operations(instruction, summaries)
                if operations is None or wait in operations:
                    waited = True  # a function whose body is unknown is assumed to wait
                elif operations & conflicting:
                    return False
            elif opcode.base == "tcgen05":
                performed = operation(opcode.base, opcode.modifiers)
                if performed == wait and instruction.guard is None:
                    waited = True
                elif performed in conflicting or performed == "commit":
                    return False
            elif _is_cta_barrier(instruction):
                if waited:
                    break  # the next hand-off comes after the wait
            elif hand_off(instruction, function.is_kernel):
                return False
            position += 1
        else:
            for successor in graph.successors(block):
                if successor == graph.exit:
                    return False
                state = (graph.blocks[successor].start, waited)
                if state not in seen:
                    seen.add(state)
                    work.append(state)
    return True


class FirstHandOffs:
    """Which hand-offs an access can reach through no other hand-off. Later hand-offs repeat the
    first one's finding (a stream of atomics after a barrier), so only the first along a path is
    reported. Per access, one forward search over the blocks it stays in flight through."""

    def __init__(self, pending: FunctionState, hand_offs: frozenset[int]) -> None:
        self.pending = pending
        self.hand_offs = hand_offs
        self._reached: dict[int, frozenset[int]] = {}

    def first(self, item: Pending, index: int) -> bool:
        graph = self.pending.solution.cfg
        block = graph.block_of(index)
        issued_before = graph.block_of(item.index) == block and item.index < index
        since = item.index + 1 if issued_before else graph.blocks[block].start
        if self._any_hand_off(since, index):
            return False
        return issued_before or block in self._reached_blocks(item)

    def _reached_blocks(self, item: Pending) -> frozenset[int]:
        """Blocks entered with ``item`` in flight and no hand-off since it was issued."""
        known = self._reached.get(item.index)
        if known is not None:
            return known
        graph = self.pending.solution.cfg
        origin = graph.block_of(item.index)
        reached: set[int] = set()
        frontier = [] if self._any_hand_off(item.index + 1, graph.blocks[origin].end) else [origin]
        while frontier:
            block = frontier.pop()
            for successor in graph.successors(block):
                if successor == graph.exit or successor in reached or not self._flows(item, block, successor):
                    continue
                reached.add(successor)
                node = graph.blocks[successor]
                if not self._any_hand_off(node.start, node.end):
                    frontier.append(successor)
        self._reached[item.index] = frozenset(reached)
        return self._reached[item.index]

    def _flows(self, item: Pending, source: int, target: int) -> bool:
        state = self.pending.solution.block_exit.get(source)
        if not state:
            return False
        flowing = self.pending.analysis.refine(source, target, state)
        return any(
            entry.index == item.index and not entry.values_consumed
            for payload, _ in flowing
            for entry in payload.pending
        )

    def _any_hand_off(self, start: int, stop: int) -> bool:
        return any(position in self.hand_offs for position in range(start, stop))


def _report(function: Function, instruction: Instruction, kind: str, in_flight: list[Pending]) -> Diagnostic:
    from ptxlint.analyses.tcgen05 import pending_labels, waiting_instruction

    first = in_flight[0]
    access = function.instructions[first.index]
    wait = waiting_instruction(first.kind)
    labels = pending_labels(function, in_flight, "still in flight")
    return RULE.diagnostic(
        instruction.opcode_span,
        f"{kind} while the `tcgen05.{first.kind}` on line {access.span.line} may be in flight: "
        f"`{wait}` first",
        labels=labels,
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
