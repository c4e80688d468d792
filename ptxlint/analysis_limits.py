"""How much analysis one file may take: a bound on work, counted, and an optional wall-clock budget.

The bound is deterministic: it counts *analysis steps*, one for every block the dataflow solver
enters and one for every instruction it passes through a transfer function
(:func:`ptxlint.dataflow.solve_forward` calls :meth:`Budget.spend`). The same file, rules and
options take the same steps on any machine under any load, so a file either finishes or stops at
the same point every time. The default is far above what real code needs (see
:data:`DEFAULT_MAX_ANALYSIS_STEPS`); it is there so that an input the analyses would take hours on
ends with a clear notice instead.

The time budget (`--time-budget`) is off by default: findings that depend on how busy the machine
is are not reproducible. Both are checked cooperatively by the solver as it spends steps, the
time budget also by the driver between rules. Running out raises :class:`BudgetExceeded`, which
the driver catches: the rule running is stopped and the file reported as partially analysed.
Past the step limit every later rule still runs, and stops at its first solver step (rules that
need no dataflow, the ISA checks, finish); past the time budget the later rules are skipped.
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from typing import Callable, Iterator

# Steps per file before the analysis stops (0: unlimited): about 100 times what the largest real
# file needs (CUTLASS's 396k-line FMHA example, every rule: 247,459 steps; 88_hopper_fmha, 229k
# lines: 101,737; no other corpus file needs 100,000), and some 10 to 50 minutes of analysis at
# the rates pathological inputs run at.
DEFAULT_MAX_ANALYSIS_STEPS = 30_000_000
# Steps between two looks at the clock when a time budget is set (a step is a microsecond or so,
# a look ~50 ns).
_STEPS_PER_CLOCK_LOOK = 1024
_NEVER = float("inf")


class BudgetExceeded(BaseException):
    """The file's analysis bound or time budget ran out. A BaseException, like KeyboardInterrupt,
    so that no `except Exception` on the way (a rule guarding against its own bugs) can swallow
    it: the driver catches it, stops that rule and reports the file as partially analysed. Its
    argument says which limit it was, for the notice."""


class Budget:
    """What one file may spend: ``max_steps`` analysis steps and ``seconds`` of wall-clock time
    (None or 0: unlimited). ``steps`` counts what was spent; ``exceeded`` says which limit ran
    out, once one has."""

    __slots__ = ("max_steps", "seconds", "steps", "exceeded", "_end", "_next_look", "_clock")

    def __init__(
        self, max_steps: int | None = None, seconds: float | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.max_steps = max_steps or None
        self.seconds = seconds or None
        self.steps = 0
        self.exceeded: str | None = None
        self._clock = clock
        self._end = clock() + seconds if seconds else None
        self._next_look: float = 0 if self.max_steps or self._end is not None else _NEVER

    def spend(self, steps: int) -> None:
        """Count ``steps`` of work; raise :class:`BudgetExceeded` once a limit is passed (and on
        every later call: an analysis that starts after the limit stops at its first step)."""
        self.steps += steps
        if self.steps >= self._next_look:
            self._look()

    @property
    def out_of_time(self) -> bool:
        """Whether the time budget (if any) has run out; looked at now."""
        if self._end is None or self._clock() < self._end:
            return False
        if self.exceeded is None:
            self.exceeded = f"the {self.seconds:g}s time budget (--time-budget) ran out"
        return True

    def _look(self) -> None:
        if self.max_steps is not None and self.steps > self.max_steps:
            if self.exceeded is None:
                self.exceeded = f"the analysis step limit ({self.max_steps:,} steps, --max-analysis-steps) was reached"
            self._next_look = 0
            raise BudgetExceeded(self.exceeded)
        if self.out_of_time:
            self._next_look = 0
            raise BudgetExceeded(self.exceeded)
        next_look = self.max_steps + 1 if self.max_steps is not None else _NEVER
        if self._end is not None:
            next_look = min(next_look, self.steps + _STEPS_PER_CLOCK_LOOK)
        self._next_look = next_look

    @contextlib.contextmanager
    def active(self) -> Iterator[Budget]:
        """Make this the budget :func:`current_budget` returns while the block runs, so that code
        reached through analyses that do not carry the context (the solver) can spend from it."""
        token = _CURRENT.set(self)
        try:
            yield self
        finally:
            _CURRENT.reset(token)


UNLIMITED = Budget()
_CURRENT: contextvars.ContextVar[Budget] = contextvars.ContextVar("ptxlint_budget", default=UNLIMITED)


def current_budget() -> Budget:
    """The budget of the file being analysed (unlimited outside the driver)."""
    return _CURRENT.get()
