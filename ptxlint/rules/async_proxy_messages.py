"""The wording the async-proxy rules (PTX501–PTX504) share: how an instruction and a buffer are
named, and the branch steps of a witness path (worded as the tensor-memory rules word them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ptxlint.ir import Function

if TYPE_CHECKING:
    from ptxlint.analyses.async_proxy import AsyncProxyFacts
    from ptxlint.analyses.shared_buffers import Buffer


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
