"""GitHub code scanning's `primaryLocationLineHash`, computed as its upload action computes it, so
alerts keep their identity across pushes whether or not the action recomputes the value.

For every line: a polynomial rolling hash (base 37, wrapping at 64 bits) over the next 100
characters of the file counted from the line's first character, skipping spaces and tabs, with
CR and CRLF read as LF and one end-of-file marker followed by zero padding. Characters are UTF-16
code units (the action hashes JavaScript strings). The value is the unsigned hash in lowercase hex
with `:N` appended, N counting how often the same hash occurred on earlier lines.
"""

from __future__ import annotations

_WINDOW = 100
_BASE = 37
_MASK = (1 << 64) - 1
_END_OF_FILE = 0xFFFF
_SPACE, _TAB, _LF, _CR = 0x20, 0x09, 0x0A, 0x0D
_DROPPED_BASE = pow(_BASE, _WINDOW, 1 << 64)  # the weight of the character leaving the window


def line_hashes(text: str) -> dict[int, str]:
    """The hash of every 1-based line of ``text``."""
    return _Hasher().run(_code_units(text))


def _code_units(text: str) -> list[int]:
    data = text.encode("utf-16-le", errors="surrogatepass")
    return [data[i] | (data[i + 1] << 8) for i in range(0, len(data), 2)]


class _Hasher:
    def __init__(self) -> None:
        self.window = [0] * _WINDOW
        self.line_at = [-1] * _WINDOW  # the line starting at each window slot, or -1
        self.index = 0
        self.value = 0
        self.line = 0
        self.at_line_start = True
        self.after_cr = False
        self.seen: dict[str, int] = {}
        self.hashes: dict[int, str] = {}

    def run(self, units: list[int]) -> dict[int, str]:
        for unit in units:
            self.take(unit)
        self.take(_END_OF_FILE)
        for _ in range(_WINDOW):  # flush the lines whose window reaches past the end
            if self.line_at[self.index] != -1:
                self.emit()
            self.roll(0)
        return self.hashes

    def take(self, unit: int) -> None:
        if unit in (_SPACE, _TAB) or (self.after_cr and unit == _LF):
            self.after_cr = False
            return
        self.after_cr = unit == _CR
        if unit == _CR:
            unit = _LF
        if self.line_at[self.index] != -1:
            self.emit()  # the slot's line has seen its whole window
        if self.at_line_start:
            self.at_line_start = False
            self.line += 1
            self.line_at[self.index] = self.line
        if unit == _LF:
            self.at_line_start = True
        self.roll(unit)

    def roll(self, unit: int) -> None:
        leaving = self.window[self.index]
        self.window[self.index] = unit
        self.value = (_BASE * self.value + unit - _DROPPED_BASE * leaving) & _MASK
        self.index = (self.index + 1) % _WINDOW

    def emit(self) -> None:
        digest = format(self.value, "x")
        self.seen[digest] = self.seen.get(digest, 0) + 1
        self.hashes[self.line_at[self.index]] = f"{digest}:{self.seen[digest]}"
        self.line_at[self.index] = -1
