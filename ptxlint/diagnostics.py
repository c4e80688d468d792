"""What a rule reports: a diagnostic with a primary span, labelled related spans, notes and an
optional path witness. Renderers consume these; they know nothing of PTX."""

from __future__ import annotations

import enum
from dataclasses import field
from typing import Any

from ptxlint.records import record
from ptxlint.source import SourceFile, Span


class Severity(enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"

    @property
    def rank(self) -> int:
        """Higher is more severe; used to sort summaries."""
        return {"error": 2, "warning": 1, "note": 0}[self.value]


@record(slots=True)
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
    # Where the location came from in the CUDA/Triton source (`.loc`, innermost frame first), filled
    # by ptxlint.sourcemap like a diagnostic's ``origin``.
    origin: tuple[SourceFrame, ...] = ()


@record(slots=True)
class SourceFrame:
    """A position in the high-level source a PTX line came from (`kernel.cu:123:5`), taken from
    `.loc`/`.file`. A diagnostic's ``origin`` lists frames innermost first: the first is where the
    code was written, each later one a call site it was inlined at."""

    path: str
    line: int
    column: int = 0  # 0: the `.loc` named no column
    # A file of a library the project includes (CUTLASS, CuTe, the CUDA headers), not the user's
    # own: shown folded, after the user's frames (ptxlint.sourcemap decides).
    library: bool = field(default=False, compare=False)
    # The function this line is in when it was inlined (nvcc's `function_name`, mangled); "" when
    # the PTX does not say.
    function: str = field(default="", compare=False)

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}" if self.column else f"{self.path}:{self.line}"


def shown_frame(origin: tuple[SourceFrame, ...], as_written: bool = False) -> SourceFrame:
    """The frame of a non-empty ``origin`` a reader is shown first: the outermost frame in the
    user's own code (the call in their kernel, not the library helper it inlined), else the
    innermost frame. ``as_written``: the innermost frame in the user's own code instead, for a
    finding about the text of an instruction (the inline asm with the typo), not about when it
    runs."""
    for frame in (origin if as_written else reversed(origin)):
        if not frame.library:
            return frame
    return origin[0]


def user_chain(origin: tuple[SourceFrame, ...], as_written: bool = False) -> tuple[tuple[SourceFrame, ...], tuple[SourceFrame, ...]]:
    """``origin`` outermost first, split into the user's frames after the shown one (the helpers it
    was inlined from, outermost first; with ``as_written``, the calls it was inlined at, innermost
    first) and the library frames (folded when shown)."""
    shown = shown_frame(origin, as_written)
    if as_written:
        position = next(number for number, frame in enumerate(origin) if frame is shown)
        rest = origin[position + 1 :]
        return tuple(frame for frame in rest if not frame.library), tuple(frame for frame in rest if frame.library)
    outermost_first = tuple(reversed(origin))
    position = next(number for number, frame in enumerate(outermost_first) if frame is shown)
    rest = outermost_first[position + 1 :]
    return tuple(frame for frame in rest if not frame.library), tuple(frame for frame in rest if frame.library)


@record(slots=True)
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
    # What the PTX names in the texts stand for in the source (`%p1` → "a comparison of
    # `threadIdx.x`", `$L__BB0_2` → "line 20", "line 54" → "line 16"), for showing a finding in
    # the source's terms; filled by ptxlint.sourcemap.
    source_terms: tuple[tuple[str, str], ...] = ()
    # About the text of the instruction (syntax, qualifiers, operand values), not about when it
    # runs: shown at the source line that wrote it, not at the outermost call (ptxlint.sourcemap).
    as_written: bool = False

    @property
    def source_frame(self) -> SourceFrame | None:
        """The source line this finding is shown at, if its PTX has line information."""
        return shown_frame(self.origin, self.as_written) if self.origin else None

    def sort_key(self) -> tuple[int, int, str]:
        return (self.span.line, self.span.column, self.code)


@record(slots=True)
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
    # Where `--keep-ptx` wrote the PTX of a module ptxlint compiled (`kernel.sm_100a.ptx`): PTX
    # locations point there, since the module's own name (`kernel.cu[sm_100a]`) is no file.
    kept_ptx: str | None = None
