"""The rule registry: every module `ptxNNN_<name>.py` in this package defines one rule as `RULE`.

Rules are discovered by file name rather than listed, so adding a rule is adding its file; the
meta-test checks that each file's code and name match its `RULE`.
"""

from __future__ import annotations

import importlib
import pkgutil
import re

from ptxlint.rules.base import Rule

_RULE_MODULE = re.compile(r"ptx\d{3}_[a-z0-9_]+")


def _discover() -> tuple[Rule, ...]:
    rules = []
    for info in pkgutil.iter_modules(__path__):
        if _RULE_MODULE.fullmatch(info.name):
            rules.append(importlib.import_module(f"{__name__}.{info.name}").RULE)
    return tuple(sorted(rules, key=lambda rule: rule.code))


ALL_RULES: tuple[Rule, ...] = _discover()
RULES_BY_CODE: dict[str, Rule] = {rule.code: rule for rule in ALL_RULES}
RULES_BY_NAME: dict[str, Rule] = {rule.name: rule for rule in ALL_RULES}
