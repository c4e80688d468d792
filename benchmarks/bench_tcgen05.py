"""What the tensor-memory rules (PTX201–203, PTX301, PTX302) cost: the end-to-end lint time of
each input with the default rule set, with and without them (least CPU time of interleaved runs).

The issue's budget: these rules add at most 30% to the lint time of the largest corpus file.
Inputs are the largest PTX files of the corpus (`scripts/build_corpus.py`) plus any paths given.
Usage:

    python benchmarks/bench_tcgen05.py [--corpus DIR] [--largest N] [--repeat N] [PATH ...]
"""

from __future__ import annotations

import sys

from rule_share import main

TENSOR_MEMORY_CODES = frozenset({"PTX201", "PTX202", "PTX203", "PTX301", "PTX302"})
BUDGET = 0.30

if __name__ == "__main__":
    sys.exit(main(__doc__.splitlines()[0], "the tensor-memory rules", TENSOR_MEMORY_CODES, BUDGET, largest=5, repeat=7))
