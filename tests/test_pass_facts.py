"""Pass facts asserted inline in fixtures, through each pass's printer (what `ptxlint dump PASS`
prints).

An instruction's line may carry, in its comment, ``<pass>: <facts>`` for any pass with a
printer, after an ``// expect:`` or another annotation and a ``;``:

    shr.u32 %r2, %r1, 5;                 // uniformity: warp
    bar.sync 0;                          // uniformity: - executes: cta
    tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r8, %r9}, [%r13];  // roles: 4-7

The facts must be what the printer says of the line's first instruction, or the start of it, up
to a space: ``roles: 4-7`` holds where the printer says ``4-7 of 8``, ``uniformity: warp`` where
it says ``warp executes: cta``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fact_annotations import annotated_fixtures

from ptxlint.context import ModuleContext
from ptxlint.lower import lower
from ptxlint.passes import printable
from ptxlint.printer import pass_describer
from ptxlint.source import SourceFile

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted((ROOT / "fixtures").rglob("*.ptx"))
PASSES = printable()
_ANNOTATION = re.compile(rf"(?:^|[\s;])(?P<name>{'|'.join(map(re.escape, PASSES))}):\s*(?P<facts>[^;]*?)\s*(?:;|$)")
ANNOTATED = annotated_fixtures(FIXTURES, _ANNOTATION)


def annotations(text: str) -> dict[int, list[tuple[str, str]]]:
    """Line → every (pass, facts) annotated on it."""
    found: dict[int, list[tuple[str, str]]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        comment = line.partition("//")[2]
        for match in _ANNOTATION.finditer(comment):
            found.setdefault(number, []).append((match.group("name"), match.group("facts")))
    return found


def holds(facts: str, printed: str) -> bool:
    return printed == facts or printed.startswith(facts + " ")


def test_annotations_cover_the_passes() -> None:
    """The annotated facts exercise the uniformity and roles passes at least, on many lines."""
    counted: dict[str, int] = {}
    for path in ANNOTATED:
        for entries in annotations(path.read_text()).values():
            for name, _ in entries:
                counted[name] = counted.get(name, 0) + 1
    assert counted.get("uniformity", 0) >= 20 and counted.get("roles", 0) >= 6, counted


@pytest.mark.parametrize("path", ANNOTATED, ids=lambda path: str(path.relative_to(ROOT / "fixtures")))
def test_annotated_facts(path: Path) -> None:
    expected = annotations(path.read_text())
    module = lower(SourceFile.from_bytes(path.name, path.read_bytes()))
    context = ModuleContext(module, record_every_fact=True)
    printed: dict[str, dict[int, str]] = {}
    problems = []
    for line, entries in sorted(expected.items()):
        for name, facts in entries:
            if name not in printed:
                printed[name] = _printed(context, name)
            got = printed[name].get(line)
            if got is None:
                problems.append(f"{path.name}:{line}: `{name}` says nothing about this line")
            elif not holds(facts, got):
                problems.append(f"{path.name}:{line}: expected {name}: {facts}, got {name}: {got}")
    assert not problems, "\n".join(problems)


def _printed(context: ModuleContext, name: str) -> dict[int, str]:
    """Line → what pass ``name`` prints for the line's first instruction it covers."""
    describer_of = pass_describer(context, name)
    found: dict[int, str] = {}
    for function in context.module.functions:
        describe = describer_of(function)
        if describe is None:
            continue
        for index, instruction in enumerate(function.instructions):
            found.setdefault(instruction.span.line, describe(index, instruction))
    return found
