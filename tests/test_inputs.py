"""Every kind of bad input has a defined outcome: a clear message and an exit code, never a
traceback (exit 0 clean, 1 findings, 2 usage or I/O error)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

CLEAN = ".version 9.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n"


def run(*arguments: str, stdin: bytes | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ptxlint", *arguments, "--output-format", "concise"],
        input=stdin.decode("utf-8", "replace") if stdin is not None else None,
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def assert_no_traceback(result: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout, result.stderr


def test_clean_file_exits_zero(tmp_path: Path) -> None:
    (tmp_path / "ok.ptx").write_text(CLEAN)
    result = run(str(tmp_path / "ok.ptx"))
    assert result.returncode == 0, result.stdout + result.stderr


def test_syntax_error_is_a_finding(tmp_path: Path) -> None:
    (tmp_path / "bad.ptx").write_text(CLEAN.replace("ret;", "ret"))
    result = run(str(tmp_path / "bad.ptx"))
    assert result.returncode == 1
    assert "PTX001" in result.stdout


def test_missing_file_is_an_error(tmp_path: Path) -> None:
    result = run(str(tmp_path / "nope.ptx"))
    assert result.returncode == 2
    assert "no such file" in (result.stdout + result.stderr)
    assert_no_traceback(result)


def test_unreadable_file_is_an_error(tmp_path: Path) -> None:
    # A dangling symlink cannot be opened, whoever runs the test (root ignores permission bits).
    os.symlink(tmp_path / "gone.ptx", tmp_path / "dangling.ptx")
    result = run(str(tmp_path / "dangling.ptx"))
    assert result.returncode == 2
    assert "dangling.ptx" in result.stdout + result.stderr
    assert_no_traceback(result)


def test_directory_without_ptx_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    result = run(str(tmp_path))
    assert result.returncode == 2
    assert f"{tmp_path}: error: no files to lint in this folder (it includes *.ptx, *.cu, *.fatbin)" in result.stdout
    assert_no_traceback(result)


def test_directory_is_searched_recursively_in_sorted_order(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "z.ptx").write_text(CLEAN.replace("ret;", "ret"))
    (tmp_path / "a.ptx").write_text(CLEAN.replace("ret;", "ret"))
    result = run(str(tmp_path))
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith(str(tmp_path / "a.ptx")) and lines[1].startswith(str(tmp_path / "b" / "z.ptx"))


def test_binary_file_is_refused(tmp_path: Path) -> None:
    # Not a CUDA binary (those go to cuobjdump, see test_frontends.py): refused as not PTX text.
    (tmp_path / "picture.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    result = run(str(tmp_path / "picture.png"))
    assert result.returncode == 2
    assert "binary file" in result.stdout + result.stderr
    assert_no_traceback(result)


def test_empty_file_lacks_version(tmp_path: Path) -> None:
    (tmp_path / "empty.ptx").write_bytes(b"")
    result = run(str(tmp_path / "empty.ptx"))
    assert result.returncode == 1
    assert "PTX001" in result.stdout and "`.version`" in result.stdout


def test_non_utf8_bytes_in_comments_are_fine(tmp_path: Path) -> None:
    (tmp_path / "latin1.ptx").write_bytes(b"// caf\xe9 \xff\xfe\n" + CLEAN.encode())
    result = run(str(tmp_path / "latin1.ptx"))
    assert result.returncode == 0, result.stdout + result.stderr


def test_non_utf8_bytes_in_code_are_a_syntax_error(tmp_path: Path) -> None:
    (tmp_path / "garbage.ptx").write_bytes(CLEAN.replace("ret;", "r\xe9t;").encode("latin-1"))
    result = run(str(tmp_path / "garbage.ptx"))
    assert result.returncode == 1
    assert "PTX001" in result.stdout
    assert_no_traceback(result)


def test_file_over_the_size_limit_is_refused(tmp_path: Path) -> None:
    (tmp_path / "big.ptx").write_text(CLEAN * 10)
    result = run(str(tmp_path / "big.ptx"), "--max-file-size", "100")
    assert result.returncode == 2
    assert "limit" in result.stdout + result.stderr
    assert_no_traceback(result)


def test_stdin(tmp_path: Path) -> None:
    result = run("-", stdin=CLEAN.replace("ret;", "ret").encode())
    assert result.returncode == 1
    assert result.stdout.startswith("<stdin>:")


def test_no_arguments_is_a_usage_error() -> None:
    result = subprocess.run([sys.executable, "-m", "ptxlint"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert_no_traceback(result)
