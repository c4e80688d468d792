"""Suppression comments and PTX002 (the fixtures under fixtures/suppressions/ tell the stories;
these pin the parsing details)."""

from __future__ import annotations

from ptxlint.lint import LintSettings, analyse
from ptxlint.rules import RULES_BY_CODE
from ptxlint.source import SourceFile
from ptxlint.suppressions import parse

HEADER = ".version 9.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b32 %r<3>;\n"
BROKEN = "\tmov.u32 %r1 %tid.x;"
CLEAN = "\tmov.u32 %r1, %tid.x;"


def run(body: str, *codes: str):  # type: ignore[no-untyped-def]
    source = SourceFile.from_bytes("t.ptx", (HEADER + body + "\n\tret;\n}\n").encode())
    rules = tuple(RULES_BY_CODE[code] for code in codes or ("PTX001", "PTX002"))
    return analyse(source, LintSettings(rules=rules))


def found(body: str, *codes: str) -> list[tuple[int, str]]:
    return [(d.span.line, d.code) for d in run(body, *codes).diagnostics]


def test_trailing_comment_covers_its_line() -> None:
    analysis = run(f"{BROKEN}  // ptxlint: ignore[PTX001]")
    assert analysis.diagnostics == [] and analysis.suppressed == 1


def test_comment_alone_covers_the_next_line() -> None:
    assert found(f"\t// ptxlint: ignore[PTX001]\n{BROKEN}") == []


def test_trailing_comment_does_not_cover_the_next_line() -> None:
    assert found(f"{CLEAN}  // ptxlint: ignore[PTX001]\n{BROKEN}") == [(7, "PTX002"), (8, "PTX001")]


def test_several_codes_names_and_bare() -> None:
    assert found(f"{BROKEN}  // ptxlint: ignore[PTX002, syntax-error]") == [(7, "PTX002")]
    assert found(f"{BROKEN}  // ptxlint: ignore") == []


def test_file_ignore() -> None:
    assert found(f"// ptxlint: file-ignore[PTX001]\n{BROKEN}\n{BROKEN.replace('%r1', '%r2')}") == []


def test_unknown_code_and_rule_not_enabled_are_unused() -> None:
    messages = [d.message for d in run(f"{BROKEN}  // ptxlint: ignore[PTX001, NOPE]", "PTX001", "PTX002").diagnostics]
    assert messages == ["unused suppression: unknown rule `NOPE`"]
    messages = [d.message for d in run(f"{CLEAN}  // ptxlint: ignore[PTX001]", "PTX002").diagnostics]
    assert messages == ["unused suppression: `PTX001` is not enabled"]


def test_unused_suppression_silenced_only_file_wide() -> None:
    assert found(f"// ptxlint: file-ignore[PTX002]\n{CLEAN}  // ptxlint: ignore[PTX001]") == []
    assert found(f"{CLEAN}  // ptxlint: ignore[PTX001, PTX002]") == [(7, "PTX002"), (7, "PTX002")]


def test_ptx002_off_reports_nothing() -> None:
    assert found(f"{CLEAN}  // ptxlint: ignore[PTX001]", "PTX001") == []


def test_parse_positions_point_at_each_code() -> None:
    source = SourceFile.from_bytes("t.ptx", b"\tnop;  // ptxlint: ignore[PTX001,  PTX002]\n")
    (suppression,) = parse(source)
    assert [(entry.written, entry.span.column) for entry in suppression.codes] == [("PTX001", 27), ("PTX002", 36)]
    assert suppression.lines == (1,)


def test_not_a_suppression() -> None:
    source = SourceFile.from_bytes("t.ptx", b"// ptxlint is great; ignore this\n// ptxlint: ignored\n")
    assert parse(source) == []
