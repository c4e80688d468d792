"""CPU time per stage of one lint: parsing and lowering, each pass, each rule.

Passes run on demand, the first time a rule asks for them (``ModuleContext.result``), so a
rule's own time and the time of the analyses it triggered are told apart by nesting: every
stage is charged its *exclusive* time, what it spent minus the stages that ran inside it. The
stages then add up to the whole, and a shared pass is charged once, under its own name, whichever
rule asked first. ``ptxlint --timings`` prints the table; benchmarks read it too.
"""

from __future__ import annotations

import contextlib
import time
from typing import Iterator


class Timings:
    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._inner: list[float] = []  # per open stage: the time its nested stages took

    @contextlib.contextmanager
    def measure(self, stage: str) -> Iterator[None]:
        start = time.process_time()
        self._inner.append(0.0)
        try:
            yield
        finally:
            elapsed = time.process_time() - start
            inner = self._inner.pop()
            self.seconds[stage] = self.seconds.get(stage, 0.0) + elapsed - inner
            if self._inner:
                self._inner[-1] += elapsed

    def items(self) -> tuple[tuple[str, float], ...]:
        return tuple(self.seconds.items())


def measured(timings: Timings | None, stage: str) -> contextlib.AbstractContextManager[None]:
    """``timings.measure(stage)``, or nothing to measure into when timings are off."""
    return timings.measure(stage) if timings is not None else contextlib.nullcontext()


def merge(totals: dict[str, float], stages: tuple[tuple[str, float], ...]) -> None:
    """Add one file's stage times into running totals."""
    for stage, seconds in stages:
        totals[stage] = totals.get(stage, 0.0) + seconds


def format_table(totals: dict[str, float], files: int) -> str:
    """The stages, most expensive first, with their share of the whole."""
    whole = sum(totals.values()) or 1e-9
    width = max((len(stage) for stage in totals), default=5)
    lines = [f"{'stage':<{width}}  {'CPU s':>8}  {'share':>6}"]
    for stage, seconds in sorted(totals.items(), key=lambda item: -item[1]):
        lines.append(f"{stage:<{width}}  {seconds:>8.3f}  {seconds / whole:>6.1%}")
    lines.append(f"{'total':<{width}}  {whole:>8.3f}  ({files} file{'s' if files != 1 else ''})")
    return "\n".join(lines)
