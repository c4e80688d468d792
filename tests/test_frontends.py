"""Inputs that are not PTX: CUDA C++ compiled with nvcc, the PTX inside binaries (cuobjdump), and
kernels Triton compiles in-process. nvcc, cuobjdump and Triton come from the test dependencies
(the `nvidia-cuda-nvcc` and `nvidia-cuda-cuobjdump` wheels, `triton`); nothing needs a GPU."""

from __future__ import annotations

import io
import json
import re
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

import ptxlint
from ptxlint.cli import main
from ptxlint.frontends.toolkit import find_tool

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "tmem_alloc_divergent.cu"
BUG_LINE = next(number for number, line in enumerate(EXAMPLE.read_text().splitlines(), 1) if "tcgen05.alloc" in line and "asm" in line)

# A kernel whose bug exists only when compiled with -DBUGGY: proves compiler flags reach nvcc.
FLAGGED = """\
__global__ void sync_some(int *out)
{
#ifdef BUGGY
    if (threadIdx.x % 2)
#endif
    __syncthreads();
    out[threadIdx.x] = 1;
}
"""


def invoke(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, ["--output-format", "concise", *args])


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ptxlint.toml").write_text("")
    return tmp_path


def test_cu_finding_is_reported_on_the_cu_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    result = invoke("examples/tmem_alloc_divergent.cu")
    assert result.exit_code == 1, result.output
    assert f"examples/tmem_alloc_divergent.cu:{BUG_LINE}:" in result.output and "PTX101" in result.output


def test_cu_architectures_and_compile_errors(workdir: Path) -> None:
    (workdir / "hopper_only.cu").write_text(EXAMPLE.read_text())
    result = invoke("hopper_only.cu", "--arch", "sm_90a")  # tcgen05 does not exist on sm_90a
    assert result.exit_code == 2
    assert "nvcc failed for sm_90a" in result.output and "not supported on .target 'sm_90a'" in result.stderr


def test_compiler_flags_after_double_dash(workdir: Path) -> None:
    (workdir / "flagged.cu").write_text(FLAGGED)
    assert invoke("flagged.cu").exit_code == 0
    result = invoke("flagged.cu", "--", "-DBUGGY")
    assert result.exit_code == 1 and "flagged.cu:6:" in result.output and "PTX102" in result.output


def test_compile_commands_database(workdir: Path) -> None:
    (workdir / "flagged.cu").write_text(FLAGGED)
    (workdir / "build").mkdir()
    database = [{"directory": str(workdir), "file": "flagged.cu", "arguments": ["nvcc", "-DBUGGY", "-c", "flagged.cu", "-o", "build/flagged.o"]}]
    (workdir / "build" / "compile_commands.json").write_text(json.dumps(database))
    result = invoke("flagged.cu", "-p", "build")
    assert result.exit_code == 1 and "PTX102" in result.output
    (workdir / "other.cu").write_text(FLAGGED)
    result = invoke("other.cu", "-p", "build")
    assert result.exit_code == 2 and "not in the compilation database" in result.output


def test_binaries_are_linted_through_their_embedded_ptx(workdir: Path) -> None:
    nvcc = find_tool("nvcc")
    assert nvcc is not None, "nvcc not found: install the test extra (pip install -e '.[test]')"
    gencode = "arch=compute_100a,code=[sm_100a,compute_100a]"

    def build(*arguments: str) -> None:
        subprocess.run([nvcc, *arguments], check=True, capture_output=True, timeout=600)

    build("-cubin", "-arch=sm_100a", str(EXAMPLE), "-o", "kernel.cubin")
    build("-c", "-Xcompiler", "-fPIC", "-gencode", gencode, str(EXAMPLE), "-o", "kernel.o")
    subprocess.run(["gcc", "-shared", "kernel.o", "-o", "libkernel.so"], check=True, timeout=120)
    result = invoke("libkernel.so", "kernel.cubin")
    assert result.exit_code == 2  # the cubin carries machine code only: said, not skipped
    assert "libkernel.so[sm_100a]:" in result.output and "PTX101" in result.output
    assert "kernel.cubin: error: the binary contains no PTX" in result.output
    # --keep-ptx writes the extracted PTX, and the findings point into it.
    result = invoke("libkernel.so", "--keep-ptx", "ptx")
    kept = workdir / "ptx" / "libkernel.so.sm_100a.ptx"
    assert result.exit_code == 1 and kept.is_file()
    line = int(re.search(r"ptx/libkernel\.so\.sm_100a\.ptx:(\d+):\d+: error: PTX101", result.output).group(1))  # type: ignore[union-attr]
    assert "tcgen05.alloc" in kept.read_text().splitlines()[line - 1]


def test_binaries_built_with_lineinfo(workdir: Path) -> None:
    # With -lineinfo, cuobjdump names the PTX it extracts `k.sm_100a.ptx`, without the index it
    # writes otherwise (`k.1.sm_100a.ptx`): both are read.
    nvcc = find_tool("nvcc")
    assert nvcc is not None, "nvcc not found: install the test extra (pip install -e '.[test]')"
    gencode = "arch=compute_100a,code=[sm_100a,compute_100a]"
    (workdir / "k.cu").write_text(EXAMPLE.read_text())

    def build(*arguments: str) -> None:
        subprocess.run([nvcc, *arguments], check=True, capture_output=True, timeout=600)

    build("-shared", "-Xcompiler", "-fPIC", "-lineinfo", "-gencode", gencode, "k.cu", "-o", "libk.so")
    build("-c", "-lineinfo", "-gencode", gencode, "k.cu", "-o", "k.o")
    result = invoke("libk.so", "k.o")
    assert result.exit_code == 1, result.output
    for binary in ("libk.so", "k.o"):
        assert f"{binary}[sm_100a]:" in result.output and "PTX101" in result.output
    assert "contains no PTX" not in result.output


def test_lint_ptx_api() -> None:
    text = (ROOT / "examples" / "divergent_tcgen05.ptx").read_text()
    diagnostics = ptxlint.lint_ptx(text, path="k.ptx")
    assert diagnostics and all(isinstance(d, ptxlint.Diagnostic) for d in diagnostics)
    assert ptxlint.lint_ptx(text, select=["PTX4"]) == []
    with pytest.raises(ValueError, match="PTX999"):
        ptxlint.lint_ptx(text, select=["PTX999"])


def test_triton_hook_and_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("triton", reason="Triton is a test dependency; install the test extra")
    import triton
    from triton.backends.compiler import GPUTarget

    import ptxlint.triton as hook

    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TRITON_DEFAULT_FP_FUSION", "1")
    monkeypatch.syspath_prepend(str(ROOT / "examples"))
    from triton_lane_guard import load_fragment

    source = triton.compiler.ASTSource(
        fn=load_fragment, signature={"shared_addresses": "*i32", "out": "*i32", "BLOCK": "constexpr"}, constexprs={"BLOCK": 128}
    )
    asm_line = next(n for n, line in enumerate((ROOT / "examples" / "triton_lane_guard.py").read_text().splitlines(), 1) if "inline_asm_elementwise" in line)
    stream = io.StringIO()
    hook.install(stream=stream)
    try:
        triton.compile(source, target=GPUTarget("cuda", 100, 32))
        assert f"triton_lane_guard.py:{asm_line}:" in stream.getvalue() and "PTX101" in stream.getvalue()
        hook.install(strict=True)
        monkeypatch.setattr(triton.knobs.compilation, "always_compile", True)
        with pytest.raises(hook.KernelFindingsError, match="PTX101"):
            triton.compile(source, target=GPUTarget("cuda", 100, 32))
    finally:
        hook.uninstall()
    # The cache Triton left: its PTX is linted with findings at the Python lines.
    result = invoke(str(tmp_path / "cache"))
    assert result.exit_code == 1 and f"triton_lane_guard.py:{asm_line}:" in result.output
