"""The analyses, and what they import from the IR, graphs, passes and ISA tables, type-check
under `mypy --strict` (the scope and options are pyproject.toml's [tool.mypy]). About ten
seconds on two cores with an empty cache, which is what it gets here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_analyses_type_check_strictly(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "mypy"), "ptxlint/analyses"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found" in result.stdout
