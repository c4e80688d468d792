"""Findings on kernels this project did not write: the third-party corpus
(scripts/build_third_party_corpus.py) is built, its quick tier here and everything with
`PTXLINT_THIRD_PARTY_TIER=full`, and every finding ptxlint makes on it must be a row of
corpus/TRIAGE.md judged `real`; every `real` row of a module that was built must still be found.

It downloads pinned wheels and compiles with nvcc for many minutes, so it runs only with
`python -m pytest --corpus` (tests/conftest.py); otherwise it is skipped, with that reason."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

from conftest import HEAVY_SKIP, heavy_corpora, run_build
from ptxlint.lint import LintSettings, lint_source
from ptxlint.source import SourceFile

ROOT = Path(__file__).resolve().parent.parent
TRIAGE = ROOT / "corpus" / "TRIAGE.md"
_ROW = re.compile(r"^\| (?P<module>[\w.-]+/sm_\w+/[\w.-]+) \| (?P<code>PTX\d{3}) \| (?P<line>\d+) \| (?P<verdict>[^|]+?) \|")

pytestmark = pytest.mark.corpus


def third_party_directory() -> Path:
    return Path(os.environ.get("PTXLINT_THIRD_PARTY_DIR", Path.home() / ".cache" / "ptxlint" / "third-party"))


@pytest.fixture(scope="module")
def built_modules(request: pytest.FixtureRequest) -> list[dict]:
    if not heavy_corpora(request.config):
        pytest.skip(f"the third-party corpus (pinned wheels compiled with nvcc and Triton): {HEAVY_SKIP}")
    tier = os.environ.get("PTXLINT_THIRD_PARTY_TIER", "quick")
    command = [sys.executable, str(ROOT / "scripts" / "build_third_party_corpus.py"), "--tier", tier,
               "--out", str(third_party_directory())]
    status, output = run_build(request.config, "third-party corpus", command, lambda line: line.startswith(("[", "downloading ")) or "nvcc modules" in line)
    if status != 0:
        pytest.fail(f"building the third-party corpus failed:\n{output[-6000:]}")
    modules = json.loads((third_party_directory() / "manifest.json").read_text())["modules"]
    assert len({module["project"] for module in modules}) >= 5, output
    return modules


def triaged() -> dict[tuple[str, str, int], str]:
    rows = {}
    for line in TRIAGE.read_text().splitlines():
        match = _ROW.match(line)
        if match:
            rows[(match["module"], match["code"], int(match["line"]))] = match["verdict"].strip()
    return rows


def test_every_finding_is_a_triaged_real_bug(built_modules: list[dict]) -> None:
    verdicts = triaged()
    found: set[tuple[str, str, int]] = set()
    for module in built_modules:
        path = third_party_directory() / module["path"]
        name = f"{module['project']}/{module['arch']}/{module['name']}"
        for diagnostic in lint_source(SourceFile.from_bytes(str(path), path.read_bytes()), LintSettings()):
            found.add((name, diagnostic.code, diagnostic.span.line))
    untriaged = sorted(finding for finding in found if verdicts.get(finding) != "real")
    assert not untriaged, "findings not triaged as real in corpus/TRIAGE.md:\n" + "\n".join(map(str, untriaged))
    built = {f"{module['project']}/{module['arch']}/{module['name']}" for module in built_modules}
    missed = sorted(key for key, verdict in verdicts.items() if verdict == "real" and key[0] in built and key not in found)
    assert not missed, "real bugs no longer found:\n" + "\n".join(map(str, missed))
