"""The default terminal format, in the style of rustc and ruff:

    error[PTX001]: cannot parse `mov.u32 %r1 %tid.x;`
     --> kernel.ptx:7:2
      |
    7 |     mov.u32 %r1 %tid.x;
      |     ^^^^^^^^^^^^^^^^^^^ the statement
      |
      = source: kernel.cu:12:5, inlined at main.cu:40:3
      = help: separate the operands with commas

A finding shown at its source line (a `.cu` file ptxlint compiled, `--map-to-source`) is told
entirely in source lines by ``source_view.py``.

Secondary labels get `-` underlines on their own lines (elided runs of lines become `...`), a
path witness is listed as numbered steps, and one summary line closes the output. Colour is only
decoration: the text is identical without it.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import TextIO

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from ptxlint.diagnostics import Diagnostic, FileResult, Label, Severity, SourceFrame
from ptxlint.records import record
from ptxlint.render import Report, notice
from ptxlint.render.grouping import Group, group
from ptxlint.render.locations import display_path, origin_text, span_location
from ptxlint.render.names import readable
from ptxlint.render.source_view import source_diagnostic_text, source_line
from ptxlint.render.summary import segments, use_color
from ptxlint.render.text import plural, printable
from ptxlint.source import SourceFile, Span

SEVERITY_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "bold yellow", Severity.NOTE: "bold cyan"}
_GUTTER = "bold blue"
_LABEL = "bold blue"
_TAB_WIDTH = 4
_MAX_EXCERPT = 240  # characters of a source line shown around a finding; longer lines are cut
_EXCERPT_CONTEXT = 60  # characters shown before the first annotation of a cut line
MAX_WITNESS_LINES = 8  # steps of a path witness shown without --show-all-steps
_LISTED_REPEATS = 6  # PTX lines of folded repeats named in the note


def console_for(stream: TextIO, color: str) -> Console:
    """A console honouring `--color`, then `NO_COLOR`/`FORCE_COLOR`, then whether it is a TTY."""
    common = {"file": stream, "highlight": False, "soft_wrap": True, "emoji": False, "markup": False}
    if use_color(stream, color):
        return Console(force_terminal=True, no_color=False, color_system="standard", **common)
    return Console(force_terminal=False, no_color=True, color_system=None, **common)


def render(report: Report, console: Console, show_summary: bool = True) -> None:
    folded = 0
    for result in report.results:
        if result.source is not None:
            for found in _shown(report, result):
                folded += len(found.others)
                console.print(_with_repeats(found, result.source, report, result))
        if result.error is not None:
            console.print(_file_error(result))
        if notice(result) is not None:
            console.print(_file_notice(result))
    if show_summary:
        console.print(summary(report, folded))


def _shown(report: Report, result: FileResult) -> list[Group]:
    """The findings as printed: folded by origin, or one by one with `--no-group`."""
    if report.group:
        return group(result.diagnostics, result.source)
    return [Group(diagnostic, (), 1) for diagnostic in result.diagnostics]


def _with_repeats(found: Group, source: SourceFile, report: Report, result: FileResult) -> Text:
    diagnostic = found.first
    at_source = report.maps_to_source(result) and bool(diagnostic.origin)
    if found.others:
        lines = ", ".join(str(other.span.line) for other in found.others[:_LISTED_REPEATS])
        more = ", …" if len(found.others) > _LISTED_REPEATS else ""
        # At the source line the repeats share the line they were written on; where they were
        # called from may differ (a helper inlined at several calls). Their PTX lines are of a
        # file the reader may not have.
        where = "" if at_source else f"{'line' if len(found.others) == 1 else 'lines'} {lines}{more}; "
        if at_source:
            shown = diagnostic.source_frame
            calls = list(dict.fromkeys(
                frame.line for other in found.others if (frame := other.source_frame) is not None and frame != shown
            ))
            if calls:
                listed = ", ".join(str(line) for line in calls[:_LISTED_REPEATS])
                where = f"at {'line' if len(calls) == 1 else 'lines'} {listed}{', …' if len(calls) > _LISTED_REPEATS else ''}; "
        note = (
            f"and {plural(len(found.others), 'more finding')} like it in "
            f"{plural(found.kernels, 'kernel')} ({where}--no-group shows each)"
        )
        diagnostic = dataclasses.replace(diagnostic, notes=diagnostic.notes + (note,))
    return diagnostic_text(diagnostic, source, report.maps_to_source(result), report.all_steps, result.kept_ptx)


def _file_error(result: FileResult) -> Text:
    text = Text()
    text.append("error", style="bold red")
    text.append(f": {printable(result.path)}: {printable(result.error or '')}", style="bold")
    return text


def _file_notice(result: FileResult) -> Text:
    text = Text()
    text.append("warning", style="bold yellow")
    text.append(f": {printable(result.path)}: {printable(notice(result) or '')}", style="bold")
    return text


def summary(report: Report, folded: int = 0) -> Text:
    """The closing line (``summary.py``), as rich text."""
    return Text.assemble(*segments(report, folded))


# ----------------------------------------------------------------------------- one diagnostic


@record
class _Annotation:
    span: Span
    marker: str  # `^` for the primary span, `-` for labels
    style: str
    message: str


def diagnostic_text(
    diagnostic: Diagnostic, source: SourceFile, map_to_source: bool = False, all_steps: bool = False,
    ptx_path: str | None = None,
) -> Text:
    style = SEVERITY_STYLE[diagnostic.severity]
    frame = diagnostic.source_frame if map_to_source else None
    if frame is not None and source_line(frame.path, frame.line) is not None:
        return source_diagnostic_text(diagnostic, source, style, style, ptx_path, all_steps, shown_steps)
    # The source cannot be read from here (PTX from elsewhere): its line is named, the PTX shown.
    annotations = [_Annotation(diagnostic.span, "^", style, "")]
    annotations += [_Annotation(label.span, "-", _LABEL, label.message) for label in diagnostic.labels]
    annotations.sort(key=lambda annotation: (annotation.span.line, annotation.span.start))
    width = len(str(max(annotation.span.line for annotation in annotations)))
    out = Text()
    _header(out, diagnostic, style)
    _pointer(out, diagnostic, source, width, frame, ptx_path)
    _frame(out, source, annotations, width)
    _witness(out, diagnostic, source, width, all_steps)
    _footer(out, diagnostic, width)
    return out


def _header(out: Text, diagnostic: Diagnostic, style: str) -> None:
    out.append(f"{diagnostic.severity.value}[{diagnostic.code}]", style=style)
    out.append(f": {printable(readable(diagnostic.message))}\n", style="bold")


def _pointer(
    out: Text, diagnostic: Diagnostic, source: SourceFile, width: int, frame: SourceFrame | None, ptx_path: str | None
) -> None:
    """The location line(s): the source line when it is known but unreadable, then the PTX, in the
    file `--keep-ptx` wrote when there is one."""
    location = span_location(source, diagnostic.span)
    if frame is not None:
        out.append(" " * width + "--> ", style=_GUTTER)
        out.append(printable(f"{display_path(frame.path)}:{frame.line}" + (f":{frame.column}" if frame.column else "")) + "\n")
    out.append(" " * width + ("::: " if frame is not None else "--> "), style=_GUTTER)
    out.append(f"{printable(display_path(ptx_path) if ptx_path else source.path)}:{location.line}:{location.column}\n")


def _frame(out: Text, source: SourceFile, annotations: list[_Annotation], width: int) -> None:
    _gutter(out, width)
    out.append("\n")
    previous: int | None = None
    for line in sorted({annotation.span.line for annotation in annotations}):
        if previous is not None and line > previous + 1:
            out.append(" " * (width + 1) + "...\n", style=_GUTTER)
        on_line = [annotation for annotation in annotations if annotation.span.line == line]
        window = _window(source, line, on_line)
        _source_line(out, source, line, width, window)
        for annotation in on_line:
            _underline(out, source, annotation, width, window)
        previous = line
    _gutter(out, width)
    out.append("\n")


def _gutter(out: Text, width: int, number: int | None = None) -> None:
    label = f"{number:>{width}}" if number is not None else " " * width
    out.append(f"{label} |", style=_GUTTER)


def _display(text: str) -> str:
    return printable(text.expandtabs(_TAB_WIDTH))


@record
class _Window:
    """The part of a long source line an excerpt shows: characters ``[start, end)``, with `…`
    where text is cut off. A minified or generated line can be megabytes long."""

    start: int
    end: int
    length: int

    def shown(self, text: str) -> str:
        return ("…" if self.start > 0 else "") + text[self.start : self.end] + ("…" if self.end < self.length else "")

    def prefix(self, text: str, upto: int) -> str:
        """What the excerpt shows before character ``upto`` (clipped to the window)."""
        return ("…" if self.start > 0 else "") + text[self.start : max(self.start, min(upto, self.end))]


def _window(source: SourceFile, line: int, annotations: list[_Annotation]) -> _Window | None:
    if line > source.line_count or len(source.line_bytes(line)) <= _MAX_EXCERPT:
        return None
    text = source.line_text(line)
    if len(text) <= _MAX_EXCERPT:
        return None
    first = min(source.character_column(line, annotation.span.column) - 1 for annotation in annotations)
    start = max(0, first - _EXCERPT_CONTEXT)
    return _Window(start, min(len(text), start + _MAX_EXCERPT), len(text))


def _source_line(out: Text, source: SourceFile, line: int, width: int, window: _Window | None = None) -> None:
    text = source.line_text(line) if line <= source.line_count else ""
    if window is not None:
        text = window.shown(text)
    _gutter(out, width, line)
    out.append((" " + _display(text)).rstrip() + "\n")


def _underline(out: Text, source: SourceFile, annotation: _Annotation, width: int, window: _Window | None = None) -> None:
    span = annotation.span
    text = source.line_text(span.line) if span.line <= source.line_count else ""
    start = source.character_column(span.line, span.column) - 1
    end_line, end_byte_column = source.end(span)
    # A span running past its first line is underlined to the end of that line.
    end = source.character_column(end_line, end_byte_column) - 1 if end_line == span.line else len(text)
    # Measure what the terminal shows, not characters: tabs expand by position and some
    # characters (CJK, emoji) take two cells.
    if window is not None:
        indent = cell_len(_display(window.prefix(text, start)))
        length = max(1, cell_len(_display(window.prefix(text, end))) - indent)
    else:
        indent = cell_len(_display(text[:start]))
        length = max(1, cell_len(_display(text[:end])) - indent)
    _gutter(out, width)
    out.append(" " + " " * indent)
    out.append(annotation.marker * length, style=annotation.style)
    if annotation.message:
        out.append(" " + printable(readable(annotation.message)), style=annotation.style)
    out.append("\n")


def _witness(out: Text, diagnostic: Diagnostic, source: SourceFile, width: int, all_steps: bool) -> None:
    if not diagnostic.witness:
        return
    _note_prefix(out, width)
    out.append("path", style="bold")
    out.append(":\n")
    steps = shown_steps(diagnostic.witness, all_steps)
    number_width = len(str(len(diagnostic.witness)))
    for number, step in steps:
        if step is None:
            out.append(" " * (width + 3) + " " * number_width + "  ")
            out.append(f"… {plural(number, 'more step')}", style="dim")
            out.append(" (--show-all-steps)\n" if not all_steps else "\n")
            continue
        location = span_location(source, step.span)
        out.append(" " * (width + 3) + f"{number:>{number_width}}. ")
        out.append(f"{location.line}:{location.column}", style=_GUTTER)
        out.append(f" {printable(readable(step.message))}\n")


def shown_steps(witness: tuple[Label, ...], all_steps: bool = False) -> list[tuple[int, Label | None]]:
    """The witness steps to print, numbered as in the whole path: every step with ``all_steps``;
    otherwise the essential ones (where the path is decided), at most :data:`MAX_WITNESS_LINES`
    lines. ``(count, None)`` stands for `count` steps left out there."""
    numbered = list(enumerate(witness, start=1))
    if all_steps:
        return list(numbered)
    essential = [(number, step) for number, step in numbered if step.essential]
    if len(essential) > MAX_WITNESS_LINES:
        head = MAX_WITNESS_LINES // 2
        tail = MAX_WITNESS_LINES - head - 1
        essential = essential[:head] + [(-1, None)] + essential[-tail:]  # type: ignore[list-item]
    shown: list[tuple[int, Label | None]] = []
    previous = 0
    for number, step in essential:
        if step is None:
            continue
        if number > previous + 1:
            shown.append((number - previous - 1, None))
        shown.append((number, step))
        previous = number
    if previous < len(witness):
        shown.append((len(witness) - previous, None))
    return shown


def _footer(out: Text, diagnostic: Diagnostic, width: int) -> None:
    if diagnostic.origin:
        _note_prefix(out, width)
        out.append("source", style="bold")
        out.append(f": {printable(origin_text(diagnostic.origin))}\n")
    _notes(out, diagnostic, width)


def _notes(out: Text, diagnostic: Diagnostic, width: int) -> None:
    for note in diagnostic.notes:
        _note_prefix(out, width)
        out.append("note", style="bold")
        out.append(f": {printable(readable(note))}\n")
    if diagnostic.help:
        _note_prefix(out, width)
        out.append("help", style="bold")
        out.append(f": {printable(readable(diagnostic.help))}\n")


def _note_prefix(out: Text, width: int) -> None:
    out.append(" " * (width + 1) + "= ", style=_GUTTER)
