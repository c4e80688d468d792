"""ptxlint's ISA rules agree with ptxas: over thousands of generated one-instruction kernels,
ptxas rejects a case exactly when ptxlint reports PTX001 or PTX401–405 on it. The cases where
ptxlint knowingly differs are listed, with the manual's wording, in ptxlint/isa/DISAGREEMENTS.md
and count as agreeing.

Two sets of cases: tests/isa_cases.py and tests/isa_forms.py, which vary ptxlint's own grammar
data (99% in every family), and tests/isa_tables.py, written from the manual's syntax tables
without reading ptxlint's data, so that it finds what the data lacks (99.5% overall, 98% in every
family). Neither may have a false alarm.
"""

from __future__ import annotations

import re
import time
from collections import defaultdict
from pathlib import Path

import pytest

from ptxlint.lint import LintSettings, lint_source
from ptxlint.rules import RULES_BY_CODE
from ptxlint.source import SourceFile

import isa_cases
import isa_tables
from ptx_tools import ptxas

ROOT = Path(__file__).resolve().parent.parent
DISAGREEMENTS = ROOT / "ptxlint" / "isa" / "DISAGREEMENTS.md"
ISA_CODES = ("PTX001", "PTX401", "PTX402", "PTX403", "PTX404", "PTX405")
REQUIRED_AGREEMENT = 0.99
# The manual's tables (tests/isa_tables.py): overall and per family.
REQUIRED_TABLE_AGREEMENT = 0.995
REQUIRED_TABLE_FAMILY_AGREEMENT = 0.98

pytestmark = pytest.mark.skipif(ptxas() is None, reason="ptxas not installed (pip install -e '.[test]')")


def known_disagreements() -> set[str]:
    """Case keys listed as `- case: <version> <target> :: <instruction>` in DISAGREEMENTS.md."""
    text = DISAGREEMENTS.read_text()
    return {match.strip() for match in re.findall(r"^- case: `(.*)`$", text, re.M)}


def reported_cases(batch: isa_cases.Batch) -> set[int]:
    settings = LintSettings(rules=tuple(RULES_BY_CODE[code] for code in ISA_CODES))
    diagnostics = lint_source(SourceFile.from_bytes("cases.ptx", batch.text.encode()), settings)
    reported: set[int] = set()
    for diagnostic in diagnostics:
        line = diagnostic.span.line
        if line <= isa_cases.HEADER_LINES:
            return set(range(len(batch.cases)))
        if line in batch.case_lines:
            reported.add(batch.case_lines[line])
    return reported


def measure(cases: list[isa_cases.Case] | None = None, title: str = "ISA agreement") -> tuple[dict[str, list[int]], list[str], str]:
    """Judge every case (by default the generated cases of tests/isa_cases.py) with ptxas and
    ptxlint: the per-family table, the unexplained mismatches, and the table as text."""
    started = time.monotonic()
    oracle = isa_cases.Oracle()
    batches = isa_cases.batches(isa_cases.all_cases() if cases is None else cases)
    verdicts = oracle.judge(batches)
    known = known_disagreements()
    table: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # cases, agreeing, known
    mismatches: list[str] = []
    for batch, (rejected, stderr) in zip(batches, verdicts):
        reported = reported_cases(batch)
        messages = isa_cases.messages_by_case(batch, stderr)
        for index, case in enumerate(batch.cases):
            row = table[case.family]
            row[0] += 1
            if (index in rejected) == (index in reported):
                row[1] += 1
            elif case.key in known:
                row[1] += 1
                row[2] += 1
            else:
                verdict = "rejects" if index in rejected else "accepts"
                why = "; ".join(messages.get(index, []))
                mismatches.append(f"[{case.family}] ptxas {verdict}, ptxlint {'silent' if verdict == 'rejects' else 'reports'}: "
                                  f"{case.key}  {why}")
    elapsed = time.monotonic() - started
    lines = [f"{title} with {oracle.version} ({oracle.calls} ptxas runs, {len(batches)} modules, {elapsed:.1f}s)",
             f"{'family':<24}{'cases':>7}{'agree':>8}{'known':>7}{'%':>9}"]
    for family, (count, agreeing, listed) in sorted(table.items()):
        lines.append(f"{family:<24}{count:>7}{agreeing:>8}{listed:>7}{100 * agreeing / count:>8.2f}%")
    total, agreeing = sum(row[0] for row in table.values()), sum(row[1] for row in table.values())
    false_alarms = sum("ptxas accepts" in line for line in mismatches)
    lines.append(f"{'all':<24}{total:>7}{agreeing:>8}{'':>7}{100 * agreeing / total:>8.2f}%  "
                 f"(false alarms: {false_alarms}, missed rejections: {len(mismatches) - false_alarms})")
    return table, mismatches, "\n".join(lines)


def _shown(request, measured):
    # Shown on every run, -s or not: the table is the measurement this test exists for.
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    if capture is not None and reporter is not None:
        with capture.global_and_fixture_disabled():
            reporter.write_line("\n" + measured[2])
    return measured


@pytest.fixture(scope="module")
def agreement(request):
    return _shown(request, measure())


@pytest.fixture(scope="module")
def table_agreement(request):
    return _shown(request, measure(isa_tables.all_cases(), "ISA agreement on the manual's tables"))


def test_every_family_agrees_with_ptxas(agreement) -> None:
    table, mismatches, report = agreement
    failing = [family for family, (cases, agreeing, _) in table.items() if agreeing / cases < REQUIRED_AGREEMENT]
    assert not failing, report + "\n\nfirst mismatches:\n" + "\n".join(mismatches[:40])


def test_rules_are_not_noisy(agreement) -> None:
    """A case ptxas accepts must never be reported: precision before recall."""
    _, mismatches, report = agreement
    false_alarms = [line for line in mismatches if "ptxas accepts" in line]
    assert not false_alarms, "\n".join(false_alarms[:40])


def test_the_manuals_tables_agree_with_ptxas(table_agreement) -> None:
    table, mismatches, report = table_agreement
    total, agreeing = sum(row[0] for row in table.values()), sum(row[1] for row in table.values())
    failing = [family for family, (cases, agreeing_cases, _) in table.items()
               if agreeing_cases / cases < REQUIRED_TABLE_FAMILY_AGREEMENT]
    assert agreeing / total >= REQUIRED_TABLE_AGREEMENT and not failing, (
        report + "\n\nfirst mismatches:\n" + "\n".join(mismatches[:40]))


def test_the_manuals_tables_raise_no_false_alarm(table_agreement) -> None:
    """A case ptxas accepts must never be reported."""
    _, mismatches, _ = table_agreement
    false_alarms = [line for line in mismatches if "ptxas accepts" in line]
    assert not false_alarms, "\n".join(false_alarms[:40])
