"""Golden outputs for folded repeats: two kernels instantiated from one template carry the same
divergent barrier from the same CUDA line; the terminal shows it once with "and 1 more finding
like it in 2 kernels", and `--no-group` shows both. Regenerate with `PTXLINT_UPDATE_GOLDEN=1`."""

from __future__ import annotations

import io
import json

import pytest

from ptxlint.lint import LintSettings, lint_path
from ptxlint.render import Report, renderer
from ptxlint.rules import RULES_BY_CODE
from test_render_golden import ROOT, assert_golden, render

INPUT = "tests/golden/inputs/repeated.ptx"


@pytest.mark.parametrize(("grouped", "golden"), [(True, "grouped-full.txt"), (False, "ungrouped-full.txt")])
def test_grouping_golden(grouped: bool, golden: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    rules = (RULES_BY_CODE["PTX102"],)
    report = Report((lint_path(INPUT, LintSettings(rules=rules)),), rules=rules, group=grouped)
    assert_golden(render("full", report), golden)


def test_sarif_mapped_to_the_source_has_one_result_per_source_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """With `--map-to-source` a review bot annotates the CUDA line once; both PTX instructions are
    related locations. Without it, each PTX finding is its own result."""
    monkeypatch.chdir(ROOT)
    rules = (RULES_BY_CODE["PTX102"],)
    counts = {}
    for mapped in (True, False):
        report = Report((lint_path(INPUT, LintSettings(rules=rules)),), rules=rules, map_to_source=mapped)
        stream = io.StringIO()
        renderer("sarif").render(report, stream)
        counts[mapped] = json.loads(stream.getvalue())["runs"][0]["results"]
    (mapped,) = counts[True]
    assert mapped["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("kernel.cu")
    ptx_lines = [
        related["physicalLocation"]["region"]["startLine"]
        for related in mapped["relatedLocations"]
        if related["physicalLocation"]["artifactLocation"]["uri"].endswith("repeated.ptx")
        and related["message"]["text"] in ("the PTX instruction", "the same finding at this PTX instruction")
    ]
    assert ptx_lines == [16, 30]
    assert len(counts[False]) == 2
