"""Compile the corpus Triton kernels to PTX without a GPU.

Usage (normally invoked by scripts/build_corpus.py)::

    python corpus/triton/build_triton.py --source corpus/triton/matmul.py \
        --arch 100 --out-dir /path/to/cache/triton/sm_100a --manifest out.json

Every kernel module defines ``CONFIGS``: a list of
``(name, jit_fn, signature, constexprs, options)`` tuples.  ``options`` holds
``triton.compile`` options (num_warps, num_stages, ...) plus an optional
``archs`` list restricting the compute capabilities the config is built for
(e.g. FP8 dots do not exist on sm_80).

Triton compiles ahead of time from an ``ASTSource`` and a ``GPUTarget``; no
driver, GPU or torch is involved.  ``compiled.asm["ptx"]`` is the PTX text as
Triton hands it to its bundled ptxas (which also runs here, so every written
file has already been assembled once).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import sys
from pathlib import Path
from types import ModuleType


def load_module(path: Path) -> ModuleType:
    """Import a kernel module from a file path (the corpus is not a package)."""
    spec = importlib.util.spec_from_file_location(f"corpus_triton_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def ptx_target(ptx: str) -> str:
    """The `.target` of a PTX text (Triton picks sm_90a / sm_100a itself)."""
    match = re.search(r"^\.target\s+(\S+)", ptx, flags=re.MULTILINE)
    return match.group(1).rstrip(",") if match else "unknown"


def bundled_ptxas(arch: int) -> str:
    from triton.backends.nvidia.compiler import get_ptxas

    return get_ptxas(arch).path


def compile_config(name, fn, signature, constexprs, options, arch: int) -> str:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    source = ASTSource(fn=fn, signature=signature, constexprs=constexprs)
    compiled = triton.compile(source, target=GPUTarget("cuda", arch, 32), options=options)
    return compiled.asm["ptx"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, required=True, help="kernel module (.py)")
    parser.add_argument("--arch", type=int, required=True, help="compute capability, e.g. 80, 90, 100")
    parser.add_argument("--out-dir", type=Path, required=True)
    parser.add_argument("--manifest", type=Path, required=True, help="JSON list of written files")
    args = parser.parse_args(argv)

    # Silence the 3.9 FP-fusion default warning; keep Triton's historical default.
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    import triton

    module = load_module(args.source)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    written, failures = [], []
    for name, fn, signature, constexprs, options in module.CONFIGS:
        options = dict(options)
        archs = options.pop("archs", None)
        if archs is not None and args.arch not in archs:
            continue
        try:
            ptx = compile_config(name, fn, signature, constexprs, options, args.arch)
        except Exception as exc:  # report every failing config, keep going
            failures.append(f"{name}: {type(exc).__name__}: {exc}".splitlines()[0])
            continue
        out = args.out_dir / f"{args.source.stem}.{name}.ptx"
        out.write_text(ptx)
        written.append({
            "path": str(out),
            "kernel": name,
            "arch": ptx_target(ptx),
            "options": options,
            "constexprs": {k: v for k, v in constexprs.items()},
            "triton_version": triton.__version__,
            # Triton emits a newer .version than the CUDA 13.0 ptxas reads;
            # its own bundled ptxas is the one that can verify this file.
            "ptxas": bundled_ptxas(args.arch),
        })
    args.manifest.write_text(json.dumps({"files": written, "failures": failures}, indent=1))
    for failure in failures:
        print(f"triton compile failed: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
