"""The shipped tree-sitter queries compile against the grammar and mean what they say on the
fixtures: every query file is valid, and the highlight captures land on the right tokens."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest
import tree_sitter

from ptxlint import syntax

ROOT = Path(__file__).resolve().parent.parent
QUERY_FILES = sorted(path.name for path in resources.files("ptxlint.queries").iterdir() if path.name.endswith(".scm"))
FIXTURES = sorted((ROOT / "fixtures").rglob("*.ptx"))


def captures_by_text(source: bytes, query_name: str) -> dict[str, set[str]]:
    query_text = resources.files("ptxlint.queries").joinpath(query_name).read_text()
    query = tree_sitter.Query(syntax.language(), query_text)
    tree = syntax.parse(source)
    found: dict[str, set[str]] = {}
    for name, nodes in tree_sitter.QueryCursor(query).captures(tree.root_node).items():
        for node in nodes:
            found.setdefault(source[node.start_byte : node.end_byte].decode(), set()).add(name)
    return found


def test_queries_ship_with_the_package() -> None:
    assert "highlights.scm" in QUERY_FILES


@pytest.mark.parametrize("query_name", QUERY_FILES)
@pytest.mark.parametrize("path", FIXTURES, ids=lambda path: str(path.relative_to(ROOT / "fixtures")))
def test_query_runs_on_fixture(query_name: str, path: Path) -> None:
    captures = captures_by_text(path.read_bytes(), query_name)
    assert captures, f"{query_name} captures nothing in {path.name}"


def test_highlights_name_the_right_things() -> None:
    captures = captures_by_text((ROOT / "fixtures" / "syntax" / "traps.ptx").read_bytes(), "highlights.scm")
    assert "function.builtin" in captures["shfl.sync.idx.b32"]
    assert "variable.builtin" in captures["%tid.x"]
    assert "variable" in captures["%r1"]
    assert "keyword.directive" in captures[".version"]
    assert "type" in captures[".b32"]
    assert "label" in captures["$L__BB0_2:"]
    assert "number" in captures["0x96"]
    assert "number.float" in captures["0f3F800000"]
    assert "function" in captures["twice"]
    assert "comment" in captures["// callseq 0"]
