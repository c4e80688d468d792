"""Front ends: inputs that are not PTX text, turned into PTX modules before linting.

ptxlint lints PTX; people keep CUDA C++, Triton and binaries. Each front end here turns one kind of
input into :class:`ptxlint.source.SourceFile` objects named after what the user gave
(`kernel.cu[sm_100a]`, `libfoo.so[sm_90a]`) and says whether findings belong on the high-level
source lines (`.loc`) rather than on the PTX lines:

- :mod:`.cuda` compiles `.cu` files with nvcc (`-ptx -lineinfo`), one module per architecture;
- :mod:`.binaries` extracts the PTX embedded in cubins, fatbins, objects, libraries, executables;
- :mod:`.toolkit` finds the CUDA tools (PATH, `CUDA_HOME`, the `nvidia-cuda-*` wheels).

The Triton hook, which lints kernels as a Python process compiles them, is :mod:`ptxlint.triton`.
"""

from __future__ import annotations


from ptxlint.records import record
from ptxlint.source import SourceFile


@record
class Module:
    """One PTX module produced by a front end."""

    source: SourceFile
    map_to_source: bool  # report findings at the `.loc` line of the high-level source


class FrontEndError(Exception):
    """The input could not be turned into PTX: a missing tool, a failed compile. ``output`` is the
    tool's own report, shown to the user as the tool printed it."""

    def __init__(self, message: str, output: str = "") -> None:
        super().__init__(message)
        self.output = output


@record
class FailedModule:
    """A module a front end could not produce, named like the module it would have been
    (`kernel.cu[sm_90a]`): one architecture of several that nvcc failed to compile. It is that
    module's error; the other architectures' modules are linted."""

    path: str
    error: FrontEndError


@record
class CompileOptions:
    """How to compile CUDA C++ inputs: for which architectures, with which flags (or the flags a
    `compile_commands.json` records for each file)."""

    architectures: tuple[str, ...]
    flags: tuple[str, ...] = ()
    compile_commands: str | None = None  # a compile_commands.json, or the folder holding it
    cache_dir: str | None = None  # reuse nvcc's PTX of an identical compile (ptxlint/cache.py)


# What each front end takes. Recognising an input must not import the front ends themselves
# (subprocess, tempfile, json, hashlib): linting plain PTX would pay for them on every run.
CUDA_SUFFIXES = (".cu",)
CUDA_HEADER_SUFFIXES = (".cuh",)
_BINARY_MAGICS = (
    b"\x7fELF",  # cubin, object file, shared library, executable
    b"\x50\xed\x55\xba",  # fatbin (0xBA55ED50, little-endian)
    b"!<arch>\n",  # static library
)
_BINARY_SUFFIXES = (".cubin", ".fatbin", ".o", ".a", ".so")
_HEAD = 8  # bytes read to recognise a binary by its magic number


def is_binary(path: str, head: bytes) -> bool:
    """Whether ``path`` (whose first bytes are ``head``) is a binary cuobjdump can read."""
    return head.startswith(_BINARY_MAGICS) or (path.endswith(_BINARY_SUFFIXES) and b"\0" in head)


def needs_front_end(path: str) -> bool:
    """Whether ``path`` is CUDA C++ or a binary rather than PTX text (standard input is PTX)."""
    if path == "-":
        return False
    if path.endswith(CUDA_SUFFIXES + CUDA_HEADER_SUFFIXES):
        return True
    import os

    if not os.path.isfile(path):
        return False  # a FIFO or device would block the read below; the reader reports it
    try:
        with open(path, "rb") as handle:
            head = handle.read(_HEAD)
    except OSError:
        return False  # the reader reports it
    return is_binary(path, head)


def modules_of(path: str, options: CompileOptions, contents: bytes | None = None) -> list[Module | FailedModule]:
    """The PTX modules of a CUDA C++ file or a binary, one per architecture for CUDA C++, a
    :class:`FailedModule` for each architecture that does not compile (``contents``: a `.cu`
    file's text, given instead of read from ``path``, as an editor holds it). Raises
    :class:`FrontEndError` when the file yields nothing at all (no nvcc, a header, a binary
    cuobjdump cannot read or without PTX)."""
    from ptxlint.frontends import binaries, cuda
    from ptxlint.frontends.toolkit import require_tool

    if not path.endswith(CUDA_SUFFIXES + CUDA_HEADER_SUFFIXES):
        if contents is not None:
            raise FrontEndError("a binary is read from its file, not from standard input")
        return [*binaries.extract_ptx(path)]
    flags, directory = options.flags, None
    if options.compile_commands is not None:
        command = cuda.find_compile_command(options.compile_commands, path)
        if command is None:
            raise FrontEndError(f"not in the compilation database {options.compile_commands}")
        flags, directory = command.flags + options.flags, command.directory
    if len(options.architectures) == 1 or path.endswith(CUDA_HEADER_SUFFIXES):
        return list(cuda.compile_to_ptx(path, options.architectures, flags, directory, contents, options.cache_dir))
    require_tool("nvcc", "linting CUDA C++")  # missing, it fails the file, not each architecture
    modules: list[Module | FailedModule] = []
    for architecture in options.architectures:
        try:
            modules.extend(cuda.compile_to_ptx(path, (architecture,), flags, directory, contents, options.cache_dir))
        except FrontEndError as error:
            modules.append(FailedModule(f"{path}[{architecture}]", error))
    return modules


def from_triton_cache(path: str) -> bool:
    """Whether ``path`` is a `.ptx` file Triton left in its cache (`~/.triton/cache/<hash>/`),
    where a `__grp__<kernel>.json` sits beside each compiled kernel: its `.loc` lines name the
    Python source, which is where its findings belong."""
    import os

    folder, name = os.path.split(path)
    stem, suffix = os.path.splitext(name)
    return suffix == ".ptx" and os.path.isfile(os.path.join(folder, f"__grp__{stem}.json"))


def kept_name(module_name: str) -> str:
    """The file name `--keep-ptx` gives a module: `kernel.cu[sm_100a]` → `kernel.sm_100a.ptx`,
    `libfoo.so[sm_90a]` → `libfoo.so.sm_90a.ptx`."""
    import os

    path, _, label = module_name[:-1].rpartition("[") if module_name.endswith("]") else (module_name, "", "")
    stem = os.path.basename(path)
    if stem.endswith(CUDA_SUFFIXES + CUDA_HEADER_SUFFIXES):
        stem = os.path.splitext(stem)[0]
    return f"{stem}.{label}.ptx" if label else f"{stem}.ptx"


def keep_ptx(modules: list[Module], directory: str, taken: set[str]) -> list[str]:
    """Write each module's PTX, byte for byte what is linted, into ``directory`` (created if
    needed) and return the paths written. A name another input of the run already took gets a
    number (`kernel.sm_100a.2.ptx`). Raises OSError."""
    import os

    os.makedirs(directory, exist_ok=True)
    written = []
    for module in modules:
        name = kept_name(module.source.path)
        stem, number = name[: -len(".ptx")], 1
        while name in taken:
            number += 1
            name = f"{stem}.{number}.ptx"
        taken.add(name)
        path = os.path.join(directory, name)
        with open(path, "wb") as handle:
            handle.write(module.source.data)
        written.append(path)
    return written
