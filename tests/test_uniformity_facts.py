"""Uniformity facts asserted inline in the convergence fixtures.

An instruction's line may end with

    // uniformity: <defined> [executes: <level>]

where ``<defined>`` is the level of the value the instruction writes (``-`` when it writes no
register) and ``<level>`` the level at which it runs; levels are ``cta``, ``warpgroup``, ``warp``
and ``thread`` (the names ``ptxlint dump uniformity`` prints). The annotation may follow an
``// expect:`` on the same line.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fact_annotations import annotated_fixtures, annotated_lines

from ptxlint.analyses.lanes import LEVELS_BY_SHORT_NAME
from ptxlint.analyses.uniformity import analyze_module
from ptxlint.context import Options
from ptxlint.lower import lower
from ptxlint.source import SourceFile

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted((ROOT / "fixtures" / "convergence").glob("*.ptx"))
_ANNOTATION = re.compile(r"uniformity:\s*(?P<defined>[a-z]+|-)(?:\s+executes:\s*(?P<executes>[a-z]+))?")


def annotations(text: str) -> dict[int, tuple[str, str | None]]:
    return {
        number: (match.group("defined"), match.group("executes"))
        for number, match in annotated_lines(text, _ANNOTATION).items()
    }


ANNOTATED = annotated_fixtures(FIXTURES, _ANNOTATION)


def test_fixtures_have_annotations() -> None:
    assert sum(len(annotations(path.read_text())) for path in ANNOTATED) >= 20


@pytest.mark.parametrize("path", ANNOTATED, ids=lambda path: path.name)
def test_annotated_facts(path: Path) -> None:
    expected = annotations(path.read_text())
    module = lower(SourceFile.from_bytes(path.name, path.read_bytes()))
    result = analyze_module(module, Options(), everything=True)
    actual: dict[int, tuple[str, str]] = {}
    for analysed in result.functions.values():
        for index, instruction in enumerate(analysed.function.instructions):
            facts = analysed.facts.get(index)
            if facts is None or instruction.span.line in actual:
                continue
            defined = facts.defined.level.short if facts.defined is not None else "-"
            actual[instruction.span.line] = (defined, facts.execution_level.short)
    problems = []
    for line, (defined, executes) in sorted(expected.items()):
        for name in (defined, executes):
            assert name in (None, "-") or name in LEVELS_BY_SHORT_NAME, f"{path.name}:{line}: unknown level {name!r}"
        if line not in actual:
            problems.append(f"{path.name}:{line}: no analysed instruction on this line")
            continue
        got_defined, got_executes = actual[line]
        if got_defined != defined or (executes is not None and got_executes != executes):
            problems.append(
                f"{path.name}:{line}: expected {defined} executes: {executes or '*'}, got {got_defined} executes: {got_executes}"
            )
    assert not problems, "\n".join(problems)
