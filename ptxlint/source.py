"""Source text and positions.

Every position inside ptxlint is a byte offset into the UTF-8 encoded file, because that is what
tree-sitter reports and what slicing the raw bytes needs. People and tools count differently:
terminals want 1-based lines and character columns, SARIF wants UTF-16 code units. This module is
the one place that converts between them.
"""

from __future__ import annotations

import bisect
import re
from array import array
from dataclasses import field
from typing import NamedTuple
from ptxlint.records import record

_NEWLINE = re.compile(b"\n")


class Span(NamedTuple):
    """A half-open byte range ``[start, end)`` with the 1-based line and byte column of its start.

    ``line``/``column`` are redundant with ``start`` but cheap to carry and needed by nearly every
    consumer; where a span ends in lines and columns is rarely needed, so :meth:`SourceFile.end`
    computes it on demand. Columns count bytes (1-based); :class:`SourceFile` converts them to
    characters or UTF-16 code units.

    A named tuple rather than a dataclass: a big file has millions of spans, and a tuple is the
    cheapest immutable value Python can build.
    """

    start: int
    end: int
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.line}:{self.column}"


@record(slots=True)
class SourceFile:
    """The text of one input, with line offsets for position conversions."""

    path: str
    data: bytes
    # The byte offset of each line's start, as machine integers: a big file has hundreds of
    # thousands of lines, and a tuple would hold an int object for each (four times the memory).
    line_starts: array[int] = field(repr=False, hash=False)
    # Lines known to be pure ASCII, where byte, character and UTF-16 columns coincide; filled on
    # demand so that column conversions on a 100 MB line do not decode it once per finding.
    _ascii_lines: dict[int, bool] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_bytes(cls, path: str, data: bytes) -> SourceFile:
        starts = array("q", [0])
        starts.extend(newline.end() for newline in _NEWLINE.finditer(data))
        return cls(path, data, starts, {})

    @property
    def line_count(self) -> int:
        return len(self.line_starts)

    def line_bytes(self, line: int) -> bytes:
        """The bytes of 1-based ``line`` without its line terminator."""
        start = self.line_starts[line - 1]
        end = self.line_starts[line] - 1 if line < len(self.line_starts) else len(self.data)
        text = self.data[start:end]
        return text[:-1] if text.endswith(b"\r") else text

    def line_text(self, line: int) -> str:
        return self.line_bytes(line).decode("utf-8", errors="replace")

    def position(self, offset: int) -> tuple[int, int]:
        """The 1-based (line, byte column) of a byte offset."""
        index = bisect.bisect_right(self.line_starts, offset) - 1
        return index + 1, offset - self.line_starts[index] + 1

    def span(self, start: int, end: int) -> Span:
        line, column = self.position(start)
        return Span(start, end, line, column)

    def end(self, span: Span) -> tuple[int, int]:
        """The 1-based (line, byte column) just past the end of ``span``."""
        return self.position(span.end)

    def is_ascii_line(self, line: int) -> bool:
        known = self._ascii_lines.get(line)
        if known is None:
            known = self._ascii_lines[line] = self.line_bytes(line).isascii()
        return known

    def character_column(self, line: int, byte_column: int) -> int:
        """Convert a 1-based byte column to a 1-based column in Unicode characters."""
        if self.is_ascii_line(line):
            return byte_column
        prefix = self.line_bytes(line)[: byte_column - 1]
        return len(prefix.decode("utf-8", errors="replace")) + 1

    def utf16_column(self, line: int, byte_column: int) -> int:
        """Convert a 1-based byte column to a 1-based column in UTF-16 code units (SARIF)."""
        if self.is_ascii_line(line):
            return byte_column
        prefix = self.line_bytes(line)[: byte_column - 1].decode("utf-8", errors="replace")
        return len(prefix.encode("utf-16-le")) // 2 + 1
