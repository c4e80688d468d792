"""Pathological inputs: time and peak memory of the whole default rule set, at two sizes each.

Each input is generated into a cache directory, then linted end to end by the command line
(`ptxlint --output-format FORMAT -o /dev/null --max-analysis-steps 0`) in a fresh subprocess, so that
the CPU time and peak resident memory (`ru_maxrss`) of that child are the run's own. The table
shows, per input, both sizes, CPU time, peak memory and the growth ratios: with the input
doubled, linear code takes about 2× the time (memory grows less, because of the interpreter's
fixed ~60 MB).

    python benchmarks/bench_pathological.py              # the full sizes of issue 7
    python benchmarks/bench_pathological.py --scale 0.1  # a tenth of every size
    python benchmarks/bench_pathological.py --only deep_cfg,call_chain

tests/test_pathological.py imports the generators and :func:`measure` from here and runs reduced
sizes with stated bounds.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("PTXLINT_CACHE", Path.home() / ".cache" / "ptxlint")) / "pathological"
HEADER = ".version 9.0\n.target sm_100a\n.address_size 64\n"

# ----------------------------------------------------------------------------- generators
# Each takes a size and returns the PTX bytes. Sizes count what the issue counts.


def long_line(size: int) -> bytes:
    """One line of ``size`` bytes holding a whole kernel: instructions with a syntax error in
    every hundredth (a diagnostic whose column is far along the line, rendered with its source
    line), and a long comment making up the rest."""
    head = ".visible .entry k() { .reg .b32 %r<8>; .reg .pred %p<2>; mov.u32 %r1, %tid.x; "
    body = []
    for index in range(2000):
        body.append("mov.u32 %r2 %r1; " if index % 100 == 99 else "add.s32 %r2, %r2, 1; ")
    code = "".join(body)
    tail = "setp.eq.u32 %p1, %r1, 0; @%p1 bar.sync 0; mov.u32 %r3 %r2; ret; }\n"
    filler = size - len(HEADER) - len(head) - len(code) - len(tail) - 4
    return (HEADER + head + code + "/*" + "x" * max(0, filler) + "*/" + tail).encode()


def many_instructions(size: int) -> bytes:
    """``size`` instructions in one function, in a realistic mix with a loop every 64."""
    lines = [HEADER, ".visible .entry k(.param .u64 out)\n{\n\t.reg .pred %p<4>;\n\t.reg .b32 %r<64>;\n",
             "\t.reg .b64 %rd<8>;\n\tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, %tid.x;\n"]
    pattern = ("\tadd.s32 %r2, %r2, 1;\n", "\tshl.b32 %r3, %r2, 4;\n", "\tmad.lo.s32 %r4, %r3, %r1, %r2;\n",
               "\tcvt.u64.u32 %rd2, %r4;\n", "\tadd.s64 %rd3, %rd1, %rd2;\n", "\tst.global.u32 [%rd3], %r4;\n",
               "\tsetp.lt.u32 %p1, %r2, 1024;\n", "\tbar.sync 0;\n")
    for index in range(size):
        if index % 64 == 0:
            lines.append(f"L{index}:\n")
        if index % 64 == 63:
            lines.append(f"\t@%p1 bra L{index - 63};\n")
        else:
            lines.append(pattern[index % len(pattern)])
    lines.append("\tret;\n}\n")
    return "".join(lines).encode()


def deep_cfg(size: int) -> bytes:
    """``size`` labels and branches: a chain of nested loops (each label is the head of a loop
    closed by a branch at the mirror position), so the loop nesting depth is size/2."""
    half = size // 2
    lines = [HEADER, ".visible .entry k()\n{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n\tmov.u32 %r1, %tid.x;\n",
             "\tsetp.eq.u32 %p1, %r1, 0;\n"]
    for index in range(half):
        lines.append(f"H{index}:\n\tadd.s32 %r2, %r2, 1;\n")
    lines.append("\tbar.sync 0;\n")
    for index in reversed(range(half)):
        lines.append(f"\t@%p1 bra H{index};\n\tadd.s32 %r3, %r3, 1;\n")
    lines.append("\tret;\n}\n")
    return "".join(lines).encode()


def irreducible_cfg(size: int) -> bytes:
    """``size`` labels and branches where every other block can be entered two ways (a ladder of
    irreducible loops) and a thread-dependent branch makes everything below it divergent."""
    lines = [HEADER, ".visible .entry k()\n{\n\t.reg .pred %p<4>;\n\t.reg .b32 %r<4>;\n\tmov.u32 %r1, %tid.x;\n",
             "\tsetp.eq.u32 %p1, %r1, 0;\n\tsetp.eq.u32 %p2, %r2, 0;\n"]
    count = size // 2
    for index in range(count):
        lines.append(f"\t@%p1 bra B{index};\nA{index}:\n\tadd.s32 %r2, %r2, 1;\n")
        lines.append(f"B{index}:\n\tadd.s32 %r3, %r3, 1;\n\t@%p2 bra A{index};\n")
    lines.append("\tbar.sync 0;\n\tret;\n}\n")
    return "".join(lines).encode()


def looping_cfg(size: int) -> bytes:
    """``size`` branches in one big loop, every one of them jumping back to the same head and
    the loop exit depending on the thread: the worst case for iterating a dataflow fixed point."""
    lines = [HEADER, ".visible .entry k()\n{\n\t.reg .pred %p<4>;\n\t.reg .b32 %r<8>;\n\tmov.u32 %r1, %tid.x;\n",
             "HEAD:\n\tsetp.lt.u32 %p1, %r2, %r1;\n"]
    for index in range(size):
        register = 2 + index % 5
        lines.append(f"\tadd.s32 %r{register}, %r{register}, %r1;\n\t@%p1 bra HEAD;\nN{index}:\n")
    lines.append("\tbar.sync 0;\n\tret;\n}\n")
    return "".join(lines).encode()


def nested_scopes(size: int) -> bytes:
    """``size`` nested `{ }` scopes, each declaring a register and using the outer one."""
    lines = [HEADER, ".visible .entry k()\n{\n\t.reg .b32 %r<4>;\n\tmov.u32 %r1, %tid.x;\n"]
    lines.extend(f"{{ .reg .b32 %s{index}; mov.u32 %s{index}, %r1;\n" for index in range(size))
    lines.append("bar.sync 0;\n")
    lines.extend("}\n" for _ in range(size))
    lines.append("\tret;\n}\n")
    return "".join(lines).encode()


def wide_vector(size: int) -> bytes:
    """A vector operand of ``size`` elements (ptxas allows 4; this is a finding, not a crash)."""
    elements = ", ".join(f"%r{index % 1000}" for index in range(size))
    return (HEADER + ".visible .entry k(.param .u64 p)\n{\n\t.reg .b32 %r<1000>;\n\t.reg .b64 %rd<2>;\n"
            f"\tld.param.u64 %rd1, [p];\n\tld.global.v4.u32 {{{elements}}}, [%rd1];\n"
            f"\tmov.b64 %rd1, {{{elements}}};\n\tret;\n}}\n").encode()


def call_chain(size: int) -> bytes:
    """``size`` functions, each calling the next, with a barrier at the bottom."""
    lines = [HEADER]
    lines.extend(f".func f{index}();\n" for index in range(size))
    for index in range(size):
        callee = f"\tcall f{index + 1};\n" if index + 1 < size else "\tbar.sync 0;\n"
        lines.append(f".func f{index}()\n{{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r1, %tid.x;\n{callee}\tret;\n}}\n")
    lines.append(".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\t.reg .pred %p<2>;\n\tmov.u32 %r1, %tid.x;\n"
                 "\tsetp.eq.u32 %p1, %r1, 0;\n\t@%p1 call f0;\n\tret;\n}\n")
    return "".join(lines).encode()


def call_cycle(size: int) -> bytes:
    """``size`` functions calling each other in one cycle (recursion through all of them)."""
    lines = [HEADER]
    lines.extend(f".func f{index}();\n" for index in range(size))
    for index in range(size):
        lines.append(f".func f{index}()\n{{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r1, %tid.x;\n"
                     f"\tcall f{(index + 1) % size};\n\tbar.sync 0;\n\tret;\n}}\n")
    lines.append(".visible .entry k()\n{\n\tcall f0;\n\tret;\n}\n")
    return "".join(lines).encode()


def many_kernels(size: int) -> bytes:
    """``size`` kernels in one module, each a small realistic body with a divergent barrier."""
    lines = [HEADER]
    for index in range(size):
        lines.append(
            f".visible .entry k{index}(.param .u64 p)\n{{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n"
            "\tld.param.u64 %rd1, [p];\n\tmov.u32 %r1, %tid.x;\n\tsetp.eq.u32 %p1, %r1, 0;\n\t@%p1 bra DONE;\n"
            "\tshl.b32 %r2, %r1, 2;\n\tcvt.u64.u32 %rd2, %r2;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
            "\tld.global.u32 %r3, [%rd3];\n\tbar.sync 0;\n\tst.global.u32 [%rd3], %r3;\nDONE:\n\tbar.sync 0;\n\tret;\n}\n"
        )
    return "".join(lines).encode()


@dataclass(frozen=True)
class Case:
    name: str
    generate: Callable[[int], bytes]
    full: int  # the size the issue asks for
    unit: str


CASES = (
    Case("long_line", long_line, 100_000_000, "bytes"),
    Case("many_instructions", many_instructions, 1_000_000, "instructions"),
    Case("deep_cfg", deep_cfg, 100_000, "labels+branches"),
    Case("irreducible_cfg", irreducible_cfg, 100_000, "labels+branches"),
    Case("looping_cfg", looping_cfg, 100_000, "labels+branches"),
    Case("nested_scopes", nested_scopes, 10_000, "scopes"),
    Case("wide_vector", wide_vector, 100_000, "elements"),
    Case("call_chain", call_chain, 100_000, "functions"),
    Case("call_cycle", call_cycle, 100_000, "functions"),
    Case("many_kernels", many_kernels, 1_000, "kernels"),
)
CASES_BY_NAME = {case.name: case for case in CASES}

# ----------------------------------------------------------------------------- measuring

# The intermediate process: runs the command line once and reports its own child's CPU time
# (other load on the machine does not count) and peak memory.
_MEASURE = r"""
import json, resource, subprocess, sys
result = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"seconds": usage.ru_utime + usage.ru_stime, "peak_mib": usage.ru_maxrss / 1024,
                  "exit": result.returncode, "stderr": result.stderr.decode("utf-8", "replace")[-2000:]}))
"""


@dataclass(frozen=True)
class Measurement:
    seconds: float
    peak_mib: float
    exit: int
    stderr: str


def measure(path: Path, output_format: str = "sarif", extra: tuple[str, ...] = (), timeout: float | None = None) -> Measurement:
    """Lint ``path`` with the default rules in a fresh process; its CPU time and peak memory."""
    command = [sys.executable, "-c", _MEASURE, sys.executable, "-m", "ptxlint", "--isolated", "--no-cache", "-q",
               "--output-format", output_format, "-o", os.devnull, *extra, str(path)]
    environment = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    output = subprocess.run(command, capture_output=True, text=True, check=True, timeout=timeout, env=environment).stdout
    return Measurement(**json.loads(output.strip().splitlines()[-1]))


def generated(case: Case, size: int, directory: Path = CACHE) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{case.name}-{size}.ptx"
    if not path.exists():
        temporary = path.with_suffix(f".{os.getpid()}.tmp")  # runs in parallel must not collide
        temporary.write_bytes(case.generate(size))
        temporary.replace(path)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every full size by this")
    parser.add_argument("--only", default="", help="comma-separated case names")
    parser.add_argument("--format", default="sarif", help="output format to render (default sarif)")
    args = parser.parse_args()
    chosen = [CASES_BY_NAME[name] for name in args.only.split(",") if name] or list(CASES)
    print(f"{'input':<18} {'unit':<16} {'size':>11} {'cpu s':>8} {'peak MiB':>9} {'exit':>4}   "
          f"{'size':>11} {'cpu s':>8} {'peak MiB':>9} {'exit':>4}   {'t ratio':>7} {'m ratio':>7}")
    for case in chosen:
        large = max(2, int(case.full * args.scale))
        small = large // 2
        rows = []
        for size in (small, large):
            path = generated(case, size)
            rows.append((size, measure(path, args.format, extra=("--max-analysis-steps", "0"))))
            path.unlink()  # generated inputs are big; regenerate rather than keep
        (s1, m1), (s2, m2) = rows
        print(f"{case.name:<18} {case.unit:<16} {s1:>11,} {m1.seconds:>8.2f} {m1.peak_mib:>9.0f} {m1.exit:>4}   "
              f"{s2:>11,} {m2.seconds:>8.2f} {m2.peak_mib:>9.0f} {m2.exit:>4}   "
              f"{m2.seconds / max(m1.seconds, 1e-9):>7.2f} {m2.peak_mib / max(m1.peak_mib, 1e-9):>7.2f}", flush=True)
        for _, measurement in rows:
            if measurement.exit not in (0, 1):
                print(f"   exit {measurement.exit}: {measurement.stderr.strip()[-500:]}")


if __name__ == "__main__":
    main()
