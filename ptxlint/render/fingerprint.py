"""GitHub code scanning's `primaryLocationLineHash`, computed as its upload action computes it, so
alerts keep their identity across pushes whether or not the action recomputes the value.

For every line: a polynomial rolling hash (base 37, wrapping at 64 bits) over the next 100
characters of the file counted from the line's first character, skipping spaces and tabs, with
CR and CRLF read as LF and one end-of-file marker followed by zero padding. Characters are UTF-16
code units (the action hashes JavaScript strings). The value is the unsigned hash in lowercase hex
with `:N` appended, N counting how often the same hash occurred on earlier lines.
"""

from __future__ import annotations

from array import array

_WINDOW = 100
_BASE = 37
_MASK = (1 << 64) - 1
_END_OF_FILE = 0xFFFF
_LF = 0x0A
_DROPPED_BASE = pow(_BASE, _WINDOW, 1 << 64)  # the weight of the character leaving the window


def line_hashes(text: str) -> dict[int, str]:
    """The hash of every 1-based line of ``text``.

    Not by rolling a window character by character: the normalisation (dropping blanks, CR and
    CRLF to LF) is done by string methods, then each line's window is hashed either directly
    (long lines: 100 multiply-adds per line, whatever its length) or from prefix hashes (short
    lines: the hash of the 100 units from p is ``H[p + 100] - H[p] * 37**100`` mod 2**64, where
    ``H[i]`` hashes the first i units; one multiply-add per character). Either way the cost is
    at most one multiply-add per character.
    """
    normalized = text.replace("\r\n", "\n").replace("\r", "\n").replace(" ", "").replace("\t", "")
    units = array("H")
    units.frombytes(normalized.encode("utf-16-le", errors="surrogatepass"))
    count = len(units)
    if count == len(normalized):  # no surrogate pairs: string indices are code unit indices
        starts = [0]
        position = normalized.find("\n")
        while position != -1:
            starts.append(position + 1)
            position = normalized.find("\n", position + 1)
    else:
        starts = [0] + [index + 1 for index, unit in enumerate(units) if unit == _LF]
    units.append(_END_OF_FILE)
    units.extend([0] * _WINDOW)
    base, mask = _BASE, _MASK
    window: dict[int, int] = {}  # line start → hash of the 100 units from there
    if count > _WINDOW * len(starts):  # long lines: hashing each window directly is cheaper
        for start in starts:
            value = 0
            for unit in units[start : start + _WINDOW]:
                value = (value * base + unit) & mask
            window[start] = value
    else:
        prefix: dict[int, int] = {}
        value = done = 0
        for point in sorted({point for start in starts for point in (start, start + _WINDOW)}):
            for unit in units[done:point]:
                value = (value * base + unit) & mask
            prefix[point] = value
            done = point
        for start in starts:
            window[start] = (prefix[start + _WINDOW] - prefix[start] * _DROPPED_BASE) & mask
    seen: dict[str, int] = {}
    hashes: dict[int, str] = {}
    for line, start in enumerate(starts, start=1):
        digest = format(window[start], "x")
        seen[digest] = seen.get(digest, 0) + 1
        hashes[line] = f"{digest}:{seen[digest]}"
    return hashes
