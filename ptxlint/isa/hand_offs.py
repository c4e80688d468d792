"""Hand-offs as data: the instructions by which a thread publishes its earlier memory effects to
other threads (arrives, barriers, release stores, atomics, `tcgen05.commit`/`dealloc`, exits),
which CTA barriers are among them, and what another thread may do to the tensor memory of a
pending `tcgen05.ld`/`st` once it is handed over. The tensor-memory pass and PTX202 share this one
classification.

Nothing here knows the IR: callers pass opcode bases and modifier tuples.
"""

from __future__ import annotations

# Bases whose every form publishes this thread's earlier memory effects to others.
_ALWAYS = frozenset({"atom", "red", "exit"})

# Every base :func:`hand_off` can accept: a cheap first test for a whole function's instructions.
HAND_OFF_BASES = _ALWAYS | {"ret", "mbarrier", "cp", "tcgen05", "bar", "barrier", "st"}

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
    if base == "bar" and first != "warp":
        return f"bar.{first}" if first else "bar"
    if base == "barrier" and first != "warp":
        if first == "cluster":
            return "barrier.cluster.arrive" if "arrive" in modifiers else None
        return "barrier"
    if base == "st" and "release" in modifiers:
        return RELEASE_STORE
    return None


def is_cta_barrier(base: str, modifiers: tuple[str, ...]) -> bool:
    """`bar.*` and `barrier.*` other than the warp and cluster forms."""
    first = modifiers[0] if modifiers else ""
    return base in ("bar", "barrier") and first not in ("warp", "cluster")


# What another thread may do to the tensor memory of a pending access after a barrier, by the
# access's kind: overwrite or free what a load reads; also read what a store writes.
CONFLICTING = {
    "ld": frozenset({"mma", "cp", "st", "shift", "dealloc"}),
    "st": frozenset({"mma", "cp", "st", "shift", "dealloc", "ld"}),
}
