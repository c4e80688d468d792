"""The default terminal format, in the style of rustc and ruff:

    error[PTX001]: cannot parse `mov.u32 %r1 %tid.x;`
     --> kernel.ptx:7:2
      |
    7 |     mov.u32 %r1 %tid.x;
      |     ^^^^^^^^^^^^^^^^^^^
      |
"""

from __future__ import annotations

from typing import Iterable

from rich.console import Console
from rich.text import Text

from ptxlint.diagnostics import Diagnostic, FileResult, Label, Severity
from ptxlint.render.text import plural, printable
from ptxlint.source import SourceFile, Span

_SEVERITY_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "bold yellow", Severity.NOTE: "bold cyan"}
_GUTTER = "bold blue"
_TAB_WIDTH = 4


def render(results: Iterable[FileResult], console: Console, elapsed: float | None = None) -> None:
    results = list(results)
    for result in results:
        if result.error is not None:
            console.print(_io_error(result))
            continue
        assert result.source is not None
        for diagnostic in result.diagnostics:
            console.print(_diagnostic(diagnostic, result.source))
    console.print(summary(results, elapsed))


def _io_error(result: FileResult) -> Text:
    text = Text()
    text.append("error", style="bold red")
    text.append(f": {printable(result.path)}: {printable(result.error or '')}", style="bold")
    return text


def summary(results: list[FileResult], elapsed: float | None) -> Text:
    counts = {severity: 0 for severity in Severity}
    for result in results:
        for diagnostic in result.diagnostics:
            counts[diagnostic.severity] += 1
    failed = sum(1 for result in results if result.error is not None)
    checked = len(results) - failed
    parts = [plural(counts[severity], severity.value) for severity in Severity if counts[severity]]
    text = Text()
    if parts:
        text.append("Found " + ", ".join(parts), style="bold")
    else:
        text.append("All checks passed", style="bold green")
    text.append(f" in {plural(checked, 'file')} checked")
    if failed:
        text.append(f", {plural(failed, 'file')} not readable", style="bold red")
    if elapsed is not None:
        text.append(f" ({elapsed:.2f}s)")
    text.append(".")
    return text


def _diagnostic(diagnostic: Diagnostic, source: SourceFile) -> Text:
    style = _SEVERITY_STYLE[diagnostic.severity]
    lines = [diagnostic.span.line] + [label.span.line for label in diagnostic.labels]
    width = len(str(max(lines)))
    out = Text()
    out.append(diagnostic.severity.value, style=style)
    out.append(f"[{diagnostic.code}]", style=style)
    out.append(f": {printable(diagnostic.message)}\n", style="bold")
    out.append(" " * width + "--> ", style=_GUTTER)
    out.append(f"{printable(source.path)}:{diagnostic.span.line}:{_column(source, diagnostic.span)}\n")
    out.append(" " * (width + 1) + "|\n", style=_GUTTER)
    annotations: list[tuple[Span, str, str, str]] = [(diagnostic.span, "^", style, "")]
    annotations += [(label.span, "-", "bold blue", label.message) for label in diagnostic.labels]
    previous_line = None
    for span, marker, marker_style, message in sorted(annotations, key=lambda item: item[0].start):
        if previous_line is not None and span.line > previous_line + 1:
            out.append(" " * (width + 1) + "...\n", style=_GUTTER)
        _frame_line(out, source, span, marker, marker_style, message, width)
        previous_line = span.line
    out.append(" " * (width + 1) + "|\n", style=_GUTTER)
    for step, label in enumerate(diagnostic.witness, start=1):
        out.append(" " * (width + 1) + "= ", style=_GUTTER)
        out.append(f"path {step}: ", style="bold")
        out.append(f"{printable(label.message)} (line {label.span.line})\n")
    for note in diagnostic.notes:
        out.append(" " * (width + 1) + "= ", style=_GUTTER)
        out.append("note", style="bold")
        out.append(f": {printable(note)}\n")
    if diagnostic.help:
        out.append(" " * (width + 1) + "= ", style=_GUTTER)
        out.append("help", style="bold")
        out.append(f": {printable(diagnostic.help)}\n")
    return out


def _column(source: SourceFile, span: Span) -> int:
    return source.character_column(span.line, span.column)


def _frame_line(
    out: Text, source: SourceFile, span: Span, marker: str, style: str, message: str, width: int
) -> None:
    raw = source.line_text(span.line) if span.line <= source.line_count else ""
    start = _column(source, span) - 1
    end_line, end_column = source.end(span)
    end = source.character_column(end_line, end_column) - 1 if end_line == span.line else len(raw)
    prefix, marked = raw[:start], raw[start:max(end, start + 1)]
    shown_prefix = printable(prefix.expandtabs(_TAB_WIDTH))
    out.append(f"{span.line:>{width}} | ", style=_GUTTER)
    out.append(printable(raw.expandtabs(_TAB_WIDTH)) + "\n")
    out.append(" " * (width + 1) + "| ", style=_GUTTER)
    underline = marker * max(1, len(printable(marked.expandtabs(_TAB_WIDTH))))
    out.append(" " * len(shown_prefix) + underline, style=style)
    if message:
        out.append(" " + printable(message), style=style)
    out.append("\n")


__all__ = ["render", "summary", "Label"]
