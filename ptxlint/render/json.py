"""A stable JSON document for scripts and other tools; the schema is `docs/json-format.md`.

The document is versioned (`"version": 1`): fields are only ever added within a version. Locations
are always PTX positions in characters (1-based, end exclusive); the CUDA source a finding came
from is the separate `source` list, so `--map-to-source` does not change this format.
"""

from __future__ import annotations

import json
from typing import Any, TextIO

from ptxlint import __version__
from ptxlint.diagnostics import Diagnostic, FileResult, Label, Severity
from ptxlint.render import Report, notice, unfinished
from ptxlint.render.locations import span_location
from ptxlint.render.names import demangle, mangled_names
from ptxlint.source import SourceFile, Span

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
            _diagnostic(diagnostic, result.source)
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


def _diagnostic(diagnostic: Diagnostic, source: SourceFile) -> dict[str, Any]:
    return {
        "code": diagnostic.code,
        "name": diagnostic.name,
        "severity": diagnostic.severity.value,
        "message": diagnostic.message,
        "location": _location(source, diagnostic.span),
        "labels": [_label(source, label) for label in diagnostic.labels],
        "witness": [_label(source, label) for label in diagnostic.witness],
        "notes": list(diagnostic.notes),
        "help": diagnostic.help,
        "source": [{"path": frame.path, "line": frame.line, "column": frame.column} for frame in diagnostic.origin],
        "symbols": _symbols(diagnostic),
    }


def _symbols(diagnostic: Diagnostic) -> list[dict[str, str]]:
    """The C++ names the texts mention, mangled (as in the PTX) and demangled."""
    texts = [diagnostic.message, *diagnostic.notes, *(label.message for label in diagnostic.labels)]
    symbols = []
    for mangled in mangled_names("\n".join(texts)):
        demangled = demangle(mangled)
        if demangled is not None:
            symbols.append({"mangled": mangled, "demangled": demangled})
    return symbols


def _label(source: SourceFile, label: Label) -> dict[str, Any]:
    return {"message": label.message, "location": _location(source, label.span), "affected": label.also_affected}


def _location(source: SourceFile, span: Span) -> dict[str, Any]:
    location = span_location(source, span)
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
