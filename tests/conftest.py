from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# The helpers next to the tests (ptx_tools) are imported by plain name.
sys.path.insert(0, str(Path(__file__).resolve().parent))


def corpus_directory() -> Path:
    return Path(os.environ.get("PTXLINT_CORPUS_DIR", Path.home() / ".cache" / "ptxlint" / "corpus"))


@pytest.fixture(scope="session")
def corpus_files() -> list[Path]:
    """Every PTX file of the regression corpus, built first if needed.

    The corpus is generated, never committed: scripts/build_corpus.py compiles our own CUDA and
    Triton sources and CUTLASS's examples into a cache outside the repository, and a second run
    only checks the cache. `PTXLINT_CORPUS_TIER=full` adds the heaviest CUTLASS examples."""
    tier = os.environ.get("PTXLINT_CORPUS_TIER", "quick")
    command = [sys.executable, str(ROOT / "scripts" / "build_corpus.py"), "--tier", tier, "--cache", str(corpus_directory())]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        pytest.fail(f"building the corpus failed ({' '.join(command)}):\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    manifest = json.loads((corpus_directory() / "manifest.json").read_text())
    # The cache may hold more than this run asked for (a full build earlier): test what was asked.
    tiers = ("quick",) if tier == "quick" else ("quick", "full")
    files = [
        corpus_directory() / produced["path"]
        for job in manifest["jobs"].values()
        if job.get("tier", "quick") in tiers and not job.get("error")
        for produced in job["files"]
    ]
    assert files, "the corpus manifest lists no files"
    return sorted(files)
