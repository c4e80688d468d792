"""Whether a kernel in Triton's cache still matches the Python file its `.loc` lines name.

Triton keys its cache by the kernel's source, but never looks an entry up again once the source
has changed: the old entry stays, and its line numbers point wherever those lines used to be.
Triton records neither the file's contents nor its modification time, so two signs are read:

- `<kernel>.source` (the kernel's TTIR, kept beside the PTX) starts with
  `#loc = loc("file.py":LINE:COL)`, the line of the kernel's `def`. If that line of the file no
  longer defines the kernel, its lines have moved: certain, from contents alone.
- Otherwise, a file modified after the entry's PTX was written may have moved lines.

Either one earns a warning; the findings are reported as they are (the analysis is of the PTX,
which did not change).
"""

from __future__ import annotations

import os
import re

_DEF_LOCATION = re.compile(rb'^#loc\s*=\s*loc\("(?P<file>[^"]+)":(?P<line>\d+):\d+\)', re.M)
_FILE_DIRECTIVE = re.compile(rb'^\s*\.file\s+\d+\s+"(?P<file>[^"]+\.py)"', re.M)


def stale_source_warning(ptx_path: str) -> str | None:
    """A warning when the Python source of a Triton cache entry changed since it was compiled,
    else None (also when the source cannot be found: there is nothing to compare)."""
    folder, name = os.path.split(ptx_path)
    kernel = os.path.splitext(name)[0]
    python_file, def_line = _recorded_definition(os.path.join(folder, f"{kernel}.source"))
    if python_file is None:
        python_file = _named_python_file(ptx_path)
    if python_file is None or not os.path.isfile(python_file):
        return None
    if def_line is not None and not _defines(python_file, def_line, kernel):
        return (
            f"{python_file} no longer defines `{kernel}` at line {def_line}, where Triton compiled it: "
            "this cache entry is stale and the source lines of its findings have moved"
        )
    try:
        changed = os.path.getmtime(python_file) > os.path.getmtime(ptx_path)
    except OSError:
        return None
    if changed:
        return (
            f"{python_file} changed after Triton compiled `{kernel}` into this cache entry: "
            "the source lines of its findings may have moved"
        )
    return None


def _recorded_definition(source_path: str) -> tuple[str | None, int | None]:
    try:
        with open(source_path, "rb") as handle:
            head = handle.read(4096)
    except OSError:
        return None, None
    match = _DEF_LOCATION.search(head)
    if match is None:
        return None, None
    return os.fsdecode(match.group("file")), int(match.group("line"))


def _named_python_file(ptx_path: str) -> str | None:
    try:
        with open(ptx_path, "rb") as handle:
            text = handle.read()
    except OSError:
        return None
    match = _FILE_DIRECTIVE.search(text)
    return os.fsdecode(match.group("file")) if match else None


def _defines(python_file: str, line: int, kernel: str) -> bool:
    """Whether line ``line`` of ``python_file`` is `def kernel(` (Triton's location of a kernel)."""
    try:
        with open(python_file, "rb") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return True  # unreadable now: say nothing rather than guess
    if not 1 <= line <= len(lines):
        return False
    return re.match(rb"\s*(async\s+)?def\s+" + re.escape(kernel.encode()) + rb"\b", lines[line - 1]) is not None
