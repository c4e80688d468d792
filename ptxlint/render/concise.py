"""One line per finding: `path:line:col: CODE message` (the format editors' problem matchers read)."""

from __future__ import annotations

from typing import Iterable, TextIO

from ptxlint.diagnostics import FileResult
from ptxlint.render.text import printable


def render(results: Iterable[FileResult], stream: TextIO) -> None:
    for result in results:
        if result.error is not None:
            stream.write(f"{printable(result.path)}: error: {printable(result.error)}\n")
            continue
        assert result.source is not None
        for diagnostic in result.diagnostics:
            column = result.source.character_column(diagnostic.span.line, diagnostic.span.column)
            stream.write(
                f"{printable(result.path)}:{diagnostic.span.line}:{column}: "
                f"{diagnostic.code} {printable(diagnostic.message)}\n"
            )
