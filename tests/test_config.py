"""Configuration: discovery, selection, severity overrides, options, and clear errors (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ptxlint.cli import main
from ptxlint.config import ConfigError, ConfigResolver, CommandLineSelection, expand, find_config_file
from ptxlint.rules import ALL_RULES

BROKEN = """.version 9.0
.target sm_90a
.address_size 64
.visible .entry k()
{
	.reg .b32 %r<2>;
	mov.u32 %r1 %tid.x;
	ret;
}
"""
STALE = BROKEN.replace("%r1 %tid.x;", "%r1, %tid.x;  // ptxlint: ignore[PTX001]")


def lint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, list[dict]]:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["--output-format", "json", *args])
    if result.exit_code == 2:
        return 2, []
    return result.exit_code, json.loads(result.stdout)["diagnostics"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "broken.ptx").write_text(BROKEN)
    (tmp_path / "stale.ptx").write_text(STALE)
    return tmp_path


def codes(diagnostics: list[dict]) -> list[str]:
    return [d["code"] for d in diagnostics]


def test_defaults_without_configuration(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    status, found = lint(project, monkeypatch, "broken.ptx", "stale.ptx")
    assert status == 1 and codes(found) == ["PTX001", "PTX002"]


def test_pyproject_ignore_and_severity(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "pyproject.toml").write_text(
        '[project]\nname = "x"\n[tool.ptxlint]\nignore = ["unused-suppression"]\n'
        '[tool.ptxlint.severity]\nPTX001 = "warning"\n'
    )
    status, found = lint(project, monkeypatch, "broken.ptx", "stale.ptx")
    assert codes(found) == ["PTX001"] and found[0]["severity"] == "warning"


def test_closest_configuration_wins(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "ptxlint.toml").write_text('ignore = ["PTX001"]\n')
    sub = project / "sub"
    sub.mkdir()
    (sub / "broken.ptx").write_text(BROKEN)
    (sub / "ptxlint.toml").write_text("select = [\"PTX0\"]\n")
    _, found = lint(project, monkeypatch, "broken.ptx", "sub/broken.ptx")
    assert [(d["location"]["path"], d["code"]) for d in found] == [("sub/broken.ptx", "PTX001")]


def test_ptxlint_toml_beats_pyproject_in_the_same_directory(project: Path) -> None:
    (project / "pyproject.toml").write_text("[tool.ptxlint]\n")
    (project / "ptxlint.toml").write_text("")
    assert find_config_file(project) == (project / "ptxlint.toml").resolve()


def test_pyproject_without_table_is_skipped(project: Path) -> None:
    (project / "pyproject.toml").write_text('[project]\nname = "x"\n')
    sub = project / "sub"
    sub.mkdir()
    (sub / "pyproject.toml").write_text('[project]\nname = "y"\n')
    (project / "ptxlint.toml").write_text("")
    assert find_config_file(sub) == (project / "ptxlint.toml").resolve()


def test_per_file_ignores(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "ptxlint.toml").write_text('[per-file-ignores]\n"broken.ptx" = ["PTX001"]\n')
    _, found = lint(project, monkeypatch, "broken.ptx", "stale.ptx")
    assert codes(found) == ["PTX002"]


def test_command_line_overrides_files(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "ptxlint.toml").write_text('select = ["PTX002"]\n')
    _, found = lint(project, monkeypatch, "--select", "PTX001", "broken.ptx", "stale.ptx")
    assert codes(found) == ["PTX001"]
    _, found = lint(project, monkeypatch, "--extend-select", "PTX001", "broken.ptx", "stale.ptx")
    assert codes(found) == ["PTX001", "PTX002"]
    _, found = lint(project, monkeypatch, "--isolated", "--ignore", "PTX0", "broken.ptx")
    assert codes(found) == []


def test_explicit_config_file(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "elsewhere.toml").write_text('ignore = ["PTX001"]\n')
    _, found = lint(project, monkeypatch, "--config", "elsewhere.toml", "broken.ptx")
    assert codes(found) == []


def test_selectors_by_code_name_prefix_and_all() -> None:
    assert expand("PTX001", "t") == {"PTX001"}
    assert expand("ptx001", "t") == {"PTX001"}
    assert expand("syntax-error", "t") == {"PTX001"}
    assert expand("PTX0", "t") >= {"PTX001", "PTX002"}
    assert expand("ALL", "t") == {rule.code for rule in ALL_RULES}


def test_all_includes_rules_off_by_default(project: Path) -> None:
    resolved = ConfigResolver(isolated=True, command_line=CommandLineSelection(select=("ALL",))).for_path("x.ptx")
    assert resolved.codes == {rule.code for rule in ALL_RULES}


def test_rule_options(project: Path) -> None:
    (project / "ptxlint.toml").write_text("assume-1d-block = false\n")
    assert ConfigResolver().for_path(str(project / "broken.ptx")).options.assume_1d_block is False


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('select = ["PTX99"]\n', "unknown rule or prefix `PTX99`"),
        ('select = ["synatx-error"]\n', "did you mean `syntax-error`"),
        ("select = [\n", "invalid TOML"),
        ("colour = true\n", "unknown setting `colour`"),
        ('[severity]\nPTX001 = "fatal"\n', "must be one of"),
        ('assume-1d-block = "yes"\n', "must be a bool"),
        ('[per-file-ignores]\n"*.ptx" = ["NOPE"]\n', "unknown rule"),
    ],
)
def test_bad_configuration_exits_2_with_a_clear_message(
    project: Path, monkeypatch: pytest.MonkeyPatch, text: str, message: str
) -> None:
    (project / "ptxlint.toml").write_text(text)
    monkeypatch.chdir(project)
    result = CliRunner().invoke(main, ["broken.ptx"])
    assert result.exit_code == 2
    assert message in result.stderr and "Traceback" not in result.stderr


def test_unknown_code_on_the_command_line_exits_2(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    result = CliRunner().invoke(main, ["--select", "PTX1234", "broken.ptx"])
    assert result.exit_code == 2 and "PTX1234" in result.stderr


def test_missing_config_file_exits_2(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    result = CliRunner().invoke(main, ["--config", "nope.toml", "broken.ptx"])
    assert result.exit_code == 2 and "nope.toml" in result.stderr


def test_rules_command_shows_enabled_state(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "ptxlint.toml").write_text('ignore = ["PTX002"]\n')
    monkeypatch.chdir(project)
    result = CliRunner().invoke(main, ["rules"])
    assert result.exit_code == 0
    rows = {line.split()[0]: line.split() for line in result.stdout.splitlines()[1:]}
    assert set(rows) == {rule.code for rule in ALL_RULES}
    assert rows["PTX001"][3] == "yes" and rows["PTX002"][3] == "no"


def test_config_error_class_is_raised_for_bad_selector() -> None:
    with pytest.raises(ConfigError):
        expand("BOGUS", "test")
