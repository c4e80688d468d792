"""Suppression comments in the CUDA C++ or Python source that a module's `.loc` lines name.

People who write CUDA C++ or Triton never see the PTX, so they suppress where they write code:

    __syncthreads();  // ptxlint: ignore[PTX102]         (this line)
    // ptxlint: ignore[PTX102]                          (alone on a line: also the next line)
    /* ptxlint: ignore[PTX102] */ __syncthreads();      (a block comment, before the code)
    x = tl.load(p)  # ptxlint: ignore[PTX101]           (Python, in Triton kernels)
    // ptxlint: file-ignore[PTX301]                     (every finding from this file)

The comments are read from the files the module's `.file` directives name, when those exist and
can be read as regular files (a relative path is looked up from the current directory, then
beside the PTX file). A finding is suppressed when **any frame of its source location** carries
(or follows) such a comment: the line it is shown at, or a call site its code was inlined at.
The second matters for helpers inlined from headers people cannot edit (CUTLASS, CCCL): the
comment goes on the line of the kernel that calls them. `file-ignore` covers every finding one
of whose frames lies in that file.

Whether a source comment suppressed nothing cannot be decided one module at a time: a `.cu`
file compiled for two architectures, or a header included by several inputs, gives one comment
to several modules, and it may hide a finding in only one of them (code under
`#if __CUDA_ARCH__`, an instruction one target lacks). Each module therefore records, per
comment entry, what it saw (:class:`Use`), and :func:`unused_findings` reports PTX002 only for
entries that no module used and that at least one module compiled: an entry on a line no
instruction came from (code the preprocessor removed, a template never instantiated) is left
alone rather than called stale.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import stat
from typing import Iterable, Sequence

from ptxlint import suppressions
from ptxlint.diagnostics import Diagnostic, FileResult, SourceFrame
from ptxlint.ir import Module, SourceLocation
from ptxlint.records import record
from ptxlint.source import SourceFile, Span
from ptxlint.suppressions import Suppression

MAX_SOURCE_BYTES = 64 * 1024 * 1024  # a source file larger than this is not searched for comments

# What one module saw of one entry, strongest first: a single module that used an entry (or may
# have: its analysis stopped early) keeps it from being reported anywhere.
USED, UNUSED, DISABLED, UNKNOWN = "used", "unused", "disabled", "unknown"
_STRENGTH = {USED: 0, UNUSED: 1, DISABLED: 2, UNKNOWN: 3}


@record(slots=True)
class SourceComments:
    """The suppression comments of one source file a module's `.file` directive names."""

    path: str  # as the `.file` directive writes it, which is what origin frames carry
    resolved: str  # the real path: one file named differently by two modules is one file
    source: SourceFile
    comments: tuple[Suppression, ...]


@record(slots=True)
class Use:
    """What one module saw of one entry of a source suppression comment (an entry the module
    compiled no code for is not recorded). ``finding`` is the PTX002 finding to report if no
    module used the entry, or None where this module may not report it (PTX002 is not enabled
    for it, or a `file-ignore[PTX002]` silences it)."""

    key: tuple[str, int, int]  # real path, byte offset of the comment, entry index (-1: a bare `ignore`)
    status: str  # USED, UNUSED, DISABLED, UNKNOWN
    finding: Diagnostic | None = None


def read(module: Module, ptx_path: str) -> list[SourceComments]:
    """The source files of ``module`` that carry suppression comments, with those comments."""
    found: list[SourceComments] = []
    seen: set[str] = set()
    for _, path in sorted(module.files.items()):
        if path in seen:
            continue
        seen.add(path)
        resolved = locate(path, ptx_path)
        if resolved is None:
            continue
        parsed = _comments_of(resolved, *_identity(resolved))
        if parsed is not None:
            source, comments = parsed
            found.append(SourceComments(path, resolved, source, comments))
    return found


def locate(path: str, ptx_path: str) -> str | None:
    """The real path of the regular file a `.file` directive names, or None. A relative name is
    looked up where the compiler most likely ran (the current directory), then beside the PTX."""
    candidates = [path]
    if not os.path.isabs(path) and ptx_path not in ("", "-", "<stdin>"):
        candidates.append(os.path.join(os.path.dirname(ptx_path), path))
    for candidate in candidates:
        try:
            if stat.S_ISREG(os.stat(candidate).st_mode):
                return os.path.realpath(candidate)
        except (OSError, ValueError):  # missing, unreadable directory, a NUL in the name
            continue
    return None


def _identity(path: str) -> tuple[int, int]:
    try:
        status = os.stat(path)
    except OSError:
        return (0, -1)
    return (status.st_mtime_ns, status.st_size)


@functools.lru_cache(maxsize=512)
def _comments_of(path: str, mtime_ns: int, size: int) -> tuple[SourceFile, tuple[Suppression, ...]] | None:
    """The text and suppression comments of a source file (None: none, or not readable). Cached
    by modification time and size: one header is named by every module that includes it."""
    if size < 0 or size > MAX_SOURCE_BYTES:
        return None
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_SOURCE_BYTES + 1)
    except OSError:
        return None
    if b"ptxlint:" not in data:
        return None
    source = SourceFile.from_bytes(path, data)
    comments = tuple(suppressions.parse(source, suppressions.syntax_for(path), strings=True))
    return (source, comments) if comments else None


@record(frozen=False)
class Outcome:
    """What suppression comments left of a file's findings, and which comments were used."""

    kept: list[Diagnostic]
    suppressed: int
    used: set[tuple[int, int, int]]  # (file position in the list, comment index, entry index or -1)


def apply(diagnostics: Iterable[Diagnostic], files: Sequence[SourceComments]) -> Outcome:
    """Hide the findings a source comment covers through any frame of their origin."""
    outcome = Outcome([], 0, set())
    by_path = {comments.path: position for position, comments in enumerate(files)}
    for diagnostic in diagnostics:
        users = _covering(diagnostic, files, by_path)
        if not users:
            outcome.kept.append(diagnostic)
            continue
        outcome.suppressed += 1
        outcome.used.update(users)
    return outcome


def _covering(
    diagnostic: Diagnostic, files: Sequence[SourceComments], by_path: dict[str, int]
) -> set[tuple[int, int, int]]:
    users: set[tuple[int, int, int]] = set()
    for frame in diagnostic.origin:
        position = by_path.get(frame.path)
        if position is None:
            continue
        for index, comment in enumerate(files[position].comments):
            if not comment.whole_file and frame.line not in comment.lines:
                continue
            if not comment.codes:
                users.add((position, index, -1))
            for entry_index, entry in enumerate(comment.codes):
                if entry.code == diagnostic.code:
                    users.add((position, index, entry_index))
    return users


def uses(
    module: Module,
    files: Sequence[SourceComments],
    used: set[tuple[int, int, int]],
    enabled: frozenset[str],
    report: bool,
    may_have_been_used: bool,
    silenced: Sequence[Suppression] = (),
) -> list[Use]:
    """What this module saw of every comment entry it compiled code for. ``report``: PTX002 is
    enabled here; ``may_have_been_used``: a rule did not finish, so any entry might have hidden
    one of its findings; ``silenced``: the PTX file's `file-ignore` comments."""
    from ptxlint.rules import ptx002_unused_suppression as unused_suppression

    if not files:
        return []
    anchors = _anchors(module, files)
    found: list[Use] = []
    for position, comments in enumerate(files):
        for index, comment in enumerate(comments.comments):
            if comment.whole_file:
                anchor = anchors.get((comments.path, 0))
            else:
                anchor = next((anchors[(comments.path, line)] for line in comment.lines if (comments.path, line) in anchors), None)
            if anchor is None:
                continue  # no instruction came from here: nothing to say
            entries = [(-1, None)] if not comment.codes else list(enumerate(comment.codes))
            for entry_index, entry in entries:
                key = (comments.resolved, comment.span.start, entry_index)
                if may_have_been_used or (position, index, entry_index) in used:
                    found.append(Use(key, USED))
                    continue
                if entry is None:
                    status, span = UNUSED, comment.span
                elif entry.code is None:
                    status, span = UNKNOWN, entry.span
                elif entry.code not in enabled:
                    status, span = DISABLED, entry.span
                else:
                    status, span = UNUSED, entry.span
                finding = None
                if report:
                    frame = SourceFrame(comments.path, span.line, comments.source.character_column(span.line, span.column))
                    finding = dataclasses.replace(unused_suppression.unused(anchor, entry, enabled), origin=(frame,))
                    if _silenced(finding, files, silenced):
                        finding = None
                found.append(Use(key, status, finding))
    return found


def _silenced(finding: Diagnostic, files: Sequence[SourceComments], ptx_file_wide: Sequence[Suppression]) -> bool:
    """Only `file-ignore[PTX002]`, in the PTX or in the source file, silences PTX002."""
    if any(comment.covers(finding) for comment in ptx_file_wide):
        return True
    frame = finding.origin[0]
    return any(
        comment.whole_file and (not comment.codes or any(entry.code == finding.code for entry in comment.codes))
        for comments in files
        if comments.path == frame.path
        for comment in comments.comments
    )


def _anchors(module: Module, files: Sequence[SourceComments]) -> dict[tuple[str, int], Span]:
    """The first instruction (in the PTX) that came from each (source file, line) of interest,
    through any frame of its `.loc`; ``(path, 0)``: the first from anywhere in the file."""
    wanted_paths = {comments.path for comments in files}
    indices = {index: path for index, path in module.files.items() if path in wanted_paths}
    wanted_lines = {
        (comments.path, line) for comments in files for comment in comments.comments for line in comment.lines
    }
    anchors: dict[tuple[str, int], Span] = {}
    seen: set[int] = set()  # locations are shared between instructions: walk each chain once
    for function in sorted(module.functions, key=lambda function: function.span.start):
        for instruction in function.instructions:
            location: SourceLocation | None = instruction.location
            if location is None or id(location) in seen:
                continue
            seen.add(id(location))
            depth = 0
            while location is not None and depth < 64:
                path = indices.get(location.file)
                if path is not None:
                    anchors.setdefault((path, 0), instruction.span)
                    if (path, location.line) in wanted_lines:
                        anchors.setdefault((path, location.line), instruction.span)
                location = location.inlined_at
                depth += 1
    return anchors


def unused_findings(results: Sequence[FileResult]) -> list[FileResult]:
    """``results`` with a PTX002 finding for every source comment entry that no module used and
    some module compiled code for, added to the first result that may report it."""
    if not any(result.source_suppressions for result in results):
        return list(results)
    best: dict[tuple[str, int, int], str] = {}
    for result in results:
        for use in result.source_suppressions:
            current = best.get(use.key)
            if current is None or _STRENGTH[use.status] < _STRENGTH[current]:
                best[use.key] = use.status
    added: dict[int, list[Diagnostic]] = {}
    reported: set[tuple[str, int, int]] = set()
    for position, result in enumerate(results):
        for use in result.source_suppressions:
            if best[use.key] == USED or use.key in reported or use.status != best[use.key] or use.finding is None:
                continue
            reported.add(use.key)
            added.setdefault(position, []).append(use.finding)
    return [
        dataclasses.replace(
            result, diagnostics=tuple(sorted(result.diagnostics + tuple(added[position]), key=Diagnostic.sort_key))
        )
        if position in added
        else result
        for position, result in enumerate(results)
    ]
