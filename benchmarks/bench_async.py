"""What the Hopper asynchronous-pipeline rules (PTX505, PTX506) cost: the end-to-end lint time of
each input with the default rule set, with and without them (least CPU time of interleaved runs).

Budget: these rules add at most 25% to the lint time of the largest input (they run the
path-sensitive engine of the tensor-memory rules, whose budget is 30%; on CUTLASS's 229k-line
`88_hopper_fmha` they add about 19%, on CPU time: the `wgmma_groups` solve, PTX505's questions
and the `tx_bytes` scan). Inputs are the
largest PTX files of the corpus (`scripts/build_corpus.py`) plus any paths given — pass the
largest `wgmma` kernels (CUTLASS's `88_hopper_fmha`) to measure where the rules have work.
Usage:

    python benchmarks/bench_async.py [--corpus DIR] [--largest N] [--repeat N] [PATH ...]
"""

from __future__ import annotations

import sys

from rule_share import main

ASYNC_CODES = frozenset({"PTX505", "PTX506"})
BUDGET = 0.25

if __name__ == "__main__":
    sys.exit(main(__doc__.splitlines()[0], "the asynchronous-pipeline rules", ASYNC_CODES, BUDGET, largest=0, repeat=5))
