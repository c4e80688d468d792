"""Obtains tree-sitter's C runtime for the native front end (`ptxlint._native`), at build time.

The runtime is a dependency like any other: it comes from the package index, as the source
distribution of the `tree-sitter` Python package at one pinned version, fetched through pip
itself (so the user's index, proxy and certificate settings apply), checked against the sha256
below, unpacked into a cache and compiled into our extension. Nothing of it is in the repository.

Offline, `PTXLINT_TREE_SITTER_SDIST=/path/to/tree_sitter-<version>.tar.gz` names a copy of the
same file (its hash is checked just the same). When the source cannot be had, the build goes on
without the native extension and says so in one line; ptxlint then parses through py-tree-sitter
and lowers in Python (the reference implementation), which is slower and otherwise identical.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

# The runtime version must accept the grammar's ABI (parser.c is generated with ABI 14) and
# should match the py-tree-sitter that the fallback path uses, so both parse identically.
TREE_SITTER_VERSION = "0.26.1"
TREE_SITTER_SDIST = f"tree_sitter-{TREE_SITTER_VERSION}.tar.gz"
TREE_SITTER_SHA256 = "9919cbaf02d17fa9a4cd0e6da496aecf901b758e6eacf122eee393e3ef08aacd"

# Inside the sdist: the amalgamated runtime, its headers, and the licences that travel with it.
_CORE = "tree_sitter/core/lib"
_LICENSES = {"LICENSE": "LICENSE.tree-sitter", f"{_CORE}/src/unicode/LICENSE": "LICENSE.tree-sitter-unicode"}

CACHE = Path(os.environ.get("PTXLINT_CACHE", Path.home() / ".cache" / "ptxlint"))


@dataclass(frozen=True)
class Runtime:
    """The unpacked runtime: what to compile, where its headers are, which licences to ship."""

    source: Path  # lib/src/lib.c, the whole runtime in one translation unit
    include_dirs: tuple[Path, ...]
    licenses: dict[Path, str]  # licence file -> the name it is shipped under in the package


class RuntimeUnavailable(Exception):
    """The runtime's source could not be obtained or did not match its pinned hash."""


def runtime() -> Runtime:
    """The pinned runtime, unpacked in the cache; fetched and verified on first use."""
    root = CACHE / f"tree-sitter-{TREE_SITTER_VERSION}-{TREE_SITTER_SHA256[:12]}"
    if not (root / "complete").exists():
        _unpack(_verified_sdist(), root)
    top = root / f"tree_sitter-{TREE_SITTER_VERSION}"
    return Runtime(
        source=top / _CORE / "src" / "lib.c",
        include_dirs=(top / _CORE / "include", top / _CORE / "src"),
        licenses={top / inner: shipped for inner, shipped in _LICENSES.items()},
    )


def _verified_sdist() -> Path:
    given = os.environ.get("PTXLINT_TREE_SITTER_SDIST")
    if given:
        path = Path(given)
    else:
        downloads = CACHE / "downloads"
        path = downloads / TREE_SITTER_SDIST
        if not path.exists():
            _download(downloads)
    if not path.is_file():
        raise RuntimeUnavailable(f"{path} does not exist")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != TREE_SITTER_SHA256:
        raise RuntimeUnavailable(f"{path} has sha256 {digest}, expected {TREE_SITTER_SHA256}")
    return path


def _download(directory: Path) -> None:
    """Fetch the sdist with pip, into a scratch directory first so a broken download never
    lands in the cache."""
    directory.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=directory) as scratch:
        command = [
            sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
            f"tree-sitter=={TREE_SITTER_VERSION}", "--dest", scratch,
        ]  # fmt: skip
        result = subprocess.run(command, capture_output=True, text=True)
        fetched = Path(scratch) / TREE_SITTER_SDIST
        if result.returncode != 0 or not fetched.exists():
            reason = (result.stderr.strip().splitlines() or ["pip download failed"])[-1]
            raise RuntimeUnavailable(reason)
        os.replace(fetched, directory / TREE_SITTER_SDIST)


def _unpack(sdist: Path, root: Path) -> None:
    """Extract only the runtime and the licences, then mark the directory complete."""
    top = f"tree_sitter-{TREE_SITTER_VERSION}/"
    wanted = [top + _CORE + "/", *(top + inner for inner in _LICENSES)]
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    with tarfile.open(sdist) as archive:
        members = [
            member
            for member in archive.getmembers()
            if (member.isfile() or member.isdir()) and any(member.name.startswith(prefix) or member.name == prefix for prefix in wanted)
        ]
        archive.extractall(root, members=members)  # noqa: S202 - regular files of a hash-checked archive
    (root / "complete").write_text(TREE_SITTER_SHA256 + "\n")


def unavailable_message(error: Exception) -> str:
    return (
        f"ptxlint: building without the native front end (tree-sitter {TREE_SITTER_VERSION} source "
        f"unavailable: {error}); lowering will run in Python. To build it offline, set "
        f"PTXLINT_TREE_SITTER_SDIST to a copy of {TREE_SITTER_SDIST} (sha256 {TREE_SITTER_SHA256})."
    )
