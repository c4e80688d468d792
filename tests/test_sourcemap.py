"""Source mapping: diagnostics name the CUDA line their PTX came from, through `inlined_at`."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from ptxlint.cli import main
from ptxlint.diagnostics import SourceFrame
from ptxlint.lint import LintSettings, lint_source
from ptxlint.source import SourceFile

# An inline-asm slip (a missing comma) in a helper inlined into the kernel: nvcc passes inline
# asm through verbatim, so the PTX carries the bug, and `-lineinfo` says where it was written.
CUDA = """\
__device__ __forceinline__ unsigned thread_x() {
    unsigned x;
    asm volatile("mov.u32 %0 %%tid.x;" : "=r"(x));
    return x;
}

__global__ void kernel(unsigned *out) {
    out[threadIdx.x] = thread_x();
}
"""


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("nvcc is not on PATH: cannot generate PTX with -lineinfo")
    directory = tmp_path_factory.mktemp("nvcc")
    (directory / "kernel.cu").write_text(CUDA)
    # nvcc may run ptxas over its own output and fail on the bug; the PTX is written before that.
    subprocess.run(
        [nvcc, "-lineinfo", "-ptx", "-arch=compute_90", "kernel.cu", "-o", "kernel.ptx"],
        cwd=directory, capture_output=True, text=True, timeout=300,
    )
    ptx = directory / "kernel.ptx"
    if not ptx.exists():
        pytest.fail("nvcc produced no PTX")
    return directory


def test_nvcc_passes_inline_asm_through_verbatim(compiled: Path) -> None:
    text = (compiled / "kernel.ptx").read_text()
    assert ".loc" in text and ".file" in text and "inlined_at" in text
    assert any(line.strip().startswith("mov.u32") and "%tid.x" in line and "," not in line for line in text.splitlines())


def test_diagnostic_names_the_cuda_line_and_the_inlining_call(compiled: Path) -> None:
    path = compiled / "kernel.ptx"
    (diagnostic,) = lint_source(SourceFile.from_bytes(str(path), path.read_bytes()), LintSettings())
    assert diagnostic.code == "PTX001"
    inner, outer = diagnostic.origin
    assert Path(inner.path).name == "kernel.cu" and inner.line == 3
    assert Path(outer.path).name == "kernel.cu" and outer.line == 8


def test_map_to_source_makes_it_primary(compiled: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(compiled)
    (compiled / "ptxlint.toml").write_text("")
    concise = CliRunner().invoke(main, ["--map-to-source", "--output-format", "concise", "kernel.ptx"]).stdout
    assert concise.split(":")[1:2] == ["3"] and "kernel.cu" in concise.split(":")[0]
    full = CliRunner().invoke(main, ["--color", "never", "kernel.ptx"]).stdout
    assert "= source: " in full and "kernel.cu:3:5, inlined at " in full


HAND_WRITTEN = """.version 9.0
.target sm_90a
.address_size 64
.file 1 "a.cu"
.file 2 "b.cu"
.visible .entry k()
{
	.reg .b32 %r<4>;
	mov.u32 %r1, 1;
	.loc 1 10 3
	mov.u32 %r2, 2;
	mov.u32 %r3 %tid.x;
	.loc 2 20 0, function_name $L__x, inlined_at 1 11 4
	mov.u32 %r3 %tid.y;
	ret;
}
"""


def test_mapping_by_containing_instruction_else_nearest_preceding_loc() -> None:
    diagnostics = lint_source(SourceFile.from_bytes("k.ptx", HAND_WRITTEN.encode()), LintSettings())
    origins = {d.span.line: d.origin for d in diagnostics}
    assert origins[12] == (SourceFrame("a.cu", 10, 3),)  # no .loc of its own: the preceding one
    assert origins[14] == (SourceFrame("b.cu", 20, 0), SourceFrame("a.cu", 11, 4))
    assert str(origins[14][0]) == "b.cu:20"


def test_no_line_information_no_origin() -> None:
    text = HAND_WRITTEN.replace('.file 1 "a.cu"\n.file 2 "b.cu"\n', "")
    text = "\n".join(line for line in text.splitlines() if ".loc" not in line) + "\n"
    diagnostics = lint_source(SourceFile.from_bytes("k.ptx", text.encode()), LintSettings())
    assert diagnostics and all(d.origin == () for d in diagnostics)
