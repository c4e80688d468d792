"""Renderers: one output format per module. They know diagnostics and source text, never PTX.

Every renderer takes a :class:`Report` (the results of one run, sorted by path, line, column and
code) and writes it to a text stream; `full` writes to a rich console instead. Formats are
imported on demand so that `ptxlint --version` and the concise format never load rich.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ptxlint.diagnostics import FileResult
from ptxlint.records import record

if TYPE_CHECKING:
    from ptxlint.rules.base import Rule

FORMATS = ("full", "concise", "json", "sarif", "github")


@record
class Report:
    """One run: what was found, plus what the machine formats record about the run itself."""

    results: tuple[FileResult, ...]
    rules: tuple[Rule, ...] = ()  # the registry, for SARIF's rule metadata
    elapsed: float | None = None
    map_to_source: bool = False  # make the CUDA source line the primary location
    all_steps: bool = False  # print every step of path witnesses, not only the deciding ones
    group: bool = True  # in the terminal, fold findings that repeat one origin (render/grouping.py)

    def maps_to_source(self, result: FileResult) -> bool:
        """Whether ``result``'s findings are shown at their CUDA/Triton line: asked for with
        `--map-to-source`, or implied by the input (a `.cu` file ptxlint compiled)."""
        return self.map_to_source or result.map_to_source

    @property
    def diagnostic_count(self) -> int:
        return sum(len(result.diagnostics) for result in self.results)


def notice(result: FileResult) -> str | None:
    """Why a file was only partly analysed (its analysis step limit or time budget ran out), naming
    the rules that did not finish, or None. Carried by `ptxlint.lint.PartiallyAnalysedResult`;
    every format shows it, and it makes the exit code 1 unless `--exit-zero`."""
    return getattr(result, "notice", None) or None


def unfinished(result: FileResult) -> tuple[str, ...]:
    """The codes of the rules that did not finish on a partly analysed file (stopped, then
    skipped, in rule order), or ()."""
    return getattr(result, "unfinished", ())


def unfinished_rules(results: tuple[FileResult, ...]) -> list[str]:
    """Every rule that did not finish on some file, each once, in the order the driver runs them:
    by code, but PTX002 (unused suppressions, decided after every other rule) last."""
    codes = {code for result in results for code in unfinished(result)}
    return sorted(codes, key=lambda code: (code == "PTX002", code))


def renderer(name: str) -> Any:
    """The module rendering format ``name`` (one of :data:`FORMATS`)."""
    if name not in FORMATS:
        raise ValueError(f"unknown output format {name!r}")
    return importlib.import_module(f"{__name__}.{name}")
