"""Warp-role facts asserted inline in the tensor-memory fixtures.

An instruction's line may end with

    // warps: <warps>

the warps of the CTA that may execute it (its own guard included), as ``ptxlint dump roles``
prints them: ``0``, ``4-7``, ``0-1, 3``. The annotation may follow an ``// expect:`` on the
same line.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fact_annotations import annotated_fixtures, annotated_lines

from ptxlint.analyses.reaching_threads import ranges
from ptxlint.analyses.roles import function_roles
from ptxlint.context import ModuleContext
from ptxlint.lower import lower
from ptxlint.source import SourceFile

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted((ROOT / "fixtures" / "tcgen05").glob("*.ptx"))
_ANNOTATION = re.compile(r"warps:\s*(?P<warps>\d+(?:-\d+)?(?:,\s*\d+(?:-\d+)?)*)")


def annotations(text: str) -> dict[int, str]:
    return {
        number: ", ".join(part.strip() for part in match.group("warps").split(","))
        for number, match in annotated_lines(text, _ANNOTATION).items()
    }


ANNOTATED = annotated_fixtures(FIXTURES, _ANNOTATION)


def test_fixtures_have_annotations() -> None:
    assert sum(len(annotations(path.read_text())) for path in ANNOTATED) >= 6


@pytest.mark.parametrize("path", ANNOTATED, ids=lambda path: path.name)
def test_annotated_roles(path: Path) -> None:
    expected = annotations(path.read_text())
    module = lower(SourceFile.from_bytes(path.name, path.read_bytes()))
    context = ModuleContext(module)
    actual: dict[int, str] = {}
    for function in module.functions:
        if not function.has_body:
            continue
        roles = context.function_analysis(function, function_roles)
        for index, instruction in enumerate(function.instructions):
            actual.setdefault(instruction.span.line, ranges(roles.warps_at(index, instruction)))
    problems = [
        f"{path.name}:{line}: expected warps {warps}, got {actual.get(line, 'no instruction')}"
        for line, warps in sorted(expected.items())
        if actual.get(line) != warps
    ]
    assert not problems, "\n".join(problems)
