"""## What it does
Reports shared memory used before the asynchronous copy that fills or drains it is known to be
complete:

- read (`ld.shared`, `ldmatrix`, a `wgmma`/`tcgen05.mma` operand) after a TMA or bulk copy into it
  (`cp.async.bulk[.tensor]` … `.mbarrier::complete_tx::bytes`) with no `mbarrier.try_wait` /
  `test_wait` since;
- read after an Ampere `cp.async` into it before a `cp.async.wait_group` / `wait_all` (or
  `cp.async.mbarrier.arrive` and a barrier wait) that retires it;
- overwritten (`st.shared`, `stmatrix`, or another copy into it) while a TMA or bulk store
  (`.bulk_group`) may still be reading it, before `cp.async.bulk.wait_group.read` retires the
  store (`wait_group.read 1` right after the commit leaves the newest store pending).

## Why is this bad?
These copies run asynchronously to the thread that issued them. Until the mbarrier phase
completes, or the group is waited for, the destination holds whatever was there before, and a
store's source may not have been read yet (PTX ISA, `cp.async.bulk`, `cp.async.wait_group`,
`cp.async.bulk.wait_group`). The kernel reads stale data or the store sends the next tile's
values, only sometimes.

## Example
```ptx
.version 8.6
.target sm_80
.address_size 64
.shared .align 16 .b8 tile[512];
.visible .entry copy_tile(.param .u64 in, .param .u64 out)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [in];
	ld.param.u64 %rd2, [out];
	cp.async.ca.shared.global [tile], [%rd1], 16;
	cp.async.commit_group;
	ld.shared.u32 %r1, [tile];
	cp.async.wait_group 0;
	st.global.u32 [%rd2], %r1;
	ret;
}
```

## Use instead
```ptx
.version 8.6
.target sm_80
.address_size 64
.shared .align 16 .b8 tile[512];
.visible .entry copy_tile(.param .u64 in, .param .u64 out)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [in];
	ld.param.u64 %rd2, [out];
	cp.async.ca.shared.global [tile], [%rd1], 16;
	cp.async.commit_group;
	cp.async.wait_group 0;
	ld.shared.u32 %r1, [tile];
	st.global.u32 [%rd2], %r1;
	ret;
}
```

## Exceptions
Only buffers ptxlint can name are compared (a `.shared` variable and constant offset). When a
stage is picked by a counter, all stages are one buffer: a use is then reported only if no wait of
the copy's kind at all came after the copy (a pipeline that waits for an older stage while a newer
one is in flight is not second-guessed); with constant addresses on both sides, the waits are
counted exactly (`wait_group N` leaves the N most recent groups pending; a barrier wait completes
the copies signalling that barrier). Reads by other threads after a hand-off are not followed. A
call is assumed to wait for everything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from ptxlint.context import ModuleContext
from ptxlint.diagnostics import Diagnostic, Label, Severity
from ptxlint.rules.async_proxy_messages import analysed_functions, buffer_name, by, opcode_name
from ptxlint.rules.base import Rule
from ptxlint.rules.tcgen05_messages import witness_labels

if TYPE_CHECKING:
    from ptxlint.analyses.asynchronous.proxy import AsyncProxyFacts, CopyHazard
    from ptxlint.ir import Function

_HELPS = {
    "load": (
        "wait on the copy's mbarrier before reading (`mbarrier.try_wait.parity` in a loop; CUTLASS: "
        "`pipeline.consumer_wait(state)`; libcu++: `cuda::ptx::mbarrier_try_wait_parity`)"
    ),
    "cp.async": (
        "retire the group first: `cp.async.wait_group N` leaving only newer groups pending, then a barrier "
        "if other threads read (CUDA: `__pipeline_wait_prior(N)` / `cp_async_wait<N>()` and `__syncthreads()`)"
    ),
    "store": (
        "before writing the buffer again, wait for the store to have read it: `cp.async.bulk.wait_group.read N` "
        "in the issuing thread, then the barrier (CUTLASS: `tma_store_wait<N>()`; libcu++: "
        "`cuda::ptx::cp_async_bulk_wait_group_read`)"
    ),
}


def check(context: ModuleContext) -> Iterable[Diagnostic]:
    for function, facts in analysed_functions(context):
        reported: set[int] = set()
        for index in facts.instructions("read", "async read"):
            hazards = [hazard for hazard in facts.incomplete_copies(index) if hazard.copy not in reported]
            if hazards:
                reported.update(hazard.copy for hazard in hazards)
                yield _report(facts, function, hazards[-1], index)
        for index in facts.instructions("write", "atomic", "load", "cp.async"):
            hazards = [hazard for hazard in facts.unfinished_store_sources(index) if hazard.copy not in reported]
            if hazards:
                reported.update(hazard.copy for hazard in hazards)
                yield _report(facts, function, hazards[-1], index)


def _report(facts: AsyncProxyFacts, function: Function, hazard: CopyHazard, index: int) -> Diagnostic:
    instructions = function.instructions
    copy_kind = facts.kind(hazard.copy)
    copier = opcode_name(function, hazard.copy)
    user = opcode_name(function, index)
    buffer = buffer_name(facts.buffer(hazard.copy))
    if copy_kind == "store":
        what = f"`{user}` overwrites shared memory {buffer} that `{copier}` on line {instructions[hazard.copy].span.line} may still be reading"
        wait = "`cp.async.bulk.wait_group.read` retiring it"
        field = ("stores", "stores_open")
    elif copy_kind == "cp.async":
        what = f"`{user}` reads shared memory {buffer} that `{copier}` on line {instructions[hazard.copy].span.line} may still be writing"
        wait = "`cp.async.wait_group` retiring it"
        field = ("cp_groups", "cp_open", "loads")
    else:
        what = f"`{user}` reads shared memory {buffer} that `{copier}` on line {instructions[hazard.copy].span.line} may still be writing"
        wait = "a wait on its mbarrier"
        field = ("loads",)
    when = "with no wait of its kind since" if not hazard.waited else f"without {wait} (the waits since leave it pending)"
    return RULE.diagnostic(
        instructions[index].opcode_span,
        f"{what}: it is used {when}",
        labels=(
            Label(instructions[hazard.copy].span, f"the asynchronous copy starts here{by(facts, hazard.copy)}"),
            Label(instructions[index].span, f"used here{by(facts, index)}"),
        ),
        help=_HELPS["store" if copy_kind == "store" else "cp.async" if copy_kind == "cp.async" else "load"],
        witness=[
            Label(instructions[hazard.copy].span, f"`{copier}` starts on {buffer}"),
            *witness_labels(facts.witness(hazard.copy, index, *field)),
            Label(instructions[index].span, f"`{user}` uses {buffer} before it completes"),
        ],
    )


RULE = Rule(
    code="PTX504",
    name="async-copy-used-before-wait",
    severity=Severity.ERROR,
    summary="Shared memory read before the TMA or `cp.async` copy filling it is waited for, or overwritten while a TMA store reads it",
    docs=__doc__ or "",
    check=check,
    requires=("async_scan", "async_proxy"),
    tags=("correctness", "async-proxy", "pipeline"),
    precision="high",
)
