"""The native front end (`ptxlint._native`, tree-sitter's runtime compiled into ptxlint) parses
every input exactly as the reference path through py-tree-sitter does: the same tree, node for
node, on every fixture, fuzz seed and corpus file.

Without the native extension (a build that could not obtain the runtime's source) there is only
one path and nothing to compare; the tests say so as a skip, and test_native_built_in_development
fails if the development install itself lacks it."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from ir_compare import same_ir

from ptxlint import ir, syntax
from ptxlint.lower import lower
from ptxlint.source import SourceFile

ROOT = Path(__file__).resolve().parent.parent
SMALL_INPUTS = sorted((ROOT / "fixtures").rglob("*.ptx")) + sorted((ROOT / "tests" / "fuzz_seeds").rglob("*.ptx"))

needs_native = pytest.mark.skipif(syntax.native is None, reason="built without the native front end")


def test_native_built_in_development() -> None:
    """The development install builds the native extension; a missing one is a build problem to
    see, not a path to skip silently. PTXLINT_ALLOW_PYTHON_ONLY=1 accepts an offline build."""
    if os.environ.get("PTXLINT_ALLOW_PYTHON_ONLY") != "1":
        assert syntax.native is not None, "ptxlint._native was not built; see build_native.py"


def tree_digests(data: bytes) -> tuple[str, str]:
    """The S-expression digests of both parsers' trees (digests, so a corpus file's tree text
    of tens of megabytes is held once at a time)."""
    reference = hashlib.sha256(str(syntax.parse(data).root_node).encode()).hexdigest()
    native = hashlib.sha256(syntax.native.sexp(syntax.native_tree(data)).encode()).hexdigest()
    return reference, native


@needs_native
@pytest.mark.parametrize("path", SMALL_INPUTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_native_tree_is_the_reference_tree(path: Path) -> None:
    reference, native = tree_digests(path.read_bytes())
    assert native == reference


@needs_native
@pytest.mark.corpus
def test_native_tree_is_the_reference_tree_on_the_corpus(corpus_files: list[Path]) -> None:
    different = [str(path) for path in corpus_files if len(set(tree_digests(path.read_bytes()))) != 1]
    assert not different, "trees differ:\n" + "\n".join(different)


@needs_native
def test_native_parse_recovers_from_any_bytes() -> None:
    """Like the reference, the native parse never fails: garbage gives a tree with errors."""
    tree = syntax.native.parse(b"\x00\xff{{{ mov.u32 %r1, ;\n.version")
    assert syntax.native.has_error(tree)
    reference, native = tree_digests(b"\x00\xff{{{ mov.u32 %r1, ;\n.version")
    assert native == reference


def lowered_both_ways(path: Path) -> tuple[ir.Module, ir.Module]:
    source = SourceFile.from_bytes(str(path), path.read_bytes())
    return lower(source, reference=True), lower(source)


@needs_native
@pytest.mark.parametrize("path", SMALL_INPUTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_native_ir_is_the_reference_ir(path: Path) -> None:
    reference, native = lowered_both_ways(path)
    assert same_ir(reference, native)


@needs_native
@pytest.mark.corpus
def test_native_ir_is_the_reference_ir_on_the_corpus(corpus_files: list[Path]) -> None:
    different = [str(path) for path in corpus_files if not same_ir(*lowered_both_ways(path))]
    assert not different, "IR differs:\n" + "\n".join(different)
