"""Which instructions are collective, over which threads, and which of their operands the ISA
requires to be equal in every participating thread (PTX ISA §9.7.13–§9.7.19; the table in
`ptx-facts.md` §2).

`.aligned` means every thread of the scope must execute the *same static instruction*, so the
instruction may only sit under control that is uniform over that scope:

- warp: `wmma.*`, `mma.sync`, `mma.sp`, `ldmatrix`, `stmatrix`, `movmatrix`,
  `tcgen05.{ld,st,wait,alloc,dealloc,relinquish_alloc_permit}`, `tensormap.cp_fenceproxy`,
  `barrier.cluster.*.aligned` (the cluster barrier is arrived at by whole warps);
- warpgroup (four consecutive warps): `wgmma.*`, `setmaxnreg`;
- CTA: `bar{.cta}.{sync,arrive,red}` (always aligned) and `barrier{.cta}.{sync,arrive,red}.aligned`.

Non-aligned `barrier{.cta}.*` is still a CTA barrier: every thread of the CTA (or the thread count
given) must arrive, though not necessarily at the same instruction.

Membermask instructions (`shfl.sync`, `vote.sync`, `match.sync`, `redux.sync`, `elect.sync`,
`bar.warp.sync`) are warp collectives of another kind, listed with the position of their mask:
each thread waits until every non-exited thread the mask names has executed *an* instance with
the same qualifiers and mask, not necessarily this one (sm_70 and later), so only lanes that never
get to one are wrong.
"""

from __future__ import annotations

import enum

from ptxlint.ir import Address, Instruction
from ptxlint.isa.barriers import BARRIER_BASES, cta_barrier_of, is_cluster_barrier
from ptxlint.records import record


class Scope(enum.IntEnum):
    """The threads that must execute a collective together, narrowest first."""

    WARP = 0
    WARPGROUP = 1
    CTA = 2

    @property
    def noun(self) -> str:
        return {Scope.WARP: "warp", Scope.WARPGROUP: "warpgroup", Scope.CTA: "CTA"}[self]


@record(slots=True)
class Collective:
    """What the ISA requires of one collective instruction.

    ``aligned``: every thread of ``scope`` must execute this very instruction.
    ``barrier``: a CTA barrier (aligned or not), which counts arriving threads.
    ``thread_count``: the barrier names how many threads take part (`bar.sync 1, 128`), so only
    those must arrive.
    ``uniform_operands``: indices into the instruction's operands whose value must be the same
    in every thread of the warp.
    ``membermask``: the position of the membermask operand of a membermask instruction
    (`shfl.sync`, `bar.warp.sync`, …; see the module's doc).
    """

    scope: Scope
    aligned: bool
    barrier: bool = False
    thread_count: bool = False
    uniform_operands: tuple[int, ...] = ()
    membermask: int | None = None


# tcgen05 operations that a whole warp issues together (§9.7.16.7.1, §9.7.16.8.3–5).
_TCGEN05_WARP_OPERATIONS = frozenset({"ld", "st", "wait::ld", "wait::st", "alloc", "dealloc", "relinquish_alloc_permit"})
_MATRIX_BASES = frozenset({"ldmatrix", "stmatrix", "movmatrix"})
# `.sync` forms with a membermask as their last operand (§9.7.9.6, §9.7.13.7–9, §9.7.13.14).
_MEMBERMASK_BASES = frozenset({"shfl", "vote", "match", "redux", "elect"})
# Every opcode base that some collective has: the rest of an instruction stream (nine in ten
# instructions of a GEMM) is settled by one set lookup.
COLLECTIVE_BASES = frozenset(
    {"tcgen05", "wmma", "mma", "tensormap", "wgmma", "setmaxnreg"} | BARRIER_BASES | _MATRIX_BASES | _MEMBERMASK_BASES
)


def collective(instruction: Instruction) -> Collective | None:
    """The collective requirement of an instruction, or None when it has none."""
    opcode = instruction.opcode
    base = opcode.base
    if base not in COLLECTIVE_BASES:
        return None
    first = opcode.modifiers[0] if opcode.modifiers else ""
    if base == "tcgen05":
        if first in _TCGEN05_WARP_OPERATIONS:
            return Collective(Scope.WARP, True, uniform_operands=_tcgen05_uniform_operands(instruction, first))
        return None
    if base == "wmma":
        return Collective(Scope.WARP, True, uniform_operands=_wmma_uniform_operands(instruction, first))
    if base == "mma" or base in _MATRIX_BASES:
        return Collective(Scope.WARP, True) if opcode.has("aligned") else None
    if base == "tensormap":
        return Collective(Scope.WARP, True) if first == "cp_fenceproxy" else None
    if base in ("wgmma", "setmaxnreg"):
        return Collective(Scope.WARPGROUP, True)
    if base in _MEMBERMASK_BASES:
        if not opcode.has("sync") or not instruction.operands:
            return None  # the legacy warp-synchronous forms, invalid on sm_70 and later
        return Collective(Scope.WARP, False, membermask=len(instruction.operands) - 1)
    if base == "bar" and first == "warp":  # `bar.warp.sync membermask`
        return Collective(Scope.WARP, False, membermask=0) if instruction.operands else None
    if is_cluster_barrier(base, opcode.modifiers):
        return Collective(Scope.WARP, True) if opcode.has("aligned") else None
    barrier = cta_barrier_of(instruction)
    if barrier is not None:
        # The barrier id and the thread count; `.red`'s predicate is per-thread data.
        return Collective(
            Scope.CTA, barrier.aligned, barrier=True, thread_count=barrier.thread_count is not None,
            uniform_operands=barrier.operands,
        )
    return None


def _tcgen05_uniform_operands(instruction: Instruction, operation: str) -> tuple[int, ...]:
    """`taddr` of ld/st ("must be the same in every thread"), the alloc destination address and
    the dealloc address, and `nCols` of alloc/dealloc (§9.7.16.7.1, §9.7.16.8.3–4)."""
    operands = instruction.operands
    if operation in ("ld", "st"):
        return tuple(index for index, operand in enumerate(operands) if type(operand) is Address)
    if operation in ("alloc", "dealloc"):
        return tuple(range(len(operands)))
    return ()


def _wmma_uniform_operands(instruction: Instruction, operation: str) -> tuple[int, ...]:
    """wmma.load/store: the matrix address `p` and the `stride` must match in every thread
    (§9.7.14.4.3–4); wmma.mma has none."""
    if operation not in ("load", "store"):
        return ()
    operands = instruction.operands
    found = [index for index, operand in enumerate(operands) if type(operand) is Address]
    if not found:
        return ()
    stride = len(operands) - 1
    address = found[0]
    if operation == "load" and stride > address:
        return (address, stride)
    if operation == "store" and stride > address + 1:
        return (address, stride)
    return (address,)
