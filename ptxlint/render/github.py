"""GitHub Actions workflow commands: each finding becomes an annotation on the pull request.

    ::error file=kernel.ptx,line=7,col=2,endLine=7,endColumn=21,title=PTX001 syntax-error::message

The runner splits on `::` and `,`, so values are escaped as the runner unescapes them: `%`, CR and
LF everywhere, and `:` and `,` in properties too.
"""

from __future__ import annotations

import re
from typing import TextIO

from ptxlint.diagnostics import Severity
from ptxlint.render import Report, notice
from ptxlint.render.names import readable
from ptxlint.render.locations import origin_text, primary_location, primary_message

_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "notice"}


# Controls other than tab, CR and LF: the runner would copy them into its log, where a terminal
# escape from a file name or PTX text could rewrite what a reader sees. Shown as `\x1b` instead.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def escape_data(text: str) -> str:
    text = _CONTROL.sub(lambda match: f"\\x{ord(match.group()):02x}", text)
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(report: Report, stream: TextIO) -> None:
    for result in report.results:
        for diagnostic in result.diagnostics:
            location = primary_location(diagnostic, result, report.maps_to_source(result))
            properties = {"file": location.path, "line": str(location.line)}
            if location.known_column:
                properties["col"] = str(location.column)
                if (location.end_line, location.end_column) != (location.line, location.column):
                    properties["endLine"] = str(location.end_line)
                    properties["endColumn"] = str(location.end_column)
            properties["title"] = f"{diagnostic.code} {diagnostic.name}"
            message = readable(primary_message(diagnostic, report.maps_to_source(result)))
            if diagnostic.origin and not report.maps_to_source(result):
                message += f" (from {origin_text(diagnostic.origin)})"
            if diagnostic.help:  # a second line of the annotation, as rustc and ruff print it
                message += f"\nhelp: {readable(diagnostic.help)}"
            fields = ",".join(f"{key}={escape_property(value)}" for key, value in properties.items())
            stream.write(f"::{_COMMAND[diagnostic.severity]} {fields}::{escape_data(message)}\n")
        if result.error is not None:
            stream.write(f"::error file={escape_property(result.path)},title=ptxlint::{escape_data(result.error)}\n")
        if notice(result) is not None:
            stream.write(f"::warning file={escape_property(result.path)},title=ptxlint::{escape_data(notice(result) or '')}\n")
