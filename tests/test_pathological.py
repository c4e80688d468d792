"""Pathological inputs end to end: the command line with the default rules (SARIF to /dev/null, no
time budget, so that slowness shows instead of being cut short) in a subprocess whose wall time
and peak resident memory are measured. No traceback (no RecursionError, no MemoryError), exit 0
or 1, and within the bounds below.

The inputs are benchmarks/bench_pathological.py's generators. The suite runs reduced sizes (the
full sizes of issue 7 take minutes where the growth is not yet linear); the benchmark runs the
full sizes and two sizes each to show the growth. Each bound is several times the time measured
on a 2-core CI machine (column `measured`), so it catches a quadratic blow-up (4× per doubling)
rather than a loaded machine. Peak memory includes the ~25 MiB of the interpreter and rules.

Known super-linear growth, outside the files this test's owner maintains (see the issue 7 report):
  deep_cfg / looping_cfg  uniformity/control.py: the state carries every enclosing
                          divergence, so joins cost O(n) and blocks are revisited O(depth) times;
  nested_scopes           uniformity/registers.py `_declaring_scope` walks the scope chain per register;
  call_chain / call_cycle uniformity/driver.py `_selected_functions`, `_exiting_functions` and
                          tcgen05.py `callee_operations` call `CallGraph.reachable_from` per
                          function (CallGraph.transitive/reaching/reachable_from_any are linear).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("bench_pathological", ROOT / "benchmarks" / "bench_pathological.py")
assert _spec is not None and _spec.loader is not None
bench = importlib.util.module_from_spec(_spec)
sys.modules["bench_pathological"] = bench
_spec.loader.exec_module(bench)

# case, size run here (full size in the benchmark), bound in CPU seconds, bound in MiB. Measured on
# a 2-core machine: time bounds are ~6x, memory bounds ~2.5x (the interpreter's share is fixed).
CASES = [
    # 8 MB single line (full: 100 MB)                             measured 0.43 s,  80 MiB
    ("long_line", 8_000_000, 6.0, 250),
    # 100,000 instructions in one function (full: 1,000,000)               3.88 s, 265 MiB
    ("many_instructions", 100_000, 25.0, 660),
    # 10,000 labels+branches, loops nested 5,000 deep (full: 100,000)      1.16 s,  63 MiB
    ("deep_cfg", 10_000, 8.0, 160),
    # 10,000 labels+branches, irreducible ladder (full: 100,000)           1.33 s,  77 MiB
    ("irreducible_cfg", 10_000, 8.0, 200),
    # 10,000 branches back to one loop head (full: 100,000)                1.26 s,  76 MiB
    ("looping_cfg", 10_000, 8.0, 200),
    # 10,000 nested `{ }` scopes (full size)                               0.56 s,  66 MiB
    ("nested_scopes", 10_000, 6.0, 170),
    # a vector operand of 100,000 elements (full size)                    0.98 s, 162 MiB
    ("wide_vector", 100_000, 8.0, 400),
    # 5,000 functions in a call chain (full: 100,000)                      1.69 s, 132 MiB
    ("call_chain", 5_000, 12.0, 330),
    # 5,000 functions in one call cycle (full: 100,000)                    2.19 s, 140 MiB
    ("call_cycle", 5_000, 14.0, 350),
    # 1,000 kernels in one module (full size)                              1.43 s,  81 MiB
    ("many_kernels", 1_000, 10.0, 200),
]


@pytest.mark.parametrize(("name", "size", "max_seconds", "max_mib"), CASES, ids=[case[0] for case in CASES])
def test_pathological_input(name: str, size: int, max_seconds: float, max_mib: float, tmp_path: Path) -> None:
    path = bench.generated(bench.CASES_BY_NAME[name], size, tmp_path)
    measured = bench.measure(path, extra=("--time-budget", "0"), timeout=max_seconds * 4)
    assert measured.exit in (0, 1), measured.stderr
    assert "Traceback" not in measured.stderr and "internal error" not in measured.stderr, measured.stderr
    assert measured.seconds <= max_seconds, f"{name} at {size:,}: {measured.seconds:.1f}s > {max_seconds}s"
    assert measured.peak_mib <= max_mib, f"{name} at {size:,}: {measured.peak_mib:.0f} MiB > {max_mib} MiB"


# ----------------------------------------------------------------------------- the time budget


def _run(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ptxlint", "--isolated", *arguments], capture_output=True, text=True, timeout=300, cwd=ROOT
    )


def slow_to_analyse(registers: int) -> bytes:
    """A loop whose every block rewrites another register, each initialised before it, the loop
    condition depending on all of them: every state of the uniformity analysis holds all the
    registers (quick to lower, quadratic to analyse: 1,000 take ~18 s)."""
    lines = [bench.HEADER, ".visible .entry k()\n{\n\t.reg .pred %p<4>;\n", f"\t.reg .b32 %r<{registers + 8}>;\n",
             "\tmov.u32 %r1, %tid.x;\n"]
    lines.extend(f"\tmov.u32 %r{3 + index}, {index};\n" for index in range(registers))
    lines.append(f"HEAD:\n\tsetp.lt.u32 %p1, %r{registers + 2}, %r1;\n")
    for index in range(registers):
        register = 3 + index
        lines.append(f"\tadd.s32 %r{register}, %r{register}, %r{register - 1 if index else 1};\n\t@%p1 bra HEAD;\nN{index}:\n")
    lines.append("\tbar.sync 0;\n\tret;\n}\n")
    return "".join(lines).encode()


def test_time_budget_reports_partial_analysis(tmp_path: Path) -> None:
    """A file the analyses cannot finish in time is reported as partially analysed, quickly,
    with the rule that was stopped and those skipped named; the exit code is that of its findings."""
    path = tmp_path / "slow.ptx"
    path.write_bytes(slow_to_analyse(1_000))
    result = _run("--time-budget", "1", "--output-format", "concise", str(path))
    assert result.returncode == 0, result.stderr
    assert "warning: partially analysed: the 1s time budget (--time-budget) ran out; stopped PTX101" in result.stdout
    assert "skipped" in result.stdout and "PTX002" in result.stdout
    for output_format in ("full", "json", "sarif", "github"):
        result = _run("--time-budget", "0.5", "--output-format", output_format, str(path))
        assert result.returncode == 0 and "partially analysed" in result.stdout, (output_format, result.stderr)


def test_time_budget_keeps_findings_made_in_time(tmp_path: Path) -> None:
    """Syntax errors (PTX001, first in rule order) are reported even when the budget runs out."""
    text = slow_to_analyse(1_000).replace(b"\tbar.sync 0;\n", b"\tbar.sync 0\n")
    path = tmp_path / "broken.ptx"
    path.write_bytes(text)
    result = _run("--time-budget", "1", "--output-format", "concise", str(path))
    assert result.returncode == 1, result.stderr
    assert "PTX001" in result.stdout and "partially analysed" in result.stdout


def test_time_budget_from_configuration(tmp_path: Path) -> None:
    path = tmp_path / "slow.ptx"
    path.write_bytes(slow_to_analyse(1_000))
    (tmp_path / "ptxlint.toml").write_text("time-budget = 1\n")
    result = subprocess.run(
        [sys.executable, "-m", "ptxlint", "--output-format", "concise", path.name],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )
    assert result.returncode == 0 and "the 1s time budget" in result.stdout, result.stdout + result.stderr
    (tmp_path / "ptxlint.toml").write_text('time-budget = "soon"\n')
    result = subprocess.run(
        [sys.executable, "-m", "ptxlint", "--output-format", "concise", path.name],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )
    assert result.returncode == 2 and "`time-budget` must be a number" in result.stderr


def test_unlimited_budget_and_clean_files_are_not_partial() -> None:
    from ptxlint.lint import LintSettings, analyse
    from ptxlint.source import SourceFile

    source = SourceFile.from_bytes("k.ptx", bench.many_kernels(3))
    for seconds in (0.0, 60.0):
        analysis = analyse(source, LintSettings(time_budget=seconds))
        assert analysis.notice is None and analysis.unfinished == ()


def test_solver_checks_the_deadline() -> None:
    """The dataflow solver raises BudgetExceeded between block visits once the deadline passed."""
    from ptxlint import cfg
    from ptxlint.context import BudgetExceeded, Deadline
    from ptxlint.dataflow import solve_forward
    from ptxlint.lower import lower
    from ptxlint.source import SourceFile

    module = lower(SourceFile.from_bytes("k.ptx", bench.looping_cfg(200)))
    graph = cfg.build(module.functions[0])

    class Counting:
        def bottom(self) -> int:
            return 0

        def entry(self) -> int:
            return 0

        def join(self, first: int, second: int) -> int:
            return max(first, second)

        def transfer(self, index: int, instruction: object, state: int) -> int:
            return min(state + 1, 10_000)  # climbs slowly: many visits

    with Deadline(1e-9).active():
        with pytest.raises(BudgetExceeded):
            solve_forward(graph, Counting())
    assert solve_forward(graph, Counting()).block_entry  # no deadline outside the driver
