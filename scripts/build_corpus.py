#!/usr/bin/env python3
"""Build ptxlint's regression corpus of real PTX into a cache directory.

The repository only holds our own sources (corpus/cuda/*.cu, corpus/triton/*.py);
every PTX file is generated here, into ``$PTXLINT_CORPUS_DIR`` or
``~/.cache/ptxlint/corpus``, never into the work tree.  Three origins:

* ``cuda``    -- corpus/cuda/*.cu compiled with ``nvcc -ptx``.  Each source
                 names its targets in header comments::

                     // corpus-arch: sm_80 sm_90a      (required)
                     // corpus-variants: -G -lineinfo  (optional extra builds)
                     // corpus-flags: -use_fast_math   (optional extra flags)
                     // corpus-tier: full              (optional, default quick)

                 Variants are built for the first listed arch only and are
                 written as ``<stem>.G.ptx`` / ``<stem>.lineinfo.ptx``.
* ``cutlass`` -- real CUTLASS example programs shipped in the
                 ``nvidia-cutlass`` wheel (``cutlass_library/source/examples``),
                 compiled device-side with ``nvcc -ptx`` (see CUTLASS_EXAMPLES).
* ``triton``  -- corpus/triton/*.py compiled by corpus/triton/build_triton.py
                 for sm_80, sm_90a and sm_100a without a GPU.

Caching: every job has a key (sha256 over its input files, flags, compiler
version and this script's JOB_FORMAT).  ``manifest.json`` in the cache
records the key of each job and the files it produced; a job whose key and
files are unchanged is skipped, so a second run takes seconds.

Tiers: ``quick`` (default) fits a 2-core CI budget; ``full`` adds the
heaviest CUTLASS examples.  ``--verify`` runs ``ptxas -arch=<arch> -o
/dev/null`` on every produced file (Triton files with Triton's bundled
ptxas, because Triton emits a newer ``.version`` than CUDA 13.0 accepts);
successful verifications are cached too.

Toolchain discovery
-------------------
nvcc: ``$PTXLINT_NVCC``, else ``nvcc`` on PATH, else the ``nvidia-cuda-nvcc``
wheel.  The CUDA 13.0 wheels that match this machine install with::

    pip install nvidia-cuda-nvcc==13.0.88 nvidia-cuda-runtime==13.0.96 \\
        nvidia-cuda-crt==13.0.88 nvidia-nvvm==13.0.88 nvidia-cuda-cccl==13.0.85

and lay themselves out as one CUDA tree under ``site-packages/nvidia/cu13``::

    bin/nvcc  bin/ptxas  bin/cudafe++  bin/nvcc.profile  bin/fatbinary ...
    nvvm/bin/cicc  nvvm/libdevice/libdevice.10.bc      (nvidia-nvvm)
    include/*.h  include/crt/  include/cccl/{cuda,cub,thrust,nv}
    lib/libcudart.so.13  lib/libnvvm.so.4 ...

``bin/nvcc.profile`` locates everything relative to itself (``$(_HERE_)/..``),
so the wheel's nvcc needs no environment variables; only a host C++
compiler (g++) must be on PATH.  ptxas is taken from next to nvcc unless
``$PTXLINT_PTXAS`` is set.

Python-side inputs (``$PTXLINT_PYTHON``, default: this interpreter):
``triton`` for the Triton kernels, ``nvidia-cutlass==4.2.0.0`` for the CUTLASS
headers and examples (or ``$PTXLINT_CUTLASS_DIR`` pointing at a CUTLASS source
tree), and ``nvidia-curand`` for ``curand_kernel.h``, which the CUTLASS example
utilities include but the nvcc wheels do not ship::

    pip install triton nvidia-cutlass==4.2.0.0 nvidia-curand==10.4.0.35

``--install-deps`` runs exactly that pip command with ``$PTXLINT_PYTHON``.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import fcntl
import fnmatch
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
CORPUS_SRC = REPO_ROOT / "corpus"
CUDA_SRC = CORPUS_SRC / "cuda"
TRITON_SRC = CORPUS_SRC / "triton"
TRITON_DRIVER = TRITON_SRC / "build_triton.py"

# Bump when the meaning of a job (output naming, flags policy) changes so that
# every cached entry is rebuilt.
JOB_FORMAT = 1

PIP_DEPS = ["triton", "nvidia-cutlass==4.2.0.0", "nvidia-curand==10.4.0.35"]

CUDA_BASE_FLAGS = ["-std=c++17", "-O3"]
CUTLASS_BASE_FLAGS = ["-std=c++17", "--expt-relaxed-constexpr", "-DNDEBUG"]
TRITON_ARCHS = {80: "sm_80", 90: "sm_90a", 100: "sm_100a"}
TIERS = ("quick", "full")


@dataclass(frozen=True)
class CutlassExample:
    """One CUTLASS example program to compile to PTX."""

    path: str  # relative to <cutlass>/examples
    arch: str
    tier: str
    extra_flags: tuple[str, ...] = ()
    est_seconds: float = 60.0  # rough single-job time, heaviest are started first
    name: str = ""  # output stem; defaults to the file stem

    @property
    def stem(self) -> str:
        return self.name or Path(self.path).stem


# est_seconds: approximate single-job wall time of `nvcc -ptx` on an idle
# 2-core machine (measured under load and scaled); the scheduler starts the
# heaviest first.  The quick tier is sized for the CI budget (corpus/README.md).
_FMHA = ("--use_fast_math", "-DFP16")  # flags from the examples' CMakeLists
CUTLASS_EXAMPLES: tuple[CutlassExample, ...] = (
    # ---- Blackwell (sm_100a): tcgen05 / TMEM / UMMA collectives
    CutlassExample("70_blackwell_gemm/70_blackwell_fp16_gemm.cu", "sm_100a", "quick", (), 45),
    CutlassExample("70_blackwell_gemm/70_blackwell_fp8_gemm.cu", "sm_100a", "quick", (), 50),
    CutlassExample("72_blackwell_narrow_precision_gemm/72a_blackwell_nvfp4_bf16_gemm.cu", "sm_100a", "quick",
                   (), 75),
    CutlassExample("74_blackwell_gemm_streamk/blackwell_gemm_streamk.cu", "sm_100a", "quick", (), 50),
    CutlassExample("75_blackwell_grouped_gemm/75_blackwell_grouped_gemm.cu", "sm_100a", "quick", (), 60),
    CutlassExample("76_blackwell_conv/76_blackwell_conv_fprop.cu", "sm_100a", "quick", (), 45),
    CutlassExample("81_blackwell_gemm_blockwise/81_blackwell_gemm_blockwise.cu", "sm_100a", "quick", (), 45),
    CutlassExample("77_blackwell_fmha/77_blackwell_fmha_gen.cu", "sm_100a", "quick", _FMHA, 110),
    CutlassExample("71_blackwell_gemm_with_collective_builder/71_blackwell_gemm_with_collective_builder.cu",
                   "sm_100a", "full", (), 75),
    CutlassExample("75_blackwell_grouped_gemm/75_blackwell_grouped_gemm_block_scaled.cu", "sm_100a", "full",
                   (), 80),
    CutlassExample("77_blackwell_fmha/77_blackwell_fmha.cu", "sm_100a", "full", _FMHA, 170),
    CutlassExample("77_blackwell_fmha/77_blackwell_fmha_bwd.cu", "sm_100a", "full", _FMHA, 330),
    CutlassExample("77_blackwell_fmha/77_blackwell_mla.cu", "sm_100a", "full", _FMHA, 150),
    CutlassExample("83_blackwell_sparse_gemm/83_blackwell_sparse_gemm.cu", "sm_100a", "full", (), 200),
    CutlassExample("92_blackwell_moe_gemm/92_blackwell_moe_gemm_regular.cu", "sm_100a", "full", (), 150),
    # ---- Hopper (sm_90a): wgmma / TMA warp-specialised collectives
    CutlassExample("48_hopper_warp_specialized_gemm/48_hopper_warp_specialized_gemm.cu", "sm_90a", "quick",
                   (), 30),
    CutlassExample("54_hopper_fp8_warp_specialized_gemm/54_hopper_fp8_warp_specialized_gemm.cu", "sm_90a",
                   "quick", (), 45),
    CutlassExample("57_hopper_grouped_gemm/57_hopper_grouped_gemm.cu", "sm_90a", "quick", (), 65),
    CutlassExample("88_hopper_fmha/88_hopper_fmha.cu", "sm_90a", "quick", ("--use_fast_math",), 230),
    CutlassExample("49_hopper_gemm_with_collective_builder/49_collective_builder.cu", "sm_90a", "full",
                   (), 170),
    CutlassExample("62_hopper_sparse_gemm/62_hopper_sparse_gemm.cu", "sm_90a", "full", (), 120),
    CutlassExample("67_hopper_fp8_warp_specialized_gemm_with_blockwise_scaling/"
                   "67_hopper_fp8_warp_specialized_gemm_with_blockwise_scaling.cu", "sm_90a", "full", (), 120),
)


# --------------------------------------------------------------------- model
@dataclass
class Job:
    """One compiler invocation that produces one or more PTX files."""

    job_id: str  # e.g. "cuda/sm_90a/wgmma_gemm_ws.lineinfo"
    origin: str  # cuda | cutlass | triton
    arch: str
    tier: str
    flags: list[str]
    inputs: list[Path]  # files whose content goes into the cache key
    source: Path
    out_dir: Path
    extra_key: str = ""  # e.g. library versions
    est_seconds: float = 2.0

    def key(self, compiler_id: str) -> str:
        h = hashlib.sha256()
        h.update(json.dumps([JOB_FORMAT, self.job_id, self.arch, self.flags, compiler_id,
                             self.extra_key]).encode())
        for path in sorted(self.inputs):
            h.update(str(path.name).encode())
            h.update(path.read_bytes())
        return h.hexdigest()[:20]


@dataclass
class JobResult:
    job: Job
    key: str
    files: list[dict] = field(default_factory=list)
    seconds: float = 0.0
    error: str = ""
    cached: bool = False


@dataclass
class Toolchain:
    nvcc: Path | None
    ptxas: Path | None
    nvcc_version: str
    python: str
    cutlass_dir: Path | None = None
    cutlass_version: str = ""
    triton_version: str = ""
    curand_include: Path | None = None  # extra dir holding curand_kernel.h
    include_shim: Path | None = None  # <cache>/.shim/include exposing only curand*.h
    problems: dict[str, str] = field(default_factory=dict)  # origin -> why unusable


# ------------------------------------------------------------- toolchain
def run_python(python: str, code: str) -> str | None:
    """Run a snippet in the target interpreter; None when it fails."""
    proc = subprocess.run([python, "-c", code], capture_output=True, text=True)
    return proc.stdout.strip() if proc.returncode == 0 else None


def nvidia_wheel_roots(python: str) -> list[Path]:
    """site-packages/nvidia directories of the target interpreter."""
    out = run_python(python, "import importlib.util as u; s = u.find_spec('nvidia'); "
                             "print('\\n'.join(s.submodule_search_locations) if s else '')")
    return [Path(p) for p in (out or "").splitlines() if p]


def find_nvcc(python: str) -> Path | None:
    if env := os.environ.get("PTXLINT_NVCC"):
        return Path(env)
    if found := shutil.which("nvcc"):
        return Path(found)
    for root in nvidia_wheel_roots(python):
        for candidate in sorted(root.glob("cu*/bin/nvcc"), reverse=True):
            return candidate
    return None


def find_ptxas(nvcc: Path | None) -> Path | None:
    if env := os.environ.get("PTXLINT_PTXAS"):
        return Path(env)
    if nvcc is not None and (nvcc.parent / "ptxas").exists():
        return nvcc.parent / "ptxas"
    found = shutil.which("ptxas")
    return Path(found) if found else None


def nvcc_include_dirs(nvcc: Path) -> list[Path]:
    """Include dirs nvcc searches by default (system install or wheel layout)."""
    real = nvcc.resolve()
    candidates = [real.parent.parent / "include"]
    # /usr/local/bin/nvcc may be a wrapper script: follow its exec line.
    try:
        text = nvcc.read_text(errors="ignore") if nvcc.stat().st_size < 4096 else ""
    except OSError:
        text = ""
    for match in re.finditer(r"(/\S+)/bin/nvcc", text):
        candidates.append(Path(match.group(1)) / "include")
    return [c for c in candidates if c.is_dir()]


def find_curand_include(nvcc: Path, python: str) -> tuple[bool, Path | None]:
    """(available, extra include dir) for curand_kernel.h: nvcc's own include
    dir needs nothing extra; otherwise look in the nvidia-curand wheel."""
    for inc in nvcc_include_dirs(nvcc):
        if (inc / "curand_kernel.h").exists():
            return True, None
    for root in nvidia_wheel_roots(python):
        for header in root.glob("cu*/include/curand_kernel.h"):
            return True, header.parent
    return False, None


def discover_toolchain(python: str, need: set[str]) -> Toolchain:
    nvcc = find_nvcc(python)
    ptxas = find_ptxas(nvcc)
    version = ""
    if nvcc is not None:
        proc = subprocess.run([str(nvcc), "--version"], capture_output=True, text=True)
        version = proc.stdout.strip().splitlines()[-1] if proc.returncode == 0 else ""
    tc = Toolchain(nvcc=nvcc, ptxas=ptxas, nvcc_version=version, python=python)
    if nvcc is None or not version:
        msg = "nvcc not found (set PTXLINT_NVCC or pip install nvidia-cuda-nvcc==13.0.88 ...)"
        tc.problems["cuda"] = tc.problems["cutlass"] = msg
    if "cutlass" in need and "cutlass" not in tc.problems:
        locate_cutlass(tc)
    if "triton" in need:
        tc.triton_version = run_python(
            python, "import importlib.metadata as m; print(m.version('triton'))") or ""
        if not tc.triton_version:
            tc.problems["triton"] = f"triton is not importable by {python} (pip install triton)"
    return tc


def locate_cutlass(tc: Toolchain) -> None:
    """Fill in the CUTLASS source tree and the curand include shim source."""
    if env := os.environ.get("PTXLINT_CUTLASS_DIR"):
        tc.cutlass_dir, tc.cutlass_version = Path(env), f"dir:{env}"
    else:
        loc = run_python(tc.python, "import importlib.util as u; s = u.find_spec('cutlass_library'); "
                                    "print(s.submodule_search_locations[0] if s else '')")
        if loc:
            tc.cutlass_dir = Path(loc) / "source"
            tc.cutlass_version = run_python(
                tc.python, "import importlib.metadata as m; print(m.version('nvidia-cutlass'))") or "?"
    if tc.cutlass_dir is None or not (tc.cutlass_dir / "examples").is_dir():
        tc.problems["cutlass"] = ("CUTLASS examples not found "
                                  "(pip install nvidia-cutlass==4.2.0.0 or set PTXLINT_CUTLASS_DIR)")
        return
    available, tc.curand_include = find_curand_include(tc.nvcc, tc.python)
    if not available:
        tc.problems["cutlass"] = "curand_kernel.h not found (pip install nvidia-curand==10.4.0.35)"


def curand_shim(cache: Path, curand_dir: Path | None) -> Path | None:
    """An include dir with only the curand headers, so adding it to -I cannot
    shadow nvcc's own CUDA headers with the wheel's (possibly other) version."""
    if curand_dir is None:
        return None
    shim = cache / ".shim" / "include"
    shim.mkdir(parents=True, exist_ok=True)
    for header in curand_dir.glob("curand*.h"):
        link = shim / header.name
        if link.is_symlink() and link.resolve() != header.resolve():
            link.unlink()  # the wheel moved (e.g. another interpreter)
        if not link.is_symlink():
            link.symlink_to(header)
    return shim


# ------------------------------------------------------------ job discovery
def parse_cuda_header(path: Path) -> dict[str, list[str]]:
    """Read the `// corpus-<key>: values` lines of a corpus source."""
    meta: dict[str, list[str]] = {}
    for line in path.read_text().splitlines()[:60]:
        match = re.match(r"//\s*corpus-(\w+):\s*(.*)$", line)
        if match:
            meta[match.group(1)] = match.group(2).split()
    return meta


def cuda_jobs(cache: Path) -> list[Job]:
    headers = sorted(CUDA_SRC.glob("*.cuh"))  # shared helpers: part of every key
    jobs = []
    for src in sorted(CUDA_SRC.glob("*.cu")):
        meta = parse_cuda_header(src)
        archs = meta.get("arch")
        if not archs:
            raise SystemExit(f"{src}: missing '// corpus-arch:' header line")
        tier = (meta.get("tier") or ["quick"])[0]
        extra = meta.get("flags", [])
        builds = [(arch, [], "") for arch in archs]
        builds += [(archs[0], [v], "." + v.lstrip("-")) for v in meta.get("variants", [])]
        for arch, variant_flags, suffix in builds:
            flags = CUDA_BASE_FLAGS + extra + variant_flags
            jobs.append(Job(job_id=f"cuda/{arch}/{src.stem}{suffix}", origin="cuda", arch=arch,
                            tier=tier, flags=flags, inputs=[src, *headers], source=src,
                            out_dir=cache / "cuda" / arch, est_seconds=3.0))
    return jobs


def cutlass_jobs(cache: Path, tc: Toolchain) -> list[Job]:
    jobs = []
    for ex in CUTLASS_EXAMPLES:
        src_rel = Path(ex.path)
        src = (tc.cutlass_dir / "examples" / src_rel) if tc.cutlass_dir else src_rel
        # The example's own directory may hold headers it includes.
        inputs = sorted(p for p in src.parent.rglob("*") if p.suffix in {".cu", ".h", ".hpp", ".cuh"}) \
            if src.exists() else []
        jobs.append(Job(job_id=f"cutlass/{ex.arch}/{ex.stem}", origin="cutlass", arch=ex.arch,
                        tier=ex.tier, flags=CUTLASS_BASE_FLAGS + list(ex.extra_flags), inputs=inputs,
                        source=src, out_dir=cache / "cutlass" / ex.arch,
                        extra_key=f"cutlass={tc.cutlass_version}", est_seconds=ex.est_seconds))
    return jobs


def triton_jobs(cache: Path, tc: Toolchain) -> list[Job]:
    jobs = []
    for src in sorted(TRITON_SRC.glob("*.py")):
        if src == TRITON_DRIVER:
            continue
        for cc, arch in TRITON_ARCHS.items():
            jobs.append(Job(job_id=f"triton/{arch}/{src.stem}", origin="triton", arch=arch,
                            tier="quick", flags=[f"--arch={cc}"], inputs=[src, TRITON_DRIVER],
                            source=src, out_dir=cache / "triton" / arch,
                            extra_key=f"triton={tc.triton_version}", est_seconds=10.0))
    return jobs


def select(jobs: list[Job], tier: str, patterns: list[str]) -> list[Job]:
    allowed = TIERS[: TIERS.index(tier) + 1]
    chosen = [j for j in jobs if j.tier in allowed]
    if patterns:
        chosen = [j for j in chosen
                  if any(fnmatch.fnmatch(j.job_id, p) or p in j.job_id for p in patterns)]
    return chosen


# ---------------------------------------------------------------- building
def count_lines(path: Path) -> int:
    with path.open("rb") as fh:
        return sum(1 for _ in fh)


def file_entry(path: Path, cache: Path, job: Job, **extra) -> dict:
    return {"path": str(path.relative_to(cache)), "origin": job.origin, "arch": job.arch,
            "flags": job.flags, "source": source_label(job), "lines": count_lines(path), **extra}


def source_label(job: Job) -> str:
    try:
        return str(job.source.relative_to(REPO_ROOT))
    except ValueError:
        parts = job.source.parts
        return "/".join(parts[parts.index("examples"):]) if "examples" in parts else str(job.source)


def run(cmd: list[str], env: dict | None = None) -> tuple[int, str]:
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    return proc.returncode, (proc.stderr + proc.stdout).strip()


def build_nvcc(job: Job, tc: Toolchain, cache: Path, include_dirs: list[Path]) -> JobResult:
    """nvcc -ptx into a temp file, then rename: a killed build leaves no
    truncated PTX that a later run could mistake for a cached result."""
    stem = job.job_id.rsplit("/", 1)[1]
    out = job.out_dir / f"{stem}.ptx"
    job.out_dir.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(f".ptx.{os.getpid()}.tmp")
    cmd = [str(tc.nvcc), "-ptx", f"-arch={job.arch}", *job.flags]
    for inc in include_dirs:
        cmd += ["-I", str(inc)]
    cmd += [str(job.source), "-o", str(tmp)]
    code, log = run(cmd)
    if code != 0:
        tmp.unlink(missing_ok=True)
        return JobResult(job, "", error=f"$ {' '.join(cmd)}\n{tail(log)}")
    tmp.replace(out)
    return JobResult(job, "", files=[file_entry(out, cache, job, ptxas=str(tc.ptxas))])


def build_triton(job: Job, tc: Toolchain, cache: Path) -> JobResult:
    job.out_dir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, TRITON_CACHE_DIR=str(cache / ".triton-cache"),
               TRITON_DEFAULT_FP_FUSION="1")
    with tempfile.TemporaryDirectory() as tmpdir:
        listing = Path(tmpdir) / "files.json"
        cmd = [tc.python, str(TRITON_DRIVER), "--source", str(job.source),
               "--arch", job.flags[0].split("=")[1], "--out-dir", str(job.out_dir),
               "--manifest", str(listing)]
        code, log = run(cmd, env=env)
        produced = json.loads(listing.read_text()) if listing.exists() else {"files": []}
    files = [file_entry(Path(f["path"]), cache, job, kernel=f["kernel"], ptx_target=f["arch"],
                        triton_options=f["options"], ptxas=f["ptxas"])
             for f in produced["files"]]
    error = f"$ {' '.join(cmd)}\n{tail(log)}" if code != 0 else ""
    return JobResult(job, "", files=files, error=error)


def tail(text: str, lines: int = 25) -> str:
    return "\n".join(text.splitlines()[-lines:])


def build_job(job: Job, tc: Toolchain, cache: Path) -> JobResult:
    start = time.monotonic()
    if job.origin in tc.problems:
        result = JobResult(job, "", error=tc.problems[job.origin])
    elif job.origin == "triton":
        result = build_triton(job, tc, cache)
    elif job.origin == "cutlass":
        src_root = tc.cutlass_dir
        includes = [src_root / "include", src_root / "tools" / "util" / "include",
                    src_root / "examples" / "common", job.source.parent]
        if tc.include_shim:
            includes.append(tc.include_shim)
        result = build_nvcc(job, tc, cache, includes)
    else:
        result = build_nvcc(job, tc, cache, [CUDA_SRC])
    result.seconds = round(time.monotonic() - start, 2)
    return result


# ---------------------------------------------------------------- manifest
def load_manifest(cache: Path) -> dict:
    path = cache / "manifest.json"
    if path.exists():
        try:
            return json.loads(path.read_text())
        except json.JSONDecodeError:
            pass
    return {"jobs": {}}


def write_manifest(cache: Path, tc: Toolchain, jobs: dict[str, dict]) -> dict:
    files = sorted((f for j in jobs.values() for f in j["files"]), key=lambda f: f["path"])
    manifest = {
        "generator": "scripts/build_corpus.py",
        "job_format": JOB_FORMAT,
        "nvcc": str(tc.nvcc),
        "nvcc_version": tc.nvcc_version,
        "cutlass": tc.cutlass_version,
        "triton": tc.triton_version,
        "totals": summarize(files),
        "files": files,
        "jobs": jobs,
    }
    tmp = cache / f"manifest.json.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(manifest, indent=1))
    tmp.replace(cache / "manifest.json")
    return manifest


def summarize(files: list[dict]) -> dict:
    totals: dict[str, dict] = {"all": {"files": 0, "lines": 0}}
    for f in files:
        for key in ("all", f"origin:{f['origin']}", f"arch:{f['arch']}"):
            slot = totals.setdefault(key, {"files": 0, "lines": 0})
            slot["files"] += 1
            slot["lines"] += f["lines"]
    return totals


def is_cached(job: Job, key: str, previous: dict, cache: Path) -> dict | None:
    entry = previous.get("jobs", {}).get(job.job_id)
    if not entry or entry.get("key") != key or entry.get("error"):
        return None
    if all((cache / f["path"]).exists() for f in entry["files"]) and entry["files"]:
        return entry
    return None


# ------------------------------------------------------------------ verify
def verify_files(entries: list[dict], cache: Path, workers: int) -> list[str]:
    """ptxas every file that has not been verified with its current key."""
    todo = [f for f in entries if f.get("verified") != f.get("key")]

    def check(f: dict) -> str:
        target = f.get("ptx_target", f["arch"])
        code, log = run([f["ptxas"], f"-arch={target}", str(cache / f["path"]), "-o", os.devnull])
        if code == 0:
            f["verified"] = f["key"]
            return ""
        return f"ptxas rejected {f['path']}:\n{tail(log, 10)}"

    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        errors = [e for e in pool.map(check, todo) if e]
    print(f"verify: {len(todo)} checked, {len(entries) - len(todo)} already verified, "
          f"{len(errors)} rejected")
    return errors


# --------------------------------------------------------------------- CLI
def default_cache() -> Path:
    env = os.environ.get("PTXLINT_CORPUS_DIR")
    return Path(env) if env else Path.home() / ".cache" / "ptxlint" / "corpus"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cache", type=Path, default=default_cache(),
                   help="output directory (default: $PTXLINT_CORPUS_DIR or ~/.cache/ptxlint/corpus)")
    p.add_argument("--tier", choices=TIERS, default="quick", help="quick (CI) or full (+ heavy CUTLASS)")
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="parallel compiles")
    p.add_argument("--only", action="append", default=[], metavar="PATTERN",
                   help="only jobs whose id matches (glob or substring), e.g. 'cuda/*/tcgen05*'")
    p.add_argument("--list", action="store_true", help="list the selected jobs and their cache state")
    p.add_argument("--clean", action="store_true", help="delete the cache directory first")
    p.add_argument("--verify", action="store_true", help="run ptxas on every produced PTX file")
    p.add_argument("--install-deps", action="store_true",
                   help=f"pip install {' '.join(PIP_DEPS)} into $PTXLINT_PYTHON first")
    return p.parse_args(argv)


@contextlib.contextmanager
def cache_lock(cache: Path):
    """Serialise builders sharing one cache: two concurrent runs would compile
    the same jobs twice and race on manifest.json."""
    with (cache / ".lock").open("w") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(f"waiting for another build_corpus.py using {cache} ...", flush=True)
            fcntl.flock(fh, fcntl.LOCK_EX)
        yield


def clean(cache: Path) -> None:
    # Only ever delete a directory that is recognisably ours.
    if cache.exists():
        if not ((cache / "manifest.json").exists() or not any(cache.iterdir())):
            raise SystemExit(f"refusing to delete {cache}: it has no manifest.json")
        shutil.rmtree(cache)
        print(f"removed {cache}")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    python = os.environ.get("PTXLINT_PYTHON", sys.executable)
    cache: Path = args.cache.expanduser().resolve()
    if args.install_deps:
        subprocess.run([python, "-m", "pip", "install", *PIP_DEPS], check=True)
    if args.clean:
        clean(cache)
    cache.mkdir(parents=True, exist_ok=True)
    with cache_lock(cache):
        return build(args, python, cache)


def build(args: argparse.Namespace, python: str, cache: Path) -> int:
    """Discover, build (or reuse), verify and record every selected job."""
    need = {"cuda", "cutlass", "triton"}
    tc = discover_toolchain(python, need)
    # Created once, before the worker threads start.
    tc.include_shim = curand_shim(cache, tc.curand_include)
    all_jobs = cuda_jobs(cache) + cutlass_jobs(cache, tc) + triton_jobs(cache, tc)
    jobs = select(all_jobs, args.tier, args.only)
    previous = load_manifest(cache)
    compiler_id = tc.nvcc_version
    keys = {j.job_id: j.key(compiler_id) if j.inputs else "missing-input" for j in jobs}

    if args.list:
        for j in jobs:
            state = "cached" if is_cached(j, keys[j.job_id], previous, cache) else "to build"
            print(f"{j.job_id:70s} {j.tier:6s} {state}")
        print(f"{len(jobs)} jobs (tier {args.tier})")
        return 0

    results = build_all(jobs, keys, tc, cache, previous, args.jobs)
    # Keep entries of jobs outside this selection (e.g. --only, other tier);
    # drop (and delete the files of) jobs whose source no longer exists.
    known = {j.job_id for j in all_jobs}
    job_table = {jid: e for jid, e in previous.get("jobs", {}).items()
                 if jid in known and jid not in keys}
    prune_removed_jobs(previous, known, cache)
    failures = []
    for r in results:
        for f in r.files:
            f["key"] = r.key
            old = next((o for o in previous.get("jobs", {}).get(r.job.job_id, {}).get("files", [])
                        if o["path"] == f["path"]), {})
            if r.cached and old.get("verified") == r.key:
                f["verified"] = r.key
        job_table[r.job.job_id] = {"key": r.key, "files": r.files, "seconds": r.seconds,
                                   "tier": r.job.tier, "error": r.error}
        if r.error:
            failures.append(f"[{r.job.job_id}]\n{r.error}")

    if args.verify:
        entries = [f for e in job_table.values() for f in e["files"]
                   if e["tier"] in TIERS[: TIERS.index(args.tier) + 1]]
        failures += verify_files(entries, cache, args.jobs)
    manifest = write_manifest(cache, tc, job_table)
    report(results, manifest, cache, failures)
    return 1 if failures else 0


def prune_removed_jobs(previous: dict, known: set[str], cache: Path) -> None:
    for jid, entry in previous.get("jobs", {}).items():
        if jid not in known:
            for f in entry.get("files", []):
                (cache / f["path"]).unlink(missing_ok=True)
            print(f"pruned {jid} (source removed)")


def build_all(jobs: list[Job], keys: dict[str, str], tc: Toolchain, cache: Path, previous: dict,
              workers: int) -> list[JobResult]:
    results: list[JobResult] = []
    todo = []
    for j in jobs:
        entry = is_cached(j, keys[j.job_id], previous, cache)
        if entry:
            results.append(JobResult(j, keys[j.job_id], files=entry["files"],
                                     seconds=entry.get("seconds", 0.0), cached=True))
        else:
            todo.append(j)
    # Longest first (previous timing if known) so the slow CUTLASS compiles
    # do not end up alone at the tail of the schedule.
    def cost(j: Job) -> float:
        return previous.get("jobs", {}).get(j.job_id, {}).get("seconds") or j.est_seconds

    todo.sort(key=cost, reverse=True)
    print(f"{len(jobs)} jobs: {len(results)} cached, {len(todo)} to build with -j{workers} "
          f"({tc.nvcc_version or 'no nvcc'})", flush=True)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = {pool.submit(build_job, j, tc, cache): j for j in todo}
        for n, fut in enumerate(concurrent.futures.as_completed(futures), 1):
            r = fut.result()
            r.key = keys[r.job.job_id]
            status = "FAILED" if r.error else f"{sum(f['lines'] for f in r.files)} lines"
            print(f"[{n}/{len(todo)}] {r.job.job_id} ({r.seconds:.1f}s) {status}", flush=True)
            results.append(r)
    return results


def report(results: list[JobResult], manifest: dict, cache: Path, failures: list[str]) -> None:
    totals = manifest["totals"]
    built = [r for r in results if not r.cached]
    print(f"\ncache: {cache}")
    print(f"jobs: {len(results)} ({len(built)} built, {len(results) - len(built)} cached)")
    for key in sorted(totals):
        print(f"  {key:16s} {totals[key]['files']:5d} files {totals[key]['lines']:9d} lines")
    if failures:
        print(f"\n{len(failures)} FAILURE(S):", file=sys.stderr)
        for failure in failures:
            print(failure + "\n", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
