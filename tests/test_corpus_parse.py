"""The grammar takes everything real compilers emit: every file of the regression corpus of real
PTX (nvcc 13 for sm_80/sm_90a/sm_100a incl. -G and -lineinfo builds, CUTLASS, Triton; built by
scripts/build_corpus.py into a cache outside the repository) parses with zero ERROR or MISSING
nodes, and lowers without a syntax problem."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptxlint import syntax
from ptxlint.lower import lower
from ptxlint.source import SourceFile

pytestmark = pytest.mark.corpus


def first_syntax_error(tree) -> str | None:
    """The first ERROR or MISSING node, described with its position, or None."""
    pending = [tree.root_node]
    while pending:
        node = pending.pop()
        if node.is_error or node.is_missing:
            kind = "MISSING" if node.is_missing else "ERROR"
            row, column = node.start_point
            return f"{kind} at {row + 1}:{column + 1}"
        if node.has_error:
            pending.extend(node.children)
    return None


def test_every_corpus_file_parses(corpus_files: list[Path]) -> None:
    failures = []
    lines = 0
    for path in corpus_files:
        data = path.read_bytes()
        lines += data.count(b"\n")
        problem = first_syntax_error(syntax.parse(data))
        if problem is None:
            module = lower(SourceFile.from_bytes(str(path), data))
            if module.syntax_errors:
                problem = f"lowering: {module.syntax_errors[0].message} at line {module.syntax_errors[0].span.line}"
        if problem is not None:
            failures.append(f"{path}: {problem}")
    print(f"\ncorpus: {len(corpus_files)} files, {lines} lines parsed")
    assert not failures, "\n".join(failures)
