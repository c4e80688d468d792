"""Dropping the facts no later test can meet (:meth:`PathContext.relevant_to`) must not change
what the path-sensitive analyses (tcgen05, wgmma) find: at every block entry and exit, the same
payloads in the same path classes with the same warps as when every fact is kept, on every
fixture and on the smaller files of the regression corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptxlint.analyses.asynchronous import wgmma_groups
from ptxlint.analyses.tcgen05 import pending as tcgen05
from ptxlint.analyses.asynchronous.wgmma_operands import has_wgmma
from ptxlint.context import ModuleContext
from ptxlint.lower import lower
from ptxlint.source import SourceFile

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted((ROOT / "fixtures").rglob("*.ptx"))
_CORPUS_FILE_LIMIT = 3_000_000  # bytes


def _classes(states: dict) -> dict:
    return {block: frozenset((payload, context.warps) for payload, context in state) for block, state in states.items()}


def disagreements(path: Path) -> list[str]:
    module = lower(SourceFile.from_bytes(str(path), path.read_bytes()))
    found = []
    for function in module.functions:
        if not function.has_body:
            continue
        if any(instruction.opcode.base == "tcgen05" for instruction in function.instructions):
            found += _compare(path, module, function, tcgen05._solve)
        if has_wgmma(function):
            found += _compare(path, module, function, wgmma_groups._solve)
    return found


def _compare(path: Path, module, function, solve) -> list[str]:
    found = []
    _, trimmed = solve(ModuleContext(module), function)
    _, complete = solve(ModuleContext(module), function, keep_every_fact=True)
    for name in ("block_entry", "block_exit"):
        expected, actual = _classes(getattr(complete, name)), _classes(getattr(trimmed, name))
        if actual != expected:
            blocks = sorted(block for block in expected.keys() | actual.keys() if expected.get(block) != actual.get(block))
            found.append(f"{path.name}: {function.name}: {solve.__module__} {name} differs at blocks {blocks[:5]}")
    return found


@pytest.mark.parametrize("path", FIXTURES, ids=lambda path: str(path.relative_to(ROOT / "fixtures")))
def test_relevant_facts_agree_on_fixture(path: Path) -> None:
    assert disagreements(path) == []


@pytest.mark.corpus
def test_relevant_facts_agree_on_corpus(corpus_files: list[Path]) -> None:
    found = []
    for path in corpus_files:
        if path.stat().st_size <= _CORPUS_FILE_LIMIT:
            found.extend(disagreements(path))
    assert found == [], "\n".join(found[:20])
