"""What the async-proxy rules (PTX501–PTX504) share: the functions they question, and how an
instruction, a buffer and the threads executing it are named."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ptxlint.diagnostics import Label
from ptxlint.ir import Function
from ptxlint.rules.tcgen05_messages import witness_labels

if TYPE_CHECKING:
    from ptxlint.analyses.asynchronous.proxy import AsyncProxyFacts, WriteHazard
    from ptxlint.analyses.asynchronous.shared_buffers import Buffer
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


def unfenced_story(
    facts: AsyncProxyFacts,
    function: Function,
    hazards: list[WriteHazard],
    target: int,
    access: tuple[str, str, str],
    target_texts: tuple[str, str],
) -> tuple[tuple[Label, ...], list[Label]]:
    """The labels and the witness of a finding about generic accesses (``hazards``, the latest
    last) not fenced before the async-proxy operation at ``target``. ``access``: the latest
    access's label, its step in the witness, and the label of the other accesses; ``target_texts``:
    the operation's label and its step. Labels name who executes each side where the roles tell.
    The witness follows the branches when the thread itself left the access unfenced (a hand-off
    has no single path to show)."""
    instructions = function.instructions
    latest = hazards[-1]
    steps = [] if latest.handed_off else facts.witness(latest.write, target, "unfenced")
    access_label, access_step, also = access
    labels = (
        Label(instructions[latest.write].span, access_label + by(facts, latest.write)),
        Label(instructions[target].span, target_texts[0] + by(facts, target)),
        *(Label(instructions[hazard.write].span, also) for hazard in hazards[:-1]),
    )
    witness = [
        Label(instructions[latest.write].span, access_step),
        *witness_labels(steps),
        Label(instructions[target].span, target_texts[1]),
    ]
    return labels, witness
