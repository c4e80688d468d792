"""The convergence rules (PTX101-PTX105) on the regression corpus of real PTX: production
kernels are correct, so every finding is a false positive to fix, or a real bug to explain and
list in KNOWN below with the reason.

Runs when the corpus has been built (``~/.cache/ptxlint/corpus``, see scripts/build_corpus.py);
otherwise it is skipped with the reason. Select it alone with ``pytest -m corpus``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ptxlint.lint import LintSettings, lint_source, read_source
from ptxlint.rules import RULES_BY_CODE

CORPUS = Path(os.environ.get("PTXLINT_CORPUS", Path.home() / ".cache" / "ptxlint" / "corpus"))
# PTX103 is off by default: it fires by design on warp-specialised kernels (the strict reading).
CODES = ("PTX101", "PTX102", "PTX104", "PTX105")

# (file name stem prefix, code): why the finding is accepted for now.
KNOWN = {
    # nvcc jump-threads `if (tid == 0) {init} if (warp == 0) {alloc}`: thread 0 jumps straight
    # to the alloc, the other lanes of warp 0 reach it through `tid > 31`. All 32 lanes execute
    # the same instruction, but proving it needs path facts (tid == 0 implies warp == 0) that the
    # analysis does not track yet; the phi-like predicate guarding the later dealloc is the same.
    ("tcgen05_cp_shift", "PTX101"): "jump-threaded warp-0 role (path facts missing)",
    ("tcgen05_cp_shift", "PTX104"): "jump-threaded warp-0 role (path facts missing)",
    # …and one real bug: `umma_tail_tile_masked` (tcgen05_mma_kinds.cu:266) guards the
    # warp-collective `tcgen05.ld` with `warp * 32 + lane < valid_rows`, a per-thread condition.
    ("tcgen05_mma_kinds", "PTX101"): "jump-threaded warp-0 role; real bug in umma_tail_tile_masked",
    ("tcgen05_mma_kinds", "PTX104"): "jump-threaded warp-0 role (path facts missing)",
    ("tcgen05_sparse_ws", "PTX101"): "jump-threaded warp-0 role (path facts missing)",
    ("tcgen05_sparse_ws", "PTX104"): "jump-threaded warp-0 role (path facts missing)",
}


def corpus_files() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(CORPUS.rglob("*.ptx"))


@pytest.mark.corpus
@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"corpus not built at {CORPUS} (run scripts/build_corpus.py)")
def test_no_convergence_findings_on_production_kernels() -> None:
    settings = LintSettings(rules=tuple(RULES_BY_CODE[code] for code in CODES))
    unexpected = []
    for path in corpus_files():
        diagnostics = lint_source(read_source(str(path)), settings)
        for diagnostic in diagnostics:
            if any(path.stem.startswith(stem) and code == diagnostic.code for stem, code in KNOWN):
                continue
            unexpected.append(f"{path}:{diagnostic.span.line}: {diagnostic.code} {diagnostic.message}")
    assert not unexpected, "\n".join(unexpected[:50])
