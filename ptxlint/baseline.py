"""Baselines: adopt ptxlint on a code base with existing findings, and fail only on new ones.

`--write-baseline FILE` records every current finding; `--baseline FILE` hides the findings the
file records. A finding is identified by its path, code and a fingerprint of the text it points at
(the stripped source line and the spanned text), not by its line number, so inserting or deleting
lines elsewhere does not resurrect old findings. Identical findings are counted: a baseline that
lists two hides two, and a third identical one is new.
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


def _key(path: str, diagnostic: Diagnostic, result: FileResult) -> tuple[str, str, str]:
    return (_normal_path(path), diagnostic.code, fingerprint(diagnostic, result))


def _normal_path(path: str) -> str:
    """Relative to the working directory where possible, with `/`: baselines are committed."""
    if path.startswith("<"):
        return path
    relative = os.path.relpath(path) if os.path.isabs(path) else os.path.normpath(path)
    return Path(relative).as_posix()


def write(path: str, results: Iterable[FileResult]) -> int:
    """Record every finding of ``results``; returns how many."""
    counts: Counter[tuple[str, str, str]] = Counter()
    messages: dict[tuple[str, str, str], str] = {}
    for result in results:
        for diagnostic in result.diagnostics:
            key = _key(result.path, diagnostic, result)
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


def apply(results: list[FileResult], known: Counter[tuple[str, str, str]]) -> list[FileResult]:
    """``results`` without the findings the baseline records, counting the hidden ones."""
    remaining = Counter(known)
    filtered = []
    for result in results:
        kept = []
        for diagnostic in result.diagnostics:
            key = _key(result.path, diagnostic, result)
            if remaining[key] > 0:
                remaining[key] -= 1
            else:
                kept.append(diagnostic)
        hidden = len(result.diagnostics) - len(kept)
        filtered.append(dataclasses.replace(result, diagnostics=tuple(kept), baselined=hidden) if hidden else result)
    return filtered
