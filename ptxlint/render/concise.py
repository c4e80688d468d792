"""One line per finding: `path:line:col: severity: CODE message`, the shape of gcc's diagnostics, which
editors' problem matchers already read (VS Code's `$gcc`, Vim's default `errorformat`)."""

from __future__ import annotations

from typing import TextIO

from ptxlint.render import Report, notice
from ptxlint.render.locations import origin_text, primary_location, primary_message
from ptxlint.render.names import readable
from ptxlint.render.text import printable


def render(report: Report, stream: TextIO) -> None:
    for result in report.results:
        for diagnostic in result.diagnostics:
            location = primary_location(diagnostic, result, report.maps_to_source(result))
            position = f"{location.line}:{location.column}" if location.known_column else f"{location.line}"
            line = (
                f"{printable(location.path)}:{position}: {diagnostic.severity.value}: {diagnostic.code} "
                f"{printable(readable(primary_message(diagnostic, report.maps_to_source(result))))}"
            )
            if diagnostic.origin and not report.maps_to_source(result):
                line += f" [{printable(origin_text(diagnostic.origin))}]"
            stream.write(line + "\n")
        if result.error is not None:
            stream.write(f"{printable(result.path)}: error: {printable(result.error)}\n")
        if notice(result) is not None:
            stream.write(f"{printable(result.path)}: warning: {printable(notice(result) or '')}\n")
