"""Findings that repeat one origin, shown once.

A template instantiated for many kernels, or a loop the compiler unrolled, puts the same bug at
many PTX lines. When several findings of one rule in one file come from the same CUDA/Triton
line (`.loc`), or, without line information, say the same thing up to register names and
numbers, the terminal shows the first with "and N more like it in M kernels" (`--no-group` shows
every one). SARIF mapped to the source keeps one result per source line and rule, the PTX
instructions as related locations. JSON and the one-line formats editors read keep every finding.
"""

from __future__ import annotations

import bisect
import re

from ptxlint.diagnostics import Diagnostic
from ptxlint.records import record
from ptxlint.source import SourceFile

# What varies between copies of one pattern: registers, labels, numbers.
_VARYING = re.compile(r"%[A-Za-z_$][\w$]*|\$L\w+|\b\d+\b")
_FUNCTION_START = re.compile(rb"^[ \t]*(?:\.(?:visible|weak|extern)[ \t]+)*\.(?:entry|func)\b", re.MULTILINE)


@record
class Group:
    first: Diagnostic
    others: tuple[Diagnostic, ...]
    kernels: int  # the functions the whole group lies in


def group(diagnostics: tuple[Diagnostic, ...] | list[Diagnostic], source: SourceFile, by_shown_line: bool = False) -> list[Group]:
    """The findings in their order, those that repeat an earlier one's origin folded into it: the
    line they were written on, or with ``by_shown_line`` the line they are shown at (a helper's
    finding inlined at two calls stays two, for SARIF, which has one result per shown line)."""
    members: dict[tuple, list[Diagnostic]] = {}
    for diagnostic in diagnostics:
        members.setdefault(_key(diagnostic, by_shown_line), []).append(diagnostic)
    starts = _function_start_lines(source)
    groups = []
    for found in members.values():
        kernels = len({bisect.bisect_right(starts, diagnostic.span.line) for diagnostic in found})
        groups.append(Group(found[0], tuple(found[1:]), kernels))
    return groups


def _key(diagnostic: Diagnostic, by_shown_line: bool = False) -> tuple:
    if diagnostic.origin:
        frame = diagnostic.source_frame if by_shown_line else diagnostic.origin[0]
        assert frame is not None
        return (diagnostic.code, "source", frame.path, frame.line, frame.column)
    return (diagnostic.code, "pattern", _VARYING.sub("#", diagnostic.message))


def _function_start_lines(source: SourceFile) -> list[int]:
    data = source.data
    return [data.count(b"\n", 0, match.start()) + 1 for match in _FUNCTION_START.finditer(data)]
