"""`ptxlint --watch`: lint, then lint again whenever an input or a configuration file changes.

Changes are found by polling: every quarter second (`PTXLINT_WATCH_INTERVAL` seconds), the size,
modification time and inode of every watched file are compared with what they were when the last
run started, so a change made while a run is under way starts the next one. Watched: the files
named on the command line, every file below the folders named there, and each configuration file
(`ptxlint.toml`, `pyproject.toml`, or `--config`) that could govern them, present or not, and
every header the last compile of a `.cu` input read (nvcc's `-MD` list).

Polling needs no platform API and behaves the same everywhere; the time it takes to notice a
change never decides what is analysed, only when.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Callable, Iterable, NoReturn

from ptxlint.config import CONFIG_NAMES

Snapshot = tuple[tuple[str, tuple[int, int, int] | None], ...]
_CLEAR_SCREEN = "\x1b[2J\x1b[3J\x1b[H"
_SKIPPED_FOLDERS = {".git", "__pycache__", ".hg", ".svn"}


def watch(
    paths: Iterable[str], config_file: str | None, isolated: bool, lint_once: Callable[[], object], quiet: bool
) -> NoReturn:
    """Run ``lint_once`` now and after every change, until interrupted (exit code 0)."""
    interval = float(os.environ.get("PTXLINT_WATCH_INTERVAL", "0.25"))
    paths = tuple(paths)
    watched = _watched_configuration(paths, config_file, isolated)
    try:
        while True:
            headers = _headers_of(paths)
            inputs_before, headers_before = snapshot(paths, watched), snapshot((), headers)
            if sys.stdout.isatty():
                sys.stdout.write(_CLEAR_SCREEN)
            try:
                lint_once()
            except SystemExit:
                pass  # the run's exit code: in watch mode, only the next run matters
            sys.stdout.flush()
            if _headers_of(paths) != headers:
                # The run compiled `.cu` files and learnt what they include: watch that from now.
                headers = _headers_of(paths)
                headers_before = snapshot((), headers)
            if not quiet:
                print("ptxlint: watching for changes (Ctrl-C to stop)", file=sys.stderr, flush=True)
            while snapshot(paths, watched) == inputs_before and snapshot((), headers) == headers_before:
                time.sleep(interval)
            if not quiet:
                print("ptxlint: change detected, linting again", file=sys.stderr, flush=True)
    except KeyboardInterrupt:
        sys.exit(0)


def snapshot(paths: Iterable[str], configuration: Iterable[str] = ()) -> Snapshot:
    """(path, (size, modification time in ns, inode) or None when absent) for every watched file."""
    entries: list[tuple[str, tuple[int, int, int] | None]] = []
    for path in (*paths, *configuration):
        if os.path.isdir(path):
            for folder, subfolders, files in os.walk(path):
                subfolders[:] = sorted(name for name in subfolders if name not in _SKIPPED_FOLDERS)
                entries.extend((os.path.join(folder, name), _stat(os.path.join(folder, name))) for name in sorted(files))
        else:
            entries.append((path, _stat(path)))
    return tuple(entries)


def _headers_of(paths: Iterable[str]) -> tuple[str, ...]:
    """The files the last compile of each `.cu` input read (ptxlint/frontends/cuda.py)."""
    sources = [os.path.abspath(path) for path in paths if path.endswith(".cu")]
    if not sources:
        return ()
    from ptxlint.frontends.cuda import FILES_READ

    return tuple(sorted({header for source in sources for header in FILES_READ.get(source, ())}))


def _stat(path: str) -> tuple[int, int, int] | None:
    try:
        status = os.stat(path)
    except OSError:
        return None
    return (status.st_size, status.st_mtime_ns, status.st_ino)


def _watched_configuration(paths: Iterable[str], config_file: str | None, isolated: bool) -> tuple[str, ...]:
    """Every configuration file that could govern the inputs: `--config`, or each candidate name in
    each folder from an input up to the file system's root (present or not: a new one counts)."""
    if isolated:
        return ()
    if config_file is not None:
        return (config_file,)
    candidates: dict[str, None] = {}
    for path in paths:
        if path == "-":
            continue
        start = Path(path).resolve()
        for folder in (start, *start.parents) if start.is_dir() else start.parents:
            for name in CONFIG_NAMES:
                candidates[str(folder / name)] = None
    return tuple(candidates)
