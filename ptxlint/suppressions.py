"""Suppression comments: how a user says "I know, leave this line alone".

    mov.u32 %r1 %tid.x;   // ptxlint: ignore[PTX001]
    // ptxlint: ignore[PTX101, PTX102]      (alone on its line: covers the next line too)
    // ptxlint: ignore                      (every rule)
    // ptxlint: file-ignore[PTX101]         (the whole file)

A comment trailing code covers its own line; a comment alone on its line covers its own line and
the next one, so it can sit above the instruction it excuses. Codes and rule names are both
accepted. The driver records which suppressions were used, so that PTX002 can report the rest:
a stale suppression would otherwise silently hide the next real bug on that line.

The same comments are read in the CUDA C++ and Python sources that `.loc` lines name
(`ptxlint/source_suppressions.py`): ``//`` and ``/* */`` in PTX and C-like files, ``#`` in
Python (:func:`syntax_for`).
"""

from __future__ import annotations

import re
from dataclasses import field
from typing import Iterable

from ptxlint.diagnostics import Diagnostic
from ptxlint.records import record
from ptxlint.rules import RULES_BY_CODE, RULES_BY_NAME
from ptxlint.source import SourceFile, Span

_BODY = rb"[ \t]*ptxlint:[ \t]*(?P<kind>file-ignore|ignore)\b(?:[ \t]*\[(?P<codes>[^\]\n]*)\])?"
# Comment syntaxes: PTX and CUDA C++ (`//`, `/* */`), Python (`#`).
C_LIKE = re.compile(rb"(?P<open>//|/\*)" + _BODY)
PYTHON = re.compile(rb"(?P<open>#)" + _BODY)
_COMMENT = C_LIKE
_ITEM = re.compile(rb"[^,\s]+")


@record(slots=True)
class SuppressedCode:
    """One entry inside the brackets, as written, with the rule code it names (None: unknown)."""

    written: str
    code: str | None
    span: Span


@record(slots=True)
class Suppression:
    """A ``// ptxlint: ignore[...]`` comment: the lines and codes it covers."""

    span: Span  # the whole comment
    whole_file: bool
    lines: tuple[int, ...]  # the lines covered (empty for file-wide suppressions)
    codes: tuple[SuppressedCode, ...]  # empty: every rule

    def covers(self, diagnostic: Diagnostic) -> bool:
        if not self.whole_file and diagnostic.span.line not in self.lines:
            return False
        return not self.codes or any(entry.code == diagnostic.code for entry in self.codes)


@record(frozen=False)
class Outcome:
    """What applying the suppressions of one file did."""

    kept: list[Diagnostic]
    suppressed: int
    # (suppression index, code) pairs that hid something; code None for a bare `ignore`
    used: set[tuple[int, str | None]] = field(default_factory=set)


def resolve_code(written: str) -> str | None:
    """The rule code a suppression entry names, by code (any case) or by name."""
    rule = RULES_BY_CODE.get(written.upper()) or RULES_BY_NAME.get(written)
    return rule.code if rule else None


def syntax_for(path: str) -> re.Pattern[bytes]:
    """The suppression comment syntax of a source file, by its suffix: ``#`` for Python, else
    ``//`` and ``/* */`` (PTX, CUDA C++, C and C++ headers)."""
    return PYTHON if path.endswith((".py", ".pyi")) else C_LIKE


_CHARACTER_LITERAL = re.compile(rb"'(?:\\.|[^'\\\n])'")  # C's '"', which opens no string
_ESCAPE = re.compile(rb"\\.")


def find(text: bytes, syntax: re.Pattern[bytes], strings: bool = False) -> re.Match[bytes] | None:
    """The first suppression comment on a line. With ``strings`` (CUDA C++ and Python sources),
    text inside a string literal on the line is not a comment: `asm("bar.sync 0; // ptxlint:
    ignore[PTX102]")` is a PTX comment, honoured in the PTX, not a comment of the `.cu` file."""
    for match in syntax.finditer(text):
        if not strings or not _inside_string(text[: match.start()], python=syntax is PYTHON):
            return match
    return None


def _inside_string(before: bytes, python: bool) -> bool:
    """Whether the text before a position leaves a string literal open (by quote parity)."""
    before = _ESCAPE.sub(b"", before)
    if python:
        quote = None
        for character in before:
            if quote is None and character in b"\"'":
                quote = character
            elif character == quote:
                quote = None
        return quote is not None
    return _CHARACTER_LITERAL.sub(b"", before).count(b'"') % 2 == 1


def parse(source: SourceFile, syntax: re.Pattern[bytes] = C_LIKE, strings: bool = False) -> list[Suppression]:
    found = []
    data = source.data
    position = data.find(b"ptxlint:")  # almost no line mentions it: find those in one scan
    while position >= 0:
        line = source.position(position)[0]
        text = source.line_bytes(line)
        match = find(text, syntax, strings)
        if match:
            found.append(_suppression(source, line, text, match))
        next_line = source.line_starts[line] if line < source.line_count else len(data)
        position = data.find(b"ptxlint:", next_line)
    return found


def _suppression(source: SourceFile, line: int, text: bytes, match: re.Match[bytes]) -> Suppression:
    line_start = source.line_starts[line - 1]
    span = source.span(line_start + match.start(), line_start + match.end())
    codes: list[SuppressedCode] = []
    if match.group("codes") is not None:
        base = match.start("codes")
        for item in _ITEM.finditer(match.group("codes")):
            written = item.group().decode("utf-8", errors="replace")
            item_span = source.span(line_start + base + item.start(), line_start + base + item.end())
            codes.append(SuppressedCode(written, resolve_code(written), item_span))
    whole_file = match.group("kind") == b"file-ignore"
    alone = not text[: match.start()].strip() and not _after_block_comment(text, match).strip()
    lines = () if whole_file else ((line, line + 1) if alone else (line,))
    return Suppression(span, whole_file, lines, tuple(codes))


def _after_block_comment(text: bytes, match: re.Match[bytes]) -> bytes:
    """What follows a ``/* */`` comment on its line (code it trails, or nothing)."""
    if match.group("open") != b"/*":
        return b""
    close = text.find(b"*/", match.end())
    return text[close + 2 :] if close >= 0 else b""


def apply(diagnostics: Iterable[Diagnostic], suppressions: list[Suppression]) -> Outcome:
    outcome = Outcome(kept=[], suppressed=0)
    for diagnostic in diagnostics:
        users = [index for index, suppression in enumerate(suppressions) if suppression.covers(diagnostic)]
        if not users:
            outcome.kept.append(diagnostic)
            continue
        outcome.suppressed += 1
        for index in users:
            outcome.used.add((index, diagnostic.code if suppressions[index].codes else None))
    return outcome
