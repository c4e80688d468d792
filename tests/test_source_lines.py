"""Findings on CUDA C++ that ptxlint compiled itself are told at `.cu` lines in every format: the
finding, its labels (the deciding branch included, with its text), its path steps, related
locations; inlined helpers at the outermost call of the user's own code, library frames folded;
PTX names said as what they are. The PTX is only a detail, at a file `--keep-ptx` wrote.

Each test compiles a small kernel with nvcc (`-arch=sm_100a`, from the test dependencies)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from ptxlint.cli import main
from ptxlint.sourcemap import is_library_file

# The tensor-memory allocation in half of warp 0; the branch that decides it is line 9. A barrier
# in a helper under a thread-dependent branch, a collective under a library's elect_one_sync().
KERNEL = """\
#include <cstdint>
#include "include/cutlass/arch/elect.h"
#include "helpers.cuh"

__global__ void kernel(uint32_t *out, int n)
{
    __shared__ uint32_t base;
    uint32_t slot = (uint32_t)__cvta_generic_to_shared(&base);
    if (threadIdx.x < 16) {
        asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;" :: "r"(slot));
    }
    __syncthreads();
    out[threadIdx.x] = base;
    if (threadIdx.x < 32) {
        asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;" :: "r"(base));
    }
    if (threadIdx.x % 2) {
        block_sync();
    }
    if (cutlass::arch::elect_one_sync()) {
        cutlass::arch::relinquish_permit();
    }
    if (threadIdx.x > 40) {
        block_sync();
    }
    out[threadIdx.x + 1] = 2;
}
"""
ALLOC_LINE, BRANCH_LINE, SYNC_CALL_LINE, ELECT_LINE, SECOND_SYNC_CALL_LINE = 10, 9, 18, 20, 24
# A helper of the project's own, inlined: the barrier is written on its line 3.
HELPERS = """\
#pragma once
__device__ __forceinline__ void block_sync() {
    __syncthreads();
}
"""
# A library's header inside the project's tree (a vendored CuTe): its frames are folded. The
# election as CuTe writes it: a value set to 1 under the elected predicate.
LIBRARY = """\
#pragma once
namespace cutlass { namespace arch {
__device__ __forceinline__ bool elect_one_sync() {
  unsigned pred = 0, laneid = 0;
  asm volatile("{\\n .reg .b32 %%rx;\\n .reg .pred %%px;\\n elect.sync %%rx|%%px, %2;\\n@%%px mov.s32 %1, 1;\\n"
               " mov.s32 %0, %%rx;\\n}\\n" : "+r"(laneid), "+r"(pred) : "r"(0xFFFFFFFF));
  return pred;
}
__device__ __forceinline__ void relinquish_permit() {
  asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;");
}
}}
"""

# An early return on a kernel parameter (line 9) skips the dealloc: a leak whose path runs through
# that branch. The `tcgen05.ld` address varies per thread (PTX105, an operand named in its message).
LEAK = """\
#include <cstdint>
__global__ void leak(uint32_t *out, int n)
{
    __shared__ uint32_t base;
    if (threadIdx.x < 32) {
        asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;" :: "r"((uint32_t)__cvta_generic_to_shared(&base)));
    }
    __syncthreads();
    if (n == 0) {
        return;
    }
    out[threadIdx.x] = base;
    __syncthreads();
    if (threadIdx.x < 32) {
        uint32_t value;
        asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];" : "=r"(value) : "r"(base + threadIdx.x));
        asm volatile("tcgen05.wait::ld.sync.aligned;");
        out[threadIdx.x] = value;
        asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;" :: "r"(base));
    }
}
"""
RETURN_BRANCH_LINE = 9

# The loop's `tcgen05.st` is issued after the arrive in the text: the arrive meets it around the
# loop's back edge (line 10).
LOOP = """\
#include <cstdint>
__global__ void loop(uint32_t *out, int n, uint64_t *bar)
{
    __shared__ uint32_t base;
    if (threadIdx.x < 32) {
        asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;" :: "r"((uint32_t)__cvta_generic_to_shared(&base)));
    }
    __syncthreads();
#pragma unroll 1
    for (int i = 0; i < n; ++i) {
        asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"((uint32_t)__cvta_generic_to_shared(bar)));
        asm volatile("tcgen05.st.sync.aligned.32x32b.x1.b32 [%0], {%1};" :: "r"(base), "r"(i));
    }
    asm volatile("tcgen05.wait::st.sync.aligned;");
    __syncthreads();
    if (threadIdx.x < 32) {
        asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;" :: "r"(base));
    }
}
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ptxlint.toml").write_text("")
    (tmp_path / "kernel.cu").write_text(KERNEL)
    (tmp_path / "helpers.cuh").write_text(HELPERS)
    (tmp_path / "include" / "cutlass" / "arch").mkdir(parents=True)
    (tmp_path / "include" / "cutlass" / "arch" / "elect.h").write_text(LIBRARY)
    (tmp_path / "loop.cu").write_text(LOOP)
    (tmp_path / "leak.cu").write_text(LEAK)
    return tmp_path


def ptxlint(*args: str) -> str:
    result = CliRunner().invoke(main, ["--color", "never", "--no-group", *args])
    assert result.exit_code == 1, result.output
    return result.stdout


def ptxlint_grouped(*args: str) -> str:
    result = CliRunner().invoke(main, ["--color", "never", *args])
    assert result.exit_code == 1, result.output
    return result.stdout


def blocks(output: str) -> list[str]:
    """The full format's findings, each its lines."""
    return re.split(r"\n(?=(?:error|warning)\[)", output.split("\nFound ")[0])


def findings(output: str) -> dict[str, str]:
    """The full format's findings by rule code (the first of each)."""
    found: dict[str, str] = {}
    for block in blocks(output):
        found.setdefault(block[block.index("[") + 1 : block.index("]")], block)
    return found


def test_full_format_shows_only_cu_lines(project: Path) -> None:
    output = ptxlint("kernel.cu")
    assert "[sm_100a]:" not in output and ".ptx" not in output
    shown = findings(output)
    # Every location printed is a kernel.cu (or helper) line: arrows, gutters and path steps.
    for pointer in re.findall(r"--> (\S+)", output):
        assert pointer.startswith("kernel.cu:"), pointer
    alloc = shown["PTX101"]
    assert f"--> kernel.cu:{ALLOC_LINE}:9" in alloc
    # The deciding branch: its line, its text and a label saying what it tests.
    assert f"\n {BRANCH_LINE} |     if (threadIdx.x < 16) {{\n" in alloc
    assert "this branch on a comparison of `threadIdx.x` varies within a warp" in alloc
    assert "a comparison of `threadIdx.x`" in alloc.splitlines()[0]
    # No PTX register or label outside the one PTX detail line.
    for line in alloc.splitlines():
        if not line.lstrip().startswith("= ptx:"):
            assert not re.search(r"%p\d|%r\d|\$L__", line), line
    assert "= ptx: `tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32" in alloc


def test_path_steps_are_source_lines(project: Path) -> None:
    """The leak's path names source lines and shows the branch that decides it."""
    output = ptxlint("leak.cu")
    assert "[sm_100a]:" not in output
    leak = findings(output)["PTX203"]
    assert f"line {RETURN_BRANCH_LINE}: branch on a comparison of kernel parameter 2 taken" in leak  # `n`
    assert "│ if (n == 0) {" in leak
    assert not re.search(r"\n\s+\d+\. \d+:\d+", leak)  # no PTX line:column steps
    operand = findings(output)["PTX105"]
    assert "address operand (computed from a value loaded from memory and `threadIdx.x`) of `tcgen05.ld`" in operand


def test_inlined_helper_is_shown_at_the_outermost_user_call(project: Path) -> None:
    output = ptxlint("kernel.cu")
    shown = findings(output)
    barrier = shown["PTX102"]
    assert f"--> kernel.cu:{SYNC_CALL_LINE}:9" in barrier
    assert f"\n{SYNC_CALL_LINE} |         block_sync();\n" in barrier
    assert "= inlined from: `block_sync()` at helpers.cuh:3:5" in barrier
    assert "if (threadIdx.x % 2) {" in barrier  # the deciding branch's text
    grouped = findings(ptxlint_grouped("kernel.cu"))["PTX102"]
    assert f"and 1 more finding like it in 1 kernel (at line {SECOND_SYNC_CALL_LINE}; --no-group shows each)" in grouped
    elected = next(block for block in blocks(output) if "relinquish" in block.splitlines()[0])
    assert f"--> kernel.cu:{ELECT_LINE + 1}:9" in elected
    assert "`elect.sync`: true in one lane" in elected  # the cause, not "thread-varying"
    # The library header's line is folded, not shown as the place to look.
    assert "include/cutlass/arch/elect.h" not in re.sub(r"= in library code:.*", "", elected)
    assert "\n   = in library code: `cutlass::arch::relinquish_permit()` at include/cutlass/arch/elect.h:10:3\n" in elected


def test_json_locations_are_cu_lines(project: Path) -> None:
    document = json.loads(ptxlint("kernel.cu", "--output-format", "json"))
    assert document["diagnostics"]
    for diagnostic in document["diagnostics"]:
        places = [diagnostic["location"]] + [label["location"] for label in diagnostic["labels"] + diagnostic["witness"]]
        for place in places:
            assert place["path"] in ("kernel.cu", "helpers.cuh"), place
        assert diagnostic["ptx"] is None  # the module was compiled in memory: no file holds it
        assert "%p" not in diagnostic["message"]
    alloc = next(d for d in document["diagnostics"] if d["code"] == "PTX101")
    assert {label["location"]["start"]["line"] for label in alloc["labels"]} >= {BRANCH_LINE}


def test_sarif_refers_only_to_files_that_exist(project: Path) -> None:
    log = json.loads(ptxlint("kernel.cu", "--output-format", "sarif"))
    uris = {match for match in re.findall(r'"uri": "([^"]+)"', json.dumps(log["runs"][0]["results"]))}
    assert uris == {"kernel.cu", "helpers.cuh"}
    # One result per line a finding is shown at: the helper's barrier, inlined at two calls, is two.
    barriers = [result for result in log["runs"][0]["results"] if result["ruleId"] == "PTX102"]
    lines = sorted(result["locations"][0]["physicalLocation"]["region"]["startLine"] for result in barriers)
    assert lines == [SYNC_CALL_LINE, SECOND_SYNC_CALL_LINE]
    # With --keep-ptx the PTX is related too, at the file written.
    log = json.loads(ptxlint("kernel.cu", "--output-format", "sarif", "--keep-ptx", "ptx"))
    kept = project / "ptx" / "kernel.sm_100a.ptx"
    assert kept.is_file()
    lines = kept.read_text().splitlines()
    related = [
        location["physicalLocation"]
        for result in log["runs"][0]["results"]
        for location in result.get("relatedLocations", [])
        if location["physicalLocation"]["artifactLocation"]["uri"].endswith(".ptx")
    ]
    assert related
    for location in related:
        assert location["artifactLocation"]["uri"] == "ptx/kernel.sm_100a.ptx"
        assert lines[location["region"]["startLine"] - 1].strip()  # an instruction's line of that file
    uris = set(re.findall(r'"uri": "([^"]+)"', json.dumps(log["runs"][0]["results"])))
    assert uris == {"kernel.cu", "helpers.cuh", "ptx/kernel.sm_100a.ptx"}


def test_keep_ptx_in_the_terminal(project: Path) -> None:
    output = ptxlint("kernel.cu", "--keep-ptx", "out")
    alloc = findings(output)["PTX101"]
    line = next(line for line in alloc.splitlines() if "= ptx:" in line)
    number = int(re.search(r"out/kernel\.sm_100a\.ptx:(\d+):\d+", line).group(1))  # type: ignore[union-attr]
    assert "tcgen05.alloc" in (project / "out" / "kernel.sm_100a.ptx").read_text().splitlines()[number - 1]


def test_loop_back_edge_is_on_the_path(project: Path) -> None:
    arrive = findings(ptxlint("loop.cu"))["PTX202"]
    assert "--> loop.cu:11:9" in arrive
    steps = arrive[arrive.index("= path:") :]
    assert "line 12: `tcgen05.st` issued" in steps
    assert "line 10: branch on" in steps and "(loops back)" in steps
    assert "│ for (int i = 0; i < n; ++i) {" in steps


def test_dump_compiles_cu_inputs(project: Path) -> None:
    result = CliRunner().invoke(main, ["dump", "ir", "kernel.cu"])
    assert result.exit_code == 0, result.output
    assert "module kernel.cu[sm_100a]" in result.stdout and "tcgen05 .alloc" in result.stdout
    result = CliRunner().invoke(main, ["dump", "uniformity", "kernel.cu", "--arch", "sm_100a"])
    assert result.exit_code == 0 and "bar.sync" in result.stdout


def test_library_files() -> None:
    project = ("/src/app",)
    assert not is_library_file("/src/app/kernel.cu", project)
    assert not is_library_file("/src/app/lib/helpers.cuh", project)
    assert is_library_file("/src/app/third_party/cutlass/include/cute/tensor.hpp", project)
    assert is_library_file("/usr/local/cuda/include/cuda_fp16.hpp", project)
    assert not is_library_file("/usr/local/cuda/include/cuda_fp16.hpp", ())  # no project known: nothing folded
