"""The syntax layer: the only module that imports tree_sitter or knows the native front end.

`parse` never raises on any input: tree-sitter recovers from errors by producing ERROR and
MISSING nodes, which lowering turns into PTX001 diagnostics.

Two builds of the same grammar exist. `ptxlint._grammar` is the language for py-tree-sitter,
always built. `ptxlint._native` compiles tree-sitter's C runtime into ptxlint itself (see
build_native.py); it is absent when the build could not obtain that runtime's source, and
`native` is then None.

Large initializers (curand's 100 KiB `precalc_xorwow_matrix` tables, which every kernel that
includes curand carries) are left out of the parse, but for their first element (tree-sitter's
included ranges: positions stay those of the whole text). Lowering keeps only that a variable has
an initializer, and tokenising a quarter of a million integers was most of the parse time of
such files. Only a list the cheap scan proves to be plain decimal literals is left out, so no
syntax error can hide in it. The bodies of large debug sections (`nvcc -G`: half the parse of
such a module) are left out the same way, when every line is provably data or a label.
"""

from __future__ import annotations

import functools
import re
from types import ModuleType
from typing import Any, Callable

import tree_sitter

from ptxlint import _grammar

native: ModuleType | None
try:
    from ptxlint import _native as native
except ImportError:  # built without tree-sitter's runtime source; everything runs in Python
    native = None

Node = tree_sitter.Node
Tree = tree_sitter.Tree
# Byte ranges the parser reads: (start byte, end byte, start row, start column, end row, end column).
Ranges = tuple[tuple[int, int, int, int, int, int], ...]


@functools.cache
def language() -> tree_sitter.Language:
    return tree_sitter.Language(_grammar.language())


def parse(data: bytes, *, whole: bool = False) -> tree_sitter.Tree:
    """The tree of ``data``; ``whole`` parses large initializers and comment lines too
    (tree-sitter's bare parse, the floor benchmarks compare against)."""
    if whole:
        return _reference_parse(data, ())
    return _left_out_where_sound(data, functools.partial(_reference_parse, data), lambda tree: tree.root_node.has_error)


def _reference_parse(data: bytes, included: Ranges) -> tree_sitter.Tree:
    parser = tree_sitter.Parser(language())
    if included:
        parser.included_ranges = [
            tree_sitter.Range((start_row, start_column), (end_row, end_column), start, end)
            for start, end, start_row, start_column, end_row, end_column in included
        ]
    return parser.parse(data)


def native_tree(data: bytes) -> Any:
    """The native front end's tree of ``data``, with what :func:`parse` leaves out left out."""
    assert native is not None
    return _left_out_where_sound(data, functools.partial(native.parse, data), lambda tree: native.root(tree).has_error)


def _left_out_where_sound(data: bytes, parse_ranges: Callable[[Ranges], Any], has_error: Callable[[Any], bool]) -> Any:
    """``parse_ranges(included_ranges(data))``, unless that tree has a syntax error and comment
    lines were left out: then the parse of the text with its comment lines, so that error
    recovery, and so the errors reported, are those of the text as written."""
    included = included_ranges(data)
    tree = parse_ranges(included)
    if has_error(tree):
        with_comments = included_ranges(data, comment_lines=False)
        if with_comments != included:
            tree = parse_ranges(with_comments)
    return tree


def root(data: bytes, *, reference: bool = False) -> Node:
    """The root node that lowering walks: from the native front end when it is built, unless the
    reference path through py-tree-sitter is asked for. Either node type answers lowering's
    questions identically; the node keeps its tree alive, and the tree goes with the last node."""
    if native is not None and not reference:
        return native.root(native_tree(data))
    return parse(data).root_node


_LARGE_INITIALIZER = 4096  # bytes between the braces; smaller lists are parsed as they are
_INITIALIZER_START = re.compile(rb"=[ \t\r\n]*\{")
_FIRST_LITERAL = re.compile(rb"[ \t\r\n]*(?:0|[1-9][0-9]*)(?![0-9])")
# A body that starts with a literal, holds only digits, commas and whitespace (checked by
# deletion), and has no two literals without a comma between them, no two commas without a
# literal and no leading zero (octal, or an 8 or 9 that would start a second token) is a list of
# decimal literals with an optional trailing comma: nothing the grammar could reject. Each test
# is one scan in C; together about 20 ns a byte.
_WHITESPACE = b" \t\r\n"
_LIST_CHARACTERS = b"0123456789," + _WHITESPACE
_ADJACENT_LITERALS = re.compile(rb"[0-9][ \t\r\n]+[0-9]")
_LEADING_ZERO = re.compile(rb",0[0-9]")  # in the body without whitespace; the first is matched above

# Debug sections (`nvcc -G`): `.section .debug_info { .b8 2 ... }`, often most of a module's lines.
# A body made only of lines of data (`.b8 108,103`, `.b64 $L__tmp0`, `.b32 .debug_abbrev+12`)
# and labels, each item a decimal literal, a `$`/`_` name or a section name with an offset, is
# one the grammar accepts: its bytes are left out, braces kept. Lowering keeps nothing of them.
# Searched for by its literal start (a pattern anchored at line starts scans every byte); that it
# begins a line is checked after.
_SECTION_START = re.compile(rb"\.section[ \t]+\.[A-Za-z_][A-Za-z0-9_]*[ \t\r\n]*\{")
_SECTION_ITEM = rb"(?:(?:0|[1-9][0-9]*)|[_$][A-Za-z0-9_$]+|\.[A-Za-z_][A-Za-z0-9_]*(?:[ \t]*\+[ \t]*(?:0|[1-9][0-9]*))?)"
_SECTION_LINE = re.compile(
    rb"[ \t]*(?:\.b(?:8|16|32|64)[ \t]+" + _SECTION_ITEM + rb"(?:[ \t]*,[ \t]*" + _SECTION_ITEM + rb")*"
    rb"|[_$][A-Za-z0-9_$]+[ \t]*:)?[ \t]*\r?"
)


# Runs of three or more lines that hold a `//` comment (nvcc's `// begin inline asm` and
# `// end inline asm` around every inline asm, 12,800 of a DeepGEMM kernel's lines in 80 runs):
# lowering skips comments, and in the tree each was a node, half a kilobyte a line. Shorter runs
# are not worth a range each (a CUTLASS FMHA has 62,000 single comment lines: the ranges cost more
# time than the parse saves). Only whole lines go, so no token can change. Searched for by the
# `//` of its first line (a literal start scans fast), which may follow code: then the run starts
# on the next line.
_COMMENT_LINES = re.compile(rb"//[^\n]*\n(?:[ \t]*//[^\n]*\n){2,}")


def _is_section_data(body: bytes) -> bool:
    """Whether every line of a section body is data or a label (see _SECTION_LINE). Debug data
    repeats a few thousand distinct lines (`.b8 0`), so each distinct line is matched once."""
    return all(_SECTION_LINE.fullmatch(line) for line in set(body.split(b"\n")))


def included_ranges(data: bytes, *, comment_lines: bool = True) -> Ranges:
    """What the parser reads of ``data``: everything but the elements after the first of each
    large list of decimal literals, the bodies of large debug sections made only of data and
    (unless ``comment_lines`` is false) lines holding only a `//` comment, as (start byte, end
    byte, start row, start column, end row, end column) ranges; () for all of it (nothing left
    out)."""
    candidates = []
    if comment_lines and b"/*" not in data:  # a `//` line inside a block comment may hold its `*/`
        for run in _COMMENT_LINES.finditer(data):
            start = data.rfind(b"\n", 0, run.start()) + 1
            if data[start : run.start()].strip(b" \t"):  # a comment after code: the line stays
                start = data.index(b"\n", run.start()) + 1
            candidates.append((start, run.end()))
    for start in _SECTION_START.finditer(data):
        line_start = data.rfind(b"\n", 0, start.start()) + 1
        if data[line_start : start.start()].strip(b" \t"):
            continue
        opening = start.end()
        closing = data.find(b"}", opening)
        if closing - opening >= _LARGE_INITIALIZER and _is_section_data(data[opening:closing]):
            candidates.append((opening, closing))
    for start in _INITIALIZER_START.finditer(data):
        opening = start.end()
        closing = data.find(b"}", opening)
        if closing - opening < _LARGE_INITIALIZER:
            continue
        first = _FIRST_LITERAL.match(data, opening)
        body = data[opening:closing]
        if first is None or body.translate(None, _LIST_CHARACTERS) or _ADJACENT_LITERALS.search(body):
            continue  # not a plain list of decimals: the parser reads it, and reports its errors
        compact = body.translate(None, _WHITESPACE)
        if b",," in compact or _LEADING_ZERO.search(compact):
            continue
        candidates.append((first.end(), closing))
    left_out: list[tuple[int, int]] = []
    for start, end in sorted(candidates):
        if not left_out or start >= left_out[-1][1]:
            left_out.append((start, end))
    if not left_out:
        return ()
    included = []
    position = 0
    points = _Points(data)
    for start, end in left_out + [(len(data), len(data))]:
        included.append((position, start, *points.at(position), *points.at(start)))
        position = end
    return tuple(included)


class _Points:
    """Tree-sitter's (row, column) of byte offsets asked for in increasing order: rows and byte
    columns from 0, counting only the newlines since the last offset asked for."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._offset = 0
        self._row = 0

    def at(self, offset: int) -> tuple[int, int]:
        self._row += self._data.count(b"\n", self._offset, offset)
        self._offset = offset
        return self._row, offset - (self._data.rfind(b"\n", 0, offset) + 1)


def is_native(node: Node) -> bool:
    """Whether a node comes from the native front end (and its body can be lowered natively)."""
    return native is not None and type(node) is native.Node
