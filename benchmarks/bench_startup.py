"""What `ptxlint` costs before it reads a line: the CPU time of a fresh process linting an empty
module (`.version`, `.target`, `.address_size` only), with the default rules, printed with its
target (≤ 100 ms CPU) beside the interpreter's own start-up, and the ptxlint modules such a run
loads (a clean run of a small file must load only what its rules need).

CPU time (user + system of the child), not wall time: on a shared machine wall time measures the
neighbours. The run happens in an empty scratch folder, so no configuration file is read (as for
most users' kernels). Usage:

    python benchmarks/bench_startup.py [--repeat N] [--program PATH]

`--program`: an installed `ptxlint` to time; by default `python -m ptxlint` from this
environment (an editable install adds its import finder to every start-up).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

TARGET_SECONDS = 0.100
EMPTY_MODULE = ".version 8.0\n.target sm_90a\n.address_size 64\n"

# Run inside the child instead of `python -m ptxlint`: the same program, then a list of the
# ptxlint modules it loaded (the program ends with os._exit, so the list is taken there).
_LIST_MODULES = r"""
import os, sys
exit_now = os._exit
def report(code):
    loaded = sorted(name for name in sys.modules if name.startswith("ptxlint"))
    print("\n".join(loaded), file=sys.stderr)
    exit_now(code)
os._exit = report
sys.argv = ["ptxlint", *sys.argv[1:]]
from ptxlint.cli import run
run()
"""


def cpu_seconds(command: list[str], cwd: Path) -> float:
    """The CPU time one run of ``command`` took, children included."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def median_cpu(command: list[str], cwd: Path, repeat: int) -> tuple[float, float]:
    runs = [cpu_seconds(command, cwd) for _ in range(repeat)]
    return statistics.median(runs), min(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=21)
    parser.add_argument("--program", type=Path, default=None)
    arguments = parser.parse_args()
    program = [str(arguments.program)] if arguments.program else [sys.executable, "-m", "ptxlint"]

    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        empty = folder / "empty.ptx"
        empty.write_text(EMPTY_MODULE)
        arguments_ = ["--no-cache", str(empty)]
        interpreter, interpreter_least = median_cpu([sys.executable, "-c", "pass"], folder, arguments.repeat)
        lint, lint_least = median_cpu([*program, *arguments_], folder, arguments.repeat)
        listing = subprocess.run(
            [sys.executable, "-c", _LIST_MODULES, *arguments_], cwd=folder, capture_output=True, text=True, check=False
        )
    modules = [line for line in listing.stderr.splitlines() if line.startswith("ptxlint")]
    families: dict[str, int] = {}
    for name in modules:
        family = ".".join(name.split(".")[:2])
        families[family] = families.get(family, 0) + 1

    print(f"{'measure':<38}  {'median':>8}  {'least':>8}  {'target':>9}  ok")
    print(f"{'python -c pass':<38}  {interpreter * 1000:6.0f} ms  {interpreter_least * 1000:6.0f} ms")
    ok = "yes" if lint <= TARGET_SECONDS else "NO"
    print(f"{'ptxlint empty.ptx (CPU)':<38}  {lint * 1000:6.0f} ms  {lint_least * 1000:6.0f} ms  {'<= 100 ms':>9}  {ok}")
    print(f"ptxlint modules loaded: {len(modules)} ({', '.join(f'{name} {count}' for name, count in sorted(families.items()))})")
    print(f"(median of {arguments.repeat} runs; load average {os.getloadavg()[0]:.1f}; CPU times count in 10 ms ticks on some systems)")


if __name__ == "__main__":
    main()
