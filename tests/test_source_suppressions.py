"""Suppression comments where CUDA and Triton authors write code: on the `.cu` or `.py` line a
finding maps to (or a call site it was inlined at), found through `.loc`/`.file`; PTX002 for the
ones that suppress nothing, reported at their source line. The `.cu` tests compile with nvcc (a
test dependency); the Triton ones feed PTX whose `.file` names a Python file, as Triton's does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import ptxlint
from ptxlint.cli import main
from ptxlint.frontends.toolkit import find_tool

# A CTA barrier under a branch on the thread index (PTX102), four times: suppressed on its line,
# from the line above, by a block comment before it, and at the call site of an inlined helper.
KERNEL = """\
__device__ __forceinline__ void sync_helper() { __syncthreads(); }

__global__ void kernel(int *out)
{
    if (threadIdx.x < 16) {
        __syncthreads();  // ptxlint: ignore[PTX102]
    }
    if (threadIdx.x < 8) {
        // ptxlint: ignore[partial-cta-barrier]
        __syncthreads();
    }
    if (threadIdx.x < 4) {
        /* ptxlint: ignore[PTX102] */ __syncthreads();
    }
    if (threadIdx.x < 2)
        sync_helper();  // ptxlint: ignore[PTX102]
    out[threadIdx.x] = 1;
}
"""


def invoke(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, ["--output-format", "json", *args])


def findings(result) -> list[tuple[str, int, str]]:  # type: ignore[no-untyped-def]
    document = json.loads(result.stdout)
    return sorted(
        (finding["code"], finding["source"][0]["line"] if finding["source"] else 0, finding["message"])
        for finding in document["diagnostics"]
    )


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    assert find_tool("nvcc") is not None, "nvcc not found: install the test extra (pip install -e '.[test]')"
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ptxlint.toml").write_text("")
    return tmp_path


def test_cu_comments_suppress_on_the_line_above_and_at_the_call_site(workdir: Path) -> None:
    (workdir / "kernel.cu").write_text(KERNEL)
    result = invoke("kernel.cu")
    assert result.exit_code == 0, result.output
    assert findings(result) == []
    assert json.loads(result.stdout)["summary"]["suppressed"] == 4


def test_cu_without_comments_reports_each_barrier(workdir: Path) -> None:
    (workdir / "kernel.cu").write_text(KERNEL.replace("ptxlint: ignore", "ptxlint ignores"))
    result = invoke("kernel.cu")
    assert [code for code, _, _ in findings(result)] == ["PTX102"] * 4


def test_unused_cu_suppression_is_reported_at_its_line(workdir: Path) -> None:
    (workdir / "kernel.cu").write_text(KERNEL.replace("out[threadIdx.x] = 1;", "out[threadIdx.x] = 1;  // ptxlint: ignore[PTX101, NOPE]"))
    result = invoke("kernel.cu")
    assert result.exit_code == 1
    line = KERNEL.splitlines().index("    out[threadIdx.x] = 1;") + 1
    assert findings(result) == [
        ("PTX002", line, "unused suppression: no `PTX101` finding to ignore here"),
        ("PTX002", line, "unused suppression: unknown rule `NOPE`"),
    ]
    concise = CliRunner().invoke(main, ["--output-format", "concise", "kernel.cu"])
    assert f"kernel.cu:{line}:" in concise.output


def test_unused_is_decided_over_every_architecture(workdir: Path) -> None:
    # The barrier is divergent only on sm_100a (on sm_90a the condition folds to true): the
    # comment is used there, so neither module calls it unused. A comment on a line that one
    # architecture does not compile at all is not reported by that module either.
    (workdir / "kernel.cu").write_text(
        "#define STRIDE (__CUDA_ARCH__ >= 1000 ? 2 : 1)\n"
        "__global__ void kernel(int *out)\n"
        "{\n"
        "    if (threadIdx.x % STRIDE == 0)\n"
        "        __syncthreads();  // ptxlint: ignore[PTX102]\n"
        "#if __CUDA_ARCH__ >= 1000\n"
        "    out[threadIdx.x] = 1;  // ptxlint: ignore[PTX101]\n"
        "#endif\n"
        "}\n"
    )
    result = invoke("kernel.cu", "--arch", "sm_90a", "--arch", "sm_100a")
    assert findings(result) == [("PTX002", 7, "unused suppression: no `PTX101` finding to ignore here")]
    assert len(json.loads(result.stdout)["files"]) == 2


def test_source_file_ignore_and_ptx002_silenced_file_wide(workdir: Path) -> None:
    (workdir / "kernel.cu").write_text("// ptxlint: file-ignore[PTX102]\n" + KERNEL.replace("ptxlint: ignore", "ptxlint ignores"))
    assert findings(invoke("kernel.cu")) == []
    (workdir / "kernel.cu").write_text("// ptxlint: file-ignore[PTX002]\n" + KERNEL + "// ptxlint: ignore[PTX101]\nint x;\n")
    assert findings(invoke("kernel.cu")) == []


# Triton: what `.loc` points at is a Python file; its comments start with `#`.
PYTHON = """\
import triton


@triton.jit
def kernel(out):
    x = tl.program_id(0)
    tl.debug_barrier()  # ptxlint: ignore[PTX102]
    tl.store(out, x)  # ptxlint: ignore[PTX101]
"""

PTX = """\
.version 8.7
.target sm_90a
.address_size 64

.visible .entry kernel(.param .u64 out)
{{
	.reg .pred %p<2>;
	.reg .b32 %r<3>;
	.reg .b64 %rd<2>;
	.loc 1 6 0
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 16;
	@!%p1 bra DONE;
	.loc 1 {barrier_line} 0
	bar.sync 0;
DONE:
	.loc 1 8 0
	ld.param.u64 %rd1, [out];
	st.global.u32 [%rd1], %r1;
	ret;
}}
	.file 1 "{path}"
"""


def test_triton_python_comments(tmp_path: Path) -> None:
    source = tmp_path / "kernel.py"
    source.write_text(PYTHON)
    ptx = PTX.format(path=source, barrier_line=7)
    assert [(d.code, d.origin[0].line, d.message) for d in ptxlint.lint_ptx(ptx, path=str(tmp_path / "kernel.ptx"))] == [
        ("PTX002", 8, "unused suppression: no `PTX101` finding to ignore here")
    ]
    # Without the comment the barrier is reported; `//` means nothing in Python.
    source.write_text(PYTHON.replace("# ptxlint", "// ptxlint"))
    assert [d.code for d in ptxlint.lint_ptx(ptx)] == ["PTX102"]


def test_relative_file_name_is_looked_up_beside_the_ptx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "kernel.py").write_text(PYTHON)
    (tmp_path / "kernel.ptx").write_text(PTX.format(path="kernel.py", barrier_line=7))
    monkeypatch.chdir(Path(__file__).parent)  # not where kernel.py is
    result = CliRunner().invoke(main, ["--output-format", "concise", "--isolated", str(tmp_path / "kernel.ptx")])
    assert "PTX102" not in result.output and "PTX002" in result.output, result.output


def test_missing_or_unreadable_sources_are_ignored(tmp_path: Path) -> None:
    ptx = PTX.format(path=tmp_path / "gone.py", barrier_line=7)
    assert [d.code for d in ptxlint.lint_ptx(ptx)] == ["PTX102"]
    (tmp_path / "folder.py").mkdir()
    assert [d.code for d in ptxlint.lint_ptx(PTX.format(path=tmp_path / "folder.py", barrier_line=7))] == ["PTX102"]


def test_ptx_comments_still_work_beside_source_comments(tmp_path: Path) -> None:
    source = tmp_path / "kernel.py"
    source.write_text(PYTHON.replace("  # ptxlint: ignore[PTX102]", ""))
    ptx = PTX.format(path=source, barrier_line=7).replace("bar.sync 0;", "bar.sync 0;  // ptxlint: ignore[PTX102]")
    assert [d.code for d in ptxlint.lint_ptx(ptx)] == ["PTX002"]  # the .py line's PTX101 comment


def test_a_comment_inside_an_asm_string_is_the_ptx_comment_it_was(workdir: Path) -> None:
    # The PTX comment in the asm string suppresses in the PTX; the .cu line holds no source
    # comment, so nothing is reported unused there.
    (workdir / "kernel.cu").write_text(
        "__global__ void kernel(int *out)\n"
        "{\n"
        "    if (threadIdx.x < 16)\n"
        '        asm volatile("bar.sync 0; // ptxlint: ignore[PTX102]" ::: "memory");\n'
        "    out[threadIdx.x] = '\"';  // ptxlint: ignore[PTX101]\n"
        "}\n"
    )
    assert findings(invoke("kernel.cu")) == [("PTX002", 5, "unused suppression: no `PTX101` finding to ignore here")]


def test_comment_markers_inside_string_literals_are_text() -> None:
    from ptxlint.source import SourceFile
    from ptxlint.suppressions import C_LIKE, PYTHON, parse

    python = SourceFile.from_bytes("k.py", b's = "# ptxlint: ignore[PTX101]"\nt = \'"\'  # ptxlint: ignore[PTX102]\n')
    assert [comment.lines for comment in parse(python, PYTHON, strings=True)] == [(2,)]
    cuda = SourceFile.from_bytes("k.cu", b'asm("x; // ptxlint: ignore[PTX101]");\nc = \'"\'; // ptxlint: ignore[PTX102]\n')
    assert [comment.lines for comment in parse(cuda, C_LIKE, strings=True)] == [(2,)]
    assert len(parse(cuda, C_LIKE)) == 2  # PTX has no such strings: every marker counts


def test_triton_compile_honours_a_comment_in_the_kernel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """End to end with Triton itself: the example's lane-guarded `ldmatrix` (PTX101) suppressed by
    a `#` comment above the `inline_asm_elementwise` line, through the compilation hook."""
    pytest.importorskip("triton", reason="Triton is a test dependency; install the test extra")
    import importlib

    import triton
    from triton.backends.compiler import GPUTarget

    import ptxlint.triton as hook

    example = (Path(__file__).resolve().parent.parent / "examples" / "triton_lane_guard.py").read_text()
    suppressed = example.replace(
        "    fragment = tl.inline_asm_elementwise(", "    # ptxlint: ignore[PTX101]\n    fragment = tl.inline_asm_elementwise("
    )
    assert suppressed != example
    (tmp_path / "suppressed_lane_guard.py").write_text(suppressed)
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TRITON_DEFAULT_FP_FUSION", "1")  # Triton's default, said: it warns when unset
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("suppressed_lane_guard")
    source = triton.compiler.ASTSource(
        fn=module.load_fragment, signature={"shared_addresses": "*i32", "out": "*i32", "BLOCK": "constexpr"},
        constexprs={"BLOCK": 128},
    )
    hook.install(strict=True)
    try:
        triton.compile(source, target=GPUTarget("cuda", 100, 32))  # strict: any finding would raise
    finally:
        hook.uninstall()
