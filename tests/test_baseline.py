"""Baselines hide recorded findings by fingerprint, survive line shifts, and count duplicates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ptxlint.cli import main

HEADER = ".version 9.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b32 %r<3>;\n"
FOOTER = "\tret;\n}\n"


def invoke(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: str):  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    return CliRunner().invoke(main, list(args))


def test_write_then_apply(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kernel = tmp_path / "k.ptx"
    kernel.write_text(HEADER + "\tmov.u32 %r1 %tid.x;\n" + FOOTER)
    written = invoke(tmp_path, monkeypatch, "--write-baseline", "baseline.json", "k.ptx")
    assert written.exit_code == 0
    entries = json.loads((tmp_path / "baseline.json").read_text())["findings"]
    assert [(e["path"], e["code"], e["count"]) for e in entries] == [("k.ptx", "PTX001", 1)]

    clean = invoke(tmp_path, monkeypatch, "--baseline", "baseline.json", "k.ptx")
    assert clean.exit_code == 0 and "1 in the baseline" in clean.stdout

    # Lines inserted above the finding do not make it new.
    kernel.write_text("// a new comment\n// and another\n" + HEADER + "\tmov.u32 %r1 %tid.x;\n" + FOOTER)
    assert invoke(tmp_path, monkeypatch, "--baseline", "baseline.json", "k.ptx").exit_code == 0

    # A second identical finding is new.
    kernel.write_text(HEADER + "\tmov.u32 %r1 %tid.x;\n\tmov.u32 %r1 %tid.x;\n" + FOOTER)
    again = invoke(tmp_path, monkeypatch, "--baseline", "baseline.json", "--output-format", "concise", "k.ptx")
    assert again.exit_code == 1 and again.stdout.count("PTX001") == 1


def test_changed_line_is_new(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    kernel = tmp_path / "k.ptx"
    kernel.write_text(HEADER + "\tmov.u32 %r1 %tid.x;\n" + FOOTER)
    invoke(tmp_path, monkeypatch, "--write-baseline", "b.json", "k.ptx")
    kernel.write_text(HEADER + "\tmov.u32 %r2 %tid.y;\n" + FOOTER)
    assert invoke(tmp_path, monkeypatch, "--baseline", "b.json", "k.ptx").exit_code == 1


@pytest.mark.parametrize("content", ["not json", '{"version": 99, "findings": []}', '{"version": 1, "findings": [{}]}'])
def test_bad_baseline_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: str) -> None:
    (tmp_path / "k.ptx").write_text(HEADER + FOOTER)
    (tmp_path / "b.json").write_text(content)
    result = invoke(tmp_path, monkeypatch, "--baseline", "b.json", "k.ptx")
    assert result.exit_code == 2 and "b.json" in result.stderr and "Traceback" not in result.stderr


def test_missing_baseline_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "k.ptx").write_text(HEADER + FOOTER)
    assert invoke(tmp_path, monkeypatch, "--baseline", "nope.json", "k.ptx").exit_code == 2


@pytest.mark.parametrize("marker", ["ptxlint.toml", ".git", None])
def test_baseline_paths_are_relative_to_the_project_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, marker: str | None
) -> None:
    # The root: the configuration file's folder, else the git repository's, else the baseline's.
    project = tmp_path / "project"
    (project / "kernels").mkdir(parents=True)
    if marker == "ptxlint.toml":
        (project / marker).write_text("")
    elif marker == ".git":
        (project / marker).mkdir()
    kernel = project / "kernels" / "a.ptx"
    kernel.write_text(HEADER + "\tmov.u32 %r1 %tid.x;\n" + FOOTER)
    recorded = invoke(project, monkeypatch, "--write-baseline", "b.json", "kernels/a.ptx")
    assert recorded.exit_code == 0
    entries = json.loads((project / "b.json").read_text())["findings"]
    assert [entry["path"] for entry in entries] == ["kernels/a.ptx"]
    # From a sub-folder, with a relative or an absolute path, from outside the project.
    for cwd, baseline, path in (
        (project / "kernels", "../b.json", "a.ptx"),
        (project / "kernels", str(project / "b.json"), str(kernel)),
        (project, str(project / "b.json"), str(kernel)),
        (tmp_path, "project/b.json", "project/kernels/a.ptx"),
    ):
        result = invoke(cwd, monkeypatch, "--baseline", baseline, path)
        assert result.exit_code == 0 and "1 in the baseline" in result.stdout, (cwd, baseline, path, result.output)
    # Recorded from a sub-folder, the paths are still the root's.
    invoke(project / "kernels", monkeypatch, "--write-baseline", str(project / "c.json"), "a.ptx")
    assert [entry["path"] for entry in json.loads((project / "c.json").read_text())["findings"]] == ["kernels/a.ptx"]
