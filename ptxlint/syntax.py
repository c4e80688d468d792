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
syntax error can hide in it.
"""

from __future__ import annotations

import functools
import re
from types import ModuleType

import tree_sitter

from ptxlint import _grammar

native: ModuleType | None
try:
    from ptxlint import _native as native
except ImportError:  # built without tree-sitter's runtime source; everything runs in Python
    native = None

Node = tree_sitter.Node
Tree = tree_sitter.Tree


@functools.cache
def language() -> tree_sitter.Language:
    return tree_sitter.Language(_grammar.language())


def parse(data: bytes, *, whole: bool = False) -> tree_sitter.Tree:
    """The tree of ``data``; ``whole`` parses large initializers too (tree-sitter's bare parse,
    the floor benchmarks compare against)."""
    parser = tree_sitter.Parser(language())
    included = () if whole else included_ranges(data)
    if included:
        parser.included_ranges = [
            tree_sitter.Range((start_row, start_column), (end_row, end_column), start, end)
            for start, end, start_row, start_column, end_row, end_column in included
        ]
    return parser.parse(data)


def root(data: bytes, *, reference: bool = False) -> Node:
    """The root node that lowering walks: from the native front end when it is built, unless the
    reference path through py-tree-sitter is asked for. Either node type answers lowering's
    questions identically; the node keeps its tree alive, and the tree goes with the last node."""
    if native is not None and not reference:
        return native.root(native.parse(data, included_ranges(data)))
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


def included_ranges(data: bytes) -> tuple[tuple[int, int, int, int, int, int], ...]:
    """What the parser reads of ``data``: everything but the elements after the first of each
    large list of decimal literals, as (start byte, end byte, start row, start column, end row,
    end column) ranges; () for all of it (no such list)."""
    left_out = []
    for start in _INITIALIZER_START.finditer(data):
        opening = start.end()
        closing = data.find(b"}", opening)
        if closing - opening < _LARGE_INITIALIZER or (left_out and opening < left_out[-1][1]):
            continue
        first = _FIRST_LITERAL.match(data, opening)
        body = data[opening:closing]
        if first is None or body.translate(None, _LIST_CHARACTERS) or _ADJACENT_LITERALS.search(body):
            continue  # not a plain list of decimals: the parser reads it, and reports its errors
        compact = body.translate(None, _WHITESPACE)
        if b",," in compact or _LEADING_ZERO.search(compact):
            continue
        left_out.append((first.end(), closing))
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
