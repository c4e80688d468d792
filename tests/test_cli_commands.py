"""The command line around linting: subcommands and their options, odd inputs, Triton's cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ptxlint.cli import main
from ptxlint.rules import ALL_RULES

BROKEN = ".version 9.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r1 %tid.x;\n\tret;\n}\n"


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ptxlint.toml").write_text("")  # keep the repository's own configuration out
    (tmp_path / "broken.ptx").write_text(BROKEN)
    return tmp_path


def invoke(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, list(args))


def test_concise_names_the_severity(files: Path) -> None:
    result = invoke("--output-format", "concise", "broken.ptx")
    assert result.stdout == "broken.ptx:7:14: error: PTX001 cannot parse `%tid.x`\n"


def test_options_before_a_subcommand(files: Path) -> None:
    quiet = invoke("-q", "rules")
    assert quiet.exit_code == 0, quiet.output
    assert not quiet.stdout.startswith("CODE") and quiet.stdout.startswith("PTX001")
    assert invoke("--isolated", "rules", "--output-format", "json").exit_code == 0
    assert invoke("-q", "dump", "ir", "broken.ptx").stdout.startswith("module broken.ptx")
    # Options of `check` before a file still mean `check`.
    assert invoke("-q", "--output-format", "concise", "broken.ptx").stdout.startswith("broken.ptx:7:14:")


def test_mistyped_subcommand_is_suggested(files: Path) -> None:
    result = invoke("rulez")
    assert result.exit_code == 2 and "unknown command `rulez` (did you mean `ptxlint rule" in result.output
    # A word far from every subcommand, or a path, is still a missing file.
    assert "no such file" in invoke("kernel").output and "no such file" in invoke("rules.ptx").output


def test_rules_as_json(files: Path) -> None:
    (files / "ptxlint.toml").write_text('ignore = ["PTX405"]\n')
    listing = json.loads(invoke("rules", "--output-format", "json").stdout)
    assert [entry["code"] for entry in listing] == [rule.code for rule in ALL_RULES]
    by_code = {entry["code"]: entry for entry in listing}
    assert by_code["PTX405"]["enabled"] is False and by_code["PTX101"]["enabled"] is True
    assert set(by_code["PTX101"]) == {"code", "name", "summary", "severity", "enabled_by_default", "enabled"}


def test_rule_all_and_json(files: Path) -> None:
    every = invoke("rule", "--all")
    assert every.exit_code == 0 and all(rule.code in every.stdout for rule in ALL_RULES)
    documents = json.loads(invoke("rule", "--all", "--output-format", "json").stdout)
    assert [document["code"] for document in documents] == [rule.code for rule in ALL_RULES]
    one = json.loads(invoke("rule", "PTX101", "--output-format", "json").stdout)
    assert one["name"] == "divergent-aligned-instruction" and "## Why is this bad?" in one["explanation"]
    assert invoke("rule").exit_code == 2 and invoke("rule", "PTX101", "--all").exit_code == 2


def test_piped_rule_has_no_trailing_spaces(files: Path) -> None:
    completed = subprocess.run([sys.executable, "-m", "ptxlint", "rule", "PTX101"], capture_output=True, text=True)
    assert completed.returncode == 0 and "PTX101" in completed.stdout
    assert [line for line in completed.stdout.splitlines() if line != line.rstrip()] == []


def test_statistics_as_json(files: Path) -> None:
    result = invoke("--statistics", "--output-format", "json", "broken.ptx")
    assert result.exit_code == 1
    assert json.loads(result.stdout) == [{"code": "PTX001", "name": "syntax-error", "count": 1}]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_is_an_error_not_a_hang(files: Path) -> None:
    os.mkfifo(files / "pipe.ptx")
    completed = subprocess.run(
        [sys.executable, "-m", "ptxlint", "--output-format", "concise", "pipe.ptx"], capture_output=True, text=True,
        timeout=60,
    )
    assert completed.returncode == 2
    assert "pipe.ptx: error: not a regular file (a FIFO)" in completed.stdout


def _triton_cache_entry(root: Path) -> tuple[Path, Path]:
    """A cache entry as Triton leaves one: the PTX (whose `.loc` lines name kernel.py), the TTIR
    source recording the kernel's `def` line, the group file that marks the folder."""
    python_file = root / "kernel.py"
    python_file.write_text("import triton\n\ndef k(x):\n    return x\n")
    entry = root / "cache" / "HASH"
    entry.mkdir(parents=True)
    ptx = BROKEN.replace(".address_size 64\n", f'.address_size 64\n.file 1 "{python_file}"\n')
    ptx = ptx.replace("\tmov.u32", "\t.loc 1 4 5\n\tmov.u32")
    (entry / "k.ptx").write_text(ptx)
    (entry / "k.source").write_text(f'#loc = loc("{python_file}":3:1)\nmodule {{\n}}\n')
    (entry / "__grp__k.json").write_text("{}")
    past = os.path.getmtime(entry / "k.ptx") - 100
    os.utime(python_file, (past, past))
    return python_file, entry / "k.ptx"


def test_stale_triton_cache_entry_is_warned_about(files: Path) -> None:
    python_file, ptx = _triton_cache_entry(files)
    fresh = invoke("--output-format", "concise", str(ptx))
    assert fresh.exit_code == 1 and "kernel.py:4:" in fresh.stdout and "warning" not in fresh.stderr
    # A line appended below the kernel: its def has not moved, but the file is newer.
    python_file.write_text(python_file.read_text() + "# more\n")
    later = os.path.getmtime(ptx) + 100
    os.utime(python_file, (later, later))
    assert "may have moved" in invoke("--output-format", "concise", str(ptx)).stderr
    # A line inserted above: the def is no longer where Triton saw it, whatever the times say.
    python_file.write_text("# a new first line\n" + python_file.read_text())
    past = os.path.getmtime(ptx) - 100
    os.utime(python_file, (past, past))
    stale = invoke("--output-format", "concise", str(ptx)).stderr
    assert "no longer defines `k` at line 3" in stale and "have moved" in stale


def test_stdin_filename_applies_the_configuration_of_its_path(files: Path) -> None:
    (files / "generated").mkdir()
    (files / "generated" / "ptxlint.toml").write_text(
        '[per-file-ignores]\n"skip_*.ptx" = ["PTX001"]\n[severity]\nPTX001 = "warning"\n'
    )

    def lint_buffer(path: str, *more: str):  # type: ignore[no-untyped-def]
        return CliRunner().invoke(main, ["--output-format", "concise", "--stdin-filename", path, *more], input=BROKEN)

    reported = lint_buffer("generated/k.ptx")
    assert reported.exit_code == 1 and reported.stdout == "generated/k.ptx:7:14: warning: PTX001 cannot parse `%tid.x`\n"
    assert lint_buffer("generated/skip_k.ptx").stdout == "" and lint_buffer("generated/skip_k.ptx").exit_code == 0
    assert lint_buffer("elsewhere/k.ptx").stdout.startswith("elsewhere/k.ptx:7:14: error: PTX001")
    assert lint_buffer("k.ptx", "-").exit_code == 1  # `-` may be given, as with ruff
    assert lint_buffer("k.ptx", "broken.ptx").exit_code == 2  # but no other path
    python = lint_buffer("kernel.py")
    assert python.exit_code == 2 and "kernel.py: error: a Python file is linted through" in python.stdout
