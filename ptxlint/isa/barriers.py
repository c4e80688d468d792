"""Barriers as data: which instructions are CTA barriers and what each form does (PTX ISA
"Parallel Synchronization and Communication Instructions: bar, barrier").

- CTA barriers: `bar{.cta}.{sync,arrive,red}` and `barrier{.cta}.{sync,arrive,red}{.aligned}`.
  `bar` is `barrier.aligned`: every thread of a warp must execute the same instruction. `sync`
  and `red` wait for the barrier to complete, `arrive` does not. The operands are the barrier id
  and an optional thread count (without one, every thread of the CTA takes part); `red` writes a
  destination first and reads a predicate last (`bar.red.popc.u32 d, 0, 128, p`).
- Not CTA barriers, though spelled with the same bases: `bar.warp.sync` (a membermask
  instruction) and `barrier.cluster.{arrive,wait}` (the cluster barrier).

Every analysis and rule that asks whether an instruction is a barrier, or what a barrier does,
asks here; nothing else knows the spellings.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING
from ptxlint.records import record

if TYPE_CHECKING:
    from ptxlint.ir import Instruction

#: Every opcode base a barrier is spelled with (CTA, warp and cluster barriers).
BARRIER_BASES = frozenset({"bar", "barrier"})

_OPERATIONS = ("sync", "arrive", "red")


@record(slots=True)
class CtaBarrier:
    """The form of one CTA barrier instruction."""

    operation: str  # sync, arrive or red
    aligned: bool  # `bar.*` or `barrier.*.aligned`: every thread of a warp executes this instruction
    name: str  # how messages name it: `bar.sync`, `barrier.cta.arrive` (no type, reduction or `.aligned`)
    identifier: int | None  # the operand position of the barrier id (None: missing, which ptxas rejects)
    thread_count: int | None  # the operand position of the thread count (None: every thread of the CTA)
    operands: tuple[int, ...]  # the positions of the id and the count: equal in every thread taking part

    @property
    def waits(self) -> bool:
        """`sync` and `red` wait for the barrier to complete; `arrive` does not."""
        return self.operation != "arrive"

    @property
    def whole_cta(self) -> bool:
        """Every thread of the CTA takes part (no thread count: `bar.sync 0`, `__syncthreads()`)."""
        return self.thread_count is None


def cta_barrier_operation(base: str, modifiers: tuple[str, ...]) -> str | None:
    """The operation (`sync`, `arrive`, `red`) of a CTA barrier, or None for any other
    instruction (`bar.warp.sync` and `barrier.cluster.*` included)."""
    if base not in BARRIER_BASES or "warp" in modifiers or "cluster" in modifiers:
        return None
    return next((modifier for modifier in modifiers if modifier in _OPERATIONS), None)


def is_cta_barrier(base: str, modifiers: tuple[str, ...]) -> bool:
    """`bar.*` and `barrier.*` other than the warp and cluster forms."""
    return cta_barrier_operation(base, modifiers) is not None


def is_cluster_barrier(base: str, modifiers: tuple[str, ...]) -> bool:
    """`barrier.cluster.arrive` and `barrier.cluster.wait`."""
    return base == "barrier" and modifiers[:1] == ("cluster",)


@lru_cache(maxsize=None)
def cta_barrier(base: str, modifiers: tuple[str, ...], operand_count: int) -> CtaBarrier | None:
    """The form of a CTA barrier with ``operand_count`` operands, or None for any other
    instruction."""
    operation = cta_barrier_operation(base, modifiers)
    if operation is None:
        return None
    # `red` writes its destination first and ends with its (possibly negated) predicate, which
    # is per-thread data.
    first = 1 if operation == "red" else 0
    last = operand_count - (1 if operation == "red" else 0)
    operands = tuple(range(first, last))
    return CtaBarrier(
        operation,
        aligned=base == "bar" or "aligned" in modifiers,
        name=f"{base}{'.cta' if 'cta' in modifiers else ''}.{operation}",
        identifier=first if last > first else None,
        thread_count=first + 1 if last - first >= 2 else None,
        operands=operands,
    )


def cta_barrier_of(instruction: Instruction) -> CtaBarrier | None:
    """:func:`cta_barrier` of an instruction."""
    opcode = instruction.opcode
    if opcode.base not in BARRIER_BASES:
        return None
    return cta_barrier(opcode.base, opcode.modifiers, len(instruction.operands))


def barrier_name(base: str, modifiers: tuple[str, ...]) -> str | None:
    """How messages name a CTA or cluster barrier: base, scope and operation (`bar.sync`,
    `barrier.cta.arrive`, `barrier.cluster.wait`); None for other instructions."""
    operation = cta_barrier_operation(base, modifiers)
    if operation is not None:
        return f"{base}{'.cta' if 'cta' in modifiers else ''}.{operation}"
    if is_cluster_barrier(base, modifiers) and len(modifiers) > 1:
        return f"barrier.cluster.{modifiers[1]}"
    return None
