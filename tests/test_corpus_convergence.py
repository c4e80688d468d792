"""The convergence rules (PTX101-PTX108) on the regression corpus of real PTX: production
kernels are correct, so every finding is a false positive to fix, or a real bug to explain and
list in KNOWN below with the reason.

The corpus is built on first use by the `corpus_files` fixture (tests/conftest.py). Select this
test alone with ``pytest -m corpus``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ptxlint.lint import LintSettings, lint_source, read_source
from ptxlint.rules import RULES_BY_CODE

CODES = ("PTX101", "PTX102", "PTX103", "PTX104", "PTX105", "PTX106", "PTX107", "PTX108")

# (file name stem prefix, code, message fragment): why the finding is accepted. These are real
# bugs in our own corpus sources, kept to show the rules find them; the test also checks that they
# are still reported.
KNOWN = {
    # `umma_tail_tile_masked` (tcgen05_mma_kinds.cu) guards the warp-collective `tcgen05.ld` with
    # `warp * 32 + lane < valid_rows`, a per-thread condition: in the tail tile part of the warp
    # skips the load. The guard must be warp-uniform (mask the stores instead).
    ("tcgen05_mma_kinds", "PTX101", "`tcgen05.ld`"): "real bug: tcgen05.ld under a per-thread row mask",
    # OPEN FALSE POSITIVES, triaged (fixed so far: constants written once under lane-split
    # control, e.g. the full mask of a ballot inside CUTLASS's grouped-GEMM scheduler loop; TMEM
    # addresses kept in a `.local` array; warpgroup-aligned `setmaxnreg`/`wgmma` under warp roles
    # computed through phis (81_blackwell_gemm_blockwise, 77_blackwell_fmha_gen) or after the
    # grouped-GEMM scheduler's exit (57_hopper_grouped_gemm), now reported only under a proven
    # warpgroup split; Triton's jump-threaded `!(n <u LIMIT && warp == 0)` / `n <s 0` exit in
    # flash_attention.attn_fwd_d64_causal, now seen as infeasible while the first branch splits
    # the warps; see fixtures/convergence/). None is open now; add each new one here with its
    # PTX lines and root cause, and remove it when the cause is fixed.
}


def _known(stem: str, code: str, message: str) -> tuple[str, str, str] | None:
    for key in KNOWN:
        prefix, known_code, fragment = key
        if stem.startswith(prefix) and code == known_code and fragment in message:
            return key
    return None


@pytest.mark.corpus
def test_no_convergence_findings_on_production_kernels(corpus_files: list[Path]) -> None:
    settings = LintSettings(rules=tuple(RULES_BY_CODE[code] for code in CODES))
    unexpected = []
    found: set[tuple[str, str, str]] = set()
    stems = set()
    for path in corpus_files:
        stems.add(path.stem)
        diagnostics = lint_source(read_source(str(path)), settings)
        for diagnostic in diagnostics:
            key = _known(path.stem, diagnostic.code, diagnostic.message)
            if key is not None:
                found.add(key)
                continue
            unexpected.append(f"{path}:{diagnostic.span.line}: {diagnostic.code} {diagnostic.message}")
    assert not unexpected, "\n".join(unexpected[:50])
    for key in KNOWN:
        if any(stem.startswith(key[0]) for stem in stems):
            assert key in found, f"known finding no longer reported: {key} ({KNOWN[key]})"
