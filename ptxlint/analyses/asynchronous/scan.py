"""Which functions start asynchronous shared-memory work (TMA and bulk copies, Ampere `cp.async`,
`wgmma` and `tcgen05.mma`/`cp` reading shared memory): the cheap scan the async-proxy rules gate
on. Kept apart from the path analysis (`proxy.py`) so that linting a module without such
work loads none of it."""

from __future__ import annotations

from ptxlint.context import ModuleContext
from ptxlint.ir import Function
from ptxlint.isa.proxies import Access, access, uses_barrier_from_async_proxy
from ptxlint.passes import Pass

# The opcode bases of the instructions that start asynchronous shared-memory work.
_ASYNC_BASES = frozenset({"cp", "wgmma", "tcgen05"})
_STARTING = frozenset({Access.ASYNC_READ, Access.ASYNC_LOAD, Access.CP_ASYNC})


class AsyncScan:
    """Per function, whether it starts asynchronous shared-memory work; scanned when first asked."""

    def __init__(self) -> None:
        self._known: dict[int, bool] = {}

    def starts_async_work(self, function: Function) -> bool:
        known = self._known.get(id(function))
        if known is None:
            known = self._known[id(function)] = any(
                instruction.opcode.base in _ASYNC_BASES
                and (
                    access(instruction.opcode.base, instruction.opcode.modifiers) in _STARTING
                    or uses_barrier_from_async_proxy(instruction.opcode.base, instruction.opcode.modifiers)
                )
                for instruction in function.instructions
            )
        return known


def _run(context: ModuleContext) -> AsyncScan:
    return AsyncScan()


PASSES = (
    Pass(
        "async_scan",
        "which functions start asynchronous shared-memory work (the async-proxy rules' cheap gate)",
        _run,
    ),
)
