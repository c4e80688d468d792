"""A stable JSON document for scripts and other tools; the schema is `docs/json-format.md`.

The document is versioned (`"version": 1`): fields are only ever added within a version.
Locations are in characters (1-based, end exclusive): PTX positions, unless the finding is shown
at its source (`--map-to-source`, a `.cu` file ptxlint compiled, Triton's cache): then the
finding's, its labels' and its steps' `location` is the source line (`.loc`, the outermost frame
of the user's own code), texts name what the PTX registers are in the source, and `ptx` holds the
PTX position, in a file that exists or null (a module compiled in memory, without `--keep-ptx`).
"""

from __future__ import annotations

import json
from typing import Any, TextIO

from ptxlint import __version__
from ptxlint.diagnostics import Diagnostic, FileResult, Label, Severity, SourceFrame, shown_frame
from ptxlint.render import Report, notice, unfinished
from ptxlint.render.locations import frame_location, in_source_terms, ptx_file, ptx_location
from ptxlint.render.names import demangle, mangled_names
from ptxlint.source import Span

SCHEMA_VERSION = 1


def render(report: Report, stream: TextIO) -> None:
    stream.write(valid_unicode(json.dumps(document(report), indent=2, ensure_ascii=False)) + "\n")


def valid_unicode(text: str) -> str:
    """``text`` without lone surrogates: a file name that is not UTF-8 arrives from the command
    line with surrogate escapes, which no UTF-8 stream can write and no JSON reader accepts."""
    if text.isascii():
        return text
    return text.encode("utf-8", "replace").decode("utf-8")


def document(report: Report) -> dict[str, Any]:
    return {
        "version": SCHEMA_VERSION,
        "tool": {"name": "ptxlint", "version": __version__},
        "files": [_file(result) for result in report.results],
        "diagnostics": [
            _diagnostic(diagnostic, result, report.maps_to_source(result))
            for result in report.results
            if result.source is not None
            for diagnostic in result.diagnostics
        ],
        "summary": _summary(report),
    }


def _file(result: FileResult) -> dict[str, Any]:
    entry = {
        "path": result.path,
        "error": result.error,
        "diagnostics": len(result.diagnostics),
        "suppressed": result.suppressed,
        "baselined": result.baselined,
    }
    if result.tool_output.strip():  # only when nvcc or cuobjdump failed on the input
        entry["tool_output"] = result.tool_output
    if notice(result) is not None:  # only when the step limit or time budget cut the analysis short
        entry["partial"] = notice(result)
        entry["unfinished"] = list(unfinished(result))
    return entry


def _diagnostic(diagnostic: Diagnostic, result: FileResult, map_to_source: bool) -> dict[str, Any]:
    at_source = map_to_source and bool(diagnostic.origin)
    terms = diagnostic.source_terms if at_source else ()
    frame = diagnostic.source_frame if at_source else None
    entry = {
        "code": diagnostic.code,
        "name": diagnostic.name,
        "severity": diagnostic.severity.value,
        "message": in_source_terms(diagnostic.message, terms),
        "location": _frame(frame) if frame is not None else _location(result, diagnostic.span),
        "labels": [_label(result, label, at_source, terms) for label in diagnostic.labels],
        "witness": [_label(result, label, at_source, terms) for label in diagnostic.witness],
        "notes": [in_source_terms(note, terms) for note in diagnostic.notes],
        "help": in_source_terms(diagnostic.help, terms) if diagnostic.help is not None else None,
        "source": _frames(diagnostic.origin),
        "symbols": _symbols(diagnostic),
    }
    if at_source:
        entry["ptx"] = _ptx(result, diagnostic.span)
    return entry


def _frames(origin: tuple[SourceFrame, ...]) -> list[dict[str, Any]]:
    return [
        {"path": frame.path, "line": frame.line, "column": frame.column, "library": frame.library, "function": frame.function}
        for frame in origin
    ]


def _frame(frame: SourceFrame) -> dict[str, Any]:
    """A source line as a location (`.loc` names a line and a column, 0 when unknown)."""
    location = frame_location(frame)
    return {
        "path": location.path,
        "start": {"line": location.line, "column": location.column},
        "end": {"line": location.end_line, "column": location.end_column},
    }


def _ptx(result: FileResult, span: Span) -> dict[str, Any] | None:
    """The PTX position of a finding shown at its source, where a file holds it."""
    return _location(result, span) if ptx_file(result) is not None else None


def _symbols(diagnostic: Diagnostic) -> list[dict[str, str]]:
    """The C++ names the texts mention, mangled (as in the PTX) and demangled."""
    texts = [diagnostic.message, *diagnostic.notes, *(label.message for label in diagnostic.labels)]
    symbols = []
    for mangled in mangled_names("\n".join(texts)):
        demangled = demangle(mangled)
        if demangled is not None:
            symbols.append({"mangled": mangled, "demangled": demangled})
    return symbols


def _label(result: FileResult, label: Label, at_source: bool = False, terms: tuple[tuple[str, str], ...] = ()) -> dict[str, Any]:
    entry = {
        "message": in_source_terms(label.message, terms),
        "location": _frame(shown_frame(label.origin)) if at_source and label.origin else _location(result, label.span),
        "affected": label.also_affected,
    }
    if at_source:
        entry["source"] = _frames(label.origin)
        entry["ptx"] = _ptx(result, label.span)
    return entry


def _location(result: FileResult, span: Span) -> dict[str, Any]:
    location = ptx_location(result, span)
    return {
        "path": location.path,
        "start": {"line": location.line, "column": location.column},
        "end": {"line": location.end_line, "column": location.end_column},
    }


def _summary(report: Report) -> dict[str, int]:
    counts = {severity.value: 0 for severity in Severity}
    for result in report.results:
        for diagnostic in result.diagnostics:
            counts[diagnostic.severity.value] += 1
    return {
        "errors": counts["error"],
        "warnings": counts["warning"],
        "notes": counts["note"],
        "files": len(report.results),
        "unreadable": sum(1 for result in report.results if result.error is not None and result.source is None),
        "suppressed": sum(result.suppressed for result in report.results),
        "baselined": sum(result.baselined for result in report.results),
        "partial": sum(1 for result in report.results if notice(result) is not None),
    }
