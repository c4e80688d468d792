"""What the results and nvcc caches (ptxlint/cache.py) save in the inner loop, printed as a table
with targets:

  * a folder of PTX linted again unchanged, against the same run with `--no-cache` (target: the
    cached run takes under a tenth of the time);
  * a small `.cu` file linted again unchanged (target: under half the time; nvcc is not run, and
    what remains is the interpreter's start-up and linting a small PTX file, the floor of any run).

The folder is the regression corpus's CUTLASS sm_100a kernels (`~/.cache/ptxlint/corpus`, built
by `scripts/build_corpus.py --corpus`) when present, else its own CUDA kernels, else the fixtures;
the `.cu` file is `examples/tmem_alloc_divergent.cu`. Each run is a fresh process with a fresh
cache folder. Usage:

    python benchmarks/bench_cache.py [--folder DIR] [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("PTXLINT_CORPUS_DIR", Path.home() / ".cache" / "ptxlint" / "corpus"))
COMMAND = [sys.executable, "-m", "ptxlint", "--isolated", "--quiet", "--exit-zero", "--output-format", "concise"]


def wall(arguments: list[str], cache: Path) -> float:
    environment = {**os.environ, "PTXLINT_CACHE_DIR": str(cache)}
    started = time.perf_counter()
    subprocess.run([*COMMAND, *arguments], cwd=ROOT, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - started


def cold_and_warm(arguments: list[str], repeat: int) -> tuple[float, float]:
    """Median seconds of an uncached run and of a run whose cache an identical run filled."""
    cold, warm = [], []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory(prefix="ptxlint-bench-cache-") as cache:
            cold.append(wall(["--no-cache", *arguments], Path(cache)))
            wall(arguments, Path(cache))
            warm.append(wall(arguments, Path(cache)))
    return statistics.median(cold), statistics.median(warm)


def default_folder() -> Path:
    for candidate in (CORPUS / "cutlass" / "sm_100a", CORPUS / "cuda" / "sm_100a"):
        if candidate.is_dir() and any(candidate.glob("*.ptx")):
            return candidate
    return ROOT / "fixtures"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--folder", type=Path, default=None, help="a folder of PTX (default: see above)")
    parser.add_argument("--repeat", type=int, default=3)
    arguments = parser.parse_args()
    folder = arguments.folder or default_folder()
    rows = []
    cold, warm = cold_and_warm([str(folder)], arguments.repeat)
    files = len(list(folder.rglob("*.ptx")))
    rows.append((f"re-lint {folder.name}/ ({files} files)", cold, warm, warm < cold / 10, "< 1/10"))
    example = ROOT / "examples" / "tmem_alloc_divergent.cu"
    cold, warm = cold_and_warm([str(example)], arguments.repeat)
    rows.append((f"re-lint {example.name} (nvcc)", cold, warm, warm < cold / 2, "< 1/2"))
    print(f"{'case':<44} {'uncached':>9} {'cached':>9} {'ratio':>7}  target")
    for name, cold, warm, met, target in rows:
        print(f"{name:<44} {cold:>8.2f}s {warm:>8.2f}s {warm / cold:>7.3f}  {target} {'ok' if met else 'MISSED'}")


if __name__ == "__main__":
    main()
