"""The driver, readable in one screen: read → parse and lower → run the selected rules →
sorted diagnostics. Everything about how inputs are found and read lives here too, because every
kind of bad input must end in a clear message rather than a traceback."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

from ptxlint.context import ModuleContext, Options
from ptxlint.diagnostics import Diagnostic, FileResult
from ptxlint.lower import lower
from ptxlint.rules import ALL_RULES
from ptxlint.rules.base import Rule
from ptxlint.source import SourceFile

STDIN = "-"
DEFAULT_MAX_FILE_SIZE = 256 * 1024 * 1024  # bytes; larger inputs are refused, not truncated
_BINARY_PROBE = 8192  # a NUL byte in the first 8 KiB marks a binary file (cubin, fatbin, ELF)


@dataclass(frozen=True)
class LintSettings:
    rules: tuple[Rule, ...] = tuple(rule for rule in ALL_RULES if rule.enabled_by_default)
    options: Options = field(default_factory=Options)
    max_file_size: int = DEFAULT_MAX_FILE_SIZE


class InputError(Exception):
    """A path argument that names nothing lintable (a usage problem, exit code 2)."""


def discover(paths: Iterable[str]) -> list[str]:
    """Expand the command line into files: directories recursively to their `*.ptx` files (sorted,
    so output order is stable), `-` for standard input, files as given whatever their suffix."""
    found: list[str] = []
    for path in paths:
        if path == STDIN:
            found.append(STDIN)
        elif os.path.isdir(path):
            inside = sorted(str(file) for file in Path(path).rglob("*.ptx") if file.is_file())
            if not inside:
                raise InputError(f"{path}: directory contains no `.ptx` files")
            found.extend(inside)
        elif os.path.lexists(path):
            found.append(path)
        else:
            raise InputError(f"{path}: no such file or directory")
    return found


def read_source(path: str, max_file_size: int = DEFAULT_MAX_FILE_SIZE) -> SourceFile:
    """Read one input. Raises OSError or ValueError with a message fit for the user."""
    if path == STDIN:
        data = sys.stdin.buffer.read(max_file_size + 1)
        display = "<stdin>"
    else:
        size = os.path.getsize(path)
        if size > max_file_size:
            raise ValueError(f"file is {size:,} bytes, over the {max_file_size:,}-byte limit (--max-file-size)")
        with open(path, "rb") as handle:
            data = handle.read(max_file_size + 1)
        display = path
    if len(data) > max_file_size:
        raise ValueError(f"input is over the {max_file_size:,}-byte limit (--max-file-size)")
    if b"\0" in data[:_BINARY_PROBE]:
        raise ValueError("binary file (it contains NUL bytes), not PTX text")
    return SourceFile.from_bytes(display, data)


def lint_source(source: SourceFile, settings: LintSettings) -> list[Diagnostic]:
    module = lower(source)
    context = ModuleContext(module, settings.options)
    diagnostics: list[Diagnostic] = []
    for rule in settings.rules:
        diagnostics.extend(rule.check(context))
    return sorted(diagnostics, key=Diagnostic.sort_key)


def lint_path(path: str, settings: LintSettings) -> FileResult:
    try:
        source = read_source(path, settings.max_file_size)
    except (OSError, ValueError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        display = "<stdin>" if path == STDIN else path
        return FileResult(display, error=reason)
    return FileResult(source.path, tuple(lint_source(source, settings)), source)


def lint_paths(paths: Iterable[str], settings: LintSettings) -> Iterator[FileResult]:
    for path in paths:
        yield lint_path(path, settings)
