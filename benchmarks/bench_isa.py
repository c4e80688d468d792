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

import sys

from ptxlint.isa import gating, grammar
from rule_share import main

ISA_CODES = frozenset({"PTX401", "PTX402", "PTX403", "PTX404", "PTX405"})
BUDGET = 0.10


def _forget_judged_opcodes() -> None:
    for cache in (grammar.grammar_of, grammar.grammar_problems, gating.gate_failures):
        cache.cache_clear()


if __name__ == "__main__":
    sys.exit(main(__doc__.splitlines()[0], "the ISA rules", ISA_CODES, BUDGET, largest=3, repeat=5,
                  before_each=_forget_judged_opcodes))
