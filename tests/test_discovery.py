"""Which files a run lints, and how an input that cannot be linted is reported: folders yield
PTX, CUDA C++ and fatbins, less what `exclude` and `.gitignore` leave out; a missing path, an
empty or unreadable folder and a failed compile are errors of that input only, every other
input's findings are reported and written, and the exit code is 2."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from ptxlint import config
from ptxlint.cli import main
from ptxlint.frontends.toolkit import find_tool

ROOT = Path(__file__).resolve().parent.parent
CLEAN = ".version 9.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n"
BROKEN = CLEAN.replace("ret;", "ret")  # PTX001 on line 6
CUDA_EXAMPLE = ROOT / "examples" / "tmem_alloc_divergent.cu"  # PTX101 at its tcgen05.alloc line


def invoke(*args: str):  # type: ignore[no-untyped-def]
    # These runs share one process and create configuration files between them: where one is
    # found is remembered per folder (a changed file is read again by itself).
    config._find_config_in.cache_clear()
    return CliRunner().invoke(main, ["--output-format", "concise", *args])


def linted(output: str) -> list[str]:
    """The paths of the findings in concise output, in order."""
    return [line.split(":", 1)[0] for line in output.splitlines() if ": PTX" in line]


def write(path: Path, text: str = BROKEN) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder with an empty ptxlint.toml, the working directory."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ptxlint.toml").write_text("")
    return tmp_path


def require_nvcc() -> None:
    assert find_tool("nvcc") is not None, "nvcc not found: install the test extra (pip install -e '.[test]')"


# ----------------------------------------------------------------------------- what folders yield


def test_folder_of_only_cu_files_is_compiled_and_linted(project: Path) -> None:
    require_nvcc()
    shutil.copy(CUDA_EXAMPLE, write(project / "src" / "k.cu", ""))
    result = invoke("src/")
    assert result.exit_code == 1, result.output
    assert linted(result.output) == ["src/k.cu"] and "PTX101" in result.output


def test_folder_yields_ptx_cu_and_fatbin_files_sorted(project: Path) -> None:
    for name in ("b.ptx", "a/z.ptx", "kernel.cuh", "notes.txt", "host.o", "k.cubin", "app.fatbin", "k.cu"):
        write(project / "src" / name)
    result = invoke("src", "--output-format", "json")
    files = [entry["path"] for entry in json.loads(result.stdout)["files"]]
    # The fatbin and the .cu are not real (a compile or cuobjdump error each): they were yielded.
    assert files == ["src/a/z.ptx", "src/app.fatbin", "src/b.ptx", "src/k.cu"]


def test_folder_of_cu_files_takes_flags_from_the_compilation_database(project: Path) -> None:
    require_nvcc()
    # The barrier is partial only with -DBUGGY, which only the database gives.
    write(project / "src" / "flagged.cu", "__global__ void f(int *o)\n{\n#ifdef BUGGY\n    if (threadIdx.x % 2)\n"
          "#endif\n    __syncthreads();\n    o[threadIdx.x] = 1;\n}\n")
    entry = {"directory": str(project), "file": "src/flagged.cu", "arguments": ["nvcc", "-DBUGGY", "-c", "src/flagged.cu"]}
    write(project / "build" / "compile_commands.json", json.dumps([entry]))
    assert invoke("src").exit_code == 0
    result = invoke("src", "-p", "build")
    assert result.exit_code == 1 and "src/flagged.cu:6:" in result.output and "PTX102" in result.output


def test_include_settings(project: Path) -> None:
    write(project / "k.ptx")
    write(project / "gen" / "k.ptxt")
    (project / "ptxlint.toml").write_text('extend-include = ["*.ptxt"]\n')
    assert linted(invoke(".").output) == ["gen/k.ptxt", "k.ptx"]
    (project / "ptxlint.toml").write_text('include = ["*.ptxt"]\n')
    assert linted(invoke(".").output) == ["gen/k.ptxt"]


def test_default_excludes(project: Path) -> None:
    for folder in (".git", ".venv", "venv", "node_modules", "build", "dist", "__pycache__", ".mypy_cache"):
        write(project / folder / "k.ptx")
    write(project / "kernels" / "k.ptx")
    result = invoke(".")
    assert linted(result.output) == ["kernels/k.ptx"], result.output
    # Named on the command line, an excluded folder or file is linted (as in ruff) ...
    assert linted(invoke("build").output) == ["build/k.ptx"]
    assert linted(invoke("build/k.ptx").output) == ["build/k.ptx"]
    # ... unless --force-exclude applies the excludes to it too (what a pre-commit hook wants).
    result = invoke("--force-exclude", "build/k.ptx", "kernels/k.ptx")
    assert linted(result.output) == ["kernels/k.ptx"] and result.exit_code == 1
    (project / "ptxlint.toml").write_text("force-exclude = true\n")
    assert linted(invoke("build/k.ptx", "kernels/k.ptx").output) == ["kernels/k.ptx"]
    result = invoke("build/k.ptx")  # a commit that stages only excluded files passes the hook
    assert result.exit_code == 0 and "every path given is excluded (--force-exclude)" in result.stderr
    # Folders up to the project root count, wherever ptxlint runs; those above it do not.
    os.chdir(project / "build")
    assert linted(invoke("k.ptx").output) == []
    write(project / "build" / "inner" / "ptxlint.toml", "force-exclude = true\n")
    os.chdir(project / "build" / "inner")
    write(project / "build" / "inner" / "k.ptx")
    assert linted(invoke("k.ptx").output) == ["k.ptx"]


def test_exclude_settings_and_options(project: Path) -> None:
    write(project / "kernels" / "generated" / "a.ptx")
    write(project / "kernels" / "b.ptx")
    write(project / "kernels" / "b.gen.ptx")
    write(project / "build" / "c.ptx")
    (project / "ptxlint.toml").write_text('extend-exclude = ["kernels/generated", "*.gen.ptx"]\n')
    assert linted(invoke(".").output) == ["kernels/b.ptx"]
    # `exclude` replaces the defaults, build/ included.
    (project / "ptxlint.toml").write_text('exclude = ["generated"]\n')
    assert linted(invoke(".").output) == ["build/c.ptx", "kernels/b.gen.ptx", "kernels/b.ptx"]
    # The command line's `--exclude` replaces the setting, `--extend-exclude` adds to it.
    assert linted(invoke(".", "--exclude", "b.gen.ptx").output) == [
        "build/c.ptx", "kernels/b.ptx", "kernels/generated/a.ptx",
    ]
    assert linted(invoke(".", "--extend-exclude", "build,kernels/b.*").output) == []
    # A pattern with `/` is relative to the configuration file's folder, wherever ptxlint runs.
    (project / "ptxlint.toml").write_text('extend-exclude = ["kernels/generated"]\n')
    os.symlink(project / "kernels", project / "alias")  # ... and through a link, where it really is
    assert linted(invoke("alias").output) == ["alias/b.gen.ptx", "alias/b.ptx"]
    os.chdir(project / "kernels")
    assert linted(invoke(".").output) == ["b.gen.ptx", "b.ptx"]


def test_unknown_or_malformed_file_settings_are_errors(project: Path) -> None:
    (project / "ptxlint.toml").write_text("exclude = [1]\n")
    result = invoke(".")
    assert result.exit_code == 2 and "`exclude` must be a list of glob patterns" in result.output
    (project / "ptxlint.toml").write_text('respect-gitignore = "no"\n')
    assert "`respect-gitignore` must be true or false" in invoke(".").output


def test_gitignore_is_respected(project: Path) -> None:
    (project / ".git").mkdir()  # a repository: its root's .gitignore applies to sub-folders named
    (project / ".gitignore").write_text("out/\n*.tmp.ptx\n")
    write(project / "out" / "k.ptx")
    write(project / "kernels" / "a.tmp.ptx")
    write(project / "kernels" / "a.ptx")
    write(project / "kernels" / "vendored" / "v.ptx")
    write(project / "kernels" / "vendored" / "keep.tmp.ptx")
    (project / "kernels" / ".gitignore").write_text("vendored/*\n!vendored/keep.tmp.ptx\n")
    assert linted(invoke(".").output) == ["kernels/a.ptx", "kernels/vendored/keep.tmp.ptx"]
    assert linted(invoke("kernels").output) == ["kernels/a.ptx", "kernels/vendored/keep.tmp.ptx"]
    assert linted(invoke("--no-respect-gitignore", "kernels").output) == [
        "kernels/a.ptx", "kernels/a.tmp.ptx", "kernels/vendored/keep.tmp.ptx", "kernels/vendored/v.ptx",
    ]
    (project / "ptxlint.toml").write_text("respect-gitignore = false\n")
    assert "out/k.ptx" in linted(invoke(".").output)


def test_gitignore_above_a_repository_is_not_read(project: Path) -> None:
    (project / ".gitignore").write_text("*\n")  # a home folder's, say: not this repository's
    write(project / "repo" / "k.ptx")
    (project / "repo" / ".git").mkdir()
    assert linted(invoke("repo").output) == ["repo/k.ptx"]


# ----------------------------------------------------------------------------- per-input errors


def test_missing_path_beside_a_good_file_writes_every_format(project: Path) -> None:
    write(project / "good.ptx")
    result = invoke("missing.ptx", "good.ptx")
    assert result.exit_code == 2
    assert "missing.ptx: error: no such file or directory" in result.output and linted(result.output) == ["good.ptx"]
    result = invoke("--output-format", "sarif", "-o", "x.sarif", "--exit-zero", "missing.ptx", "good.ptx")
    assert result.exit_code == 2  # an input that could not be linted is not a finding --exit-zero forgives
    log = json.loads((project / "x.sarif").read_text())["runs"][0]
    assert [entry["ruleId"] for entry in log["results"]] == ["PTX001"]
    assert log["invocations"][0]["executionSuccessful"] is False
    (notification,) = log["invocations"][0]["toolExecutionNotifications"]
    assert notification["message"]["text"] == "missing.ptx: no such file or directory"
    document = json.loads(invoke("--output-format", "json", "missing.ptx", "good.ptx").output)
    assert [(entry["path"], entry["error"]) for entry in document["files"]] == [
        ("missing.ptx", "no such file or directory"), ("good.ptx", None),
    ]


def test_empty_folder_beside_a_good_file(project: Path) -> None:
    write(project / "good.ptx")
    (project / "empty").mkdir()
    write(project / "only_excluded" / "build" / "k.ptx")
    result = invoke("empty", "good.ptx", "only_excluded")
    assert result.exit_code == 2 and linted(result.output) == ["good.ptx"]
    assert "empty: error: no files to lint in this folder (it includes *.ptx, *.cu, *.fatbin)" in result.output
    assert "only_excluded: error: no files to lint in this folder (it includes *.ptx, *.cu, *.fatbin); " \
        "1 excluded or git-ignored entry" in result.output


def test_unreadable_sub_folder_is_an_error(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Tests run as root, whom permission bits do not stop; the folder's listing fails the way an
    # unreadable folder's does, from inside the walker (the next test uses real permissions).
    write(project / "kernels" / "a.ptx")
    write(project / "kernels" / "locked" / "b.ptx")
    locked = str(project / "kernels" / "locked")
    real_scandir = os.scandir

    def scandir(path):  # type: ignore[no-untyped-def]
        if os.fspath(path) == locked:
            raise PermissionError(13, "Permission denied", locked)
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    result = invoke("kernels")
    assert result.exit_code == 2 and linted(result.output) == ["kernels/a.ptx"]
    assert "kernels/locked: error: cannot read the folder: Permission denied" in result.output


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads folders whatever their permissions")
def test_unreadable_sub_folder_by_permissions(project: Path) -> None:
    write(project / "kernels" / "a.ptx")
    locked = write(project / "kernels" / "locked" / "b.ptx").parent
    locked.chmod(0)
    try:
        result = invoke("kernels")
    finally:
        locked.chmod(0o755)
    assert result.exit_code == 2 and linted(result.output) == ["kernels/a.ptx"]
    assert "kernels/locked: error: cannot read the folder: Permission denied" in result.output


def test_links_and_special_files_in_a_folder(project: Path) -> None:
    write(project / "kernels" / "a.ptx")
    os.symlink(project / "kernels", project / "kernels" / "loop")  # a cycle, were it followed
    os.symlink(project / "nowhere.ptx", project / "kernels" / "dangling.ptx")
    os.mkfifo(project / "kernels" / "pipe.ptx")  # no writer: reading it would never end
    result = invoke("kernels")
    assert linted(result.output) == ["kernels/a.ptx"]
    assert "kernels/dangling.ptx: error: No such file or directory" in result.output and result.exit_code == 2
    assert "kernels/pipe.ptx: error: not a regular file (a FIFO, socket or device)" in result.output


def test_failed_architecture_keeps_the_others(project: Path) -> None:
    require_nvcc()
    shutil.copy(CUDA_EXAMPLE, project / "k.cu")  # tcgen05: compiles for sm_100a, not for sm_90a
    result = invoke("k.cu", "--arch", "sm_90a", "--arch", "sm_100a")
    assert result.exit_code == 2
    assert "k.cu[sm_90a]: error: nvcc failed for sm_90a" in result.output
    assert linted(result.output) == ["k.cu"] and "PTX101" in result.output
    assert "not supported on .target 'sm_90a'" in result.stderr  # nvcc's own words, as it printed them
    result = invoke("--output-format", "sarif", "-o", "k.sarif", "k.cu", "--arch", "sm_90a", "--arch", "sm_100a")
    log = json.loads((project / "k.sarif").read_text())["runs"][0]
    assert [entry["ruleId"] for entry in log["results"]] == ["PTX101"]
    (notification,) = log["invocations"][0]["toolExecutionNotifications"]
    assert notification["message"]["text"].startswith("k.cu[sm_90a]: nvcc failed for sm_90a")
    assert "not supported on .target 'sm_90a'" in notification["message"]["text"]
    assert notification["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "k.cu"
    files = json.loads(invoke("--output-format", "json", "k.cu", "--arch", "sm_90a", "--arch", "sm_100a").stdout)["files"]
    assert [entry["path"] for entry in files] == ["k.cu[sm_90a]", "k.cu[sm_100a]"]
    assert "not supported on .target 'sm_90a'" in files[0]["tool_output"] and "tool_output" not in files[1]
