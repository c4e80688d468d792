"""Throughput of ptxlint's pipeline on big inputs, printed as a table.

For each input it measures, each in a fresh subprocess so that peak memory is the run's own, and
reports the median CPU time of several runs (--runs):
  * `parse`   tree-sitter's bare Parser.parse of the whole text through py-tree-sitter — the floor
              (ptxlint's own parse leaves large plain initializers out, so it may go below it);
  * `native`  the same bare parse through the runtime compiled into ptxlint (`ptxlint._native`),
              when the build had its source — the floor of the native front end;
  * `lower`   parse + lowering to the IR (target: ≤ 1.3× `parse` on files over 10,000 lines);
  * `lint`    the whole default rule set end to end (target: ≥ 80,000 lines/s, ≥ 4× ptxas -O0);
  * `cli`     the whole `ptxlint --no-cache FILE` program, start-up and output included: what a
              user waits for (issue 23's measure beside the bare parse and ptxas);
  * `passes`  the slowest single pass or rule of the lint (`--timings`' exclusive times, parse +
              lower left out), named in the table: none may cost more than the bare parse;
  * `ptxas`   `ptxas -O0` on the same file, for scale (real files only; CPU time, median of
              --ptxas-runs runs, as for the stages; a `.version` newer than this ptxas knows is
              clamped to the newest it does);
plus peak memory per input line of the `lower` stage, ptxlint's parse + lower (target ≤ 1.2 KB;
the floor's own memory is not counted) and of `lint` (target ≤ 1.5 KB), and linear scaling on the synthetic file (2× input ≤
2.1× time).

The runs go round by round, each stage and ptxas once per round, so that a drift in the
machine's speed moves every median alike rather than the one column measured while it lasted.

Inputs: the largest files of the regression corpus (`scripts/build_corpus.py`) and a synthetic
1,000,000-line kernel generated into the cache. Usage:

    python benchmarks/bench_pipeline.py [--corpus DIR] [--largest N] [--lines N] [--runs N]
                                        [--stages parse,native,lower,lint] [--skip-ptxas]
                                        [--ptxas-runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

CACHE = Path(os.environ.get("PTXLINT_CACHE", Path.home() / ".cache" / "ptxlint"))

# A child process runs one stage on one file and prints {"seconds": …, "peak_kib": …}. Seconds are
# the process's CPU time: the stages are single-threaded, and on a shared machine wall-clock time
# measures the neighbours as much as ptxlint.
_CHILD = r"""
import gc, json, resource, sys, time
stage, path = sys.argv[1], sys.argv[2]
from ptxlint import syntax
from ptxlint.source import SourceFile
from ptxlint.lower import lower
from ptxlint.lint import LintSettings, analyse, lint_source
data = open(path, "rb").read()
source = SourceFile.from_bytes(path, data)
syntax.parse(b".version 9.0\n")  # load the grammar before the clock starts
if stage == "native":
    syntax.native.parse(b".version 9.0\n")
# Start-up (modules a first call imports, tables built once per process) is bench_cli.py's to
# measure: a tiny kernel goes through the stage first, so that time and memory are the file's.
warm_up = SourceFile.from_bytes("warm_up.ptx", (
    b".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u64 out)\n{\n"
    b"\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<2>;\n\tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, %tid.x;\n"
    b"\tbar.sync 0;\n\tst.global.u32 [%rd1], %r1;\n\tret;\n}\n"
))
if stage == "lower":
    lower(warm_up)
elif stage in ("lint", "passes"):
    lint_source(warm_up, LintSettings())
    from ptxlint import passes  # the passes the tiny kernel did not need: their modules too
    for name in passes.PASS_NAMES:
        passes.load(name)
baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started = time.process_time()
if stage == "parse":
    tree = syntax.parse(data, whole=True)
elif stage == "native":
    tree = syntax.native.parse(data)
elif stage == "lower":
    module = lower(source)
elif stage == "passes":
    stages = dict(analyse(source, LintSettings(timings=True)).timings)
    stages.pop("parse + lower", None)
    slowest = max(stages.items(), key=lambda item: item[1], default=("-", 0.0))
else:
    diagnostics = lint_source(source, LintSettings())
seconds = time.process_time() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
if stage == "passes":
    print(json.dumps({"seconds": slowest[1], "peak_kib": peak - baseline, "name": slowest[0]}))
else:
    print(json.dumps({"seconds": seconds, "peak_kib": peak - baseline}))
"""


# The `cli` stage: a fresh wrapper runs the program once and reports its child's CPU time and peak
# memory (a wrapper per run, since a process's children's peak is the largest of all it waited for).
_PROGRAM = r"""
import json, resource, subprocess, sys
subprocess.run([sys.executable, "-m", "ptxlint", "--no-cache", "--output-format", "concise", sys.argv[1]],
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"seconds": usage.ru_utime + usage.ru_stime, "peak_kib": usage.ru_maxrss}))
"""


def run_once(stage: str, path: Path) -> dict[str, float]:
    """One fresh process running ``stage`` on ``path``: its CPU time and peak memory."""
    child = [sys.executable, "-c", _PROGRAM, str(path)] if stage == "cli" else [sys.executable, "-c", _CHILD, stage, str(path)]
    with tempfile.TemporaryDirectory() as scratch:  # no configuration file or cache of ours applies
        output = subprocess.run(child, capture_output=True, text=True, check=True, cwd=scratch).stdout
    return json.loads(output.strip().splitlines()[-1])


def summary(results: list[dict[str, float]]) -> dict[str, float]:
    """The median CPU time of several runs, and the largest peak memory among them."""
    results = sorted(results, key=lambda result: result["seconds"])
    middle = results[(len(results) - 1) // 2]  # the median run (the lower one of an even count)
    return {
        "seconds": statistics.median(result["seconds"] for result in results),
        "peak_kib": max(result["peak_kib"] for result in results),
        "name": middle.get("name", ""),
    }


class Ptxas:
    """`ptxas -O0` on one file, CPU time per run; a `.version` newer than this ptxas knows is
    clamped to the newest it does (once, into a scratch copy). ``seconds()`` is None when
    ptxas is missing or rejects the file."""

    def __init__(self, path: Path) -> None:
        self._tool = shutil.which("ptxas")
        self._path = path
        self._scratch = tempfile.TemporaryDirectory()
        self._arch = "sm_90a"
        with path.open(errors="replace") as handle:
            for line in handle:
                if line.startswith(".target"):
                    self._arch = line.split()[1].rstrip(",")
                    break

    def seconds(self) -> float | None:
        if self._tool is None:
            return None
        for attempt in range(2):
            # CPU time, like the stages: other load on the machine must not flatter either side.
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            result = subprocess.run(
                [self._tool, f"-arch={self._arch}", "-O0", "-o", os.devnull, str(self._path)], capture_output=True, text=True
            )
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if result.returncode == 0:
                return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
            newest = re.search(r"Unsupported \.version \S+; current version is '([0-9.]+)'", result.stderr)
            if newest is None or attempt:
                return None
            # A newer PTX ISA than this ptxas knows (Triton's): assemble it as the newest it does.
            clamped = Path(self._scratch.name) / self._path.name
            text = self._path.read_text(errors="replace")
            clamped.write_text(re.sub(r"^\.version\s+\S+", f".version {newest.group(1)}", text, count=1, flags=re.M))
            self._path = clamped
        return None


def native_built() -> bool:
    probe = "from ptxlint import syntax; print(syntax.native is not None)"
    return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True).stdout.strip() == "True"


def synthetic_kernel(lines: int) -> Path:
    """A kernel of `lines` lines in the instruction mix nvcc emits for a GEMM main loop."""
    path = CACHE / "bench" / f"synthetic-{lines}.ptx"
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    header = [
        ".version 9.0", ".target sm_100a", ".address_size 64", "",
        ".visible .entry synthetic(.param .u64 .ptr .global .align 16 out)", ".maxntid 256, 1, 1", "{",
        "\t.reg .pred \t%p<64>;", "\t.reg .b32 \t%r<4096>;", "\t.reg .b64 \t%rd<512>;", "\t.reg .f32 \t%f<1024>;",
        "\tld.param.u64 \t%rd1, [out];", "\tmov.u32 \t%r1, %tid.x;",
    ]
    body = [
        "\tld.global.nc.v4.f32 \t{%f1, %f2, %f3, %f4}, [%rd2+16];",
        "\tfma.rn.f32 \t%f5, %f1, %f2, %f5;",
        "\tadd.s32 \t%r3, %r3, 1;",
        "\tshl.b32 \t%r4, %r3, 4;",
        "\tmad.lo.s32 \t%r5, %r4, %r1, %r3;",
        "\tcvt.u64.u32 \t%rd3, %r5;",
        "\tadd.s64 \t%rd4, %rd1, %rd3;",
        "\tst.global.f32 \t[%rd4], %f5;",
        "\tsetp.lt.u32 \t%p1, %r3, 1024;",
        "\t// a comment line, as nvcc writes them",
        "\tbar.sync \t0;",
    ]
    with path.open("w") as handle:
        handle.write("\n".join(header) + "\n")
        written, block = len(header), 0
        while written < lines - 3:
            handle.write(f"$L__BB0_{block}:\n")
            for line in body:
                handle.write(line + "\n")
            handle.write(f"\t@%p1 bra \t$L__BB0_{block};\n")
            written += len(body) + 2
            block += 1
        handle.write("\tret;\n}\n")
    return path


def corpus_files(corpus: Path, largest: int) -> list[Path]:
    manifest = corpus / "manifest.json"
    if not manifest.exists():
        return []
    entries = json.loads(manifest.read_text())
    entries = entries.get("files", entries) if isinstance(entries, dict) else entries
    ranked = sorted(entries, key=lambda entry: entry.get("lines", 0), reverse=True)
    return [corpus / entry["path"] if not Path(entry["path"]).is_absolute() else Path(entry["path"]) for entry in ranked[:largest]]


def count_lines(path: Path) -> int:
    with path.open("rb") as handle:
        return sum(1 for _ in handle)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=CACHE / "corpus")
    parser.add_argument("--largest", type=int, default=4)
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3, help="runs per stage; the median counts")
    parser.add_argument("--skip-ptxas", action="store_true")
    parser.add_argument(
        "--ptxas-runs", type=int, default=None,
        help="ptxas runs per file, in the first rounds (default: --runs); the median counts",
    )
    parser.add_argument("--stages", default="parse,native,lower,lint")
    arguments = parser.parse_args()
    if arguments.ptxas_runs is None:
        arguments.ptxas_runs = arguments.runs
    stages = arguments.stages.split(",")
    if "native" in stages and not native_built():
        print("(no `native` column: ptxlint was built without its native front end)")
        stages.remove("native")

    inputs = corpus_files(arguments.corpus, arguments.largest)
    half, full = synthetic_kernel(arguments.lines // 2), synthetic_kernel(arguments.lines)
    inputs += [half, full]
    header = f"{'file':44s} {'lines':>9s}" + "".join(f" {stage + ' s':>9s} {'klines/s':>9s}" for stage in stages)
    header += f" {'lower/parse':>11s} {'B/line':>7s} {'lint B/l':>8s} {'ptxas s':>8s} {'ptxas/lint':>10s}"
    header += f" {'cli/parse':>9s} {'ptxas/cli':>9s}" if "cli" in stages and "parse" in stages else ""
    header += f" {'pass/parse':>10s} slowest pass" if "passes" in stages and "parse" in stages else ""
    print(header)
    times: dict[Path, dict[str, float]] = {}
    for path in inputs:
        lines = count_lines(path)
        row = f"{path.name[-44:]:44s} {lines:9d}"
        measured: dict[str, float] = {}
        slowest = ""
        peak = lint_peak = float("nan")
        synthetic = path in (half, full)
        ptxas = None if arguments.skip_ptxas or synthetic else Ptxas(path)
        # Round by round, every stage and ptxas once each: a drift in the machine's speed (a
        # freshly started host, a neighbour) then shifts every median alike, not one column.
        runs: dict[str, list[dict[str, float]]] = {stage: [] for stage in stages}
        ptxas_runs: list[float] = []
        for round_number in range(arguments.runs):
            for stage in stages:
                runs[stage].append(run_once(stage, path))
            if ptxas is not None and round_number < arguments.ptxas_runs:
                seconds = ptxas.seconds()
                if seconds is None:
                    ptxas = None
                else:
                    ptxas_runs.append(seconds)
        for stage in stages:
            result = summary(runs[stage])
            measured[stage] = result["seconds"]
            if stage == "lower":  # the memory target is ptxlint's parse + lower, not the floor's
                peak = result["peak_kib"]
            elif stage == "lint":
                lint_peak = result["peak_kib"]
            elif stage == "passes":
                slowest = result["name"]
            row += f" {result['seconds']:9.2f} {lines / result['seconds'] / 1000:9.1f}"
        times[path] = measured
        ratio = measured["lower"] / measured["parse"] if "lower" in measured and "parse" in measured else float("nan")
        assembled = statistics.median(ptxas_runs) if ptxas is not None and ptxas_runs else float("nan")
        versus = assembled / measured["lint"] if "lint" in measured else float("nan")
        row += f" {ratio:11.2f} {peak * 1024 / lines:7.0f} {lint_peak * 1024 / lines:8.0f} {assembled:8.2f} {versus:10.2f}"
        if "cli" in measured and "parse" in measured:
            row += f" {measured['cli'] / measured['parse']:9.2f} {assembled / measured['cli']:9.2f}"
        if "passes" in measured and "parse" in measured:
            row += f" {measured['passes'] / measured['parse']:10.2f} {slowest}"
        print(row, flush=True)
    for stage in stages:
        scaling = times[full][stage] / times[half][stage]
        print(f"scaling {stage}: 2x input -> {scaling:.2f}x time (target <= 2.1)")


if __name__ == "__main__":
    main()
