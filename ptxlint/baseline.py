"""Baselines: adopt ptxlint on a code base with existing findings, and fail only on new ones.

`--write-baseline FILE` records every current finding; `--baseline FILE` hides the findings the
file records. A finding is identified by its path, code and a fingerprint of the text it points at
(the stripped source line and the spanned text), not by its line number, so inserting or deleting
lines elsewhere does not resurrect old findings. Identical findings are counted: a baseline that
lists two hides two, and a third identical one is new.

Paths are recorded relative to the project root, so that a baseline committed at the root applies
wherever ptxlint runs from and however the files are named (`kernels/a.ptx`, `a.ptx` from
`kernels/`, an absolute path): the folder of the configuration file that governs the baseline
file's folder, else the root of the git repository holding it, else the baseline file's own
folder (:func:`project_root`). Baselines written before this rule recorded paths relative to the
working directory; those written from the project root, the usual place, read the same.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections import Counter
from pathlib import Path
from typing import Iterable

from ptxlint.diagnostics import Diagnostic, FileResult

FORMAT_VERSION = 1


class BaselineError(Exception):
    """A baseline file that cannot be read or written (exit code 2)."""


def fingerprint(diagnostic: Diagnostic, result: FileResult) -> str:
    source = result.source
    line = source.line_bytes(diagnostic.span.line).strip() if source and diagnostic.span.line <= source.line_count else b""
    spanned = source.data[diagnostic.span.start : diagnostic.span.end].strip() if source else b""
    digest = hashlib.sha256(b"\0".join((diagnostic.code.encode(), line, spanned)))
    return digest.hexdigest()[:16]


def _key(path: str, diagnostic: Diagnostic, result: FileResult, root: str | None) -> tuple[str, str, str]:
    return (_normal_path(path, root), diagnostic.code, fingerprint(diagnostic, result))


def _normal_path(path: str, root: str | None = None) -> str:
    """Relative to ``root`` (the working directory when None), with `/`: baselines are committed."""
    if path.startswith("<"):
        return path
    if root is None and not os.path.isabs(path):
        return Path(os.path.normpath(path)).as_posix()
    return Path(os.path.relpath(os.path.abspath(path), root)).as_posix()


def project_root(baseline: str, config_file: str | None = None, isolated: bool = False) -> str:
    """The folder a baseline's paths are relative to: that of ``config_file`` (`--config`), else
    of the configuration file closest above ``baseline`` (unless ``isolated``), else the root of
    the git repository holding it, else ``baseline``'s own folder."""
    folder = os.path.dirname(os.path.abspath(baseline))
    if config_file is not None and not isolated:
        return os.path.dirname(os.path.abspath(config_file))
    if not isolated:
        from ptxlint.config import find_config_file

        found = find_config_file(Path(folder))
        if found is not None:
            return str(found.parent)
    current = folder
    while not os.path.exists(os.path.join(current, ".git")):
        if os.path.dirname(current) == current:
            return folder
        current = os.path.dirname(current)
    return current


def write(path: str, results: Iterable[FileResult], root: str | None = None) -> int:
    """Record every finding of ``results``, paths relative to ``root``; returns how many."""
    counts: Counter[tuple[str, str, str]] = Counter()
    messages: dict[tuple[str, str, str], str] = {}
    for result in results:
        for diagnostic in result.diagnostics:
            key = _key(result.path, diagnostic, result, root)
            counts[key] += 1
            messages.setdefault(key, diagnostic.message)
    entries = [
        {"path": key[0], "code": key[1], "fingerprint": key[2], "count": counts[key], "message": messages[key]}
        for key in sorted(counts)
    ]
    document = {"version": FORMAT_VERSION, "tool": "ptxlint", "findings": entries}
    try:
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(document, handle, indent=2, ensure_ascii=False)
            handle.write("\n")
    except OSError as error:
        raise BaselineError(f"{path}: cannot write the baseline: {error.strerror or error}") from None
    return sum(counts.values())


def read(path: str) -> Counter[tuple[str, str, str]]:
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except OSError as error:
        raise BaselineError(f"{path}: cannot read the baseline: {error.strerror or error}") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise BaselineError(f"{path}: not a ptxlint baseline (invalid JSON: {error})") from None
    if not isinstance(document, dict) or document.get("version") != FORMAT_VERSION:
        raise BaselineError(f"{path}: not a ptxlint baseline of format version {FORMAT_VERSION}")
    known: Counter[tuple[str, str, str]] = Counter()
    try:
        for entry in document["findings"]:
            known[(str(entry["path"]), str(entry["code"]), str(entry["fingerprint"]))] += int(entry.get("count", 1))
    except (KeyError, TypeError, ValueError):
        raise BaselineError(f"{path}: malformed baseline entry") from None
    return known


def apply(results: list[FileResult], known: Counter[tuple[str, str, str]], root: str | None = None) -> list[FileResult]:
    """``results`` without the findings the baseline records (paths relative to ``root``),
    counting the hidden ones."""
    remaining = Counter(known)
    filtered = []
    for result in results:
        kept = []
        for diagnostic in result.diagnostics:
            key = _key(result.path, diagnostic, result, root)
            if remaining[key] > 0:
                remaining[key] -= 1
            else:
                kept.append(diagnostic)
        hidden = len(result.diagnostics) - len(kept)
        filtered.append(dataclasses.replace(result, diagnostics=tuple(kept), baselined=hidden) if hidden else result)
    return filtered
