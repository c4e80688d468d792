"""`--add-suppressions`: write a `ptxlint: ignore[...]` comment for every current finding into the
file people edit, so that a project can adopt ptxlint today and fix its findings one by one (what
ruff's `--add-noqa` does).

Where the comment goes:

- a PTX input: the finding's PTX line;
- PTX ptxlint compiled (`.cu`) or Triton left in its cache: the CUDA or Python line of the
  finding's source location, through `.loc`: the innermost frame in the `.cu` file that was
  linted, else the innermost frame in a file below the current directory (a helper inlined from
  a CUTLASS header in site-packages is suppressed at the call site in the user's kernel, which
  `source_suppressions` honours: any frame of a finding's origin counts);
- PTX extracted from a binary, or read from standard input: nowhere (there is no file to edit);
  these findings are counted and named, and the exit code says they remain.

An `ignore[...]` comment already on the line gets the new codes added to its brackets; otherwise a
trailing comment is appended (`  // ptxlint: ignore[PTX101]`, `  # ptxlint: ignore[PTX101]` in
Python). A C-like line ending in a backslash (a macro continues) gets a `/* */` comment before the
backslash; a Python line that continues (a backslash, or inside a multi-line string) is not
edited. Nothing else in the file changes: bytes, line endings and other comments stay as they
were. Running it twice adds nothing the second time. PTX002 findings (stale suppressions) are left
alone: removing codes from comments is a different job.
"""

from __future__ import annotations

import io
import os
import re
import tokenize
from dataclasses import field
from typing import Sequence

from ptxlint import suppressions
from ptxlint.diagnostics import Diagnostic, FileResult, SourceFrame
from ptxlint.records import record
from ptxlint.source_suppressions import locate

_UNUSED_SUPPRESSION = "PTX002"
_ARCHITECTURE_SUFFIX = re.compile(r"\[[^\[\]]+\]$")  # `kernel.cu[sm_100a]`, `libfoo.so[sm_90a]`


@record(frozen=False)
class Outcome:
    """What adding suppressions did."""

    added: int = 0  # codes written (a new comment or a code added to an existing one)
    files: set[str] = field(default_factory=set)  # files changed
    not_added: dict[str, int] = field(default_factory=dict)  # reason → findings left as they are
    errors: list[str] = field(default_factory=list)  # files that could not be read or written


def add(results: Sequence[FileResult]) -> Outcome:
    """Write the comments for every finding in ``results``."""
    outcome = Outcome()
    edits: dict[str, dict[int, list[str]]] = {}  # real path → line → codes, in the order met
    for result in results:
        for diagnostic in result.diagnostics:
            if diagnostic.code == _UNUSED_SUPPRESSION:
                continue
            target = _target(result, diagnostic)
            if isinstance(target, str):
                outcome.not_added[target] = outcome.not_added.get(target, 0) + 1
                continue
            codes = edits.setdefault(target[0], {}).setdefault(target[1], [])
            if diagnostic.code not in codes:
                codes.append(diagnostic.code)
    for path, lines in sorted(edits.items()):
        try:
            with open(path, "rb") as handle:
                data = handle.read()
            changed, added, refused = edit(data, lines, suppressions.syntax_for(path) is suppressions.PYTHON)
            if refused:
                reason = "the Python line continues (a backslash or a multi-line string)"
                outcome.not_added[reason] = outcome.not_added.get(reason, 0) + refused
            if added:
                with open(path, "wb") as handle:
                    handle.write(changed)
                outcome.added += added
                outcome.files.add(path)
        except OSError as error:
            outcome.errors.append(f"{path}: {error.strerror or error}")
    return outcome


def _target(result: FileResult, diagnostic: Diagnostic) -> tuple[str, int] | str:
    """The (real path, line) a finding's comment goes to, or why there is none."""
    if result.map_to_source:
        frame = _editable_frame(result, diagnostic.origin)
        if frame is None:
            if not diagnostic.origin:
                return "the PTX line has no source line (`.loc`) to put the comment on"
            return "its source lines are in files outside the current directory"
        return frame
    if result.source is None or not _is_regular_file(result.path):
        if _ARCHITECTURE_SUFFIX.search(result.path):
            return "the PTX comes from a binary, which cannot be edited (use --write-baseline or per-file-ignores)"
        return "the PTX was not read from a file (standard input)"
    return os.path.realpath(result.path), diagnostic.span.line


def _editable_frame(result: FileResult, origin: tuple[SourceFrame, ...]) -> tuple[str, int] | None:
    """The innermost frame in the linted file, else the innermost one in a file below the current
    directory that can be written."""
    ptx_path = result.source.path if result.source is not None else result.path
    frames = [(locate(frame.path, ptx_path), frame.line) for frame in origin]
    linted = os.path.realpath(_ARCHITECTURE_SUFFIX.sub("", result.path))
    for path, line in frames:
        if path == linted:
            return path, line
    here = os.path.realpath(os.getcwd())
    for path, line in frames:
        if path is not None and path.startswith(here + os.sep) and os.access(path, os.W_OK):
            return path, line
    return None


def _is_regular_file(path: str) -> bool:
    try:
        return os.path.isfile(path)
    except (OSError, ValueError):
        return False


def edit(data: bytes, lines: dict[int, list[str]], python: bool) -> tuple[bytes, int, int]:
    """``data`` with ``codes`` suppressed on each 1-based line: (new data, codes added, lines
    refused). Only the lines named change."""
    syntax = suppressions.PYTHON if python else suppressions.C_LIKE
    kept = data.splitlines(keepends=True)
    continued = _continued_python_lines(data) if python else set()
    added = refused = 0
    for number, codes in lines.items():
        if not 1 <= number <= len(kept):
            continue
        original = kept[number - 1]
        body = original.rstrip(b"\r\n")
        ending = original[len(body) :]
        new_body, count = _suppress(body, codes, syntax, python, number in continued, ending or b"\n")
        if new_body is None:
            refused += 1
            continue
        kept[number - 1] = new_body + ending
        added += count
    return b"".join(kept), added, refused


def _suppress(
    body: bytes, codes: list[str], syntax: re.Pattern[bytes], python: bool, continued: bool, newline: bytes
) -> tuple[bytes | None, int]:
    """One line with ``codes`` suppressed: (new line, codes added), or (None, 0) when it cannot be."""
    match = suppressions.find(body, syntax, strings=True)
    if match is not None and match.group("kind") == b"ignore":
        if match.group("codes") is None:
            return body, 0  # a bare `ignore` covers every rule already
        present = {suppressions.resolve_code(item.decode("utf-8", "replace")) for item in re.findall(rb"[^,\s]+", match.group("codes"))}
        missing = [code for code in codes if code not in present]
        if not missing:
            return body, 0
        inner = match.group("codes").rstrip()
        joined = (inner + b", " if inner.strip() else b"") + ", ".join(missing).encode()
        return body[: match.start("codes")] + joined + body[match.end("codes") :], len(missing)
    listed = ", ".join(codes).encode()
    if python:
        if continued or body.rstrip().endswith(b"\\"):
            return None, 0
        return body.rstrip() + b"  # ptxlint: ignore[" + listed + b"]", len(codes)
    stripped = body.rstrip()
    if stripped.endswith(b"\\"):  # a macro continues: a line comment would swallow the backslash
        return stripped[:-1].rstrip() + b" /* ptxlint: ignore[" + listed + b"] */ \\", len(codes)
    if match is not None:
        # A `file-ignore` comment opens the line's first suppression: a second comment after it
        # would not be read, so this one goes alone on a line of its own above.
        indent = body[: len(body) - len(body.lstrip())]
        return indent + b"// ptxlint: ignore[" + listed + b"]" + newline + body, len(codes)
    return stripped + b"  // ptxlint: ignore[" + listed + b"]", len(codes)


def _continued_python_lines(data: bytes) -> set[int]:
    """Lines whose end lies inside a string that spans lines (a comment there would be text)."""
    inside: set[int] = set()
    try:
        for token in tokenize.tokenize(io.BytesIO(data).readline):
            if token.start[0] != token.end[0] and token.type in (tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", -1)):
                inside.update(range(token.start[0], token.end[0]))
    except (tokenize.TokenError, SyntaxError, UnicodeDecodeError):
        pass  # what could be read is enough; a broken file is the compiler's to report
    return inside
