"""`--statistics`: how often each rule fired, most frequent first (ties by code)."""

from __future__ import annotations

from collections import Counter
from typing import TextIO

from ptxlint.render import Report


def render(report: Report, stream: TextIO) -> None:
    counts: Counter[tuple[str, str]] = Counter(
        (diagnostic.code, diagnostic.name) for result in report.results for diagnostic in result.diagnostics
    )
    if not counts:
        return
    width = len(str(max(counts.values())))
    for (code, name), count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        stream.write(f"{count:>{width}}  {code}  {name}\n")
