"""Where a diagnostic is, in the units each consumer counts.

Spans count bytes; people and most tools count characters, SARIF counts UTF-16 code units. With
`--map-to-source` the primary location is the CUDA/Triton line the PTX came from (`.loc`), so
review bots annotate the file people edit; the PTX position then becomes a related location.
"""

from __future__ import annotations

import os
import re

from ptxlint.diagnostics import Diagnostic, FileResult, SourceFrame, shown_frame
from ptxlint.records import record
from ptxlint.source import SourceFile, Span


@record(slots=True)
class Location:
    """A 1-based range; ``end_line``/``end_column`` are just past the end (exclusive column)."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int

    @property
    def known_column(self) -> bool:
        return self.column > 0


def span_location(source: SourceFile, span: Span, utf16: bool = False) -> Location:
    """``span`` in character columns, or UTF-16 code units for SARIF."""
    convert = source.utf16_column if utf16 else source.character_column
    end_line, end_byte_column = source.end(span)
    end_line = min(end_line, source.line_count)
    return Location(
        path=source.path,
        line=span.line,
        column=convert(span.line, span.column),
        end_line=end_line,
        end_column=convert(end_line, end_byte_column),
    )


def frame_location(frame: SourceFrame) -> Location:
    """A source-mapped position: `.loc` names a line and maybe a column, never a range."""
    path = display_path(frame.path)
    return Location(path, frame.line, frame.column, frame.line, frame.column)


def display_path(path: str) -> str:
    """``path`` relative to the working directory when it lies below it: Triton and nvcc write
    absolute paths into `.file`, while editors and GitHub annotations want repository paths."""
    if not os.path.isabs(path):
        return path
    path = os.path.normpath(path)  # nvcc writes include paths as found: `/src/../include/x.h`
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return path
    return path if relative.startswith(os.pardir) else relative


def primary_location(diagnostic: Diagnostic, result: FileResult, map_to_source: bool, utf16: bool = False) -> Location:
    if map_to_source and diagnostic.origin:
        return frame_location(shown_frame(diagnostic.origin, diagnostic.as_written))
    return ptx_location(result, diagnostic.span, utf16)


def primary_message(diagnostic: Diagnostic, map_to_source: bool) -> str:
    """The message as a one-line format shows it: at the source line, in the source's terms."""
    return in_source_terms(diagnostic.message, diagnostic.source_terms) if map_to_source and diagnostic.origin else diagnostic.message


def origin_text(origin: tuple[SourceFrame, ...]) -> str:
    """`kernel.cu:12:5, inlined at main.cu:40:3`."""
    return ", inlined at ".join(str(frame) for frame in origin)


def in_source_terms(text: str, terms: tuple[tuple[str, str], ...]) -> str:
    """``text`` with the PTX names a finding's ``source_terms`` explain replaced by what they are
    in the source (`%p1` → "a comparison of `threadIdx.x`"), in one pass."""
    if not terms:
        return text
    table = dict(terms)
    pattern = re.compile("|".join(re.escape(key) for key in sorted(table, key=len, reverse=True)))
    return pattern.sub(lambda match: table[match.group(0)], text)


def ptx_file(result: FileResult) -> str | None:
    """The file that holds ``result``'s PTX, if one does: the one `--keep-ptx` wrote, else the
    linted file itself, unless a front end made the module in memory (`kernel.cu[sm_100a]`,
    `libfoo.so[sm_90a]`: no such file exists)."""
    if result.kept_ptx is not None:
        return result.kept_ptx
    return None if result.path.endswith("]") and "[" in result.path else result.path


def ptx_location(result: FileResult, span: Span, utf16: bool = False) -> Location:
    """``span`` of ``result``'s PTX, in the file `--keep-ptx` wrote when there is one."""
    assert result.source is not None
    location = span_location(result.source, span, utf16)
    if result.kept_ptx is not None:
        return Location(result.kept_ptx, location.line, location.column, location.end_line, location.end_column)
    return location
