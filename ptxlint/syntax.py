"""The syntax layer: the only module that imports tree_sitter or knows the native front end.

`parse` never raises on any input: tree-sitter recovers from errors by producing ERROR and
MISSING nodes, which lowering turns into PTX001 diagnostics.

Two builds of the same grammar exist. `ptxlint._grammar` is the language for py-tree-sitter,
always built. `ptxlint._native` compiles tree-sitter's C runtime into ptxlint itself (see
build_native.py); it is absent when the build could not obtain that runtime's source, and
`native` is then None.
"""

from __future__ import annotations

import functools
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


def parse(data: bytes) -> tree_sitter.Tree:
    return tree_sitter.Parser(language()).parse(data)


def root(data: bytes, *, reference: bool = False) -> Node:
    """The root node that lowering walks: from the native front end when it is built, unless the
    reference path through py-tree-sitter is asked for. Either node type answers lowering's
    questions identically; the node keeps its tree alive, and the tree goes with the last node."""
    if native is not None and not reference:
        return native.root(native.parse(data))
    return parse(data).root_node


def is_native(node: Node) -> bool:
    """Whether a node comes from the native front end (and its body can be lowered natively)."""
    return native is not None and type(node) is native.Node
