"""The syntax layer: the only module that imports tree_sitter.

`parse` never raises on any input: tree-sitter recovers from errors by producing ERROR and
MISSING nodes, which lowering turns into PTX001 diagnostics.
"""

from __future__ import annotations

import functools

import tree_sitter

from ptxlint import _grammar

Node = tree_sitter.Node
Tree = tree_sitter.Tree


@functools.cache
def language() -> tree_sitter.Language:
    return tree_sitter.Language(_grammar.language())


def parse(data: bytes) -> tree_sitter.Tree:
    return tree_sitter.Parser(language()).parse(data)
