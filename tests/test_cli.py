"""The command line: formats, output files, exit codes, colour, many files, odd inputs."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ptxlint.cli import main

ROOT = Path(__file__).resolve().parent.parent
BROKEN = ".version 9.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r1 %tid.x;\n\tret;\n}\n"
CLEAN = BROKEN.replace("%r1 %tid.x", "%r1, %tid.x")


@pytest.fixture
def files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ptxlint.toml").write_text("")  # keep the repository's own configuration out
    (tmp_path / "broken.ptx").write_text(BROKEN)
    (tmp_path / "clean.ptx").write_text(CLEAN)
    return tmp_path


def invoke(*args: str, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, list(args), env=env)


def test_exit_codes(files: Path) -> None:
    assert invoke("clean.ptx").exit_code == 0
    assert invoke("broken.ptx").exit_code == 1
    assert invoke("--exit-zero", "broken.ptx").exit_code == 0
    assert invoke("missing.ptx").exit_code == 2


def test_full_format_shows_frame_and_summary(files: Path) -> None:
    result = invoke("broken.ptx", "clean.ptx")
    assert result.stdout.startswith("error[PTX001]: cannot parse")
    assert " --> broken.ptx:7:14" in result.stdout
    assert "Found 1 error in 2 files checked" in result.stdout


def test_quiet_drops_the_summary(files: Path) -> None:
    result = invoke("--quiet", "broken.ptx")
    assert "Found" not in result.stdout and "error[PTX001]" in result.stdout


@pytest.mark.parametrize("output_format", ["concise", "json", "sarif", "github", "full"])
def test_output_file(files: Path, output_format: str) -> None:
    result = invoke("--output-format", output_format, "-o", "out.txt", "broken.ptx")
    assert result.exit_code == 1 and result.stdout == ""
    written = (files / "out.txt").read_text()
    assert "PTX001" in written and "\x1b[" not in written
    if output_format in ("json", "sarif"):
        json.loads(written)


def test_statistics(files: Path) -> None:
    (files / "more.ptx").write_text(BROKEN)
    result = invoke("--statistics", "broken.ptx", "more.ptx")
    assert result.stdout == "2  PTX001  syntax-error\n"


def test_parallel_output_is_identical_and_ordered(files: Path) -> None:
    for index in range(12):
        (files / f"k{index:02}.ptx").write_text(BROKEN if index % 3 else CLEAN)
    paths = sorted(str(path.name) for path in files.glob("k*.ptx"))
    serial = invoke("--output-format", "concise", *paths)
    parallel = invoke("--output-format", "concise", "-j", "2", *paths)
    assert serial.stdout == parallel.stdout and serial.stdout
    assert serial.stdout.splitlines() == sorted(serial.stdout.splitlines())


@pytest.mark.parametrize(
    ("flag", "env", "coloured"),
    [
        ("auto", {}, False),  # not a TTY
        ("auto", {"FORCE_COLOR": "1"}, True),
        ("auto", {"NO_COLOR": "1", "FORCE_COLOR": "1"}, False),
        ("always", {"NO_COLOR": "1"}, True),
        ("never", {"FORCE_COLOR": "1"}, False),
    ],
)
def test_colour_selection(files: Path, flag: str, env: dict[str, str], coloured: bool) -> None:
    base = {"NO_COLOR": "", "FORCE_COLOR": ""}
    result = invoke("--color", flag, "broken.ptx", env={**base, **env})
    assert ("\x1b[" in result.stdout) is coloured


def test_control_characters_in_file_names_are_neutralised(files: Path) -> None:
    name = "evil\x1b[2J.ptx"
    (files / name).write_text(BROKEN)
    for output_format in ("full", "concise"):
        result = invoke("--output-format", output_format, "--color", "never", name)
        assert "\x1b" not in result.stdout and "\\x1b[2J" in result.stdout


def test_stdin(files: Path) -> None:
    result = CliRunner().invoke(main, ["--output-format", "concise", "-"], input=BROKEN)
    assert result.stdout.startswith("<stdin>:7:14: error: PTX001")


def test_unwritable_output_file_exits_2(files: Path) -> None:
    result = invoke("-o", str(files / "no" / "such" / "dir.txt"), "broken.ptx")
    assert result.exit_code == 2 and "cannot write" in result.stderr


def test_rule_docs(files: Path) -> None:
    result = invoke("rule", "PTX002")
    assert result.exit_code == 0 and "unused-suppression" in result.stdout and "Use instead" in result.stdout
    assert invoke("rule", "PTX999").exit_code == 2


def test_dump_uniformity_fails_clearly_or_works(files: Path) -> None:
    result = invoke("dump", "uniformity", "clean.ptx")
    if result.exit_code != 0:
        assert result.exit_code == 2 and "uniformity" in result.stderr
    assert "Traceback" not in result.stderr


def test_binary_and_directory_inputs(files: Path) -> None:
    (files / "blob.ptx").write_bytes(b"\x00\x01\x02 not PTX")
    result = invoke("--output-format", "concise", "blob.ptx")
    assert result.exit_code == 2 and "binary file" in result.stdout
    # An ELF file is a CUDA binary candidate: cuobjdump is asked for its PTX, and says it has none.
    (files / "broken.so").write_bytes(b"\x7fELF\0\0\0")
    result = invoke("--output-format", "concise", "broken.so")
    assert result.exit_code == 2 and "broken.so: error:" in result.stdout and "cuobjdump" in result.stdout
    (files / "empty").mkdir()
    assert invoke("empty").exit_code == 2


def test_version_does_not_import_the_linter() -> None:
    code = "import sys; from ptxlint.cli import main\ntry: main(['--version'])\nexcept SystemExit: pass\n"
    code += "print(sorted(m for m in sys.modules if m.startswith(('rich', 'tree_sitter', 'ptxlint.lint'))))"
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert output.strip().endswith("[]")


def test_a_module_without_function_bodies_runs_no_analysis(files: Path) -> None:
    """An empty module (a pre-commit hook's stub, a header of declarations) has nothing for the
    rules that read function bodies: they do not run, and neither the passes they would ask for
    nor the analysis modules they name are loaded (modules registered for loading on first use
    but never used do not count); the module-level checks still run."""
    (files / "empty.ptx").write_text(".version 8.0\n.target sm_90a\n.address_size 64\n")
    code = "import sys; from ptxlint.cli import main\ntry: main(['--output-format', 'concise', 'empty.ptx'])\nexcept SystemExit: pass\n"
    code += "print(sorted(m for m, module in sys.modules.items() if m.startswith('ptxlint.analyses.') and type(module).__name__ != '_LazyModule' and m.count('.') > 2 and not m.endswith(('target_gates', 'threads', 'tcgen05', 'asynchronous'))))"
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=files).stdout
    assert output.strip().endswith("[]"), output
    (files / "old_version.ptx").write_text(".version 7.0\n.target sm_90a\n.address_size 64\n")
    assert "PTX404" in invoke("--output-format", "concise", "old_version.ptx").stdout


def test_a_module_without_collectives_loads_no_solver_pass(files: Path) -> None:
    """Start-up is most of a small file's lint: passes load only when a rule needs their result,
    and the convergence rules need none where no instruction is a collective."""
    code = "import sys; from ptxlint.cli import main\ntry: main(['--output-format', 'concise', 'clean.ptx'])\nexcept SystemExit: pass\n"
    code += "print(sorted(m for m in sys.modules if m.startswith(('ptxlint.analyses.uniformity', 'ptxlint.analyses.tcgen05.pending', 'ptxlint.analyses.tcgen05.frees', 'ptxlint.analyses.tcgen05.hand_offs', 'ptxlint.analyses.asynchronous.proxy', 'ptxlint.analyses.threads.branch_sides', 'ptxlint.analyses.threads.reach'))))"
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=files).stdout
    assert output.strip().endswith("[]")


@pytest.mark.skipif(shutil.which("ptxlint") is None, reason="the ptxlint script is not installed")
def test_console_script(files: Path) -> None:
    completed = subprocess.run(["ptxlint", "--output-format", "concise", "broken.ptx"], capture_output=True, text=True)
    assert completed.returncode == 1 and "PTX001" in completed.stdout


def test_timings_account_for_every_stage(files: Path) -> None:
    """`--timings` charges each stage its own CPU time: the parse, the rules, and the analyses
    the rules asked for (here the uniformity analysis the convergence rules share), on stderr,
    leaving the findings on stdout untouched."""
    kernel = ROOT / "examples" / "divergent_tcgen05.ptx"
    plain = invoke("--output-format", "concise", str(kernel))
    timed = invoke("--output-format", "concise", "--timings", str(kernel))
    assert timed.exit_code == plain.exit_code == 1
    assert timed.stdout == plain.stdout
    rows = {line.split()[0] if not line.startswith("parse + lower") else "parse + lower": line for line in timed.stderr.splitlines()}
    assert {"parse + lower", "uniformity", "PTX101", "total"} <= rows.keys()
    # Exclusive times: a stage that ran inside another is never also counted in it.
    stages = [float(line.rsplit(None, 2)[-2]) for name, line in rows.items() if name not in ("stage", "total")]
    assert all(seconds >= 0 for seconds in stages) and float(rows["total"].split()[1]) > 0
