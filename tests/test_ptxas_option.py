"""`--ptxas`: ptxas's errors as PTX401–PTX405 findings, at the instruction it names, one finding
per line where ptxlint's own ISA rules already report; a `.version` ptxas cannot read is said so.
The files are tests/ptxas_option/*.ptx, their expectations inline (`// expect: CODE`)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from ptxlint.cli import main
from ptxlint.frontends.ptxas import classify
from ptx_tools import ptxas

FILES = Path(__file__).resolve().parent / "ptxas_option"
needs_ptxas = pytest.mark.skipif(ptxas() is None, reason="ptxas not installed (pip install -e '.[test]')")


def run(path: Path):  # type: ignore[no-untyped-def]
    tool = ptxas()
    assert tool is not None
    env = {"PATH": f"{Path(tool).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    return CliRunner().invoke(main, ["check", "--isolated", "--ptxas", "--output-format", "json", str(path)], env=env)


def expected(path: Path) -> list[tuple[int, str]]:
    return [(number, code) for number, line in enumerate(path.read_text().splitlines(), 1)
            for code in re.findall(r"// expect: (PTX\d+)", line)]


@needs_ptxas
@pytest.mark.parametrize("name", ["misses.ptx", "clean.ptx"])
def test_ptxas_errors_become_isa_findings(name: str) -> None:
    result = run(FILES / name)
    findings = json.loads(result.stdout)["diagnostics"]
    assert sorted((f["location"]["start"]["line"], f["code"]) for f in findings) == expected(FILES / name), result.output
    assert result.exit_code == (1 if expected(FILES / name) else 0)


@needs_ptxas
def test_what_only_ptxas_rejects_points_at_the_instruction() -> None:
    findings = json.loads(run(FILES / "misses.ptx").stdout)["diagnostics"]
    (only_ptxas,) = [f for f in findings if f["message"].startswith("ptxas: ")]
    assert only_ptxas["code"] == "PTX402" and only_ptxas["location"]["start"] == {"line": 12, "column": 2}
    assert "cp.async.bulk.tensor" in only_ptxas["message"]


@needs_ptxas
def test_a_version_newer_than_ptxas_reads_is_not_judged() -> None:
    result = run(FILES / "newer_version.ptx")
    assert "reads PTX ISA up to" in result.output and ".version 9.1" in result.output
    assert result.exit_code == 1  # asked for and not done: not a clean result


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ("Feature '.kind::i8' not supported on .target 'sm_103a'", "PTX403"),
        ("Feature '.block32' requires PTX ISA .version 8.8 or later", "PTX404"),
        ("Argument 1 of instruction 'setmaxnreg.inc': unexpected value '100', expected to be multiple of 8", "PTX405"),
        ("Argument 1 of 'tcgen05.alloc' instruction: value must be power of 2", "PTX405"),
        ("Arguments mismatch for instruction 'mbarrier.arrive'", "PTX401"),
        ("Argument vector size mismatch for instruction 'mma'", "PTX401"),
        ("Predicate output expected for instruction 'elect'", "PTX401"),
        ("Illegal modifier '.b4x16_p64.b8x16' for instruction 'tcgen05.cp'", "PTX402"),
        ("Modifier '.kind::mxf4nvf4' requires modifier '.scale_vectorsize' for instruction 'tcgen05.mma'", "PTX402"),
    ],
)
def test_messages_map_to_the_rule_they_are_about(message: str, code: str) -> None:
    assert classify(message)[0] == code
