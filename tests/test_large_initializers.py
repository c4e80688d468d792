"""Large initializers, debug sections and comment-only lines are left out of the parse
(`syntax.included_ranges`) without changing anything ptxlint says: the same IR and the same
findings as parsing the whole text, including the syntax errors an initializer or a section may
hold, which keep it in the parse, and those near comment lines, which are then parsed with them."""

from __future__ import annotations

import pytest
from ir_compare import same_ir

from ptxlint import syntax
from ptxlint.lint import LintSettings, lint_source
from ptxlint.lower import lower
from ptxlint.rules import ALL_RULES
from ptxlint.source import SourceFile

_ELEMENTS = ", ".join(str(value * 37 % 256) for value in range(3000))


def kernel(initializer: str) -> bytes:
    """A module with a 3,000-element table and a kernel after it, so a wrong position after the
    table would show in the kernel's spans and lines."""
    return (
        ".version 8.0\n.target sm_90a\n.address_size 64\n\n"
        f".global .align 4 .b8 table[6000] = {{{initializer}}};\n\n"
        ".visible .entry k(.param .u64 out)\n{\n\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<2>;\n"
        "\tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, %tid.x;\n\tst.global.u32 [%rd1], %r1;\n\tret;\n}\n"
    ).encode()


CASES = {
    "plain list": (_ELEMENTS, True),
    "trailing comma": (_ELEMENTS + ",", True),
    "over two lines": (_ELEMENTS.replace(", 7,", ",\n 7,"), True),
    "missing comma": (_ELEMENTS + " 5", False),
    "double comma": (_ELEMENTS.replace(", 7,", ", 7,,"), False),
    "octal eight": (_ELEMENTS + ", 08", False),
    "hexadecimal": (_ELEMENTS + ", 0x1F", False),
    "negative": (_ELEMENTS + ", -1", False),
    "comment inside": (_ELEMENTS.replace(", 7,", ", 7, /* seven */"), False),
}


def whole_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(syntax, "included_ranges", lambda data, comment_lines=True: ())


def assert_same_as_the_whole_text(data: bytes, left_out: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """``data`` has something left out of its parse exactly when ``left_out``, and lowers and
    lints to the same IR and findings as when its whole text is parsed. Comment lines aside: they
    are left out wherever they are (below)."""
    assert bool(syntax.included_ranges(data, comment_lines=False)) == left_out
    source = SourceFile.from_bytes("input.ptx", data)
    settings = LintSettings(rules=tuple(ALL_RULES))
    skipping = lower(source), [(d.code, d.span, d.message) for d in lint_source(source, settings)]
    whole_text(monkeypatch)
    whole = lower(source), [(d.code, d.span, d.message) for d in lint_source(source, settings)]
    assert same_ir(whole[0], skipping[0])
    assert whole[1] == skipping[1]


@pytest.mark.parametrize("name", CASES)
def test_same_ir_and_findings_as_the_whole_text(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    initializer, left_out = CASES[name]
    assert_same_as_the_whole_text(kernel(initializer), left_out, monkeypatch)


@pytest.mark.corpus
def test_same_ir_on_the_corpus(corpus_files, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    with_tables = [path for path in corpus_files if syntax.included_ranges(path.read_bytes())]
    assert with_tables, "the corpus has large initializers (const_tables.cu; CUTLASS examples include curand's tables)"
    skipping = {path: lower(SourceFile.from_bytes(str(path), path.read_bytes())) for path in with_tables[:6]}
    whole_text(monkeypatch)
    different = [
        str(path) for path, module in skipping.items()
        if not same_ir(lower(SourceFile.from_bytes(str(path), path.read_bytes())), module)
    ]
    assert not different, "IR differs:\n" + "\n".join(different)


_DEBUG_DATA = "".join(
    f".b8 {value * 37 % 256}\n.b32 .debug_abbrev+{value}\n.b64 $L__tmp{value}\n.b8 108,103,101\n$L__label{value}:\n"
    for value in range(400)
)


def debugged_kernel(body: str) -> bytes:
    """The kernel above with `nvcc -G`'s debug sections after it."""
    return kernel("1, 2, 3") + f"\t.section\t.debug_info\n\t{{\n{body}\t}}\n\t.section\t.debug_macinfo\n\t{{\n.b8 0\n\t}}\n".encode()


SECTIONS = {
    "data and labels": (_DEBUG_DATA, True),
    "a comment inside": (_DEBUG_DATA + "// a comment\n", False),
    "an instruction inside": (_DEBUG_DATA + "ret;\n", False),
    "a hexadecimal item": (_DEBUG_DATA + ".b8 0x1F\n", False),
    "a missing comma": (_DEBUG_DATA + ".b8 1 2\n", False),
    "an unknown width": (_DEBUG_DATA + ".b7 1\n", False),
}


@pytest.mark.parametrize("name", SECTIONS)
def test_debug_sections_same_ir_and_findings_as_the_whole_text(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    body, left_out = SECTIONS[name]
    assert_same_as_the_whole_text(debugged_kernel(body), left_out, monkeypatch)


def commented_kernel(extra: str = "") -> bytes:
    """A kernel with nvcc's comment lines around inline asm, between instructions and at the top
    level, and ``extra`` in its body."""
    return (
        ".version 8.0\n.target sm_90a\n.address_size 64\n\n\t// .globl\tk\n// comment\n"
        ".visible .entry k(.param .u64 out)\n{\n\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<2>;\n"
        "\tld.param.u64 %rd1, [out];\n\t// begin inline asm\n\tmov.u32 %r1, %tid.x;\n\t// end inline asm\n"
        f"\t// begin inline asm\n\t// end inline asm\n{extra}\tst.global.u32 [%rd1], %r1; // stored\n\tret;\n}}\n"
    ).encode()


COMMENT_LINES = {
    "comment lines": (commented_kernel(), True),
    "a block comment anywhere keeps them": (commented_kernel("\t/* a\n\t// b */\n"), False),
    "a run that starts after code": (commented_kernel("\tadd.s32 %r2, %r1, 1; // one\n\t// two\n\t// three\n\t// four\n"), True),
    "a syntax error parses them": (commented_kernel("\tadd.s32 %r2 %r1, 1;\n\t// after the error\n"), True),
}


@pytest.mark.parametrize("name", COMMENT_LINES)
def test_comment_lines_same_ir_and_findings_as_the_whole_text(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    data, left_out = COMMENT_LINES[name]
    assert bool(syntax.included_ranges(data)) == left_out
    assert not syntax.included_ranges(data, comment_lines=False)
    assert_same_as_the_whole_text(data, False, monkeypatch)
