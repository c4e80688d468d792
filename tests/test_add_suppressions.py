"""`--add-suppressions`: comments for every current finding, written into the file people edit
(the PTX, or the `.cu`/`.py` line of compiled inputs); a second lint is clean, a second run adds
nothing, and nothing else in the files changes."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from ptxlint.add_suppressions import add, edit
from ptxlint.cli import main
from ptxlint.diagnostics import FileResult
from ptxlint.frontends.toolkit import find_tool
from ptxlint.lint import LintSettings, lint_source
from ptxlint.rules import ALL_RULES
from ptxlint.source import SourceFile

ROOT = Path(__file__).resolve().parent.parent
_COMMENT = re.compile(r"\s*(//|#) ptxlint: ignore\[[^\]]*\]")


def run(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, ["--output-format", "concise", *args])


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ptxlint.toml").write_text('select = ["ALL"]\n')
    return tmp_path


@pytest.mark.parametrize(
    "fixture",
    ["convergence/ptx101_divergent_warp_collectives.ptx", "tcgen05/lane_quarters.ptx", "isa/invalid_qualifier_combination.ptx"],
)
def test_ptx_round_trip(workdir: Path, fixture: str) -> None:
    original = (ROOT / "fixtures" / fixture).read_text()
    kernel = workdir / "kernel.ptx"
    kernel.write_text(original)
    before = run("kernel.ptx")
    assert before.exit_code == 1
    findings = len(before.stdout.strip().splitlines())
    added = run("--add-suppressions", "kernel.ptx")
    assert added.exit_code == 0, added.output
    count = int(re.search(r"added (\d+) suppressions? in 1 file", added.stderr).group(1))
    assert 0 < count <= findings
    after = run("kernel.ptx")
    assert after.exit_code == 0 and after.stdout == "", after.output
    again = run("--add-suppressions", "kernel.ptx")
    assert again.exit_code == 0 and "added 0 suppressions in 0 files" in again.stderr
    # Only comments were added, each at the end of a line that had a finding.
    edited = kernel.read_text().splitlines()
    assert [_COMMENT.sub("", line) for line in edited] == [line.rstrip() if _COMMENT.search(edited[n]) else line for n, line in enumerate(original.splitlines())]


def test_comment_merges_into_an_existing_one() -> None:
    data = b"\tbar.sync 0;  // ptxlint: ignore[PTX101]\r\n\tret;\r\n"
    changed, added, refused = edit(data, {1: ["PTX102", "PTX101"]}, python=False)
    assert changed == b"\tbar.sync 0;  // ptxlint: ignore[PTX101, PTX102]\r\n\tret;\r\n" and (added, refused) == (1, 0)
    assert edit(changed, {1: ["PTX102"]}, python=False) == (changed, 0, 0)
    bare = b"\tbar.sync 0;  // ptxlint: ignore\n"
    assert edit(bare, {1: ["PTX102"]}, python=False) == (bare, 0, 0)


def test_other_comments_and_continuations() -> None:
    assert edit(b"x = f()  # why\n", {1: ["PTX101"]}, python=True)[0] == b"x = f()  # why  # ptxlint: ignore[PTX101]\n"
    macro = b"#define SYNC() \\\n    __syncthreads(); \\\n"
    assert edit(macro, {2: ["PTX102"]}, python=False)[0] == b"#define SYNC() \\\n    __syncthreads(); /* ptxlint: ignore[PTX102] */ \\\n"
    text = b'x = """\nline\n"""\ny = 1 + \\\n    2\n'
    assert edit(text, {1: ["PTX101"], 4: ["PTX101"]}, python=True) == (text, 0, 2)
    # A `file-ignore` comment on the line: the new comment goes alone on the line above.
    line = b"\tbar.sync 0;  // ptxlint: file-ignore[PTX301]\n"
    assert edit(line, {1: ["PTX102"]}, python=False)[0] == b"\t// ptxlint: ignore[PTX102]\n" + line


def test_binaries_and_stdin_cannot_be_edited() -> None:
    source = SourceFile.from_bytes("libkernels.so[sm_100a]", (ROOT / "examples" / "divergent_tcgen05.ptx").read_bytes())
    diagnostics = tuple(lint_source(source, LintSettings(rules=ALL_RULES)))
    assert diagnostics
    outcome = add([FileResult(source.path, diagnostics, source)])
    assert outcome.added == 0 and not outcome.files
    assert outcome.not_added == {
        "the PTX comes from a binary, which cannot be edited (use --write-baseline or per-file-ignores)": len(diagnostics)
    }
    stdin = CliRunner().invoke(main, ["--add-suppressions", "-"], input=source.data)
    assert stdin.exit_code == 1 and "not read from a file (standard input)" in stdin.stderr


KERNEL = """\
__device__ __forceinline__ void sync_helper() { __syncthreads(); }

__global__ void kernel(int *out)
{
    if (threadIdx.x < 16) {
        __syncthreads();  // keeps the tile in step
    }
    if (threadIdx.x < 2)
        sync_helper();
    out[threadIdx.x] = 1;
}
"""


def test_cu_round_trip(workdir: Path) -> None:
    assert find_tool("nvcc") is not None, "nvcc not found: install the test extra (pip install -e '.[test]')"
    (workdir / "ptxlint.toml").write_text("")
    (workdir / "kernel.cu").write_text(KERNEL)
    assert run("kernel.cu").exit_code == 1
    added = run("--add-suppressions", "kernel.cu", "--arch", "sm_90a", "--arch", "sm_100a")
    assert added.exit_code == 0 and "added 2 suppressions in 1 file" in added.stderr, added.output
    lines = (workdir / "kernel.cu").read_text().splitlines()
    # Each on the line the finding is shown at: the helper's body, and the barrier in the kernel
    # (after the comment already there), once for both architectures.
    assert lines[0].endswith("{ __syncthreads(); }  // ptxlint: ignore[PTX102]")
    assert lines[5] == "        __syncthreads();  // keeps the tile in step  // ptxlint: ignore[PTX102]"
    assert run("kernel.cu", "--arch", "sm_90a", "--arch", "sm_100a").exit_code == 0
    assert "added 0 suppressions" in run("--add-suppressions", "kernel.cu").stderr


PYTHON = """\
import triton


@triton.jit
def kernel(out):
    x = tl.program_id(0)
    tl.debug_barrier()
    tl.store(out, x)
"""

PTX = """\
.version 8.7
.target sm_90a
.address_size 64

.visible .entry kernel(.param .u64 out)
{
	.reg .pred %p<2>;
	.reg .b32 %r<3>;
	.reg .b64 %rd<2>;
	.loc 1 6 0
	mov.u32 %r1, %tid.x;
	setp.lt.u32 %p1, %r1, 16;
	@!%p1 bra DONE;
	.loc 1 7 0
	bar.sync 0;
DONE:
	.loc 1 8 0
	ld.param.u64 %rd1, [out];
	st.global.u32 [%rd1], %r1;
	ret;
}
	.file 1 "kernel.py"
"""


def test_triton_cache_round_trip(workdir: Path) -> None:
    # A kernel as Triton caches it: the PTX beside its `__grp__` file, `.file` naming the .py.
    (workdir / "ptxlint.toml").write_text("")
    (workdir / "kernel.py").write_text(PYTHON)
    cache = workdir / "cache" / "abc"
    cache.mkdir(parents=True)
    (cache / "kernel.ptx").write_text(PTX)
    (cache / "__grp__kernel.json").write_text("{}")
    assert "kernel.py:7" in run("cache").stdout
    added = run("--add-suppressions", "cache")
    assert added.exit_code == 0 and "added 1 suppression in 1 file" in added.stderr, added.output
    assert (workdir / "kernel.py").read_text() == PYTHON.replace("tl.debug_barrier()", "tl.debug_barrier()  # ptxlint: ignore[PTX102]")
    assert (cache / "kernel.ptx").read_text() == PTX
    assert run("cache").exit_code == 0
    shutil.rmtree(workdir / "cache")
