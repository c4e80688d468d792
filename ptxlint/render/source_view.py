"""The terminal view of a finding on PTX ptxlint compiled itself, told at the source lines.

Someone who linted `kernel.cu` never saw the PTX; every location they read is a `.cu` line: the
finding's own, its labels (the deciding branch, where the divergent value comes from), the steps
of its path, each the outermost frame of their own code that `.loc` names (``shown_frame``), with
the source text shown. A line several labels point at is printed once, with each distinct label
once. The texts are in the source's terms (``Diagnostic.source_terms``: `%p1` is "a comparison
of `threadIdx.x`"). The PTX instruction stays as one detail line, at the file `--keep-ptx` wrote
when there is one::

    error[PTX101]: `tcgen05.alloc` may run with only part of a warp: it is inside a branch on a comparison of `threadIdx.x`, …
      --> kernel.cu:17:9
       |
    16 |     if (threadIdx.x < 16) {
       |     -- this branch on a comparison of `threadIdx.x` varies within a warp
    17 |         asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;" :: …);
       |         ^^^
       |
       = ptx: `tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r2], 32;` (sm_100a, line 34)
"""

from __future__ import annotations

import functools
import re

from rich.cells import cell_len
from rich.text import Text

from ptxlint.diagnostics import Diagnostic, Label, SourceFrame, shown_frame, user_chain
from ptxlint.records import record
from ptxlint.render.locations import display_path, in_source_terms
from ptxlint.render.names import readable
from ptxlint.render.text import plural, printable
from ptxlint.source import SourceFile, Span

_GUTTER = "bold blue"
_LABEL = "bold blue"
_TAB_WIDTH = 4
_MAX_LINE = 160  # characters of a source line shown; longer lines are cut with `…`
_MAX_PTX = 120  # characters of the PTX instruction shown in the detail line
_MAX_SOURCE_BYTES = 16 * 1024 * 1024  # of a CUDA/Triton file read to show its lines
_WORD = re.compile(r"[A-Za-z_][\w.:]*|\S")


@record
class _Mark:
    frame: SourceFrame
    marker: str  # `^` for the finding, `-` for a label
    style: str
    message: str
    count: int = 1  # PTX locations that map to this mark (an unrolled loop's copies)


def source_diagnostic_text(
    diagnostic: Diagnostic, source: SourceFile, style: str, severity_style: str, ptx_path: str | None,
    all_steps: bool, shown_steps,  # noqa: ANN001 - full.shown_steps, passed in to avoid an import cycle
) -> Text:
    """``diagnostic`` (whose ``origin`` is known) at its source lines."""
    terms = diagnostic.source_terms
    primary = shown_frame(diagnostic.origin, diagnostic.as_written)
    marks = [_Mark(primary, "^", style, "")]
    unmapped: list[Label] = []
    for label in diagnostic.labels:
        if label.origin:
            marks.append(_Mark(shown_frame(label.origin), "-", _LABEL, in_source_terms(label.message, terms)))
        else:
            unmapped.append(label)
    marks = _without_repeated_sources(_merged(marks))
    files = list(dict.fromkeys([primary.path] + [mark.frame.path for mark in marks]))
    width = max(len(str(mark.frame.line)) for mark in marks)
    for step in diagnostic.witness:
        if step.origin:
            width = max(width, len(str(shown_frame(step.origin).line)))
    out = Text()
    out.append(f"{diagnostic.severity.value}[{diagnostic.code}]", style=severity_style)
    out.append(f": {printable(readable(in_source_terms(diagnostic.message, terms)))}\n", style="bold")
    out.append(" " * width + "--> ", style=_GUTTER)
    out.append(printable(_position(primary)) + "\n")
    for number, path in enumerate(files):
        if number:
            out.append(" " * width + "::: ", style=_GUTTER)
            out.append(printable(display_path(path)) + "\n")
        _file_frame(out, path, [mark for mark in marks if mark.frame.path == path], width)
    _chain(out, diagnostic.origin, diagnostic.as_written, width)
    shown_lines = {(mark.frame.path, mark.frame.line) for mark in marks}
    _path(out, diagnostic, primary.path, width, all_steps, shown_steps, shown_lines)
    _ptx_detail(out, diagnostic.span, source, ptx_path, width)
    for label in unmapped:
        _note(out, width, "ptx", f"{_ptx_position(label.span, source, ptx_path)}: {in_source_terms(label.message, terms)}")
    for note in diagnostic.notes:
        _note(out, width, "note", in_source_terms(note, terms))
    if diagnostic.help:
        _note(out, width, "help", in_source_terms(diagnostic.help, terms))
    return out


def _merged(marks: list[_Mark]) -> list[_Mark]:
    """One mark per (line, column, marker, message): the copies of an unrolled loop or of a
    template's instantiations point at one source line many times."""
    merged: dict[tuple, _Mark] = {}
    for mark in marks:
        key = (mark.frame.path, mark.frame.line, mark.frame.column, mark.marker, mark.message)
        known = merged.get(key)
        merged[key] = mark if known is None else _Mark(known.frame, known.marker, known.style, known.message, known.count + 1)
    return list(merged.values())


_VARIES = re.compile(r"^(.+) varies per thread$")


def _without_repeated_sources(marks: list[_Mark]) -> list[_Mark]:
    """Without "`threadIdx.x` varies per thread" when another label already names
    `threadIdx.x` (the branch on a comparison of it): the compiler reads the index once, so that
    label's line is wherever the first use was, not a line that explains this finding."""
    kept = []
    for mark in marks:
        varying = _VARIES.match(mark.message)
        if varying is not None and any(varying.group(1) in other.message for other in marks if other is not mark):
            continue
        kept.append(mark)
    return kept


def _position(frame: SourceFrame) -> str:
    return f"{display_path(frame.path)}:{frame.line}" + (f":{frame.column}" if frame.column else "")


def _file_frame(out: Text, path: str, marks: list[_Mark], width: int) -> None:
    _gutter(out, width)
    out.append("\n")
    previous: int | None = None
    for line in sorted({mark.frame.line for mark in marks}):
        if previous is not None and line > previous + 1:
            out.append(" " * (width + 1) + "...\n", style=_GUTTER)
        text = source_line(path, line)
        _gutter(out, width, line)
        out.append((" " + _display(_clipped(text)) if text is not None else " (source not readable)").rstrip() + "\n")
        on_line = sorted((mark for mark in marks if mark.frame.line == line), key=lambda mark: (mark.marker != "^", mark.frame.column))
        for mark in on_line:
            _underline(out, text or "", mark, width)
        previous = line
    _gutter(out, width)
    out.append("\n")


def _underline(out: Text, text: str, mark: _Mark, width: int) -> None:
    """The marker under the word at the `.loc` column (the first word of the line without one)."""
    column = mark.frame.column or (len(text) - len(text.lstrip()) + 1)
    start = min(max(column - 1, 0), len(text))
    word = _WORD.match(text, start)
    length = max(1, cell_len(_display(word.group()))) if word is not None else 1
    indent = cell_len(_display(_clipped(text[:start])))
    _gutter(out, width)
    out.append(" " + " " * indent)
    out.append(mark.marker * length, style=mark.style)
    message = printable(readable(mark.message))
    if mark.count > 1 and message:
        message += f" ({mark.count} PTX instructions)"
    if message:
        out.append(" " + message, style=mark.style)
    out.append("\n")


def _chain(out: Text, origin: tuple[SourceFrame, ...], as_written: bool, width: int) -> None:
    """The helpers the finding's line was inlined from, outermost first (for a finding about the
    text, the calls it was inlined at), named where the PTX names them; library frames folded."""
    inner, library = user_chain(origin, as_written)
    if inner:
        title = "inlined at" if as_written else "inlined from"
        _note(out, width, title, (", " if as_written else " → ").join(_named(frame) for frame in inner))
    if library:
        names = ", ".join(_named(frame) for frame in library[:2]) + (", …" if len(library) > 2 else "")
        _note(out, width, "in library code", names)


def _named(frame: SourceFrame) -> str:
    """`lane_barrier()` at kernel.cu:4:5 (the function demangled by ``readable``)."""
    return f"`{frame.function}` at {_position(frame)}" if frame.function else _position(frame)


def _path(
    out: Text, diagnostic: Diagnostic, home: str, width: int, all_steps: bool, shown_steps,  # noqa: ANN001
    shown_lines: set[tuple[str, int]],
) -> None:
    """The numbered steps, each at its source line; a line's text is printed under the first step
    on it, unless the code frame above shows it already."""
    if not diagnostic.witness:
        return
    out.append(" " * (width + 1) + "= ", style=_GUTTER)
    out.append("path", style="bold")
    out.append(":\n")
    number_width = len(str(len(diagnostic.witness)))
    printed = set(shown_lines)
    for number, step in shown_steps(diagnostic.witness, all_steps):
        indent = " " * (width + 3)
        if step is None:
            out.append(indent + " " * number_width + "  ")
            out.append(f"… {plural(number, 'more step')}", style="dim")
            out.append(" (--show-all-steps)\n" if not all_steps else "\n")
            continue
        message = printable(readable(in_source_terms(step.message, diagnostic.source_terms)))
        out.append(indent + f"{number:>{number_width}}. ")
        if not step.origin:
            out.append(f"{message}\n")
            continue
        frame = shown_frame(step.origin)
        where = f"{frame.line}" if frame.path == home else f"{display_path(frame.path)}:{frame.line}"
        out.append(f"line {where}", style=_GUTTER)
        out.append(f": {message}\n")
        text = source_line(frame.path, frame.line)
        if text is not None and (frame.path, frame.line) not in printed:
            printed.add((frame.path, frame.line))
            out.append(indent + " " * (number_width + 2) + "│ ", style=_GUTTER)
            out.append(_display(_clipped(text.strip())) + "\n", style="dim")


def _ptx_detail(out: Text, span: Span, source: SourceFile, ptx_path: str | None, width: int) -> None:
    text = source.line_text(span.line).strip() if span.line <= source.line_count else ""
    if len(text) > _MAX_PTX:
        text = text[: _MAX_PTX - 1] + "…"
    _note(out, width, "ptx", f"`{text}` ({_ptx_position(span, source, ptx_path)})")


def _ptx_position(span: Span, source: SourceFile, ptx_path: str | None) -> str:
    """Where a PTX span is: in the file `--keep-ptx` wrote, else by architecture and line (the
    module has no file of its own)."""
    column = source.character_column(span.line, span.column) if span.line <= source.line_count else span.column
    if ptx_path is not None:
        return f"{display_path(ptx_path)}:{span.line}:{column}"
    if source.path.endswith("]") and "[" in source.path:
        architecture = source.path[source.path.rindex("[") + 1 : -1]
        return f"{architecture} PTX line {span.line}, --keep-ptx DIR writes it"
    return f"{source.path}:{span.line}:{column}"


def _note(out: Text, width: int, title: str, text: str) -> None:
    out.append(" " * (width + 1) + "= ", style=_GUTTER)
    out.append(title, style="bold")
    out.append(f": {printable(readable(text))}\n")


def _gutter(out: Text, width: int, number: int | None = None) -> None:
    label = f"{number:>{width}}" if number is not None else " " * width
    out.append(f"{label} |", style=_GUTTER)


def _display(text: str) -> str:
    return printable(text.expandtabs(_TAB_WIDTH))


def _clipped(text: str) -> str:
    return text if len(text) <= _MAX_LINE else text[: _MAX_LINE - 1] + "…"


@functools.lru_cache(maxsize=64)
def _source_lines(path: str) -> tuple[str, ...] | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return tuple(handle.read(_MAX_SOURCE_BYTES).splitlines())
    except OSError:
        return None


def source_line(path: str, line: int) -> str | None:
    """Line ``line`` of the CUDA/Triton file ``path``, when it can be read from here (it usually
    can: ptxlint compiled it, or Triton just did)."""
    lines = _source_lines(path)
    if lines is None or not 1 <= line <= len(lines):
        return None
    return lines[line - 1]
