"""The tensor-memory rules (PTX201–204, PTX301, PTX302) must find nothing in correct production
kernels: every PTX file of the regression corpus (built on first use by the `corpus_files`
fixture, see tests/conftest.py) is linted with them, and any finding fails the test with its
message, so that it is either fixed as a false positive or documented as a bug in the kernel
(:data:`KNOWN_BUGS`); a known bug that stops being reported fails the test too."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptxlint.lint import LintSettings, lint_source
from ptxlint.rules import RULES_BY_CODE
from ptxlint.source import SourceFile

CODES = ("PTX201", "PTX202", "PTX203", "PTX204", "PTX301", "PTX302")

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
    ("77_blackwell_fmha.ptx", "PTX202"): (
        "the forward FMHA (full corpus tier) has the fmha_gen pattern: softmax stores row statistics "
        "with tcgen05.st and arrives on an mbarrier with no tcgen05.wait::st (e.g. lines 14770 -> "
        "14778); its correction warps also arrive after a tcgen05.ld.32x32b.x2 of which only the "
        "first register has been read (lines 19540 -> 19548), which the ISA does not make complete"
    ),
}

pytestmark = pytest.mark.corpus


def test_no_tensor_memory_findings(corpus_files: list[Path]) -> None:
    settings = LintSettings(rules=tuple(RULES_BY_CODE[code] for code in CODES))
    report = []
    reported_bugs = set()
    for path in corpus_files:
        diagnostics = lint_source(SourceFile.from_bytes(str(path), path.read_bytes()), settings)
        for diagnostic in diagnostics:
            key = (path.name, diagnostic.code)
            if key in KNOWN_BUGS:
                reported_bugs.add(key)
            else:
                report.append(f"{path.name}:{diagnostic.span.line}: {diagnostic.code} {diagnostic.message}")
    present = {path.name for path in corpus_files}
    stale = [key for key in KNOWN_BUGS if key[0] in present and key not in reported_bugs]
    report += [f"{name}: the known {code} bug is no longer reported; update KNOWN_BUGS" for name, code in stale]
    assert not report, "\n".join(report)
