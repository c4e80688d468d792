"""Golden outputs for folded repeats: two kernels instantiated from one template carry the same
divergent barrier from the same CUDA line; the terminal shows it once with "and 1 more finding
like it in 2 kernels", and `--no-group` shows both. Regenerate with `PTXLINT_UPDATE_GOLDEN=1`."""

from __future__ import annotations

import io

import pytest

from ptxlint.lint import LintSettings, lint_path
from ptxlint.render import Report, full
from ptxlint.rules import RULES_BY_CODE
from test_render_golden import GOLDEN, ROOT, UPDATE, normalise

INPUT = "tests/golden/inputs/repeated.ptx"


@pytest.mark.parametrize(("grouped", "golden"), [(True, "grouped-full.txt"), (False, "ungrouped-full.txt")])
def test_grouping_golden(grouped: bool, golden: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    rules = (RULES_BY_CODE["PTX102"],)
    report = Report((lint_path(INPUT, LintSettings(rules=rules)),), rules=rules, group=grouped)
    stream = io.StringIO()
    full.render(report, full.console_for(stream, "never"))
    actual = normalise(stream.getvalue())
    path = GOLDEN / golden
    if UPDATE:
        path.write_text(actual, encoding="utf-8")
    assert actual == path.read_text(encoding="utf-8"), f"{golden} differs (PTXLINT_UPDATE_GOLDEN=1 regenerates)"
