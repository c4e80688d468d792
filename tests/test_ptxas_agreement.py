"""ptxas is the oracle for syntax: every fixture it accepts must parse without PTX001, and every
fixture marked `// ptxas: rejects` because of its syntax must be rejected by both."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptxlint.lint import LintSettings, lint_source
from ptxlint.rules import RULES_BY_CODE
from ptxlint.source import SourceFile

from ptx_tools import assemble, ptxas

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted((ROOT / "fixtures").rglob("*.ptx"))

pytestmark = pytest.mark.skipif(ptxas() is None, reason="ptxas not installed (pip install -e '.[test]')")


def declared_rejected(path: Path) -> bool:
    return "ptxas: rejects" in path.read_text(errors="replace").split("\n", 1)[0]


@pytest.mark.parametrize("path", FIXTURES, ids=lambda path: str(path.relative_to(ROOT / "fixtures")))
def test_ptxas_agrees_with_fixture_header(path: Path) -> None:
    result = assemble(path)
    if declared_rejected(path):
        assert result.returncode != 0, f"ptxas accepts {path.name}, whose header says it rejects it"
    else:
        assert result.returncode == 0, f"ptxas rejects {path.name}:\n{result.stderr}"
    syntax_errors = lint_source(
        SourceFile.from_bytes(path.name, path.read_bytes()), LintSettings(rules=(RULES_BY_CODE["PTX001"],))
    )
    if result.returncode == 0:
        assert not syntax_errors, f"ptxlint reports PTX001 on a file ptxas accepts: {syntax_errors[0]}"
