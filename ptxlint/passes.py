"""Declared passes: every analysis is a small value — a name, a one-line doc, the passes it
requires, how it runs (once per module or once per function) and, where it has facts to show per
instruction, a printer. Rules declare the passes they require and read results by name through
``ModuleContext.result``; the context imports, caches, times and checks them. ``ptxlint dump
PASS FILE`` prints any pass with a printer, and one fixture test reads ``// PASS: facts``
comments through the same printers.

A pass module is imported only when its result is first asked for, so a clean run of rules that
need no analysis loads none (start-up is most of the cost of linting a small file).
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import TYPE_CHECKING, Any, Callable
from ptxlint.records import record

if TYPE_CHECKING:
    from ptxlint.ir import Function, Instruction

#: How a printer describes one instruction: ``describe(index, instruction) -> text``.
Describe = Callable[[int, "Instruction"], str]


@record
class Pass:
    """One analysis. ``run(context)`` for a module pass, ``run(context, function)`` for a
    per-function pass (called only for functions with a body); ``requires`` names every pass
    its run asks the context for. ``printer(result, function)`` returns how to describe each
    instruction of ``function``, or None where the pass says nothing about the function; for a
    per-function pass, ``result`` is that function's."""

    name: str
    doc: str
    run: Callable[..., Any]
    per_function: bool = False
    requires: tuple[str, ...] = ()
    printer: Callable[[Any, Function], Describe | None] | None = None


# Pass name → the module that declares it (as one of its ``PASSES``). A table rather than a scan
# of the package, so that asking for one pass imports one module; tests/test_passes.py checks
# that it names every declared pass and nothing else.
_DECLARED_IN: dict[str, str] = {
    "async_proxy": "ptxlint.analyses.asynchronous.proxy",
    "async_scan": "ptxlint.analyses.asynchronous.scan",
    "cfg": "ptxlint.analyses.control_flow",
    "call_graph": "ptxlint.analyses.control_flow",
    "registers": "ptxlint.analyses.registers",
    "uniformity": "ptxlint.analyses.uniformity.driver",
    "convergence": "ptxlint.analyses.convergence",
    "warp_values": "ptxlint.analyses.threads.values",
    "warp_branches": "ptxlint.analyses.threads.branch_sides",
    "roles": "ptxlint.analyses.threads.reach",
    "tcgen05_scan": "ptxlint.analyses.tcgen05.scan",
    "tcgen05_pending": "ptxlint.analyses.tcgen05.pending",
    "tcgen05_frees": "ptxlint.analyses.tcgen05.frees",
    "tcgen05_returns": "ptxlint.analyses.tcgen05.pending",
    "shared_buffers": "ptxlint.analyses.asynchronous.shared_buffers",
    "target_gates": "ptxlint.analyses.target_gates",
    "barriers": "ptxlint.analyses.barriers",
    "barrier_meetings": "ptxlint.analyses.barriers",
    "tx_bytes": "ptxlint.analyses.asynchronous.transaction_bytes",
    "wgmma_groups": "ptxlint.analyses.asynchronous.wgmma_groups",
}

PASS_NAMES: tuple[str, ...] = tuple(sorted(_DECLARED_IN))


class UnknownPass(LookupError):
    """A pass name nothing declares."""


class UndeclaredPass(RuntimeError):
    """A rule or pass asked for a pass it does not list in ``requires``: a ptxlint bug, caught
    by every fixture run, that would make the declared dependencies lie."""


@cache
def load(name: str) -> Pass:
    """The pass called ``name``, importing its module on first use."""
    try:
        module = importlib.import_module(_DECLARED_IN[name])
    except KeyError:
        raise UnknownPass(name) from None
    for declared in module.PASSES:
        if declared.name == name:
            return declared  # type: ignore[no-any-return]
    raise UnknownPass(f"{name} (not among {_DECLARED_IN[name]}.PASSES)")


def released_after(requirements: list[tuple[str, ...]]) -> list[frozenset[str]]:
    """For requesters that run in the order given (each by the passes it requires), the passes
    that each leaves no later requester needing, directly or through the passes those require:
    the driver drops their results once it has run (a big kernel's facts for every function,
    kept to the end, were most of its memory). Loads the declarations of every pass involved."""
    closures = [_closure(names) for names in requirements]
    needed_later: set[str] = set()
    released: list[frozenset[str]] = []
    for closure in reversed(closures):
        released.append(frozenset(closure - needed_later))
        needed_later |= closure
    released.reverse()
    return released


def _closure(names: tuple[str, ...]) -> set[str]:
    found: set[str] = set()
    pending = list(names)
    while pending:
        name = pending.pop()
        if name not in found:
            found.add(name)
            pending.extend(load(name).requires)
    return found


def printable() -> tuple[str, ...]:
    """The passes with a printer: what ``ptxlint dump`` and fact annotations accept."""
    return tuple(name for name in PASS_NAMES if load(name).printer is not None)
