"""How fast `ptxlint` feels on the command line, printed as a table with targets:

  * `--version` wall time, a fresh process (target < 150 ms: nothing heavy is imported);
  * a 100-line file linted end to end, a fresh process (target < 300 ms);
  * a Triton kernel of about 5,000 lines (the corpus's closest to that size) linted end to end,
    a fresh process (target < 150 ms: a clean run loads only what its rules need);
  * `-j 2` over 200 corpus-sized files against `-j 1` (target ≥ 1.7× faster).

The 200 files come from the regression corpus (`~/.cache/ptxlint/corpus`, built by
`scripts/build_corpus.py`) when it exists, else they are synthesized by replicating the fixtures'
kernels into files of a corpus-like size. Usage:

    python benchmarks/bench_cli.py [--corpus DIR] [--repeat N] [--program PATH]
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("PTXLINT_CACHE", Path.home() / ".cache" / "ptxlint"))
COMMAND = [sys.executable, "-m", "ptxlint"]
_FUNCTION = re.compile(r"^\.(?:visible |weak )?\.?(?:entry|func)\b.*?^\}", re.M | re.S)


def wall(command: list[str], repeat: int, cwd: Path = ROOT) -> float:
    """The median wall time of ``repeat`` runs, in seconds."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def hundred_line_file(directory: Path) -> Path:
    body = "\n".join(f"\tadd.s32 %r{i % 8 + 1}, %r{(i + 1) % 8 + 1}, {i};" for i in range(88))
    text = (
        ".version 9.0\n.target sm_90a\n.address_size 64\n\n.visible .entry k(.param .u64 out)\n{\n"
        f"\t.reg .b32 %r<10>;\n\t.reg .b64 %rd<2>;\n\tmov.u32 %r1, %tid.x;\n{body}\n"
        "\tld.param.u64 %rd1, [out];\n\tst.global.u32 [%rd1], %r1;\n\tret;\n}\n"
    )
    path = directory / "hundred.ptx"
    path.write_text(text)
    return path


def triton_kernel(corpus: Path, lines: int = 5000) -> Path | None:
    """The corpus's Triton kernel whose line count is closest to ``lines``."""
    kernels = sorted((corpus / "triton").rglob("*.ptx")) if (corpus / "triton").is_dir() else []
    return min(kernels, key=lambda path: abs(path.read_bytes().count(b"\n") - lines), default=None)


def corpus_files(corpus: Path, count: int, directory: Path) -> tuple[list[Path], str]:
    real = sorted(corpus.rglob("*.ptx")) if corpus.is_dir() else []
    if real:
        return [path for path, _ in zip(itertools.cycle(real), range(count))], f"corpus ({len(real)} files)"
    return synthesize(count, directory), "synthesized from fixtures/"


def synthesize(count: int, directory: Path, target_lines: int = 2000) -> list[Path]:
    """Files of about ``target_lines`` lines: one module header and the fixtures' functions,
    renamed apart, repeated until the file is corpus-sized (nvcc output is mostly big kernels)."""
    functions = []
    for fixture in sorted((ROOT / "fixtures").rglob("*.ptx")):
        text = fixture.read_text(errors="replace")
        if "ptxas: rejects" not in text.split("\n", 1)[0]:
            functions += _FUNCTION.findall(text)
    functions = functions or [".visible .entry k()\n{\n\tret;\n}"]
    paths = []
    for index in range(count):
        parts, lines, copy = [".version 9.0\n.target sm_100a\n.address_size 64\n"], 0, 0
        for function in itertools.cycle(functions):
            renamed = re.sub(r"((?:entry|func)\s+(?:\([^)]*\)\s*)?)(\w+)", rf"\g<1>\g<2>_{copy}", function, count=1)
            parts.append(renamed)
            lines += renamed.count("\n") + 1
            copy += 1
            if lines >= target_lines:
                break
        path = directory / f"synthetic_{index:03}.ptx"
        path.write_text("\n\n".join(parts) + "\n")
        paths.append(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=CACHE / "corpus")
    parser.add_argument("--repeat", type=int, default=11)
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument(
        "--program", type=Path, default=None,
        help="an installed `ptxlint` to time (say, in a virtual environment with the built wheel); "
        "by default `python -m ptxlint` from this environment, which an editable install slows by "
        "its import finder",
    )
    arguments = parser.parse_args()
    command = [str(arguments.program)] if arguments.program else COMMAND

    with tempfile.TemporaryDirectory() as temporary:
        directory = Path(temporary)
        version = wall([*command, "--version"], arguments.repeat)
        small = hundred_line_file(directory)
        single = wall([*command, "--isolated", "--no-cache", "--quiet", str(small)], arguments.repeat)
        kernel = triton_kernel(arguments.corpus)
        triton = wall([*command, "--isolated", "--no-cache", "--quiet", str(kernel)], arguments.repeat) if kernel else None
        files, origin = corpus_files(arguments.corpus, arguments.files, directory)
        listed = [str(path) for path in files]
        lint_many = [*command, "--isolated", "--no-cache", "--quiet", "--output-format", "concise", "--exit-zero"]
        serial = wall([*lint_many, "-j", "1", *listed], max(1, arguments.repeat // 2))
        parallel = wall([*lint_many, "-j", "2", *listed], max(1, arguments.repeat // 2))
        total_lines = sum(path.read_bytes().count(b"\n") for path in files)

    rows = [
        ("ptxlint --version", f"{version * 1000:.0f} ms", "< 150 ms", version < 0.150),
        ("100-line file, end to end", f"{single * 1000:.0f} ms", "< 300 ms", single < 0.300),
    ]
    if kernel is not None and triton is not None:
        size = kernel.read_bytes().count(b"\n")
        rows.append((f"Triton kernel, {size:,} lines, end to end", f"{triton * 1000:.0f} ms", "< 150 ms", triton < 0.150))
    rows += [
        (f"{len(files)} files, -j 1", f"{serial:.2f} s", "", None),
        (f"{len(files)} files, -j 2", f"{parallel:.2f} s", "", None),
        ("-j 2 speed-up over -j 1", f"{serial / parallel:.2f}x", ">= 1.7x", serial / parallel >= 1.7),
    ]
    print(f"inputs: {origin}, {total_lines:,} lines in {len(files)} files; {os.cpu_count()} CPUs")
    width = max(len(row[0]) for row in rows)
    print(f"{'measure':<{width}}  {'result':>9}  {'target':>9}  ok")
    for name, result, target, ok in rows:
        mark = "" if ok is None else ("yes" if ok else "NO")
        print(f"{name:<{width}}  {result:>9}  {target:>9}  {mark}")
    print(f"(median of {arguments.repeat} runs; load average {os.getloadavg()[0]:.1f}: numbers mean little on a busy machine)")


if __name__ == "__main__":
    main()
