"""A linter reads untrusted text in CI. Reading PTX never executes anything; configuration is data;
nothing from a file name or from PTX text reaches a terminal as an escape sequence; the machine
formats stay valid JSON whatever the input bytes and file names."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FORMATS = ("full", "concise", "json", "sarif", "github")
ESC = b"\x1b"
_SGR = re.compile(rb"\x1b\[[0-9;]*m")

PTX = b".version 9.0\n.target sm_90a\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\t%s\n\tret;\n}\n"


def run(*arguments: str, cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    environment = {key: value for key, value in os.environ.items() if key not in ("NO_COLOR", "FORCE_COLOR")}
    environment["PYTHONPATH"] = str(ROOT) + os.pathsep + environment.get("PYTHONPATH", "")
    return subprocess.run(
        [sys.executable, "-m", "ptxlint", *arguments], capture_output=True, cwd=cwd, timeout=120, input=stdin,
        env=environment,
    )


# ----------------------------------------------------------------------------- nothing executes

HOSTILE = [
    b"__import__('os').system('touch {mark}')",
    b"$(touch {mark})",
    b"`touch {mark}`",
    b"; touch {mark}; #",
    b"{{__import__('os').system('touch {mark}')}}",
    b"exec(open('/dev/null').read()); import os; os.system('touch {mark}')",
]


def test_ptx_that_looks_like_code_does_nothing(tmp_path: Path) -> None:
    mark = tmp_path / "executed"
    body = b"\n".join(line.replace(b"{mark}", str(mark).encode()) for line in HOSTILE)
    (tmp_path / "evil.ptx").write_bytes(b"#!/bin/sh\n" + PTX.replace(b"%s", body))
    name = tmp_path / f"$(touch {mark.name});`touch {mark.name}`.ptx"
    name.write_bytes(PTX.replace(b"%s", b"mov.u32 %r1, %tid.x;"))
    for output_format in ("full", "sarif"):
        result = run("--output-format", output_format, str(tmp_path / "evil.ptx"), str(name), cwd=tmp_path)
        assert result.returncode == 1, result.stderr
        result = run("--output-format", output_format, "-", cwd=tmp_path, stdin=body)
        assert result.returncode == 1, result.stderr
    assert not mark.exists()
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(["evil.ptx", name.name])


def test_configuration_is_data(tmp_path: Path) -> None:
    mark = tmp_path / "executed"
    (tmp_path / "ptxlint.toml").write_text(f'select = ["__import__(\'os\').system(\'touch {mark}\')"]\n')
    (tmp_path / "k.ptx").write_bytes(PTX.replace(b"%s", b""))
    result = run("--output-format", "concise", "k.ptx", cwd=tmp_path)
    assert result.returncode == 2 and b"unknown rule" in result.stderr
    (tmp_path / "ptxlint.toml").write_text(f'[severity]\n"$(touch {mark})" = "error"\n')
    result = run("--output-format", "concise", "k.ptx", cwd=tmp_path)
    assert result.returncode == 2 and b"Traceback" not in result.stderr
    assert not mark.exists()


def test_no_dynamic_code_in_the_package() -> None:
    """Configuration goes through tomllib; nothing evaluates, unpickles or shells out. The one
    `exec`s build lowering's fast constructors and the records' constructors from the classes' own
    field names, never from input. Only the front ends start processes (nvcc, cuobjdump), with argument lists and
    never through a shell."""
    allowed = {("ptxlint/lower.py", "exec(code, namespace)"), ("ptxlint/records.py", "exec(source, namespace)")}
    front_ends = ROOT / "ptxlint" / "frontends"
    for path in sorted(front_ends.rglob("*.py")):
        assert "shell=True" not in path.read_text() and "os.system" not in path.read_text(), path
    forbidden = re.compile(r"\b(eval|exec|compile)\(|\bpickle\b|\bmarshal\b|os\.system|\bsubprocess\b|yaml\.load|__import__")
    offenders = []
    for path in sorted((ROOT / "ptxlint").rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            code = line.split("#", 1)[0]
            if path.is_relative_to(front_ends):
                code = re.sub(r"\bsubprocess\b", "", code)
            if any(str(path.relative_to(ROOT)) == where and text in code for where, text in allowed):
                continue
            if forbidden.search(code) and "re.compile(" not in code:
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)
    assert "tomllib" in (ROOT / "ptxlint" / "config.py").read_text()


# ----------------------------------------------------------------------------- terminal escapes

# SGR colour, an OSC 8 hyperlink, erase-screen and an 8-bit CSI (no `/`: it is also a file name).
INJECTED = "\x1b[31m\x1b]8;;https:evil.invalid\x07click\x1b]8;;\x07\x1b[2J\x9b31m"


@pytest.fixture()
def hostile_file(tmp_path: Path) -> Path:
    name = tmp_path / f"k{INJECTED}.ptx"
    text = PTX.replace(b"%s", f"mov.u32 %r1 %tid.x; // {INJECTED}\n\tbra {INJECTED};".encode())
    name.write_bytes(f"// {INJECTED}\n".encode() + text)
    return name


@pytest.mark.parametrize("output_format", FORMATS)
def test_no_escape_sequence_from_the_input_reaches_the_output(hostile_file: Path, output_format: str) -> None:
    plain = run("--output-format", output_format, "--color", "never", str(hostile_file), cwd=hostile_file.parent)
    assert plain.returncode == 1, plain.stderr
    assert b"PTX001" in plain.stdout
    for stream in (plain.stdout, plain.stderr):
        assert ESC not in stream
        assert "\x9b".encode() not in stream or output_format in ("json", "sarif")
    if output_format in ("json", "sarif"):
        json.loads(plain.stdout)  # the escapes are JSON escapes (\u001b), the document valid
    coloured = run("--output-format", output_format, "--color", "always", str(hostile_file), cwd=hostile_file.parent)
    assert b"\x1b]" not in coloured.stdout and b"\x1b[2J" not in coloured.stdout
    # Colour is decoration only: without rich's colour codes the coloured output is the plain one.
    elapsed = re.compile(rb" in \d+\.\d+s\.")  # the summary's timing differs between the two runs
    assert elapsed.sub(b"", _SGR.sub(b"", coloured.stdout)) == elapsed.sub(b"", plain.stdout)


def test_escape_in_an_unreadable_file_name(tmp_path: Path) -> None:
    missing = tmp_path / f"gone{INJECTED}.ptx"
    os.symlink(tmp_path / "nowhere", missing)
    for output_format in FORMATS:
        result = run("--output-format", output_format, str(missing), cwd=tmp_path)
        assert result.returncode == 2
        assert ESC not in result.stdout and ESC not in result.stderr, (output_format, result.stdout, result.stderr)


@pytest.mark.parametrize("output_format", FORMATS)
def test_file_name_that_is_not_utf8(tmp_path: Path, output_format: str) -> None:
    raw = os.fsencode(tmp_path) + b"/bad\xff\xfe\x1b[31mname.ptx"
    with open(raw, "wb") as handle:
        handle.write(PTX.replace(b"%s", b"mov.u32 %r1 %tid.x;"))
    out = tmp_path / "out.txt"
    for arguments in ((), ("-o", str(out))):
        result = run("--output-format", output_format, *arguments, os.fsdecode(raw), cwd=tmp_path)
        assert result.returncode == 1, result.stderr
        assert b"Traceback" not in result.stderr
        data = out.read_bytes() if arguments else result.stdout
        assert ESC not in data
        if output_format in ("json", "sarif"):
            json.loads(data.decode("utf-8"))  # strict UTF-8: the document is valid as bytes too
