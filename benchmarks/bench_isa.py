"""What the ISA conformance rules (PTX401–405) cost: the end-to-end lint time of each input with
the default rule set, with and without them (least CPU time of interleaved runs).

The budget: the ISA checks add at most 10% to the lint time of the largest corpus file. Their
per-opcode caches are emptied before every run, so each run pays for judging every distinct
opcode once, as a fresh process does.
Inputs are the largest PTX files of the corpus (`scripts/build_corpus.py`) plus any paths given.
Usage:

    python benchmarks/bench_isa.py [--corpus DIR] [--largest N] [--repeat N] [PATH ...]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from ptxlint.isa import gating, grammar
from ptxlint.lint import LintSettings, lint_source
from ptxlint.source import SourceFile

ISA_CODES = frozenset({"PTX401", "PTX402", "PTX403", "PTX404", "PTX405"})
CORPUS = Path(os.environ.get("PTXLINT_CORPUS", Path.home() / ".cache" / "ptxlint" / "corpus"))
BUDGET = 0.10


def _forget_judged_opcodes() -> None:
    for cache in (grammar.grammar_of, grammar.grammar_problems, gating.gate_failures):
        cache.cache_clear()


def best_times(source: SourceFile, settings: tuple[LintSettings, ...], repeat: int) -> list[float]:
    """The least CPU time of each setting over ``repeat`` interleaved rounds. CPU time, not wall
    time, and interleaving, so that other load on the machine skews both sides alike."""
    best = [float("inf")] * len(settings)
    for _ in range(repeat):
        for position, setting in enumerate(settings):
            _forget_judged_opcodes()
            started = time.process_time()
            lint_source(source, setting)
            best[position] = min(best[position], time.process_time() - started)
    return best


def inputs(corpus: Path, largest: int, extra: list[str]) -> list[Path]:
    files = sorted(corpus.rglob("*.ptx"), key=lambda path: path.stat().st_size, reverse=True) if corpus.is_dir() else []
    return files[:largest] + [Path(path) for path in extra]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--largest", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("paths", nargs="*")
    arguments = parser.parse_args()
    files = inputs(arguments.corpus, arguments.largest, arguments.paths)
    if not files:
        print(f"no inputs: no corpus at {arguments.corpus} and no paths given", file=sys.stderr)
        return 2
    with_rules = LintSettings()
    without_rules = LintSettings(rules=tuple(rule for rule in with_rules.rules if rule.code not in ISA_CODES))
    print(f"{'file':48} {'lines':>8} {'without':>10} {'with':>10} {'added':>7}")
    worst = 0.0
    for path in files:
        source = SourceFile.from_bytes(str(path), path.read_bytes())
        lint_source(source, with_rules)  # warm imports
        base, full = best_times(source, (without_rules, with_rules), arguments.repeat)
        added = (full - base) / base if base else 0.0
        worst = max(worst, added) if path == files[0] else worst
        print(f"{path.name[:48]:48} {source.line_count:>8} {base * 1000:>8.1f}ms {full * 1000:>8.1f}ms {added:>6.1%}")
    print(f"largest input: the ISA rules add {worst:.1%} (budget {BUDGET:.0%})")
    return 0 if worst <= BUDGET else 1


if __name__ == "__main__":
    sys.exit(main())
