"""Text helpers shared by the human-readable renderers."""

from __future__ import annotations

import re

# C0 controls (except tab), DEL and C1 controls: anything a terminal could interpret. File names
# and PTX text come from users; printing them raw would let an input rewrite the terminal.
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """Replace control characters by a visible escape (`\\x1b`), keeping tabs."""
    return _CONTROL.sub(lambda match: f"\\x{ord(match.group()):02x}", text)


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"
