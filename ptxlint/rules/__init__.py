"""The rule registry: every rule, in code order. Adding a rule means adding its module here."""

from __future__ import annotations

from ptxlint.rules import ptx001_syntax_error
from ptxlint.rules.base import Rule

ALL_RULES: tuple[Rule, ...] = tuple(
    sorted(
        (module.RULE for module in (ptx001_syntax_error,)),
        key=lambda rule: rule.code,
    )
)

RULES_BY_CODE: dict[str, Rule] = {rule.code: rule for rule in ALL_RULES}
RULES_BY_NAME: dict[str, Rule] = {rule.name: rule for rule in ALL_RULES}
