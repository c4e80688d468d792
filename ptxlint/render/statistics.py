"""`--statistics`: how often each rule fired, most frequent first (ties by code)."""

from __future__ import annotations

from collections import Counter
from typing import TextIO

from ptxlint.render import Report


def _counts(report: Report) -> list[tuple[tuple[str, str], int]]:
    counts: Counter[tuple[str, str]] = Counter(
        (diagnostic.code, diagnostic.name) for result in report.results for diagnostic in result.diagnostics
    )
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def render_json(report: Report, stream: TextIO) -> None:
    """`--statistics --output-format json`: `[{"code", "name", "count"}]`, in the same order."""
    import json

    listing = [{"code": code, "name": name, "count": count} for (code, name), count in _counts(report)]
    stream.write(json.dumps(listing, indent=2) + "\n")


def render(report: Report, stream: TextIO) -> None:
    counts = dict(_counts(report))
    if not counts:
        return
    width = len(str(max(counts.values())))
    for (code, name), count in counts.items():
        stream.write(f"{count:>{width}}  {code}  {name}\n")
