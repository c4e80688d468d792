"""CUDA C++ to PTX: `nvcc -ptx -lineinfo`, once per architecture, so that findings can be reported
on the `.cu` lines the `.loc` directives name.

Compiler flags come from the command line (everything after `--`) or, as clang-tidy does it, from
a `compile_commands.json`: the entry for the file, less what only concerns the object file
(`-c`, `-o`, the input itself, the code-generation targets, which `--arch` sets instead).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import tempfile
from pathlib import Path
from typing import Sequence

from ptxlint.frontends import CUDA_HEADER_SUFFIXES, FrontEndError, Module
from ptxlint.frontends.toolkit import require_tool
from ptxlint.records import record
from ptxlint.source import SourceFile

DEFAULT_ARCHITECTURES = ("sm_100a",)
_COMPILE_TIMEOUT = 600  # seconds; a heavily templated translation unit can take minutes

# Flags of a compile command that say what to build, not how to read the source: dropped, since
# ptxlint asks for PTX of the architectures it is given. The value is how many arguments follow.
_OUTPUT_FLAGS = {"-c": 0, "-o": 1, "--output-file": 1, "-MF": 1, "-MT": 1, "-MQ": 1, "-MD": 0, "-MMD": 0,
                 "-gencode": 1, "--generate-code": 1, "-arch": 1, "--gpu-architecture": 1, "-code": 1,
                 "--gpu-code": 1, "-x": 1, "-ccbin": 1, "--compiler-bindir": 1}


@record
class CompileCommand:
    """How a project compiles one file: the flags, run from ``directory``."""

    directory: str
    flags: tuple[str, ...]


def compile_to_ptx(
    path: str, architectures: Sequence[str], flags: Sequence[str] = (), directory: str | None = None,
    contents: bytes | None = None, cache_dir: str | None = None,
) -> list[Module]:
    """One PTX module per architecture, named `path[sm_XX]`. Raises :class:`FrontEndError` with
    nvcc's output when it fails.

    ``contents``: compile this text as if it were ``path`` (an editor's unsaved buffer, standard
    input): it is written to a scratch folder under ``path``'s name, with ``path``'s folder first on
    the include path so that its `#include "..."` find what they would beside ``path``.
    ``cache_dir``: reuse the PTX of an earlier identical compile (ptxlint/cache.py)."""
    if path.endswith(CUDA_HEADER_SUFFIXES):
        raise FrontEndError("a header is not compiled on its own; lint a `.cu` file that includes it")
    nvcc = require_tool("nvcc", "linting CUDA C++")
    source = os.path.abspath(path)
    if contents is None:
        try:
            with open(source, "rb") as handle:
                contents = handle.read()
            from_buffer = False
        except OSError as error:
            raise FrontEndError(f"cannot read {path} ({error.strerror or error})") from None
    else:
        from_buffer = True
        flags = ("-I", os.path.dirname(source), *flags)
    modules = []
    with tempfile.TemporaryDirectory(prefix="ptxlint-") as scratch:
        compiled = source
        if from_buffer:
            compiled = os.path.join(scratch, os.path.basename(source))
            with open(compiled, "wb") as handle:
                handle.write(contents)
        read: set[str] = set()
        for architecture in architectures:
            entry = _cache_entry(nvcc, source, contents, architecture, flags, directory) if cache_dir else None
            cached = _cached_ptx(cache_dir, entry) if entry else None
            if cached is not None:
                ptx, dependencies = cached
            else:
                try:
                    ptx, dependencies = _compile(nvcc, compiled, architecture, flags, directory, scratch)
                except FrontEndError as error:
                    if from_buffer:  # nvcc's messages name the scratch copy: name the file instead
                        error.output = error.output.replace(compiled, path)
                    raise
                # A buffer compiled in the scratch folder is named as the file it stands for.
                ptx = ptx.replace(b'"' + os.fsencode(compiled) + b'"', b'"' + os.fsencode(source) + b'"')
                dependencies = [file for file in dependencies if file != compiled]
                if entry:
                    # The source's own bytes are in the key; the entry checks what it included.
                    _store_ptx(cache_dir, entry, ptx, dependencies)  # type: ignore[arg-type]
            read.update(dependencies)
            # nvcc names the input by its absolute path in `.file`; findings read better at the
            # path the user typed.
            ptx = ptx.replace(b'"' + os.fsencode(source) + b'"', b'"' + os.fsencode(path) + b'"')
            modules.append(Module(SourceFile.from_bytes(f"{path}[{architecture}]", ptx), map_to_source=True))
    FILES_READ[source] = tuple(sorted(read))
    return modules


def _compile(
    nvcc: str, source: str, architecture: str, flags: Sequence[str], directory: str | None, scratch: str
) -> tuple[bytes, list[str]]:
    """nvcc's PTX for ``source``, and every file the compile read (its `-MD` list)."""
    output = os.path.join(scratch, f"{architecture}.ptx")
    dependencies = os.path.join(scratch, f"{architecture}.d")
    command = [nvcc, "-ptx", "-lineinfo", f"-arch={architecture}", *flags, source, "-o", output, "-MD", "-MF", dependencies]
    try:
        done = subprocess.run(command, cwd=directory, capture_output=True, text=True, timeout=_COMPILE_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise FrontEndError(f"nvcc did not finish within {_COMPILE_TIMEOUT} s for {architecture}") from None
    except OSError as error:
        raise FrontEndError(f"cannot run nvcc ({error.strerror or error})") from None
    if done.returncode != 0:
        raise FrontEndError(f"nvcc failed for {architecture} (exit {done.returncode})", output=done.stdout + done.stderr)
    with open(output, "rb") as handle:
        ptx = handle.read()
    try:
        with open(dependencies, encoding="utf-8", errors="surrogateescape") as handle:
            from ptxlint.cache import parse_make_dependencies

            read = [os.path.abspath(os.path.join(directory or "", file)) for file in parse_make_dependencies(handle.read())]
    except OSError:
        read = []
    return ptx, read


_nvcc_versions: dict[str, str] = {}

# Every file the last compile of each source (by absolute path) read, its headers: what
# `--watch` watches beside the `.cu` file itself.
FILES_READ: dict[str, tuple[str, ...]] = {}


def _nvcc_version(nvcc: str) -> str:
    """`nvcc --version`'s text (once per process): another nvcc may make other PTX."""
    if nvcc not in _nvcc_versions:
        try:
            done = subprocess.run([nvcc, "--version"], capture_output=True, text=True, timeout=60)
            _nvcc_versions[nvcc] = done.stdout if done.returncode == 0 else ""
        except (OSError, subprocess.TimeoutExpired):
            _nvcc_versions[nvcc] = ""
    return _nvcc_versions[nvcc]


def _cache_entry(
    nvcc: str, source: str, contents: bytes, architecture: str, flags: Sequence[str], directory: str | None
) -> str | None:
    from ptxlint import cache

    version = _nvcc_version(nvcc)
    if not version:
        return None  # an nvcc that does not say what it is: do not cache what it makes
    return cache.key(
        "nvcc-ptx", version, source, contents, architecture, "\0".join(flags), os.path.abspath(directory or "."),
    )


def _cached_ptx(cache_dir: str | None, entry: str) -> tuple[bytes, list[str]] | None:
    from pathlib import Path

    from ptxlint import cache

    if cache_dir is None:
        return None
    stored = cache.nvcc_store(Path(cache_dir)).load(entry)
    if not isinstance(stored, dict):
        return None
    try:
        ptx = stored["ptx"].encode("utf-8", "surrogateescape")
        dependencies = [(str(path), digest) for path, digest in stored["read"]]
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    return (ptx, [path for path, _ in dependencies]) if cache.dependencies_unchanged(dependencies) else None


def _store_ptx(cache_dir: str, entry: str, ptx: bytes, dependencies: list[str]) -> None:
    from pathlib import Path

    from ptxlint import cache

    if not dependencies:
        return  # nvcc did not list what it read: an entry could not tell when it goes stale
    recorded = [[file, cache.file_digest(file)] for file in dependencies]
    cache.nvcc_store(Path(cache_dir)).store(entry, {"ptx": ptx.decode("utf-8", "surrogateescape"), "read": recorded})


def find_compile_command(database: str, path: str) -> CompileCommand | None:
    """The entry for ``path`` in a `compile_commands.json` (or the folder holding one)."""
    file = Path(database)
    if file.is_dir():
        file = file / "compile_commands.json"
    try:
        entries = json.loads(file.read_text(encoding="utf-8"))
    except OSError as error:
        raise FrontEndError(f"{file}: cannot read the compilation database ({error.strerror or error})") from None
    except ValueError as error:
        raise FrontEndError(f"{file}: not a compilation database ({error})") from None
    wanted = os.path.realpath(path)
    for entry in entries if isinstance(entries, list) else ():
        if not isinstance(entry, dict) or "file" not in entry:
            continue
        directory = str(entry.get("directory", "."))
        if os.path.realpath(os.path.join(directory, str(entry["file"]))) != wanted:
            continue
        arguments = entry.get("arguments")
        argv = [str(item) for item in arguments] if isinstance(arguments, list) else shlex.split(str(entry.get("command", "")))
        return CompileCommand(directory, tuple(_reading_flags(argv[1:], entry["file"], directory)))
    return None


def _reading_flags(argv: Sequence[str], file: str, directory: str) -> list[str]:
    """``argv`` without the compiler, the input and the flags that only concern the output."""
    source = os.path.realpath(os.path.join(directory, file))
    kept: list[str] = []
    skip = 0
    for argument in argv:
        if skip:
            skip -= 1
            continue
        name = argument.split("=", 1)[0]
        if name in _OUTPUT_FLAGS:
            skip = _OUTPUT_FLAGS[name] if "=" not in argument else 0
            continue
        if os.path.realpath(os.path.join(directory, argument)) == source:
            continue
        kept.append(argument)
    return kept
