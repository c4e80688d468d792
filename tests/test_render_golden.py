"""Golden outputs: every format rendered for the inputs under tests/golden/inputs/.

Regenerate after an intended change with `PTXLINT_UPDATE_GOLDEN=1 python -m pytest
tests/test_render_golden.py` and review the diff. The rule set is fixed (PTX001, PTX002 and a
synthetic rule whose finding carries labels, a witness, notes and help), so rules other engineers
add do not churn these files; run-dependent values (working directory, version) are normalised.
"""

from __future__ import annotations

import io
import json
import os
import re
from pathlib import Path

import pytest

from ptxlint.diagnostics import Diagnostic, FileResult, Label, Severity
from ptxlint.lint import LintSettings, lint_path, project_folders
from ptxlint.lower import lower
from ptxlint.render import Report, full, renderer, summary
from ptxlint.rules import ALL_RULES, RULES_BY_CODE
from ptxlint.rules.base import Rule
from ptxlint.source import SourceFile
from ptxlint.sourcemap import attach_origins

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
INPUTS = ("syntax.ptx", "suppressed.ptx", "lineinfo.ptx")
UPDATE = os.environ.get("PTXLINT_UPDATE_GOLDEN") == "1"

SYNTHETIC = Rule(
    code="PTX900",
    name="golden-example",
    severity=Severity.WARNING,
    summary="A synthetic finding that uses every part of a diagnostic",
    docs="## What it does\nNothing: it exists for the golden tests.\n",
    check=lambda context: (),
    tags=("test",),
    precision="medium",
)
RULES = (RULES_BY_CODE["PTX001"], RULES_BY_CODE["PTX002"], SYNTHETIC)
# A synthetic finding about control flow (the PTX1xx family's texts name registers the source map
# explains), on PTX compiled from tests/golden/inputs/source_view.cu.
SOURCE_SYNTHETIC = Rule(
    code="PTX199",
    name="golden-source-example",
    severity=Severity.ERROR,
    summary="A synthetic control-flow finding shown at its source lines",
    docs="## What it does\nNothing: it exists for the golden tests.\n",
    check=lambda context: (),
    tags=("test",),
    precision="medium",
)


def _span(source: SourceFile, needle: str):  # type: ignore[no-untyped-def]
    start = source.data.index(needle.encode())
    return source.span(start, start + len(needle.encode()))


def synthetic_result() -> FileResult:
    path = "tests/golden/inputs/witness.ptx"
    source = SourceFile.from_bytes(path, (ROOT / path).read_bytes())
    diagnostic = Diagnostic(
        code=SYNTHETIC.code,
        name=SYNTHETIC.name,
        severity=SYNTHETIC.severity,
        message="`bar.warp.sync` is reached by only some lanes of the warp",
        span=_span(source, "bar.warp.sync -1;"),
        labels=(Label(_span(source, "and.b32 %r4, %r1, 31;"), "the lane index is computed here"),),
        notes=("lanes 16-31 branch to `SKIP`",),
        help="execute `bar.warp.sync` on every path, or narrow its member mask",
        witness=(
            Label(_span(source, "mov.u32 %r1, %tid.x;"), "`%r1` is the thread index"),
            Label(_span(source, "setp.lt.u32 %p1, %r4, 16;"), "`%p1` differs between lanes"),
            Label(_span(source, "@%p1 bra SKIP;"), "lanes where `%p1` is true branch away"),
            Label(_span(source, "bar.warp.sync -1;"), "the rest reach the barrier"),
        ),
    )
    return FileResult(path, (diagnostic,), source)


def source_view_result(kept: bool) -> FileResult:
    """The synthetic PTX199 finding on a module as the `.cu` front end names it (no such file),
    mapped by the driver's source-mapping step; ``kept``: as if `--keep-ptx` wrote its PTX."""
    ptx = "tests/golden/inputs/source_view.ptx"
    name = "tests/golden/inputs/source_view.cu[sm_100a]"
    source = SourceFile.from_bytes(name, (ROOT / ptx).read_bytes())
    barrier = _span(source, "bar.warp.sync \t-1;")
    diagnostic = Diagnostic(
        code=SOURCE_SYNTHETIC.code,
        name=SOURCE_SYNTHETIC.name,
        severity=SOURCE_SYNTHETIC.severity,
        message="`bar.warp.sync` may run with only part of a warp: it is inside a branch on `%p1`",
        span=barrier,
        labels=(
            Label(_span(source, "@%p1 bra \t$L__BB0_2;"), "this branch on `%p1` varies within a warp"),
            Label(_span(source, "%tid.x"), "`%tid.x` varies per thread"),
        ),
        notes=("the other lanes continue at `$L__BB0_2`",),
        help="execute `bar.warp.sync` on every path",
        witness=(
            Label(_span(source, "@%p1 bra \t$L__BB0_2;"), "branch on `%p1` not taken"),
            Label(barrier, "`bar.warp.sync` reached by lanes 0-15"),
            Label(_span(source, "@%p2 bra \t$L__BB0_5;"), "branch on `!%p2` not taken", essential=False),
            Label(_span(source, "bra.uni \t$L__BB0_3;"), "loops back to `$L__BB0_3` (the jump on line 37)"),
            Label(_span(source, "ret;"), "the kernel ends"),
        ),
    )
    (mapped,) = attach_origins(lower(source), [diagnostic], project_folders(name))
    return FileResult(name, (mapped,), source, map_to_source=True, kept_ptx=ptx if kept else None)


def source_view_report() -> Report:
    return Report((source_view_result(kept=False), source_view_result(kept=True)), rules=(*RULES, SOURCE_SYNTHETIC))


def golden_report(map_to_source: bool = False) -> Report:
    settings = LintSettings(rules=RULES[:2])
    results = [lint_path(f"tests/golden/inputs/{name}", settings) for name in INPUTS]
    results.append(synthetic_result())
    results.append(FileResult("tests/golden/inputs/missing.ptx", error="No such file or directory"))
    results.sort(key=lambda result: result.path)
    return Report(tuple(results), rules=RULES, elapsed=None, map_to_source=map_to_source)


def render(name: str, report: Report) -> str:
    stream = io.StringIO()
    if name == "full":
        full.render(report, full.console_for(stream, "never"))
    else:
        renderer(name).render(report, stream)
    return normalise(stream.getvalue())


def normalise(text: str) -> str:
    text = re.sub(r'"uri": "file://[^"]*/"', '"uri": "file:///SRCROOT/"', text)
    return re.sub(r'"(version|semanticVersion)": "\d+\.\d+\.\d+[^"]*"', r'"\1": "VERSION"', text)


def assert_golden(actual: str, golden: str) -> None:
    """``actual`` is the content of ``tests/golden/<golden>`` (which PTXLINT_UPDATE_GOLDEN=1 rewrites)."""
    path = GOLDEN / golden
    if UPDATE:
        path.write_text(actual, encoding="utf-8")
    assert path.exists(), f"{path.name} missing: run with PTXLINT_UPDATE_GOLDEN=1"
    assert actual == path.read_text(encoding="utf-8"), f"{golden} differs (PTXLINT_UPDATE_GOLDEN=1 regenerates)"


CASES = [
    ("full", False, "full.txt"),
    ("full", True, "full-map-to-source.txt"),
    ("concise", False, "concise.txt"),
    ("concise", True, "concise-map-to-source.txt"),
    ("json", False, "json.json"),
    ("github", False, "github.txt"),
    ("github", True, "github-map-to-source.txt"),
    ("sarif", False, "sarif.sarif"),
    ("sarif", True, "sarif-map-to-source.sarif"),
]


@pytest.mark.parametrize(("output_format", "map_to_source", "golden"), CASES, ids=[case[2] for case in CASES])
def test_golden(output_format: str, map_to_source: bool, golden: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    assert_golden(render(output_format, golden_report(map_to_source)), golden)


@pytest.mark.parametrize("output_format", ["full", "concise", "json", "sarif"])
def test_source_view_golden(output_format: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A finding on a module ptxlint compiled, once as compiled in memory, once with its PTX kept:
    every location at a source line, PTX names in the source's terms, the PTX only as a detail."""
    monkeypatch.chdir(ROOT)
    extension = {"full": "txt", "concise": "txt", "json": "json", "sarif": "sarif"}[output_format]
    assert_golden(render(output_format, source_view_report()), f"source-view-{output_format}.{extension}")


def test_colour_changes_only_decoration(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    report = golden_report()
    plain, coloured = io.StringIO(), io.StringIO()
    full.render(report, full.console_for(plain, "never"))
    full.render(report, full.console_for(coloured, "always"))
    assert "\x1b[" in coloured.getvalue()
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured.getvalue()) == plain.getvalue()


def test_json_golden_is_valid_json_with_documented_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    document = json.loads(render("json", golden_report()))
    assert set(document) == {"version", "tool", "files", "diagnostics", "summary"}
    documented = (ROOT / "docs" / "json-format.md").read_text()
    for diagnostic in document["diagnostics"]:
        for key in diagnostic:
            assert f"`{key}`" in documented, f"JSON key `{key}` is not documented in docs/json-format.md"


@pytest.mark.parametrize("color", ["never", "always"])
def test_clean_run_prints_the_summary_rich_would(color: str) -> None:
    """With nothing but the closing line to print, the terminal format writes it without rich;
    the bytes are the ones rich writes, coloured or not."""
    clean = FileResult("clean.ptx", source=SourceFile.from_bytes("clean.ptx", b".version 9.0\n"), suppressed=1)
    report = Report((clean,), rules=ALL_RULES, elapsed=0.25)
    assert summary.only_a_summary(report)
    with_rich, without = io.StringIO(), io.StringIO()
    full.render(report, full.console_for(with_rich, color))
    summary.write(report, without, color == "always")
    assert without.getvalue() == with_rich.getvalue()
    assert without.getvalue().replace("\x1b[1;32m", "").replace("\x1b[0m", "") == "All checks passed in 1 file checked (1 suppressed) in 0.25s.\n"
