"""The tensor-memory rules (PTX201–203, PTX301, PTX302) must find nothing in correct production
kernels: every PTX file of the regression corpus (`scripts/build_corpus.py` generates it into
`~/.cache/ptxlint/corpus`, or `$PTXLINT_CORPUS`) is linted with them, and any finding fails the
test with its message, so that it is either fixed as a false positive or documented as a bug in
the kernel (:data:`KNOWN_BUGS`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ptxlint.lint import LintSettings, lint_source
from ptxlint.rules import RULES_BY_CODE
from ptxlint.source import SourceFile

CORPUS = Path(os.environ.get("PTXLINT_CORPUS", Path.home() / ".cache" / "ptxlint" / "corpus"))
CODES = ("PTX201", "PTX202", "PTX203", "PTX301", "PTX302")
FILES = sorted(CORPUS.rglob("*.ptx")) if CORPUS.is_dir() else []

# Findings in corpus kernels that are real bugs by the PTX ISA, not false positives:
# (file name, rule) → why.
KNOWN_BUGS = {
    ("blackwell_gemm_streamk.ptx", "PTX202"): (
        "CUTLASS 4.2 stream-K fixup (sm100_tile_scheduler_stream_k.hpp, `copy(tmem_store, tCrAcc, "
        "tCtAcc)`) stores the reduced accumulator back to TMEM with tcgen05.st and never issues "
        "tcgen05.wait::st (`fence_view_async_tmem_store()`) before the epilogue's barriers and "
        "mbarrier arrives"
    ),
    ("77_blackwell_fmha_gen.ptx", "PTX202"): (
        "CUTLASS 4.2 example 77 (sm100_fmha_gen_mainloop_warpspecialized.hpp:603-605) stores the "
        "softmax row statistics with tcgen05.st and signals the correction warps "
        "(`pipeline_c.producer_commit`, an mbarrier.arrive) without `fence_view_async_tmem_store()`; "
        "the P stores at line 665 do wait (line 667)"
    ),
}

pytestmark = [
    pytest.mark.corpus,
    pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS}: run scripts/build_corpus.py"),
]


def _id(path: Path | None) -> str:
    return "no-ptx-files" if path is None else str(path.relative_to(CORPUS))


@pytest.mark.parametrize("path", FILES or [None], ids=_id)
def test_no_tensor_memory_findings(path: Path | None) -> None:
    if path is None:
        pytest.skip(f"the corpus at {CORPUS} holds no PTX files yet")
    settings = LintSettings(rules=tuple(RULES_BY_CODE[code] for code in CODES))
    diagnostics = lint_source(SourceFile.from_bytes(str(path), path.read_bytes()), settings)
    report = [
        f"{path.name}:{d.span.line}: {d.code} {d.message}"
        for d in diagnostics
        if (path.name, d.code) not in KNOWN_BUGS
    ]
    assert not report, "\n".join(report)
