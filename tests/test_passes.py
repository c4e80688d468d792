"""Every pass is declared once, under the name the registry gives it; what passes and rules
require exists and forms no cycle; a rule or pass asking for what it does not require is caught."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import ptxlint.analyses
from ptxlint.context import ModuleContext
from ptxlint.lower import lower
from ptxlint.passes import PASS_NAMES, Pass, UndeclaredPass, UnknownPass, load, released_after
from ptxlint.rules import ALL_RULES
from ptxlint.rules.base import Rule
from ptxlint.source import SourceFile


def _declared() -> dict[str, tuple[str, Pass]]:
    found: dict[str, tuple[str, Pass]] = {}
    for info in pkgutil.walk_packages(ptxlint.analyses.__path__, "ptxlint.analyses."):
        module = importlib.import_module(info.name)
        for declared in getattr(module, "PASSES", ()):
            assert declared.name not in found, f"pass `{declared.name}` declared twice"
            found[declared.name] = (info.name, declared)
    return found


def test_the_registry_names_every_declared_pass() -> None:
    declared = _declared()
    assert sorted(declared) == list(PASS_NAMES)
    for name, (_, value) in declared.items():
        assert load(name) is value


def test_requirements_exist_and_form_no_cycle() -> None:
    for rule in ALL_RULES:
        assert set(rule.requires) <= set(PASS_NAMES), rule.code
    visiting: set[str] = set()
    done: set[str] = set()

    def visit(name: str) -> None:
        assert name not in visiting, f"pass `{name}` requires itself"
        if name in done:
            return
        visiting.add(name)
        for required in load(name).requires:
            assert required in PASS_NAMES, f"pass `{name}` requires unknown `{required}`"
            visit(required)
        visiting.discard(name)
        done.add(name)

    for name in PASS_NAMES:
        visit(name)


def test_an_undeclared_request_is_refused() -> None:
    module = lower(SourceFile.from_bytes("k.ptx", b".version 8.7\n.target sm_90a\n.address_size 64\n"))
    context = ModuleContext(module)
    honest = Rule("PTX999", "honest", ALL_RULES[0].severity, "", "", lambda _: (), requires=("call_graph",))
    with context.running(honest):
        assert context.result("call_graph").functions == {}
        with pytest.raises(UndeclaredPass, match="rule PTX999 asks for pass `uniformity`"):
            context.result("uniformity")
    with pytest.raises(UnknownPass):
        context.result("no_such_pass")


def test_results_are_released_after_their_last_user() -> None:
    """Each requester releases the passes no later one needs, directly or through a pass it
    requires: `convergence` needs `uniformity`, which needs `cfg`, `registers` and `call_graph`;
    `tcgen05_scan` needs `call_graph`."""
    released = released_after([("convergence",), ("tcgen05_scan",), ("registers",), ()])
    assert released == [
        frozenset({"convergence", "uniformity", "cfg"}),
        frozenset({"tcgen05_scan", "call_graph"}),
        frozenset({"registers"}),
        frozenset(),
    ]
