"""The uniformity analysis as it runs (sparse: only the instructions the facts at collectives,
and at calls reaching one or exiting, depend on, across calls; states without the registers no
later instruction reads) must find exactly the facts the rules read — at every collective and
every call reaching one — that the reference analysis finds (every instruction and every call's
arguments visited, every register kept), on every fixture and on the smaller files of the
regression corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptxlint.analyses.uniformity import analyze_module
from ptxlint.context import Options
from ptxlint.lower import lower
from ptxlint.source import SourceFile

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted((ROOT / "fixtures").rglob("*.ptx"))
_CORPUS_FILE_LIMIT = 1_500_000  # bytes: the dense analysis of the largest files is slow


def disagreements(path: Path) -> list[str]:
    module = lower(SourceFile.from_bytes(str(path), path.read_bytes()))
    sparse = analyze_module(module, Options())
    dense = analyze_module(module, Options(), sparse=False, keep_dead_registers=True)
    found = []
    assert sparse.functions.keys() == dense.functions.keys()
    for name, expected in dense.functions.items():
        analysed = sparse.functions[name]
        actual = analysed.facts
        read = analysed.collectives.keys() | analysed.called.keys()
        assert read == expected.collectives.keys() | expected.called.keys()
        wanted = {index: facts for index, facts in expected.facts.items() if index in read}
        if actual.keys() & read != wanted.keys():
            found.append(f"{path.name}: {name}: facts at {sorted((actual.keys() & read) ^ wanted.keys())[:5]} differ in presence")
            continue
        for index, facts in wanted.items():
            got = actual[index]
            # The sparse analysis leaves ``defined`` out where no rule depends on it.
            same_definition = got.defined is None or got.defined == facts.defined
            if (got.execution, got.exits, got.operands) != (facts.execution, facts.exits, facts.operands) or not same_definition:
                line = expected.function.instructions[index].span.line
                found.append(f"{path.name}:{line}: sparse {got} != dense {facts}")
    return found


@pytest.mark.parametrize("path", FIXTURES, ids=lambda path: str(path.relative_to(ROOT / "fixtures")))
def test_sparse_agrees_on_fixture(path: Path) -> None:
    assert disagreements(path) == []


@pytest.mark.corpus
def test_sparse_agrees_on_corpus(corpus_files: list[Path]) -> None:
    found = []
    for path in corpus_files:
        if path.stat().st_size <= _CORPUS_FILE_LIMIT:
            found.extend(disagreements(path))
    assert found == [], "\n".join(found[:20])
