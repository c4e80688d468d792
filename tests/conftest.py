"""Shared test set-up, and the two tiers of the regression corpus of real PTX.

`python -m pytest` runs everything that needs only the `test` extra: our own CUDA and Triton
corpus kernels (corpus/cuda, corpus/triton) are compiled on first use, about a minute on two
cores. `python -m pytest --corpus` adds the heavy corpora, which need the `corpus` extra and take
up to an hour to build the first time: CUTLASS's examples compiled with nvcc, and the third-party
corpus. Without `--corpus` the tests over them are skipped, with the reason in the summary."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# The helpers next to the tests (ptx_tools) are imported by plain name.
sys.path.insert(0, str(Path(__file__).resolve().parent))

# The results and nvcc caches (ptxlint/cache.py) of this test run: fresh, and not the user's.
if "PTXLINT_CACHE_DIR" not in os.environ:
    import tempfile

    os.environ["PTXLINT_CACHE_DIR"] = tempfile.mkdtemp(prefix="ptxlint-test-cache-")

# The parts of the regression corpus, by the job ids scripts/build_corpus.py gives them. `own` is
# our sources (a second or two each) and is always tested; `cutlass` is CUTLASS's examples (minutes
# each, up to an hour in all on two cores) and is tested with --corpus.
CORPUS_PARTS = {"own": ("cuda/", "triton/"), "cutlass": ("cutlass/",)}
HEAVY_SKIP = "run with --corpus (pip install -e '.[test,corpus]' first; the first build takes up to an hour)"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("ptxlint").addoption(
        "--corpus", action="store_true", default=False,
        help="also test the heavy regression corpora: CUTLASS's examples compiled with nvcc "
             "(scripts/build_corpus.py) and the third-party corpus (scripts/build_third_party_corpus.py). "
             "Needs pip install -e '.[test,corpus]'; the first build takes up to an hour on two cores, "
             "later runs reuse ~/.cache/ptxlint.",
    )


def heavy_corpora(config: pytest.Config) -> bool:
    return bool(config.getoption("corpus"))


def pytest_report_header(config: pytest.Config) -> str:
    if heavy_corpora(config):
        return f"corpus: own CUDA and Triton kernels, CUTLASS examples, third-party corpus (--corpus); cache {corpus_directory()}"
    return (f"corpus: own CUDA and Triton kernels only (cache {corpus_directory()}); "
            "CUTLASS examples and the third-party corpus are skipped: run with --corpus")


def corpus_directory() -> Path:
    return Path(os.environ.get("PTXLINT_CORPUS_DIR", Path.home() / ".cache" / "ptxlint" / "corpus"))


def run_build(config: pytest.Config, title: str, command: list[str], echo: Callable[[str], bool]) -> tuple[int, str]:
    """Run a corpus build script and return its exit status and output. The lines `echo` accepts
    are written to the terminal as they come, past pytest's output capture (with or without -s):
    a first build takes minutes, and a silent one looks like a hang. Progress lines (`[3/80] …`)
    are written at most every five seconds, and the last one always."""
    terminal = config.pluginmanager.get_plugin("terminalreporter")
    capture = config.pluginmanager.get_plugin("capturemanager")
    output = []
    last = 0.0

    def write(line: str) -> None:
        if capture is None:
            terminal.write_line(f"[{title}] {line}", flush=True)
            return
        with capture.global_and_fixture_disabled():
            terminal.write_line(f"[{title}] {line}", flush=True)

    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1) as process:
        assert process.stdout is not None
        for line in process.stdout:
            output.append(line)
            if terminal is None or not line.strip() or not echo(line):
                continue
            progress = re.match(r"\[(\d+)/(\d+)\]", line)
            if progress and progress[1] != progress[2] and time.monotonic() - last < 5:
                continue
            last = time.monotonic()
            write(line.rstrip())
    return process.returncode, "".join(output)


@pytest.fixture(scope="session", params=list(CORPUS_PARTS))
def corpus_files(request: pytest.FixtureRequest) -> list[Path]:
    """The PTX files of one part of the regression corpus, built first if needed.

    The corpus is generated, never committed: scripts/build_corpus.py compiles our own CUDA and
    Triton sources (`own`) and CUTLASS's examples (`cutlass`, with --corpus) into a cache outside
    the repository, and a second run only checks the cache. `PTXLINT_CORPUS_TIER=full` adds the
    heaviest CUTLASS examples."""
    part = request.param
    if part == "cutlass" and not heavy_corpora(request.config):
        pytest.skip(f"CUTLASS examples compiled with nvcc: {HEAVY_SKIP}")
    prefixes = CORPUS_PARTS[part]
    tier = os.environ.get("PTXLINT_CORPUS_TIER", "quick")
    command = [sys.executable, str(ROOT / "scripts" / "build_corpus.py"), "--tier", tier,
               "--cache", str(corpus_directory()), *(f"--only={prefix}" for prefix in prefixes)]
    # The line that says how much is cached, and one line per job built.
    status, output = run_build(request.config, f"corpus: {part}", command,
                               lambda line: line.startswith("[") or " to build with " in line)
    if status != 0:
        pytest.fail(f"building the corpus failed ({' '.join(command)}):\n{output[-6000:]}")
    manifest = json.loads((corpus_directory() / "manifest.json").read_text())
    # The cache may hold more than this run asked for (a full build earlier): test what was asked.
    tiers = ("quick",) if tier == "quick" else ("quick", "full")
    files = [
        corpus_directory() / produced["path"]
        for job_id, job in manifest["jobs"].items()
        if job_id.startswith(prefixes) and job.get("tier", "quick") in tiers and not job.get("error")
        for produced in job["files"]
    ]
    assert files, f"the corpus manifest lists no {part} files"
    return sorted(files)
