"""The Hopper asynchronous-pipeline rules (PTX505, PTX506) must find nothing in correct
production kernels: every PTX file of the regression corpus (built on first use by the
`corpus_files` fixture, see tests/conftest.py) is linted with them, and any finding fails the
test, so that it is either fixed as a false positive or documented as a bug in the kernel
(:data:`KNOWN_BUGS`); a known bug that stops being reported fails the test too."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptxlint.lint import LintSettings, lint_source
from ptxlint.rules import RULES_BY_CODE
from ptxlint.source import SourceFile

CODES = ("PTX505", "PTX506")

# Findings in corpus kernels that are real bugs by the PTX ISA: (file name, rule, line) → why.
KNOWN_BUGS = {
    **{
        ("wgmma_variants.ptx", "PTX505", line): (
            "corpus/cuda/wgmma_variants.cu zero-initialises its accumulators (`float d[N] = {}`) and calls "
            "`wgmma_fence()` without pinning them first (`warpgroup_fence_operand`): nvcc materialises the "
            "zeroing `mov`s after the `wgmma.fence`, so the MMA's accumulator registers are written with no "
            "fence in between (PTX ISA, wgmma.fence); ptxas injects `warpgroup.arrive` (C7519) at lines "
            "1420, 1490, 1529 and 1551 (one finding at 1420 names the other three)"
        )
        for line in (215, 1126, 1420, 2025, 2350)
    },
}

pytestmark = pytest.mark.corpus


def test_no_async_pipeline_findings(corpus_files: list[Path]) -> None:
    settings = LintSettings(rules=tuple(RULES_BY_CODE[code] for code in CODES))
    report = []
    reported_bugs = set()
    for path in corpus_files:
        diagnostics = lint_source(SourceFile.from_bytes(str(path), path.read_bytes()), settings)
        for diagnostic in diagnostics:
            key = (path.name, diagnostic.code, diagnostic.span.line)
            if key in KNOWN_BUGS:
                reported_bugs.add(key)
            else:
                report.append(f"{path.name}:{diagnostic.span.line}: {diagnostic.code} {diagnostic.message}")
    present = {path.name for path in corpus_files}
    stale = [key for key in KNOWN_BUGS if key[0] in present and key not in reported_bugs]
    report += [f"{name}:{line}: the known {code} bug is no longer reported; update KNOWN_BUGS" for name, code, line in stale]
    assert not report, "\n".join(report)
