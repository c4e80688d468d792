"""Generated ISA-conformance cases and the batched ptxas oracle that judges them.

A case is one instruction line under one `.version` / `.target` pair. Cases sharing a header are
written into one module, one kernel per case (ptxas checks some rules per kernel, such as one
`.cta_group` per kernel, so cases must not share a kernel). ptxas reports errors as `line N`,
which maps each error back to its case; errors on the header lines reject every case of the module.

ptxas verdicts are cached by the hash of the module text and the ptxas version in
`~/.cache/ptxlint/ptxas-verdicts`, so reruns only lint.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import resource
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

from ptx_tools import ptxas

CACHE = Path(os.environ.get("PTXLINT_VERDICT_CACHE", Path.home() / ".cache" / "ptxlint" / "ptxas-verdicts"))
CASES_PER_MODULE = 400

# Declarations every case kernel starts with; cases use these names only.
PRELUDE = (
    ".reg .b32 %r<260>; .reg .b64 %rd<40>; .reg .pred %p<8>; .reg .f32 %f<140>; "
    ".reg .f64 %fd<8>; .reg .b16 %h<8>; .reg .b8 %rc<4>; "
    ".shared .align 16 .b64 mbar; .shared .align 16 .b8 smem[1024];"
)
HEADER_LINES = 3  # .version, .target, .address_size


@dataclass(frozen=True)
class Case:
    family: str  # the row of the agreement table
    version: str  # "8.6"
    target: str  # the .target directive's argument, "sm_100a" or "sm_90a, texmode_independent"
    instruction: str  # one line of PTX

    @property
    def key(self) -> str:
        return f"{self.version} {self.target} :: {self.instruction}"


@dataclass(frozen=True)
class Batch:
    version: str
    target: str
    cases: tuple[Case, ...]
    text: str
    case_lines: dict[int, int]  # line number of each case's instruction → index in cases


def architecture(target: str) -> str:
    return target.split(",")[0].strip()


def batches(cases: Iterable[Case]) -> list[Batch]:
    by_header: dict[tuple[str, str], list[Case]] = {}
    for case in cases:
        by_header.setdefault((case.version, case.target), []).append(case)
    result = []
    for (version, target), group in sorted(by_header.items()):
        for start in range(0, len(group), CASES_PER_MODULE):
            result.append(_batch(version, target, tuple(group[start : start + CASES_PER_MODULE])))
    return result


def _batch(version: str, target: str, cases: tuple[Case, ...]) -> Batch:
    lines = [f".version {version}", f".target {target}", ".address_size 64"]
    case_lines = {}
    for index, case in enumerate(cases):
        lines += [f".visible .entry case{index}()", "{", PRELUDE]
        lines.append(case.instruction)
        case_lines[len(lines)] = index
        lines += ["ret;", "}"]
    return Batch(version, target, cases, "\n".join(lines) + "\n", case_lines)


# ----------------------------------------------------------------------------- the oracle

_ERROR_LINE = re.compile(r", line (\d+); (?:error|fatal)")
_ERROR_LINE_NUMBER = re.compile(r", line (\d+);")


def ptxas_version() -> str:
    tool = ptxas()
    assert tool is not None
    return subprocess.run([tool, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]


# ptxas 13.0 runs away on a few malformed operands (a register where cp.async.bulk.tensor's
# destination address belongs takes all memory): such a run is cut off and counts as a crash.
PTXAS_SECONDS = 120
PTXAS_MEMORY = 2 << 30


def _restrain() -> None:
    os.nice(10)  # the oracle shares the machine with the lint under test
    resource.setrlimit(resource.RLIMIT_AS, (PTXAS_MEMORY, PTXAS_MEMORY))


def _run_ptxas(text: str, arch: str) -> tuple[int, str]:
    tool = ptxas()
    assert tool is not None
    with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as handle:
        handle.write(text)
    try:
        try:
            result = subprocess.run(
                [tool, f"-arch={arch}", "-O0", "-o", os.devnull, handle.name], capture_output=True, text=True,
                timeout=PTXAS_SECONDS, preexec_fn=_restrain,
            )
        except subprocess.TimeoutExpired:
            return -9, "ptxas ran out of time"
    finally:
        os.unlink(handle.name)
    return result.returncode, result.stderr.replace(handle.name, "<module>")


class Oracle:
    """ptxas verdicts with a disk cache; `calls` counts real ptxas runs."""

    def __init__(self) -> None:
        self.version = ptxas_version()
        self.calls = 0
        CACHE.mkdir(parents=True, exist_ok=True)

    def verdict(self, text: str, arch: str) -> tuple[int, str]:
        key = hashlib.sha256(f"{self.version}\n{arch}\n{text}".encode()).hexdigest()
        path = CACHE / f"{key}.json"
        if path.exists():
            stored = json.loads(path.read_text())
            return stored["returncode"], stored["stderr"]
        self.calls += 1
        returncode, stderr = _run_ptxas(text, arch)
        path.write_text(json.dumps({"returncode": returncode, "stderr": stderr}))
        return returncode, stderr

    def rejected_cases(self, batch: Batch) -> tuple[set[int], str]:
        """Indices of the cases ptxas rejects, and its messages (numbered as in ``batch``).

        ptxas checks a module in phases and stops after the first phase that finds an error: a
        syntax error ends parsing (a fatal error), and the checks of operands and qualifiers run
        only on a module that parsed. So the cases not rejected in one run are judged again, in a
        module of their own, until ptxas accepts what is left."""
        returncode, stderr = self.verdict(batch.text, architecture(batch.target))
        if returncode == 0:
            return set(), stderr
        lines = {int(number) for number in _ERROR_LINE.findall(stderr)}
        if not lines and len(batch.cases) > 1:
            # No line to blame (ptxas crashed on some case): judge each half on its own.
            half = len(batch.cases) // 2
            first = _batch(batch.version, batch.target, batch.cases[:half])
            second = _batch(batch.version, batch.target, batch.cases[half:])
            rejected_first, _ = self.rejected_cases(first)
            rejected_second, _ = self.rejected_cases(second)
            return rejected_first | {half + index for index in rejected_second}, stderr
        if not lines or any(line <= HEADER_LINES for line in lines):
            return set(range(len(batch.cases))), stderr  # the header itself is rejected
        unmapped = [line for line in lines if line not in batch.case_lines]
        if unmapped:  # an error ptxas attributes elsewhere (a kernel-level check): judge one by one
            return self._one_by_one(batch), stderr
        rejected = {batch.case_lines[line] for line in lines}
        rejected -= self._misattributed(batch, stderr, rejected)
        rest = [index for index in range(len(batch.cases)) if index not in rejected]
        if not rest:
            return rejected, stderr
        again = _batch(batch.version, batch.target, tuple(batch.cases[index] for index in rest))
        rejected_rest, stderr_rest = self.rejected_cases(again)
        line_of = {index: line for line, index in batch.case_lines.items()}
        renumber = {line: line_of[rest[index]] for line, index in again.case_lines.items()}
        stderr_rest = _ERROR_LINE_NUMBER.sub(
            lambda m: f", line {renumber.get(int(m.group(1)), int(m.group(1)))};", stderr_rest)
        return rejected | {rest[index] for index in rejected_rest}, stderr + stderr_rest

    def _misattributed(self, batch: Batch, stderr: str, rejected: set[int]) -> set[int]:
        """Cases blamed only by messages about another instruction (ptxas 13.0 sometimes reports
        an error of one kernel at a line of another) that ptxas accepts on their own."""
        about: dict[int, set[str]] = {}
        for match in re.finditer(r", line (\d+); (?:error|fatal)\s*:\s*(.*)", stderr):
            index = batch.case_lines.get(int(match.group(1)))
            if index is not None:
                names = re.findall(r"instruction '([\w.:]+)", match.group(2))
                about.setdefault(index, set()).update(name.split(".")[0] for name in names or ["?"])
        cleared = set()
        for index in rejected:
            base = batch.cases[index].instruction.split(".")[0].split()[0]
            if about.get(index) and "?" not in about[index] and base not in about[index]:
                single = _batch(batch.version, batch.target, (batch.cases[index],))
                if self.verdict(single.text, architecture(single.target))[0] == 0:
                    cleared.add(index)
        return cleared

    def _one_by_one(self, batch: Batch) -> set[int]:
        rejected = set()
        for index, case in enumerate(batch.cases):
            single = _batch(batch.version, batch.target, (case,))
            if self.verdict(single.text, architecture(single.target))[0] != 0:
                rejected.add(index)
        return rejected

    def judge(self, all_batches: list[Batch], workers: int | None = None) -> list[tuple[set[int], str]]:
        workers = workers or max(2, os.cpu_count() or 2)
        with ThreadPoolExecutor(workers) as pool:
            return list(pool.map(self.rejected_cases, all_batches))


def messages_by_case(batch: Batch, stderr: str) -> dict[int, list[str]]:
    found: dict[int, list[str]] = {}
    for line in stderr.splitlines():
        match = re.search(r", line (\d+); (?:error|fatal)\s*:\s*(.*)", line)
        if match and int(match.group(1)) in batch.case_lines:
            found.setdefault(batch.case_lines[int(match.group(1))], []).append(match.group(2))
    return found


# ----------------------------------------------------------------------------- the generator
# Each generator crosses one family's qualifiers, operand counts, values, targets and versions,
# right and wrong alike; ptxas decides which are which.

TARGETS = (
    "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_100f", "sm_103a",
    "sm_103f", "sm_110a", "sm_110f", "sm_120", "sm_120a", "sm_120f", "sm_121a",
)
VERSIONS = ("6.3", "7.0", "7.3", "7.8", "8.0", "8.3", "8.5", "8.6", "8.7", "8.8", "9.0")
# ptxas 13.0 assembles sm_75 and later only (and no sm_101*), up to PTX 9.0. Introduced-in
# versions as ptxas knows them: the generator pairs only valid headers, except in the header
# family, which is where the pairing itself is tested.
_FIRST_VERSION = {
    "sm_75": "6.3", "sm_80": "7.0", "sm_86": "7.1", "sm_89": "7.8", "sm_90": "7.8", "sm_90a": "8.0",
    "sm_100": "8.6", "sm_100a": "8.6", "sm_100f": "8.8", "sm_103a": "8.8", "sm_103f": "8.8",
    "sm_110a": "9.0", "sm_110f": "9.0", "sm_120": "8.7", "sm_120a": "8.7", "sm_120f": "8.8", "sm_121a": "8.8",
}


def _version_key(version: str) -> tuple[int, int]:
    major, minor = version.split(".")
    return int(major), int(minor)


def valid_headers(versions: Iterable[str] = VERSIONS, targets: Iterable[str] = TARGETS) -> Iterator[tuple[str, str]]:
    for target in targets:
        for version in versions:
            if _version_key(version) >= _version_key(_FIRST_VERSION[target]):
                yield version, target


def _vector(count: int, prefix: str = "%r", start: int = 10) -> str:
    return "{" + ", ".join(f"{prefix}{start + i}" for i in range(count)) + "}"


def _around(count: int) -> tuple[int, ...]:
    """The right count and its near misses."""
    return tuple(sorted({count, count + 1, max(1, count - 1), count * 2}))


def header_cases() -> Iterator[Case]:
    for version in VERSIONS:
        for target in TARGETS:
            yield Case("headers", version, target, "ret;")
    for option in ("texmode_independent", "texmode_unified", "map_f64_to_f32"):
        yield Case("headers", "8.6", f"sm_100a, {option}", "ret;")
    yield Case("headers", "8.0", "compute_90a", "ret;")


_TCGEN05_REGISTERS = {
    "32x32b": 1, "16x64b": 1, "16x32bx2": 1, "16x128b": 2, "16x256b": 4,
}
_NUMS = ("x1", "x2", "x4", "x8", "x16", "x32", "x64", "x128")


def tcgen05_ld_st_cases() -> Iterator[Case]:
    for shape, per_num in _TCGEN05_REGISTERS.items():
        for power, num in enumerate(_NUMS):
            right = per_num << power
            for count in _around(right):
                if count > 250:
                    continue
                for offset in ("", ", 2"):
                    for pack in ("", ".pack::16b"):
                        vector = _vector(count)
                        yield Case("tcgen05.ld/st", "8.6", "sm_100a",
                                   f"tcgen05.ld.sync.aligned.{shape}.{num}{pack}.b32 {vector}, [%r1]{offset};")
                    yield Case("tcgen05.ld/st", "8.6", "sm_100a",
                               f"tcgen05.st.sync.aligned.{shape}.{num}.unpack::16b.b32 [%r1]{offset}, {_vector(count)};")
            for reduction in (".min.u32", ".max.abs.f32"):
                if shape in ("32x32b", "16x32bx2") and num in ("x1", "x2", "x64"):
                    offset = ", 2" if shape == "16x32bx2" else ""
                    yield Case("tcgen05.ld/st", "8.8", "sm_103a",
                               f"tcgen05.ld.red.sync.aligned.{shape}.{num}{reduction} {_vector(right)}, %r2, [%r1]{offset};")


_TCGEN05_REPRESENTATIVES = (
    "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [smem], 64;",
    "tcgen05.dealloc.cta_group::2.sync.aligned.b32 %r1, 64;",
    "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;",
    "tcgen05.ld.sync.aligned.32x32b.x2.b32 {%r10, %r11}, [%r1];",
    "tcgen05.st.sync.aligned.16x64b.x1.b32 [%r1], {%r10};",
    "tcgen05.wait::ld.sync.aligned;",
    "tcgen05.wait::st.sync.aligned;",
    "tcgen05.cp.cta_group::1.128x256b [%r1], %rd1;",
    "tcgen05.shift.cta_group::1.down [%r1];",
    "tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, %p1;",
    "tcgen05.mma.cta_group::1.kind::i8 [%r1], %rd1, %rd2, %r2, %p1;",
    "tcgen05.mma.cta_group::1.kind::tf32 [%r1], %rd1, %rd2, %r2, %p1;",
    "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [mbar];",
    "tcgen05.fence::before_thread_sync;",
    "tcgen05.fence::after_thread_sync;",
    "tcgen05.ld.red.sync.aligned.32x32b.x2.min.u32 {%r10, %r11}, %r2, [%r1];",
)


def tcgen05_target_cases() -> Iterator[Case]:
    for version, target in valid_headers(("7.8", "8.0", "8.6", "8.7", "8.8", "9.0")):
        for instruction in _TCGEN05_REPRESENTATIVES:
            yield Case("tcgen05 targets", version, target, instruction)


def tcgen05_cp_cases() -> Iterator[Case]:
    for shape in ("128x256b", "4x256b", "128x128b", "64x128b", "32x128b"):
        for multicast in ("", ".warpx2::02_13", ".warpx2::01_23", ".warpx4"):
            for group in ("cta_group::1", "cta_group::2"):
                for decompress in ("", ".b8x16.b6x16_p32"):
                    yield Case("tcgen05.cp", "8.6", "sm_100a",
                               f"tcgen05.cp.{group}.{shape}{multicast}{decompress} [%r1], %rd1;")


def tcgen05_mma_cases() -> Iterator[Case]:
    for group, lanes in (("cta_group::1", 4), ("cta_group::2", 8)):
        for kind in ("f16", "tf32", "f8f6f4", "i8"):
            for mask in ("", *(", " + _vector(n) for n in (lanes - 1, lanes, lanes * 2 if lanes == 4 else 4))):
                for scale in ("", ", 0", ", 15", ", 16"):
                    for sparse, meta in (("", ""), (".sp", ", [%r3]")):
                        for version, target in (("8.6", "sm_100a"), ("8.8", "sm_100f")):
                            yield Case("tcgen05.mma", version, target,
                                       f"tcgen05.mma.cta_group::1{sparse}.kind::{kind} [%r1], %rd1, %rd2{meta}, %r2{mask}, %p1{scale};".replace("cta_group::1", group))
        for collector in ("", ".collector::a::fill", ".collector::a::use", ".collector::a::lastuse"):
            yield Case("tcgen05.mma", "8.6", "sm_100a",
                       f"tcgen05.mma.{group}.kind::f16.ashift{collector} [%r1], [%r4], %rd2, %r2, %p1;")


def value_cases() -> Iterator[Case]:
    for columns in (0, 16, 32, 48, 64, 96, 128, 256, 384, 512, 1024):
        yield Case("tcgen05.alloc/dealloc", "8.6", "sm_100a",
                   f"tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [smem], {columns};")
        yield Case("tcgen05.alloc/dealloc", "8.6", "sm_100a", f"tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r1, {columns};")
    for count in range(0, 272, 4):
        for direction in ("inc", "dec"):
            yield Case("setmaxnreg", "8.0", "sm_90a", f"setmaxnreg.{direction}.sync.aligned.u32 {count};")
    for version, target in valid_headers(("7.8", "8.0", "8.6", "8.8", "9.0")):
        yield Case("setmaxnreg", version, target, "setmaxnreg.inc.sync.aligned.u32 128;")
    for barrier in range(0, 18):
        for threads in ("", ", 0", ", 32", ", 48", ", 96", ", 1024", ", 1056"):
            for form in ("bar.sync", "barrier.sync.aligned", "bar.arrive", "barrier.sync"):
                yield Case("bar/barrier", "8.0", "sm_90", f"{form} {barrier}{threads};")
        yield Case("bar/barrier", "8.0", "sm_90", f"bar.red.popc.u32 %r1, {barrier}, 64, %p1;")


def matrix_cases() -> Iterator[Case]:
    for shape, per in (("m8n8", 1), ("m16n16", 2), ("m8n16", 1)):
        for power, num in enumerate(("x1", "x2", "x4")):
            for count in _around(per << power):
                for trans in ("", ".trans"):
                    if shape == "m16n16" and not trans:
                        continue  # m16n16 exists only transposed
                    element = {"m8n8": ".b16", "m16n16": ".b8", "m8n16": ".b8x16.b6x16_p32"}[shape]
                    for version, target in (("8.6", "sm_100a"), ("7.8", "sm_90")):
                        yield Case("ldmatrix/stmatrix", version, target,
                                   f"ldmatrix.sync.aligned.{shape}.{num}{trans}.shared{element} {_vector(count)}, [%r1];")
    for shape, kind in (("m8n8", "b16"), ("m16n8", "b8")):
        for power, num in enumerate(("x1", "x2", "x4")):
            for count in _around(1 << power):
                trans = ".trans" if shape == "m16n8" else ""
                for version, target in (("8.6", "sm_100a"), ("7.8", "sm_90"), ("8.0", "sm_89")):
                    yield Case("ldmatrix/stmatrix", version, target,
                               f"stmatrix.sync.aligned.{shape}.{num}{trans}.shared.{kind} [%r1], {_vector(count)};")


_MMA_SHAPES = (
    ("m16n8k16", "f32", "f16", "f16", "f32", 4, 4, 2, 4),
    ("m16n8k16", "f16", "f16", "f16", "f16", 2, 4, 2, 2),
    ("m16n8k8", "f32", "f16", "f16", "f32", 4, 2, 1, 4),
    ("m16n8k8", "f32", "bf16", "bf16", "f32", 4, 2, 1, 4),
    ("m16n8k16", "f32", "bf16", "bf16", "f32", 4, 4, 2, 4),
    ("m16n8k4", "f32", "tf32", "tf32", "f32", 4, 2, 1, 4),
    ("m16n8k8", "f32", "tf32", "tf32", "f32", 4, 4, 2, 4),
    ("m16n8k32", "s32", "s8", "s8", "s32", 4, 4, 2, 4),
    ("m16n8k16", "s32", "u8", "u8", "s32", 4, 2, 1, 4),
    ("m8n8k16", "s32", "s8", "s8", "s32", 2, 1, 1, 2),
    ("m16n8k32", "f32", "e4m3", "e4m3", "f32", 4, 4, 2, 4),
    ("m8n8k4", "f32", "f16", "f16", "f32", 8, 2, 2, 8),
)


def mma_cases() -> Iterator[Case]:
    for shape, dtype, atype, btype, ctype, d, a, b, c in _MMA_SHAPES:
        register = "%f" if dtype == "f32" else "%r"
        for version, target in (("8.6", "sm_100a"), ("7.8", "sm_90"), ("7.0", "sm_80"), ("6.4", "sm_75")):
            for _case, (dc, ac, bc, cc) in (("right", (d, a, b, c)), ("d", (d + 1, a, b, c)), ("a", (d, a - 1 or 2, b, c)),
                                          ("b", (d, a, b + 1, c)), ("c", (d, a, b, c * 2))):
                satfinite = ".satfinite" if dtype == "s32" else ""
                layout = ".row.col"
                yield Case("mma", version, target,
                           f"mma.sync.aligned.{shape}{layout}{satfinite}.{dtype}.{atype}.{btype}.{ctype} "
                           f"{_vector(dc, register, 10)}, {_vector(ac, '%r', 40)}, {_vector(bc, '%r', 60)}, {_vector(cc, register, 80)};")


_WMMA_STORE = ("m16n16k16", "m8n32k16", "m32n8k16", "m8n8k32", "m8n8k128", "m16n16k8", "m8n8k4")


def wmma_cases() -> Iterator[Case]:
    counts = {"f16": 4, "f32": 8, "s32": 8, "f64": 2}
    for shape in _WMMA_STORE:
        for kind in ("f16", "f32", "s32", "f64"):
            right = 2 if shape in ("m8n8k32", "m8n8k128", "m8n8k4") else counts[kind]
            for count in (right, right + 1):
                register = {"f16": "%r", "f32": "%f", "s32": "%r", "f64": "%fd"}[kind]
                if register == "%fd" and count > 7:
                    continue
                for version, target in (("8.6", "sm_100a"), ("7.0", "sm_80"), ("6.4", "sm_75")):
                    yield Case("wmma.store", version, target,
                               f"wmma.store.d.sync.aligned.row.{shape}.shared.{kind} [%r1], {_vector(count, register, 1 if register == '%fd' else 10)};")


def wgmma_cases() -> Iterator[Case]:
    for n in (8, 16, 24, 64, 128, 256):
        for dtype, divisor in (("f32", 2), ("f16", 4)):
            register = "%f" if dtype == "f32" else "%r"
            for count in _around(n // divisor):
                if count > 130:
                    continue
                yield Case("wgmma", "8.0", "sm_90a",
                           f"wgmma.mma_async.sync.aligned.m64n{n}k16.{dtype}.f16.f16 {_vector(count, register, 0)}, %rd1, %rd2, %p1, 1, 1, 0, 0;")
    for version, target in valid_headers(("7.8", "8.0", "8.6", "9.0")):
        yield Case("wgmma", version, target, "wgmma.fence.sync.aligned;")
        yield Case("wgmma", version, target, "wgmma.commit_group.sync.aligned;")


def st_async_cases() -> Iterator[Case]:
    for space in ("", ".shared::cluster", ".global"):
        for mbar in ("", ".mbarrier::complete_tx::bytes"):
            for mmio in ("", ".mmio"):
                for v, value in (("", "%r2"), (".v2", "{%r2, %r3}"), (".v4", "{%r2, %r3, %r4, %r5}"), (".v4", "{%r2, %r3}")):
                    line = (f"st.async{mmio}{space}{mbar}{v}.b32 [%r1], {value}" + (", [%r6];" if mbar else ";"))
                    yield Case("st.async", "8.7", "sm_100a", line)
    for mmio in ("", ".mmio"):
        for scope in (".gpu", ".sys", ".cta"):
            for space in ("", ".global", ".shared::cluster"):
                yield Case("st.async", "8.7", "sm_100a", f"st.async{mmio}.release{scope}{space}.b32 [%rd1], %r2;")
    for version, target in valid_headers(("8.0", "8.1", "8.6", "8.7", "9.0")):
        yield Case("st.async", version, target,
                   "st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%r1], %r2, [%r3];")
        yield Case("st.async", version, target, "st.async.release.gpu.global.b32 [%rd1], %r2;")


_GATED = (
    ("sync", "elect.sync %r1|%p1, -1;"),
    ("sync", "griddepcontrol.wait;"),
    ("sync", "griddepcontrol.launch_dependents;"),
    ("sync", "barrier.cluster.arrive.aligned;"),
    ("sync", "barrier.cluster.arrive.release.aligned;"),
    ("sync", "barrier.cluster.wait.acquire;"),
    ("sync", "redux.sync.add.u32 %r1, %r2, -1;"),
    ("sync", "redux.sync.min.f32 %f1, %f2, -1;"),
    ("sync", "match.any.sync.b32 %r1, %r2, -1;"),
    ("sync", "activemask.b32 %r1;"),
    ("sync", "nanosleep.u32 %r1;"),
    ("sync", "barrier.cta.sync 1;"),
    ("fence", "fence.proxy.async;"),
    ("fence", "fence.proxy.async.shared::cta;"),
    ("fence", "fence.mbarrier_init.release.cluster;"),
    ("fence", "fence.proxy.alias;"),
    ("mbarrier", "mbarrier.init.shared::cta.b64 [mbar], %r1;"),
    ("mbarrier", "mbarrier.arrive.shared::cta.b64 %rd1, [mbar];"),
    ("mbarrier", "mbarrier.try_wait.parity.shared::cta.b64 %p1, [mbar], %r1;"),
    ("mbarrier", "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [mbar], %r1;"),
    ("mbarrier", "mbarrier.arrive.expect_tx.shared::cta.b64 %rd1, [mbar], %r1;"),
    ("cp.async", "cp.async.ca.shared.global [smem], [%rd1], 4;"),
    ("cp.async", "cp.async.commit_group;"),
    ("cp.async", "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [%rd1], %r1, [mbar];"),
    ("cp.async", "cp.async.bulk.global.shared::cta.bulk_group [%rd1], [smem], %r1;"),
    ("cp.async", "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [%rd1, {%r1, %r2}], [mbar];"),
    ("cp.async", "cp.async.bulk.tensor.2d.cta_group::1.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [%rd1, {%r1, %r2}], [mbar];"),
    ("cp.async", "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [smem], %r1;"),
    ("cp.async", "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r1], %r2, [%r3];"),
    ("cp.async", "st.bulk.weak.shared::cta [%r1], 64, 0;"),
    ("multimem", "multimem.ld_reduce.relaxed.sys.global.add.u32 %r1, [%rd1];"),
    ("multimem", "multimem.st.relaxed.sys.global.u32 [%rd1], %r1;"),
    ("multimem", "multimem.red.relaxed.sys.global.add.u32 [%rd1], %r1;"),
    ("matrix", "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r2}, [%r1];"),
    ("matrix", "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r2, %r3}, [%r1];"),
    ("matrix", "stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r1], {%r2};"),
    ("matrix", "movmatrix.sync.aligned.m8n8.trans.b16 %r1, %r2;"),
    ("matrix", "setmaxnreg.dec.sync.aligned.u32 64;"),
    ("matrix", "tensormap.replace.tile.global_address.global.b1024.b64 [%rd1], %rd2;"),
    ("arithmetic", "add.rn.f32x2 %rd1, %rd2, %rd3;"),
    ("arithmetic", "fma.rn.f32x2 %rd1, %rd2, %rd3, %rd4;"),
    ("arithmetic", "tanh.approx.f32 %f1, %f2;"),
    ("arithmetic", "add.s32 %r1, %r2, %r3;"),
    ("arithmetic", "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [smem], [mbar];"),
)


def gated_cases() -> Iterator[Case]:
    for version, target in valid_headers():
        for family, instruction in _GATED:
            yield Case(f"{family} targets", version, target, instruction)


def vector_memory_cases() -> Iterator[Case]:
    for width, _lanes in (("v2", 2), ("v4", 4)):
        for count in (1, 2, 3, 4):
            yield Case("ld/st vectors", "8.0", "sm_90", f"ld.global.{width}.u32 {_vector(count)}, [%rd1];")
            yield Case("ld/st vectors", "8.0", "sm_90", f"st.shared.{width}.f32 [smem], {_vector(count, '%f')};")


def all_cases() -> list[Case]:
    generators = (
        header_cases, tcgen05_ld_st_cases, tcgen05_target_cases, tcgen05_cp_cases, tcgen05_mma_cases, value_cases,
        matrix_cases, mma_cases, wmma_cases, wgmma_cases, st_async_cases, gated_cases, vector_memory_cases,
    )
    from isa_forms import form_cases  # the systematic grammar cases build on this module

    unique: dict[str, Case] = {}
    for generate in (*generators, form_cases):
        for case in generate():
            unique.setdefault(case.key, case)
    return list(unique.values())
