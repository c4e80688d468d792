"""Hand-offs as data: the instructions by which a thread publishes its earlier memory effects to
other threads (arrives, barriers, release stores, atomics, `tcgen05.commit`/`dealloc`, exits),
and what another thread may do to the tensor memory of a pending `tcgen05.ld`/`st` once it is
handed over. The tensor-memory pass and PTX202 share this one classification; which instructions
are barriers is :mod:`ptxlint.isa.barriers`'s.

Nothing here knows the IR: callers pass opcode bases and modifier tuples.
"""

from __future__ import annotations

from ptxlint.isa.barriers import BARRIER_BASES, is_cluster_barrier, is_cta_barrier

# Bases whose every form publishes this thread's earlier memory effects to others.
_ALWAYS = frozenset({"atom", "red", "exit"})

# Every base :func:`hand_off` can accept: a cheap first test for a whole function's instructions.
HAND_OFF_BASES = _ALWAYS | {"ret", "mbarrier", "cp", "tcgen05", "st"} | BARRIER_BASES

# The names :func:`hand_off` gives that are not an instruction's own text.
KERNEL_RET = "ret"  # a kernel's `ret` (a `.func`'s hands nothing over)
RELEASE_STORE = "st.release"  # any `st` with `.release`


def hand_off(base: str, modifiers: tuple[str, ...], in_kernel: bool) -> str | None:
    """The name of the hand-off an instruction is (`mbarrier.arrive`, `bar.sync`, `atom`,
    :data:`KERNEL_RET`, :data:`RELEASE_STORE`, …), or None: `bar.warp.sync` and weak stores hand
    nothing over."""
    first = modifiers[0] if modifiers else ""
    if base in _ALWAYS:
        return base
    if base == "ret":
        return KERNEL_RET if in_kernel else None
    if base == "mbarrier" and first.startswith("arrive"):
        return "mbarrier.arrive"
    if base == "cp" and "mbarrier" in modifiers and "arrive" in modifiers:
        return "cp.async.mbarrier.arrive"
    if base == "tcgen05" and first in ("commit", "dealloc"):
        return f"tcgen05.{first}"
    if is_cta_barrier(base, modifiers):
        return f"bar.{first}" if base == "bar" else "barrier"
    if is_cluster_barrier(base, modifiers):
        return "barrier.cluster.arrive" if "arrive" in modifiers else None
    if base == "st" and "release" in modifiers:
        return RELEASE_STORE
    return None


# What another thread may do to the tensor memory of a pending access after a barrier, by the
# access's kind: overwrite or free what a load reads; also read what a store writes.
CONFLICTING = {
    "ld": frozenset({"mma", "cp", "st", "shift", "dealloc"}),
    "st": frozenset({"mma", "cp", "st", "shift", "dealloc", "ld"}),
}
