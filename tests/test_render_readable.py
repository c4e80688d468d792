"""Golden outputs for what makes findings on real C++ kernels readable: demangled, shortened
kernel names in the human formats (both forms in the machine formats) and path witnesses cut to
the branches that decide them. The input is a leak (PTX203) in a kernel with a CUTLASS-style
mangled name, on a path through ten branches that lead to the leak either way and one that
decides it. Regenerate with `PTXLINT_UPDATE_GOLDEN=1`, as tests/test_render_golden.py explains.
"""

from __future__ import annotations

import io
import json

import pytest

from ptxlint.lint import LintSettings, lint_path
from ptxlint.render import Report, renderer
from ptxlint.render.names import shorten
from ptxlint.rules import RULES_BY_CODE
from test_render_golden import ROOT, assert_golden, render

INPUT = "tests/golden/inputs/long_path.ptx"
CASES = [("full", False, "readable-full.txt"), ("full", True, "readable-full-all-steps.txt"),
         ("concise", False, "readable-concise.txt"), ("json", False, "readable.json")]


def report(all_steps: bool) -> Report:
    result = lint_path(INPUT, LintSettings(rules=(RULES_BY_CODE["PTX203"],)))
    return Report((result,), rules=(RULES_BY_CODE["PTX203"],), all_steps=all_steps)


@pytest.mark.parametrize(("output_format", "all_steps", "golden"), CASES, ids=[case[2] for case in CASES])
def test_readable_golden(output_format: str, all_steps: bool, golden: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    assert_golden(render(output_format, report(all_steps)), golden)


def test_machine_formats_carry_both_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    stream = io.StringIO()
    renderer("sarif").render(report(False), stream)
    location = json.loads(stream.getvalue())["runs"][0]["results"][0]["locations"][0]
    (logical,) = location["logicalLocations"]
    assert logical["decoratedName"].startswith("_ZN7cutlass13device_kernel")
    assert logical["fullyQualifiedName"].startswith("void cutlass::device_kernel<cutlass::gemm::GemmUniversal<")


@pytest.mark.parametrize(
    ("name", "width", "expected"),
    [
        ("f(int)", 72, "f(int)"),
        ("void k<A<1>, B>(P<2>)", 16, "void k<…>(P<…>)"),
        ("void k<A<1>, B>(P<2>, Q)", 12, "void k<…>(…)"),
        ("a_very_long_name_without_any_templates", 10, "a_very_lo…"),
    ],
)
def test_shorten(name: str, width: int, expected: str) -> None:
    assert shorten(name, width) == expected
