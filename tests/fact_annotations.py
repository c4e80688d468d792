"""Facts asserted inline in fixtures: `// uniformity: warp executes: cta`, `// roles: 4-7`.

A fact annotation sits in the comment of the line it concerns, possibly after an `// expect:`;
each fact test names its pattern and reads the match it needs.
"""

from __future__ import annotations

import re
from pathlib import Path


def annotated_lines(text: str, pattern: re.Pattern[str]) -> dict[int, re.Match[str]]:
    """Line number → the pattern's match in that line's comment, for every line that has one."""
    found = {}
    for number, line in enumerate(text.splitlines(), start=1):
        match = pattern.search(line.partition("//")[2])
        if match:
            found[number] = match
    return found


def annotated_fixtures(paths: list[Path], pattern: re.Pattern[str]) -> list[Path]:
    return [path for path in paths if annotated_lines(path.read_text(), pattern)]
