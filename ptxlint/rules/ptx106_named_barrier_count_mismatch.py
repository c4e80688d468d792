"""## What it does
Checks, per kernel, that the named CTA barriers it uses (`bar.sync`, `bar.arrive`, `bar.red`,
`barrier.sync`, `barrier.arrive`, `barrier.red`, with `.cta` or `.aligned` or not) add up. For a
barrier id that is a constant (an immediate, or a register set only by `mov` of one, as
CUTLASS's inline asm leaves it), it reports:

- a thread count larger than the threads that can ever arrive with it: the warps that may
  execute an instruction on that barrier (from the branches on the warp index, and the launch
  size in `.reqntid`/`.maxntid`), together, times 32. The barrier never completes: a hang;
- a barrier used with different thread counts, when the warps using one of the counts cannot
  make it up alone: the two sides meet in one phase and disagree (a producer's
  `bar.arrive 6, 160` against the consumers' `bar.sync 6, 192`);
- a barrier that the kernel only ever arrives at (`bar.arrive`), with no `bar.sync`/`bar.red`
  waiting on it: the arrivals synchronize nothing.

The functions the kernel calls are included: their barriers count for the kernel, executed by the
warps that may make the call. A finding in a function that several kernels call is made once and
names them.

## Why is this bad?
A named barrier completes when the number of threads its count names has arrived, counted in
whole warps: the producers that `bar.arrive` plus the consumers that `bar.sync` (PTX ISA
§9.7.13.1). If fewer threads can ever arrive, the consumers wait forever: the kernel hangs.
Warps that use one barrier must give the same count; with different counts the barrier completes
early (a shared-memory race) or never. And an arrival nobody waits for orders nothing: the
consumer side that called `NamedBarrier::arrive` where it needed `NamedBarrier::sync` reads the
producer's shared memory before it is written.

## Example
```ptx
.version 8.0
.target sm_90a
.address_size 64
.visible .entry kernel()
.reqntid 256
{
	.reg .pred %p<2>;
	.reg .b32 %r<3>;
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	setp.ne.u32 %p1, %r2, 0;
	@%p1 bra CONSUMER;
	bar.arrive 1, 192;
	bra.uni DONE;
CONSUMER:
	setp.lt.u32 %p1, %r2, 4;
	@%p1 bra DONE;
	bar.sync 1, 192;
DONE:
	ret;
}
```
Warp 0 arrives and warps 4–7 wait: 160 threads, never 192.

## Use instead
Count the threads that actually take part: one producer warp plus one consumer warpgroup.
```ptx
.version 8.0
.target sm_90a
.address_size 64
.visible .entry kernel()
.reqntid 256
{
	.reg .pred %p<2>;
	.reg .b32 %r<3>;
	mov.u32 %r1, %tid.x;
	shr.u32 %r2, %r1, 5;
	setp.ne.u32 %p1, %r2, 0;
	@%p1 bra CONSUMER;
	bar.arrive 1, 160;
	bra.uni DONE;
CONSUMER:
	setp.lt.u32 %p1, %r2, 4;
	@%p1 bra DONE;
	bar.sync 1, 160;
DONE:
	ret;
}
```

## Exceptions
Only what is proven is reported. A barrier id or count in a register that is not a constant
(FlashAttention-3's `WarpSchedulerWG1 - 1 + warp_group_idx`) is not followed: such an
instruction may use any barrier, so its warps count for every barrier, and a kernel with one
that waits is never reported for only arriving. The same holds for a call through a pointer or
to a function the module declares without defining it (other than `vprintf`, `malloc`, `free`
and `__assertfail`). Without `.reqntid`/`.maxntid` the block may have up to 32 warps, so only a
barrier that branches on the warp index keep to a few warps can be too large; like the other
warp analyses, this takes `%tid.x / 32` to be the warp index (`assume-1d-block`). Different
counts that each have enough warps of their own are not reported: after a CTA-wide barrier one
id may be reused with another count (two groups waiting on one id at different instructions at
the same time is PTX103's). A barrier without a thread count that only part of the CTA reaches
is PTX102's; a count that is not a multiple of 32 or an id above 15 is PTX405's, and is not
checked here. A warp is taken to arrive once per phase (arriving again before the barrier
completes is undefined). `.func`s that no kernel of the module calls are not checked.
"""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING, Iterable, Iterator

from ptxlint.context import ModuleContext
from ptxlint.diagnostics import Diagnostic, Label, Severity
from ptxlint.ir import Function, Instruction, Register
from ptxlint.lazy_imports import lazy_module
from ptxlint.records import record
from ptxlint.rules.base import Rule

barriers = lazy_module("ptxlint.analyses.barriers")
lane_sets = lazy_module("ptxlint.analyses.threads.lane_sets")
launch = lazy_module("ptxlint.analyses.launch")

if TYPE_CHECKING:
    from ptxlint.callgraph import CallGraph

# Functions without a body in the module that are known to use no CTA barrier: the CUDA runtime's
# device-side printf, heap and assert.
_NO_BARRIERS = frozenset({"vprintf", "malloc", "free", "__assertfail"})


@record(slots=True)
class Use:
    """A CTA barrier instruction of the ``barriers`` pass, with the function it is in."""

    function: Function
    use: barriers.BarrierUse

    @property
    def index(self) -> int:
        return self.use.index

    @property
    def instruction(self) -> Instruction:
        return self.use.instruction

    @property
    def barrier(self) -> int | None:
        return self.use.barrier

    @property
    def count(self) -> int | str:
        return self.use.count

    @property
    def waits(self) -> bool:
        return self.use.waits

    @property
    def name(self) -> str:
        return self.use.name


@record(frozen=False)
class _Finding:
    """One finding, made once even when several kernels reach its instruction."""

    use: Use
    message: str
    labels: list[Label]
    help: str
    kernels: list[str] = field(default_factory=list)


def check(context: ModuleContext) -> Iterable[Diagnostic]:
    module = context.module
    uses_of = {}
    for function in module.functions:
        if function.has_body:
            found = context.result("barriers", function)
            if found:
                uses_of[function.name] = [Use(function, use) for use in found]
    if not uses_of:
        return
    graph: CallGraph = context.result("call_graph")
    findings: dict[tuple, _Finding] = {}
    for kernel in module.kernels:
        reached = graph.reachable_from(kernel.name)
        uses = [use for name in reached for use in uses_of.get(name, ())]
        if uses:
            for key, message, use, labels, help in _Kernel(context, graph, kernel, reached, uses).problems():
                finding = findings.setdefault(key, _Finding(use, message, labels, help))
                finding.kernels.append(kernel.name)
    for finding in findings.values():
        notes = _register_notes(finding.use) + [f"also in kernel `{name}`" for name in finding.kernels[1:]]
        yield RULE.diagnostic(
            finding.use.instruction.span, finding.message, labels=finding.labels, notes=notes, help=finding.help
        )


def _register_notes(use: Use) -> list[str]:
    """What the registers holding the id and the count are (CUTLASS's inline asm: `bar.sync %r5, %r6`)."""
    held = [
        f"`{operand.name}` is {value}"
        for operand, value in ((use.use.identifier_operand, use.barrier), (use.use.count_operand, use.count))
        if type(operand) is Register and type(value) is int
    ]
    return [f"{' and '.join(held)}, set by `mov`"] if held else []


class _Kernel:
    """The barrier uses of one kernel and of the functions it calls."""

    def __init__(self, context: ModuleContext, graph: CallGraph, kernel: Function, reached: tuple[str, ...], uses: list[Use]) -> None:
        self.context = context
        self.graph = graph
        self.kernel = kernel
        self.reached = reached
        self.uses = uses
        shape = launch.block_shape(kernel, context.options)
        # The block size, when `.reqntid` fixes it: what a use without a count waits for.
        self.block_threads = shape.max_threads if kernel.directive(".reqntid") is not None else None
        self.opaque = self._opaque_calls()
        self._entry: dict[str, int] | None = None

    def problems(self) -> Iterator[tuple[tuple, str, Use, list[Label], str]]:
        by_barrier: dict[int, list[Use]] = {}
        for use in self.uses:
            if use.barrier is not None:
                by_barrier.setdefault(use.barrier, []).append(use)
        unknown = [use for use in self.uses if use.barrier is None]
        for barrier, uses in sorted(by_barrier.items()):
            if not any(use.waits for use in uses):
                if not self.opaque and not any(use.waits for use in unknown):
                    yield self._arrive_only(barrier, uses)
                continue
            # Each explicit count is held against the warps that may arrive with it. A barrier
            # without a count that not every warp reaches is PTX102's.
            explicit = [count for count in (use.count for use in uses) if isinstance(count, int)]
            for count in dict.fromkeys(explicit):
                problem = self._too_few(barrier, count, uses, unknown)
                if problem is not None:
                    yield problem
                    break

    def _may_count(self, use: Use, count: int) -> bool:
        """Whether ``use`` may arrive at a barrier phase whose count is ``count``."""
        if use.count == barriers.CTA:
            return self.block_threads is None or self.block_threads == count
        return use.count == count or use.count == barriers.UNKNOWN

    def _describe(self, use: Use) -> str:
        if use.count == barriers.CTA:
            threads = f"the whole block ({self.block_threads} threads)" if self.block_threads else "the whole block"
        else:
            threads = f"{use.count} threads"
        return f"`{use.name} {use.barrier}` with {threads}"

    def _arrive_only(self, barrier: int, uses: list[Use]) -> tuple[tuple, str, Use, list[Label], str]:
        first = uses[0]
        labels = [Label(use.instruction.span, "another arrival, also never waited for") for use in uses[1:]]
        message = (
            f"barrier {barrier} is only arrived at in kernel `{self.kernel.name}`: no `bar.sync` or `bar.red` waits "
            f"on it, so `{first.name}` synchronizes nothing (the waiting side needs `bar.sync {barrier}`)"
        )
        help = (
            f"let the consuming warps wait with `bar.sync {barrier}, count` (CUTLASS's `NamedBarrier::sync`, not "
            "`arrive`) while the producers keep arriving; the count is the threads of both sides together"
        )
        return ("arrive-only", id(first.function), first.index), message, first, labels, help

    def _too_few(
        self, barrier: int, count: int, uses: list[Use], unknown: list[Use]
    ) -> tuple[tuple, str, Use, list[Label], str] | None:
        """A finding when the warps that may arrive at ``barrier`` with ``count`` (or with a
        count or id not known) are fewer than ``count``."""
        if count <= launch.WARP_SIZE:
            return None  # one warp that reaches it is enough; none at all is dead code
        arriving = [use for use in uses if self._may_count(use, count)]
        warps = 0
        for use in arriving + unknown:
            warps |= self._warps(use.function, use.index, use.instruction)
        for function, index, instruction in self.opaque:
            warps |= self._warps(function, index, instruction)
        if warps == 0 or warps.bit_count() * launch.WARP_SIZE >= count:
            return None
        first = next(use for use in uses if use.count == count)
        others = [use for use in uses if not self._may_count(use, count)]
        threads = warps.bit_count() * launch.WARP_SIZE
        who = f"{'warp' if warps.bit_count() == 1 else 'warps'} {lane_sets.ranges(warps)} ({threads} threads)"
        labels = [
            Label(use.instruction.span, f"warps {lane_sets.ranges(self._warps(use.function, use.index, use.instruction)) or 'none'} may reach this `{use.name}`")
            for use in arriving
            if use is not first
        ]
        labels += [Label(use.instruction.span, f"{self._describe(use)} here") for use in others]
        if others:
            message = (
                f"barrier {barrier} needs {count} threads here, but only {who} may arrive at it with that count in "
                f"kernel `{self.kernel.name}` and other uses give another: every use of one barrier must give the same count"
            )
        else:
            message = (
                f"barrier {barrier} needs {count} threads, but only {who} can reach an instruction on it in kernel "
                f"`{self.kernel.name}`: it never completes"
            )
        if others:
            help = (
                f"give every `bar.sync`/`bar.arrive` on barrier {barrier} one count: the threads of all the warps that "
                "meet there, producers and consumers together (CUTLASS's `NamedBarrier::sync(count, id)` and "
                "`arrive(count, id)` with the same count)"
            )
        else:
            help = (
                f"make the count the threads that really arrive ({threads}, whole warps), or let the missing warps "
                f"arrive too (`bar.arrive {barrier}, {count}` in those warps, CUTLASS's `NamedBarrier::arrive`)"
            )
        return ("too-few", id(first.function), first.index), message, first, labels, help

    def _opaque_calls(self) -> list[tuple[Function, int, Instruction]]:
        """Calls to code the module does not show: through a pointer, or to a declared function."""
        found = []
        for name in self.reached:
            for site in self.graph.call_sites.get(name, ()):
                if site.callee in self.graph.functions or site.callee in _NO_BARRIERS:
                    continue
                found.append((self.graph.functions[name], site.instruction_index, site.instruction))
        return found

    def _warps(self, function: Function, index: int, instruction: Instruction) -> int:
        """The warps of the kernel that may execute ``instruction`` of ``function``."""
        entry = self._entry_warps().get(function.name, 0)
        if not entry:
            return 0
        return entry & self.context.result("roles", function).warps_at(index, instruction)

    def _entry_warps(self) -> dict[str, int]:
        """Per function the kernel reaches, the warps that may call it (the kernel: all)."""
        if self._entry is None:
            functions = self.graph.functions
            # Only the functions on the way to a barrier need their roles.
            relevant = self.graph.reaching(
                {use.function.name for use in self.uses} | {function.name for function, _, _ in self.opaque}
            )
            entry = {self.kernel.name: self.context.result("roles", self.kernel).everyone}
            pending = [self.kernel.name]
            while pending:
                name = pending.pop()
                roles = self.context.result("roles", functions[name])
                for site in self.graph.call_sites.get(name, ()):
                    if site.callee not in functions or site.callee not in relevant:
                        continue
                    warps = entry[name] & roles.warps_at(site.instruction_index, site.instruction)
                    known = entry.get(site.callee, 0)
                    if warps | known != known:
                        entry[site.callee] = warps | known
                        pending.append(site.callee)
            self._entry = entry
        return self._entry


RULE = Rule(
    code="PTX106",
    name="named-barrier-count-mismatch",
    severity=Severity.ERROR,
    summary="A named barrier whose thread count the warps that use it cannot meet, or do not agree on",
    docs=__doc__ or "",
    check=check,
    requires=("barriers", "call_graph", "roles"),
    tags=("correctness", "convergence"),
    precision="high",
)
