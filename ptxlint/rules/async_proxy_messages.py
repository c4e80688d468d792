"""What the async-proxy rules (PTX501–PTX504) share: the functions they question, and how an
instruction, a buffer and the threads executing it are named."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ptxlint.ir import Function

if TYPE_CHECKING:
    from ptxlint.analyses.async_proxy import AsyncProxyFacts
    from ptxlint.analyses.shared_buffers import Buffer
    from ptxlint.context import ModuleContext


def opcode_name(function: Function, index: int) -> str:
    """`st.shared`, `cp.async.bulk.tensor`, `wgmma.mma_async`: the opcode's operation names and,
    for loads and stores, the state space (enough to recognise it)."""
    opcode = function.instructions[index].opcode
    parts = [opcode.base]
    for modifier in opcode.modifiers:
        if modifier.startswith("shared") and opcode.base in ("st", "ld", "atom", "red"):
            parts.append(modifier.split("::")[0])
            break
        if modifier[0].isdigit() or "::" in modifier or modifier in ("sync", "aligned", "global", "shared"):
            break
        parts.append(modifier)
        if len(parts) == 4:
            break
    return ".".join(parts)


def buffer_name(buffer: Buffer) -> str:
    """`smem+4096`: the `.shared` variable and the constant offset into it."""
    return f"`{buffer.root}+{buffer.offset}`" if buffer.offset else f"`{buffer.root}`"


def by(facts: AsyncProxyFacts, index: int) -> str:
    """" by one thread of warp 3" / " by warps 4-7": who executes an instruction, where the
    roles tell (nothing where every warp may)."""
    who = facts.who(index)
    return f" by {who}" if who else ""


def analysed_functions(context: ModuleContext) -> Iterator[tuple[Function, AsyncProxyFacts]]:
    """Each function with a body that starts asynchronous shared-memory work, with its
    `async_proxy` facts: the cheap scan first, so that a module without such work loads no
    solver."""
    scan = context.result("async_scan")
    for function in context.module.functions:
        if function.has_body and scan.starts_async_work(function):
            yield function, context.result("async_proxy", function)
