"""Every rule is one file with complete docs whose Example fires and whose Use instead does not."""

from __future__ import annotations

import pytest

from ptxlint.lint import LintSettings, lint_source
from ptxlint.rules import ALL_RULES
from ptxlint.rules.base import DOC_SECTIONS, Rule
from ptxlint.source import SourceFile


def test_codes_and_names_are_unique() -> None:
    codes = [rule.code for rule in ALL_RULES]
    names = [rule.name for rule in ALL_RULES]
    assert len(set(codes)) == len(codes)
    assert len(set(names)) == len(names)


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: rule.code)
def test_rule_module_matches_rule(rule: Rule) -> None:
    module = rule.check.__module__.rsplit(".", 1)[-1]
    assert module == f"{rule.code.lower()}_{rule.name.replace('-', '_')}"


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: rule.code)
def test_docs_have_every_section(rule: Rule) -> None:
    missing = [title for title in DOC_SECTIONS if not rule.section(title)]
    assert not missing, f"{rule.code} docs lack sections {missing}"


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: rule.code)
def test_example_fires_and_fix_does_not(rule: Rule) -> None:
    example, fix = rule.examples()
    assert example and fix, f"{rule.code} docs need ```ptx blocks in Example and Use instead"
    settings = LintSettings(rules=(rule,))
    fired = lint_source(SourceFile.from_bytes("example.ptx", example.encode()), settings)
    assert fired, f"{rule.code}: the docs' Example produces no finding"
    silent = lint_source(SourceFile.from_bytes("fix.ptx", fix.encode()), settings)
    assert not silent, f"{rule.code}: the docs' Use instead still produces {silent[0].message}"
