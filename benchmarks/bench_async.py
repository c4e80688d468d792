"""What the Hopper and Blackwell async-proxy and pipeline rules (PTX501-PTX506) cost: the
end-to-end lint time of each input with the default rule set, with and without them (least CPU
time of interleaved runs).

Budget (issue 24): the family adds at most 15% to the lint time of the largest input. On CUTLASS's
229k-line `88_hopper_fmha` it adds about 13% (CPU, median of 5): the `wgmma_groups`,
`async_proxy`, `shared_buffers` and `tx_bytes` passes; their path-insensitive screens leave the
path-sensitive solves to the functions that may have a hazard. Inputs are the largest PTX files
of the corpus (`scripts/build_corpus.py`) plus any paths given -- pass the largest `wgmma`
kernels (CUTLASS's `88_hopper_fmha`) to measure where the rules have work.
Usage:

    python benchmarks/bench_async.py [--corpus DIR] [--largest N] [--repeat N] [PATH ...]
"""

from __future__ import annotations

import sys

from rule_share import main

ASYNC_CODES = frozenset({"PTX501", "PTX502", "PTX503", "PTX504", "PTX505", "PTX506"})
BUDGET = 0.15

if __name__ == "__main__":
    sys.exit(main(__doc__.splitlines()[0], "the asynchronous-pipeline rules", ASYNC_CODES, BUDGET, largest=0, repeat=5))
