"""Which leading operands an instruction writes.

PTX writes its destination first, except for instructions that only write memory or have no
result at all (stores, barriers, branches, asynchronous copies, most tcgen05 operations).
"""

from __future__ import annotations

from ptxlint.isa.barriers import BARRIER_BASES

# Opcode bases (the text before the first dot) that never have a register destination.
NO_DESTINATION_BASES = frozenset(
    {
        "st", "stmatrix", "red", "sust", "sured", "bra", "brx", "ret", "exit", "trap", "brkpt",
        "membar", "fence", "prefetch", "prefetchu", "cp", "nanosleep", "pmevent", "setmaxnreg",
        "griddepcontrol", "discard", "applypriority", "stackrestore", "tensormap",
    }
)

# (base, first modifier) pairs with no register destination, where the base alone does have one.
NO_DESTINATION_OPERATIONS = frozenset(
    {
        ("tcgen05", "st"), ("tcgen05", "alloc"), ("tcgen05", "dealloc"),
        ("tcgen05", "relinquish_alloc_permit"), ("tcgen05", "wait::ld"), ("tcgen05", "wait::st"),
        ("tcgen05", "cp"), ("tcgen05", "mma"), ("tcgen05", "shift"), ("tcgen05", "commit"),
        ("tcgen05", "fence::before_thread_sync"), ("tcgen05", "fence::after_thread_sync"),
        ("wgmma", "fence"), ("wgmma", "commit_group"), ("wgmma", "wait_group"),
        ("wmma", "store"), ("multimem", "st"), ("multimem", "red"), ("multimem", "cp"),
        ("mbarrier", "init"), ("mbarrier", "inval"), ("mbarrier", "expect_tx"),
        ("mbarrier", "complete_tx"), ("clusterlaunchcontrol", "try_cancel"),
        ("st", "async"), ("red", "async"), ("st", "bulk"),
    }
)



def destination_count(base: str, modifiers: tuple[str, ...]) -> int:
    """How many leading operands the instruction writes (`call` is decided by its operands)."""
    if not writes_first_operand(base, modifiers):
        return 0
    # `tcgen05.ld.red r, redval, [taddr]` writes the loaded vector and the reduction result.
    if base == "tcgen05" and modifiers[:2] == ("ld", "red"):
        return 2
    return 1


def writes_first_operand(base: str, modifiers: tuple[str, ...]) -> bool:
    """Whether the first operand of this instruction is a destination."""
    first = modifiers[0] if modifiers else ""
    if base in BARRIER_BASES:  # a value only in the reduction form (`bar.red.popc.u32 d, 0, p`)
        return "red" in modifiers
    if base in NO_DESTINATION_BASES or (base, first) in NO_DESTINATION_OPERATIONS:
        return False
    return True
