"""Where the CUDA command-line tools are: PATH first (a user's own toolkit wins), then
`$CUDA_HOME/bin`, then the NVIDIA wheels installed in this Python (`pip install 'ptxlint[cuda]'`
brings nvcc and cuobjdump), which lay themselves out as `site-packages/nvidia/cu13/bin`."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from ptxlint.frontends import FrontEndError

# The wheels' folder per CUDA major version (cu13: CUDA 13; cuda_nvcc: the CUDA 12 layout).
_WHEEL_BIN_DIRS = ("cu13/bin", "cuda_nvcc/bin", "cuda_cuobjdump/bin", "cu12/bin")


def find_tool(name: str) -> str | None:
    """The path of CUDA tool ``name`` (nvcc, cuobjdump, …), or None."""
    found = shutil.which(name)
    if found:
        return found
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    if home:
        candidate = Path(home) / "bin" / name
        if _executable(candidate):
            return str(candidate)
    for root in map(Path, sys.path):
        for folder in _WHEEL_BIN_DIRS:
            candidate = root / "nvidia" / folder / name
            if _executable(candidate):
                return str(candidate)
    return None


def require_tool(name: str, needed_for: str) -> str:
    """Like :func:`find_tool`, but a missing tool is a :class:`FrontEndError` saying what to do."""
    found = find_tool(name)
    if found is None:
        raise FrontEndError(
            f"{needed_for} needs `{name}`, which is not on PATH, in $CUDA_HOME/bin or in this Python's NVIDIA "
            f"wheels; install a CUDA toolkit or run `pip install 'ptxlint[cuda]'`"
        )
    return found


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)
