"""The uniformity analysis as it runs (sparse: only the instructions the facts at collectives,
and at calls reaching one or exiting, depend on, across calls; states without the registers no
later instruction reads) must find exactly the facts the rules read — at every collective and
every call reaching one — that the reference analysis finds (every instruction and every call's
arguments visited, every register kept), on every fixture and on the smaller files of the
regression corpus.

One difference is allowed, at membermask collectives (`shfl.sync`, `bar.warp.sync`, …), where
PTX107 reads only whether lanes of the mask never get there: the reference also splits the
threads at branches no fact depends on (an `if (leader)` inside an MMA loop), and in a loop those
splits can exceed what the exact thread sets hold, so it may lose them (and with them a proof
that whole warps arrive) where the sparse analysis keeps them. What PTX107 concludes must
agree."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptxlint.analyses.convergence import lanes_left_out, sites_in
from ptxlint.analyses.registers import Registers
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
    found = _membermask_disagreements(path, sparse, dense)
    assert sparse.functions.keys() == dense.functions.keys()
    for name, expected in dense.functions.items():
        analysed = sparse.functions[name]
        actual = analysed.facts
        membermask = {index for index, requirement in analysed.collectives.items() if requirement.membermask is not None}
        read = analysed.collectives.keys() | analysed.called.keys()
        assert read == expected.collectives.keys() | expected.called.keys()
        read -= membermask
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


def _membermask_disagreements(path: Path, sparse: object, dense: object) -> list[str]:
    """PTX107's verdict at each membermask collective, and the cause it names, in both analyses."""
    indexes: dict[int, Registers] = {}

    def registers_of(function: object) -> Registers:
        known = indexes.get(id(function))
        if known is None:
            known = indexes[id(function)] = Registers(function)  # type: ignore[arg-type]
        return known

    verdicts = []
    for result in (sparse, dense):
        sites = [site for site in sites_in(result, registers_of) if site.via is None and site.requirement.membermask is not None]  # type: ignore[arg-type]
        verdicts.append(
            {
                (site.function.function.name, site.index): (lanes_left_out(site, sites), site.facts.execution)
                for site in sites
            }
        )
    actual, expected = verdicts
    found = []
    for key in sorted(expected.keys() | actual.keys()):
        got, want = actual.get(key, (None, None)), expected.get(key, (None, None))
        if got[0] != want[0] or (want[0] is not None and got[1] != want[1]):
            found.append(f"{path.name}: {key}: PTX107 sparse {got} != dense {want}")
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
