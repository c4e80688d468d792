"""What rules see: the module plus analyses computed on demand and cached, so that a rule set
that needs no uniformity never pays for it (pyflakes' and Go's analysis passes work the same way:
results flow from analyses to the rules that ask for them)."""

from __future__ import annotations

import contextlib
import contextvars
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, TypeVar

from ptxlint.cfg import ControlFlowGraph
from ptxlint.cfg import build as build_cfg
from ptxlint.ir import Function, Module
from ptxlint.timings import Timings, measured, stage_name

T = TypeVar("T")


class BudgetExceeded(BaseException):
    """The file's analysis time budget ran out. A BaseException, like KeyboardInterrupt, so that no
    `except Exception` on the way (a rule guarding against its own bugs) can swallow it: the
    driver catches it, skips what is left and reports the file as partially analysed."""


class Deadline:
    """A per-file analysis time budget, checked cooperatively: by the dataflow solver between
    block visits and by the driver between rules. ``seconds`` None or 0 means unlimited."""

    __slots__ = ("seconds", "_end")

    def __init__(self, seconds: float | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds if seconds else None
        self._end = clock() + seconds if seconds else None

    @property
    def expired(self) -> bool:
        return self._end is not None and time.monotonic() >= self._end

    def check(self) -> None:
        """Raise :class:`BudgetExceeded` once the budget is spent."""
        if self._end is not None and time.monotonic() >= self._end:
            raise BudgetExceeded(self.seconds)

    @contextlib.contextmanager
    def active(self) -> Iterator[Deadline]:
        """Make this the deadline :func:`current_deadline` returns while the block runs, so that
        code reached through analyses that do not carry the context (the solver) can check it."""
        token = _CURRENT.set(self)
        try:
            yield self
        finally:
            _CURRENT.reset(token)


UNLIMITED = Deadline()
_CURRENT: contextvars.ContextVar[Deadline] = contextvars.ContextVar("ptxlint_deadline", default=UNLIMITED)


def current_deadline() -> Deadline:
    """The deadline of the file being analysed (unlimited outside the driver)."""
    return _CURRENT.get()


@dataclass(frozen=True)
class Options:
    """Analysis options a user can configure (see the configuration docs)."""

    # Without `.reqntid`/`.maxntid`, assume the block is one-dimensional (y = z = 1). This is what
    # makes `%tid.x >> 5` a warp index; say false for kernels launched with 2-D or 3-D blocks.
    assume_1d_block: bool = True
    # Seconds of analysis per file before the remaining rules are skipped and the file is reported
    # as partially analysed (0: unlimited). `--time-budget` overrides it.
    time_budget: float = 60.0


@dataclass
class ModuleContext:
    """The module being linted and the analyses computed on it so far."""

    module: Module
    options: Options = field(default_factory=Options)
    deadline: Deadline = UNLIMITED
    timings: Timings | None = None  # CPU time per analysis, when asked for (`--timings`)
    _cache: dict[Any, Any] = field(default_factory=dict, repr=False)

    def cached(self, key: Any, compute: Callable[[], T]) -> T:
        """Compute ``compute()`` once per key for this module."""
        try:
            return self._cache[key]
        except KeyError:
            pass
        with measured(self.timings, stage_name(key)):
            value = self._cache[key] = compute()
        return value

    def function_analysis(self, function: Function, analysis: Callable[..., T]) -> T:
        """Run ``analysis(self, function)`` once per function and analysis."""
        return self.cached((analysis, id(function)), lambda: analysis(self, function))

    def control_flow_graph(self, function: Function) -> ControlFlowGraph:
        """The function's CFG, built once for every analysis that needs it."""
        return self.cached((ControlFlowGraph, id(function)), lambda: build_cfg(function))
