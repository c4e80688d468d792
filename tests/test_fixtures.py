"""Every fixture under fixtures/ is a small PTX story with its expectations written inline, on the
line they concern:

    @%p1 tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r3, %r4}, [%r2];   // expect: PTX101

Every diagnostic must be expected and every expectation met; a line without an expectation must
produce nothing. `// also: CODE` marks a line that a finding of that code names as affected by
the same cause as its own line (one finding per cause, a label at each further instruction); those
too must match exactly. `// known-miss: CODE` records a finding ptxlint should make but does not yet: the
test fails when it starts being reported, so the record is kept true. All rules run, including
those off by default.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from ptxlint.lint import LintSettings, lint_source
from ptxlint.rules import ALL_RULES
from ptxlint.source import SourceFile

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted((ROOT / "fixtures").rglob("*.ptx"))
_EXPECT = re.compile(r"//.*?\bexpect:\s*(?P<codes>PTX\d{3}(?:[\s,]+PTX\d{3})*)")
_ALSO = re.compile(r"//.*?\balso:\s*(?P<codes>PTX\d{3}(?:[\s,]+PTX\d{3})*)")
_KNOWN_MISS = re.compile(r"//.*?\bknown-miss:\s*(?P<codes>PTX\d{3}(?:[\s,]+PTX\d{3})*)")
_CODE = re.compile(r"PTX\d{3}")


def expectations(text: str, pattern: re.Pattern[str]) -> Counter[tuple[int, str]]:
    found: Counter[tuple[int, str]] = Counter()
    for number, line in enumerate(text.splitlines(), start=1):
        match = pattern.search(line)
        if match:
            for code in _CODE.findall(match.group("codes")):
                found[(number, code)] += 1
    return found


@pytest.mark.parametrize("path", FIXTURES, ids=lambda path: str(path.relative_to(ROOT / "fixtures")))
def test_fixture(path: Path) -> None:
    source = SourceFile.from_bytes(str(path.relative_to(ROOT)), path.read_bytes())
    text = path.read_text(errors="replace")
    diagnostics = lint_source(source, LintSettings(rules=ALL_RULES))
    actual = Counter((diagnostic.span.line, diagnostic.code) for diagnostic in diagnostics)
    expected = expectations(text, _EXPECT)
    known_misses = expectations(text, _KNOWN_MISS)
    messages = {(d.span.line, d.code): d.message for d in diagnostics}

    unexpected = actual - expected
    missing = expected - actual
    report = [f"{path.name}:{line}: unexpected {code}: {messages[(line, code)]}" for line, code in sorted(unexpected)]
    report += [f"{path.name}:{line}: expected {code}, not reported" for line, code in sorted(missing)]
    also_actual = Counter(
        (label.span.line, diagnostic.code) for diagnostic in diagnostics for label in diagnostic.labels if label.also_affected
    )
    also_expected = expectations(text, _ALSO)
    report += [f"{path.name}:{line}: {code} also names this line as affected" for line, code in sorted(also_actual - also_expected)]
    report += [f"{path.name}:{line}: expected {code} to also name this line, it does not" for line, code in sorted(also_expected - also_actual)]
    fixed = known_misses & actual
    report += [
        f"{path.name}:{line}: known miss {code} is now reported: turn `known-miss` into `expect`"
        for line, code in sorted(fixed)
    ]
    assert not report, "\n".join(report)


def test_every_rule_has_a_fixture() -> None:
    mentioned = set()
    for path in FIXTURES:
        mentioned.update(code for _, code in expectations(path.read_text(errors="replace"), _EXPECT))
    missing = sorted(rule.code for rule in ALL_RULES if rule.code not in mentioned)
    assert not missing, f"rules without a positive fixture: {missing}"


def test_every_finding_has_help() -> None:
    """Every finding of every rule ends with what to do about it (`= help:`), on every fixture."""
    missing: dict[str, str] = {}
    for path in FIXTURES:
        source = SourceFile.from_bytes(str(path.relative_to(ROOT)), path.read_bytes())
        for diagnostic in lint_source(source, LintSettings(rules=ALL_RULES)):
            if not (diagnostic.help or "").strip():
                missing.setdefault(diagnostic.code, f"{path.relative_to(ROOT)}:{diagnostic.span.line}: {diagnostic.message}")
    assert not missing, "findings without help:\n" + "\n".join(missing[code] for code in sorted(missing))
