"""What a rule reports: a diagnostic with a primary span, labelled related spans, notes and an
optional path witness. Renderers consume these; they know nothing of PTX."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from ptxlint.source import SourceFile, Span


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"

    @property
    def rank(self) -> int:
        """Higher is more severe; used to sort summaries."""
        return {"error": 2, "warning": 1, "note": 0}[self.value]


@dataclass(frozen=True, slots=True)
class Label:
    """A secondary location with a short message ("the divergent source is here")."""

    span: Span
    message: str
    # In a witness path: whether this step decides the path (a branch whose other way avoids the
    # bug, a loop). Steps that are not essential are shown only on request.
    essential: bool = True
    # Whether the location has the finding's problem too (another collective the same divergent
    # cause reaches), rather than explaining it: reported once, named at each place it affects.
    also_affected: bool = False


@dataclass(frozen=True, slots=True)
class SourceFrame:
    """A position in the high-level source a PTX line came from (`kernel.cu:123:5`), taken from
    `.loc`/`.file`. A diagnostic's ``origin`` lists frames innermost first: the first is where the
    code was written, each later one a call site it was inlined at."""

    path: str
    line: int
    column: int = 0  # 0: the `.loc` named no column

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}" if self.column else f"{self.path}:{self.line}"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One finding.

    ``labels`` are related locations (SARIF ``relatedLocations``), ``witness`` is an ordered path
    of locations that leads to the bug (SARIF ``codeFlows``), ``notes`` and ``help`` are free text.
    Messages are lowercase facts with PTX in backticks; the why and the fix live in the rule docs.
    """

    code: str
    name: str
    severity: Severity
    message: str
    span: Span
    labels: tuple[Label, ...] = ()
    notes: tuple[str, ...] = ()
    help: str | None = None
    witness: tuple[Label, ...] = ()
    origin: tuple[SourceFrame, ...] = ()  # filled by ptxlint.sourcemap when the PTX has `.loc`

    def sort_key(self) -> tuple[int, int, str]:
        return (self.span.line, self.span.column, self.code)


@dataclass(frozen=True, slots=True)
class FileResult:
    """Everything known about one input after linting it."""

    path: str
    diagnostics: tuple[Diagnostic, ...] = ()
    source: SourceFile | None = field(default=None, repr=False)
    error: str | None = None  # an I/O or decoding problem that stopped the file from being linted
    suppressed: int = 0  # findings hidden by `// ptxlint: ignore` comments
    timings: tuple[tuple[str, float], ...] = field(default=(), repr=False)  # CPU s per stage (`--timings`)
    baselined: int = 0  # findings hidden because the baseline file lists them
    # Report findings at the high-level source line (`.loc`) rather than the PTX line: set for
    # PTX that ptxlint compiled itself (`kernel.cu`) or that Triton left in its cache.
    map_to_source: bool = False
    # What the tool that failed on this input printed (nvcc's errors), beside ``error``.
    tool_output: str = ""
    # What this module saw of the suppression comments in its CUDA/Python sources
    # (`ptxlint.source_suppressions.Use`): whether each is unused is decided over every module.
    source_suppressions: tuple[Any, ...] = field(default=(), repr=False)
