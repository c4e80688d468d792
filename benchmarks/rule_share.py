"""What a group of rules costs: the end-to-end lint time of each input with the default rule set,
with and without the group (least CPU time of interleaved runs), and whether the largest input
stays within the group's budget. The benchmarks for the tensor-memory and ISA rules use it.

Inputs are the largest PTX files of the corpus (`scripts/build_corpus.py`) plus any paths given.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Callable

from ptxlint.lint import LintSettings, lint_source
from ptxlint.source import SourceFile

CORPUS = Path(os.environ.get("PTXLINT_CORPUS", Path.home() / ".cache" / "ptxlint" / "corpus"))


def best_times(
    source: SourceFile, settings: tuple[LintSettings, ...], repeat: int, before_each: Callable[[], None]
) -> list[float]:
    """The least CPU time of each setting over ``repeat`` interleaved rounds. CPU time, not wall
    time, and interleaving, so that other load on the machine skews both sides alike."""
    best = [float("inf")] * len(settings)
    for _ in range(repeat):
        for position, setting in enumerate(settings):
            before_each()
            started = time.process_time()
            lint_source(source, setting)
            best[position] = min(best[position], time.process_time() - started)
    return best


def inputs(corpus: Path, largest: int, extra: list[str]) -> list[Path]:
    files = sorted(corpus.rglob("*.ptx"), key=lambda path: path.stat().st_size, reverse=True) if corpus.is_dir() else []
    return files[:largest] + [Path(path) for path in extra]


def main(
    description: str,
    what: str,
    codes: frozenset[str],
    budget: float,
    largest: int,
    repeat: int,
    before_each: Callable[[], None] = lambda: None,
) -> int:
    """Measure, print the table, and exit 1 when the largest input exceeds ``budget``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--largest", type=int, default=largest)
    parser.add_argument("--repeat", type=int, default=repeat)
    parser.add_argument("paths", nargs="*")
    arguments = parser.parse_args()
    files = inputs(arguments.corpus, arguments.largest, arguments.paths)
    if not files:
        print(f"no inputs: no corpus at {arguments.corpus} and no paths given", file=sys.stderr)
        return 2
    with_rules = LintSettings()
    without_rules = LintSettings(rules=tuple(rule for rule in with_rules.rules if rule.code not in codes))
    print(f"{'file':48} {'lines':>8} {'without':>10} {'with':>10} {'added':>7}")
    worst = 0.0
    for path in files:
        source = SourceFile.from_bytes(str(path), path.read_bytes())
        lint_source(source, with_rules)  # warm caches and imports
        base, full = best_times(source, (without_rules, with_rules), arguments.repeat, before_each)
        added = (full - base) / base if base else 0.0
        worst = max(worst, added) if path == files[0] else worst
        print(f"{path.name[:48]:48} {source.line_count:>8} {base * 1000:>8.1f}ms {full * 1000:>8.1f}ms {added:>6.1%}")
    print(f"largest input: {what} add {worst:.1%} (budget {budget:.0%})")
    return 0 if worst <= budget else 1
