"""Locating CUDA's ptxas for tests that use it as an oracle.

ptxas comes from the `nvidia-cuda-nvcc` wheel (a test dependency, see pyproject.toml); a ptxas
on PATH or in $PTXLINT_PTXAS is used when set, so the tests also run against a full CUDA install.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path


@functools.cache
def ptxas() -> str | None:
    explicit = os.environ.get("PTXLINT_PTXAS")
    if explicit:
        return explicit
    for root in map(Path, sys.path):
        for candidate in (root / "nvidia" / "cu13" / "bin" / "ptxas", root / "nvidia" / "cuda_nvcc" / "bin" / "ptxas"):
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return str(candidate)
    return shutil.which("ptxas")


def target_of(text: str) -> str:
    """The architecture named by a module's first `.target` directive (ptxas's -arch)."""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(".target"):
            return stripped.split()[1].rstrip(",")
    return "sm_90a"


def assemble(path: Path) -> subprocess.CompletedProcess[str]:
    """Run ptxas on one file for the architecture it names; the result's returncode tells."""
    tool = ptxas()
    assert tool is not None, "ptxas not found: install the test extra (pip install -e '.[test]')"
    arch = target_of(path.read_text(errors="replace"))
    return subprocess.run(
        [tool, f"-arch={arch}", "-O0", "-o", os.devnull, str(path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
