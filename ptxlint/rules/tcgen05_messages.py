"""The wording the tensor-memory rules (PTX201–PTX204) share: the pending accesses as labels, the
wait that retires them, warp sets, and the branch steps of a witness path."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from ptxlint.diagnostics import Label
from ptxlint.ir import Function, Instruction
from ptxlint.lazy_imports import lazy_module

callgraph = lazy_module("ptxlint.callgraph")
lane_sets = lazy_module("ptxlint.analyses.threads.lane_sets")

if TYPE_CHECKING:
    from ptxlint.analyses.path_witness import BranchStep
    from ptxlint.analyses.tcgen05.pending import Pending


def waiting_instruction(kind: str) -> str:
    """The wait that retires a pending access of ``kind`` (`ld` or `st`)."""
    return "tcgen05.wait::ld" if kind == "ld" else "tcgen05.wait::st"


def fence_view(kind: str) -> str:
    """CUTLASS's name for that wait (`cutlass::arch::`, and `cute.arch.` in the CuTe DSL)."""
    return "fence_view_async_tmem_load" if kind == "ld" else "fence_view_async_tmem_store"


def wait_advice(kind: str) -> str:
    """"`tcgen05.wait::ld.sync.aligned` (CUTLASS: …)", for help texts."""
    name = fence_view(kind)
    return f"`{waiting_instruction(kind)}.sync.aligned` (CUTLASS: `cutlass::arch::{name}()`, CuTe DSL: `cute.arch.{name}()`)"


def access_name(instruction: Instruction, kind: str) -> str:
    """"`tcgen05.ld`", or for a call whose callee returned the access unwaited, "`tcgen05.ld`
    returned by `load_accumulator`"."""
    if instruction.opcode.base == "call":
        return f"`tcgen05.{kind}` returned by `{callgraph.callee_name(instruction)}`"
    return f"`tcgen05.{kind}`"


def pending_labels(function: Function, items: Iterable[Pending], text: str) -> list[Label]:
    """One label per pending access: "`tcgen05.ld` <text>" on the instruction that issued it (the
    call, for an access a callee returned)."""
    instructions = function.instructions
    return [Label(instructions[item.index].span, f"{access_name(instructions[item.index], item.kind)} {text}") for item in items]


def warps_text(mask: int) -> str:
    """"warp 0", "warps 1-3", "warps 0, 2, 4-7" for a warp mask."""
    return ("warp " if mask & (mask - 1) == 0 else "warps ") + lane_sets.ranges(mask)


def witness_labels(steps: Iterable[BranchStep]) -> list[Label]:
    """One witness step per conditional branch, saying which way it went; the steps that do not
    decide the path (both ways lead to the bug) are kept for `--show-all-steps`."""
    labels = []
    for step in steps:
        guard = f"{'!' if step.negated else ''}{step.predicate}"
        verb = "taken" if step.taken else "not taken"
        labels.append(Label(step.span, f"branch on `{guard}` {verb}" + (" (loops back)" if step.loops else ""), essential=step.essential))
    return labels
