"""`--ptxas`: ptxas's own verdict on a PTX file, reported as PTX401–PTX405 findings.

ptxlint's ISA rules follow ptxas (isa/DISAGREEMENTS.md) but cannot know everything it checks.
With a CUDA toolkit at hand (PATH, `CUDA_HOME`, the NVIDIA wheels: `frontends/toolkit.py`), the
driver runs ptxas on each PTX input for the architecture its `.target` names, reads its errors
(`ptxas file.ptx, line N; error   : …`) and reports each at the instruction on that line, under the
ISA rule its message is about. A line where ptxlint's own ISA rules (or PTX001) already report
something keeps those findings only.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import tempfile

from ptxlint.diagnostics import Diagnostic, Severity
from ptxlint.ir import Module
from ptxlint.isa.targets import Version, architecture_of, format_version
from ptxlint.source import SourceFile, Span

# The findings of these rules make ptxas's own message on the same line redundant.
ISA_CODES = frozenset({"PTX001", "PTX401", "PTX402", "PTX403", "PTX404", "PTX405"})
_SECONDS = 120

_ERROR = re.compile(r"^ptxas\b.*?, line (\d+); error\s*:\s*(.*)$")
# The newest PTX ISA version each CUDA release's ptxas reads (the PTX ISA release notes).
_ISA_OF_RELEASE = {
    (11, 8): (7, 8), (12, 0): (8, 0), (12, 1): (8, 1), (12, 2): (8, 2), (12, 3): (8, 3), (12, 4): (8, 4),
    (12, 5): (8, 5), (12, 6): (8, 5), (12, 8): (8, 7), (12, 9): (8, 8), (13, 0): (9, 0), (13, 1): (9, 1),
}

# What a message is about, most specific first: (pattern, code, rule name).
_KINDS = (
    (re.compile(r"not supported on \.target|requires \.target|should be used on \.target"), "PTX403", "unsupported-on-target"),
    (re.compile(r"requires PTX ISA \.version"), "PTX404", "requires-newer-ptx-isa"),
    (re.compile(r"unexpected value|out of range|value must be|must be (?:a multiple|in the range|between)|non-zero|exceeds"),
     "PTX405", "operand-value-out-of-range"),
    (re.compile(r"vector size|Arguments? mismatch|Argument \d+|Predicate output expected|Result register required"
                r"|[Ss]ink|Result discard|Vector expected|operand", re.I), "PTX401", "operand-count-mismatch"),
)
_QUALIFIER = ("PTX402", "invalid-qualifier-combination")


@functools.cache
def release_of(tool: str) -> tuple[str, Version | None]:
    """ptxas's version line and the newest PTX ISA version it reads (None if not known)."""
    try:
        shown = subprocess.run([tool, "--version"], capture_output=True, text=True, timeout=_SECONDS).stdout
    except (OSError, subprocess.SubprocessError):
        return "ptxas", None
    match = re.search(r"release (\d+)\.(\d+)", shown)
    if match is None:
        return "ptxas", None
    line = f"ptxas {match.group(1)}.{match.group(2)}"
    release = (int(match.group(1)), int(match.group(2)))
    known = [isa for cuda, isa in sorted(_ISA_OF_RELEASE.items()) if cuda <= release]
    return line, (known[-1] if known else None)


def classify(message: str) -> tuple[str, str]:
    """The ISA rule (code, name) a ptxas error message is about."""
    for pattern, code, name in _KINDS:
        if pattern.search(message):
            return code, name
    return _QUALIFIER


def check(source: SourceFile, module: Module, tool: str, found: list[Diagnostic]) -> tuple[list[Diagnostic], str | None]:
    """ptxas's errors on ``source`` as findings, less the lines ``found`` already covers; and why
    ptxas could not judge the file, if it could not."""
    architecture = architecture_of(tuple(target.name for target in module.targets))
    if architecture is None:
        return [], "--ptxas: the module names no .target ptxas can assemble for"
    version_line, newest = release_of(tool)
    if module.version is not None and newest is not None and module.version > newest:
        return [], (f"--ptxas: {version_line} reads PTX ISA up to {format_version(newest)}; "
                    f"this module declares .version {format_version(module.version)}")
    stderr = _run(tool, source, architecture.name)
    if stderr is None:
        return [], f"--ptxas: {version_line} did not finish"
    covered = {diagnostic.span.line for diagnostic in found if diagnostic.code in ISA_CODES}
    # One finding per line and rule, its messages joined (ptxas often says one thing twice).
    messages: dict[tuple[int, str, str], list[str]] = {}
    for raw in stderr.splitlines():
        match = _ERROR.match(raw.strip())
        if match is None:
            continue
        line, message = int(match.group(1)), match.group(2).strip()
        if line in covered or not 1 <= line <= source.line_count:
            continue
        said = messages.setdefault((line, *classify(message)), [])
        if message not in said:
            said.append(message)
    at_line = _instructions_by_line(module)
    findings = [
        Diagnostic(code, name, Severity.ERROR, "ptxas: " + "; ".join(said), at_line.get(line) or _line_span(source, line),
                   notes=(f"reported by {version_line} (--ptxas)",))
        for (line, code, name), said in messages.items()
    ]
    return findings, None


def _run(tool: str, source: SourceFile, architecture: str) -> str | None:
    with tempfile.TemporaryDirectory(prefix="ptxlint-ptxas-") as directory:
        path = os.path.join(directory, "input.ptx")
        with open(path, "wb") as handle:
            handle.write(source.data)
        try:
            result = subprocess.run([tool, f"-arch={architecture}", "-O0", "-o", os.devnull, path],
                                    capture_output=True, text=True, timeout=_SECONDS)
        except (OSError, subprocess.SubprocessError):
            return None
    return result.stderr


def _instructions_by_line(module: Module) -> dict[int, Span]:
    spans: dict[int, Span] = {}
    for function in module.functions:
        for instruction in function.instructions:
            spans.setdefault(instruction.span.line, instruction.span)
    return spans


def _line_span(source: SourceFile, line: int) -> Span:
    """The text of a line that holds no instruction (a directive), without its indentation."""
    text = source.line_bytes(line)
    offset = source.line_starts[line - 1]
    indent = len(text) - len(text.lstrip())
    return source.span(offset + indent, offset + len(text.rstrip()))
