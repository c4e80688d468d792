"""Proxies as data: how each instruction touches shared memory (through the generic proxy or the
async proxy, reading or writing), and what orders or completes those accesses (proxy fences,
`mbarrier` waits, `cp.async` and bulk-group waits). The async-proxy pass and the PTX50x rules
share this one classification.

The PTX memory model (ISA §8, "Proxies") puts ordinary loads and stores, `ldmatrix`/`stmatrix`
and atomics on shared memory in the *generic* proxy, and the bulk copies (TMA,
`cp.async.bulk*`, `cp.reduce.async.bulk*`), `wgmma.mma_async`'s and `tcgen05.mma`/`cp`'s
shared-memory operands in the *async* proxy. Accesses of one proxy are not ordered with the
other's without `fence.proxy.async`; `mbarrier.init` is a generic write that the async proxy
sees only after `fence.mbarrier_init` (or a proxy fence, within the CTA).

Nothing here knows the IR: callers pass opcode bases and modifier tuples.
"""

from __future__ import annotations

from enum import Enum

_SHARED = frozenset({"shared", "shared::cta", "shared::cluster"})


class Access(Enum):
    """What an instruction does to shared memory, for the async-proxy rules."""

    GENERIC_WRITE = "generic write"  # st.shared, stmatrix, atom/red.shared
    GENERIC_READ = "generic read"  # ld.shared, ldmatrix
    ASYNC_READ = "async-proxy read"  # TMA store, bulk copy from shared memory, wgmma/tcgen05 operands
    ASYNC_LOAD = "async-proxy write"  # TMA load / bulk copy into shared memory, completing on an mbarrier
    CP_ASYNC = "cp.async"  # Ampere's non-bulk asynchronous copy into shared memory


_OTHER_SPACES = frozenset({"global", "local", "param", "const", "param::entry", "param::func"})


def _may_address_shared(modifiers: tuple[str, ...]) -> bool:
    """A `.shared` access, or a generic-addressed one (no state space: the address decides,
    and the callers follow only addresses they can trace to a `.shared` variable)."""
    spaces = set(modifiers)
    return bool(_SHARED & spaces) or not (_OTHER_SPACES & spaces)


def _state_spaces(modifiers: tuple[str, ...]) -> list[str]:
    return [modifier for modifier in modifiers if modifier in _SHARED or modifier == "global"]


def access(base: str, modifiers: tuple[str, ...]) -> Access | None:
    """How an instruction touches shared memory, or None (not at all, or not in a way these rules
    follow: `st.async`, which targets another CTA's memory). A generic-addressed `ld`/`st` counts
    as a possible shared-memory access: whether it is one is its address's business."""
    first = modifiers[0] if modifiers else ""
    if base in ("st", "atom", "red"):
        if "async" in modifiers or "bulk" in modifiers:
            return None
        return Access.GENERIC_WRITE if _may_address_shared(modifiers) else None
    if base == "stmatrix":
        return Access.GENERIC_WRITE
    if base == "ld":
        return Access.GENERIC_READ if _may_address_shared(modifiers) else None
    if base == "ldmatrix":
        return Access.GENERIC_READ
    if base == "wgmma":
        return Access.ASYNC_READ if first == "mma_async" else None
    if base == "tcgen05":
        return Access.ASYNC_READ if first in ("mma", "cp") else None
    if base == "cp" and first == "reduce" and "bulk" in modifiers:
        spaces = _state_spaces(modifiers)
        return Access.ASYNC_READ if spaces[-1:] and spaces[-1] in _SHARED else None
    if base == "cp" and first == "async":
        if "bulk" not in modifiers:
            return Access.CP_ASYNC if _SHARED & set(modifiers) else None
        spaces = _state_spaces(modifiers)
        if len(spaces) != 2:
            return None  # commit_group, wait_group, prefetch
        destination, source = spaces
        if source in _SHARED:
            return Access.ASYNC_READ
        if destination in _SHARED and "mbarrier::complete_tx::bytes" in modifiers:
            return Access.ASYNC_LOAD
    return None


def writes_shared_too(base: str, modifiers: tuple[str, ...]) -> bool:
    """Whether an :data:`Access.ASYNC_READ` also writes shared memory (a bulk copy from this
    CTA's shared memory to the cluster's): its completion is then an mbarrier's, not a bulk
    group's."""
    spaces = _state_spaces(modifiers)
    return base == "cp" and len(spaces) == 2 and spaces[0] in _SHARED


def completes_in_bulk_group(base: str, modifiers: tuple[str, ...]) -> bool:
    """Whether an asynchronous copy reading shared memory completes through
    `cp.async.bulk.commit_group`/`wait_group` (`.bulk_group`): the TMA stores whose source a
    thread must not overwrite before `cp.async.bulk.wait_group.read` retires them."""
    return base == "cp" and "bulk_group" in modifiers


def is_proxy_fence(base: str, modifiers: tuple[str, ...]) -> bool:
    """`fence.proxy.async` over shared memory (`.shared::cta`, `.shared::cluster` or every state
    space): what orders generic-proxy accesses with async-proxy ones. `.global` does not cover
    shared memory; `fence.proxy.tensormap` and `.alias` are other proxies."""
    if base != "fence" or "proxy" not in modifiers:
        return False
    if not any(modifier == "async" or modifier.startswith("async::") for modifier in modifiers):
        return False
    return "global" not in modifiers


def is_mbarrier_init_fence(base: str, modifiers: tuple[str, ...]) -> bool:
    """`fence.mbarrier_init.release.cluster`: makes earlier `mbarrier.init`s visible to the async
    proxy and to the other CTAs of the cluster."""
    return base == "fence" and "mbarrier_init" in modifiers


def is_mbarrier_init(base: str, modifiers: tuple[str, ...]) -> bool:
    return base == "mbarrier" and bool(modifiers) and modifiers[0] == "init"


def is_mbarrier_wait(base: str, modifiers: tuple[str, ...]) -> bool:
    """`mbarrier.try_wait` / `test_wait` (any form): where a thread learns that the copies
    completing on a barrier are done. The loop around it is the caller's business: the
    instruction is the only way to learn it."""
    return base == "mbarrier" and bool(modifiers) and modifiers[0] in ("try_wait", "test_wait")


def uses_barrier_from_async_proxy(base: str, modifiers: tuple[str, ...]) -> bool:
    """Instructions whose completion the async proxy signals on an mbarrier (`complete_tx`):
    bulk copies with `.mbarrier::complete_tx::bytes`. (`tcgen05.commit`'s arrive is left out:
    the ISA does not say which proxy performs it, and correct compilers do not fence for it.)"""
    return base == "cp" and "mbarrier::complete_tx::bytes" in modifiers


def reaches_other_ctas(modifiers: tuple[str, ...]) -> bool:
    """A multicast form: the barrier signalled is also each destination CTA's, which needs the
    cluster-scope `fence.mbarrier_init.release.cluster` rather than a CTA proxy fence."""
    return any(modifier.startswith("multicast") for modifier in modifiers)


# The group instructions, by what they count.
CP_ASYNC_COMMIT = "cp.async.commit_group"
CP_ASYNC_WAIT = "cp.async.wait_group"
CP_ASYNC_WAIT_ALL = "cp.async.wait_all"
BULK_COMMIT = "cp.async.bulk.commit_group"
BULK_WAIT = "cp.async.bulk.wait_group"


def group_instruction(base: str, modifiers: tuple[str, ...]) -> str | None:
    """Which commit or wait of asynchronous-copy groups an instruction is, if any."""
    if base != "cp" or not modifiers or modifiers[0] != "async":
        return None
    bulk = "bulk" in modifiers
    if "commit_group" in modifiers:
        return BULK_COMMIT if bulk else CP_ASYNC_COMMIT
    if "wait_group" in modifiers:
        return BULK_WAIT if bulk else CP_ASYNC_WAIT
    if "wait_all" in modifiers:
        return CP_ASYNC_WAIT_ALL
    return None
