"""The closing line of the terminal format, as styled segments.

The full renderer draws them with rich beside the findings; a run with nothing else to show (the
common case of a pre-commit hook) writes them itself, so that it never loads rich, which costs a
clean run about a fifth of its time.
"""

from __future__ import annotations

import os
from typing import TextIO

from ptxlint.diagnostics import Severity
from ptxlint.render import Report, notice, unfinished_rules
from ptxlint.render.text import plural

Segment = tuple[str, "str | None"]  # text, and a rich style name or None
# The styles the closing line uses, as the ANSI codes rich writes for them (standard colours).
_ANSI = {"bold": "1", "bold green": "1;32", "bold red": "1;31", "bold yellow": "1;33"}


def use_color(stream: TextIO, color: str) -> bool:
    """`--color` (always, never, auto), then `NO_COLOR`/`FORCE_COLOR`, then whether it is a TTY."""
    if color == "auto":
        if os.environ.get("NO_COLOR"):
            return False
        if os.environ.get("FORCE_COLOR"):
            return True
        try:
            return stream.isatty()
        except (AttributeError, ValueError):
            return False
    return color == "always"


def only_a_summary(report: Report) -> bool:
    """Whether the terminal format has nothing to print but the closing line."""
    return not any(result.diagnostics or result.error is not None or notice(result) is not None for result in report.results)


def write(report: Report, stream: TextIO, coloured: bool) -> None:
    """The closing line of a report with nothing else to show, without rich."""
    parts = []
    for text, style in segments(report):
        parts.append(f"\x1b[{_ANSI[style]}m{text}\x1b[0m" if coloured and style else text)
    stream.write("".join(parts) + "\n")


def segments(report: Report, folded: int = 0) -> list[Segment]:
    """The closing line; ``folded``: findings printed as repeats of an earlier one."""
    results = report.results
    counts = {severity: 0 for severity in Severity}
    for result in results:
        for diagnostic in result.diagnostics:
            counts[diagnostic.severity] += 1
    unreadable = sum(1 for result in results if result.source is None)
    partial = sum(1 for result in results if notice(result) is not None)
    parts = [plural(counts[severity], severity.value) for severity in Severity if counts[severity]]
    line: list[Segment] = []
    checked = plural(len(results) - unreadable, "file")
    if parts:
        line.append(("Found " + ", ".join(parts), "bold"))
        line.append((f" in {checked} checked", None))
    elif unreadable or partial:
        # "All checks passed" would be false: the files that failed were not checked at all, and
        # on a partly analysed file some rules did not finish.
        line.append(("No findings", "bold"))
        line.append((f" in {checked} checked", None))
    else:
        line.append(("All checks passed", "bold green"))
        line.append((f" in {checked} checked", None))
    if unreadable:
        line.append((f", {plural(unreadable, 'file')} could not be linted", "bold red"))
    if partial:
        codes = ", ".join(unfinished_rules(results))
        line.append((f", {plural(partial, 'file')} partially analysed ({codes} did not finish)", "bold yellow"))
    hidden = [
        f"{count} {what}"
        for count, what in (
            (sum(result.suppressed for result in results), "suppressed"),
            (sum(result.baselined for result in results), "in the baseline"),
        )
        if count
    ]
    if folded:
        hidden.append(f"{folded} shown as repeats")
    if hidden:
        line.append((f" ({', '.join(hidden)})", None))
    if report.elapsed is not None:
        line.append((f" in {report.elapsed:.2f}s", None))
    line.append((".", None))
    return line
