"""The PTX embedded in CUDA binaries: cubins, fatbins, object files, static and shared libraries,
executables. nvcc embeds PTX (for the `compute_XX` targets of `-gencode … code=compute_XX`) beside
the machine code so that newer GPUs can compile it at load time; `cuobjdump -xptx all` writes each
embedded module out as `<name>.<n>.<arch>.ptx`, or `<name>.<arch>.ptx` without the index when the
PTX was built with `-lineinfo`, and lists them in order on its standard output
(`Extracting PTX file and ptxas options    1: k.sm_100a.ptx -arch=sm_100a --generate-line-info`)."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile

from ptxlint.frontends import FrontEndError, Module
from ptxlint.frontends.toolkit import require_tool
from ptxlint.source import SourceFile

# The index is absent from the names of PTX compiled with line information (`-lineinfo`).
_EXTRACTED = re.compile(r"(?:\.(\d+))?\.(sm_\w+|compute_\w+)\.ptx$")
# cuobjdump's report of each file it wrote, numbered in the order the binary holds them.
_REPORTED = re.compile(r"^Extracting PTX file.*?\s(\d+):\s+(\S+\.ptx)\b", re.MULTILINE)
_TIMEOUT = 300  # seconds


def extract_ptx(path: str) -> list[Module]:
    """Every PTX module embedded in ``path``, named `path[sm_90a]` (`path[sm_90a#2]` for a second
    module of the same architecture), in the order cuobjdump lists them. Raises
    :class:`FrontEndError` when the binary holds no PTX or cuobjdump cannot read it."""
    cuobjdump = require_tool("cuobjdump", "linting the PTX inside a binary")
    with tempfile.TemporaryDirectory(prefix="ptxlint-") as scratch:
        try:
            done = subprocess.run(
                [cuobjdump, "-xptx", "all", os.path.abspath(path)], cwd=scratch, capture_output=True, text=True, timeout=_TIMEOUT
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            raise FrontEndError(f"cannot run cuobjdump ({error})") from None
        found = _extracted(scratch, done.stdout)
        if done.returncode != 0 and not found:
            raise FrontEndError("cuobjdump cannot read it", output=done.stdout + done.stderr)
        if not found:
            raise FrontEndError(
                "the binary contains no PTX, only machine code (embed PTX with nvcc "
                "`-gencode arch=compute_XX,code=compute_XX`, or lint the `.cu` file)"
            )
        modules = []
        seen: dict[str, int] = {}
        for _, architecture, name in found:
            seen[architecture] = seen.get(architecture, 0) + 1
            label = architecture if seen[architecture] == 1 else f"{architecture}#{seen[architecture]}"
            with open(os.path.join(scratch, name), "rb") as handle:
                data = handle.read()
            modules.append(Module(SourceFile.from_bytes(f"{path}[{label}]", data), map_to_source=False))
    return modules


def _extracted(scratch: str, report: str) -> list[tuple[int, str, str]]:
    """(position, architecture, file name) of each PTX file cuobjdump wrote into ``scratch``, in
    the order it reported them; files its report does not name (a different wording) follow,
    ordered by the index in their name, then by name."""
    written = {name for name in os.listdir(scratch) if _EXTRACTED.search(name)}
    order = {name: int(number) for number, name in _REPORTED.findall(report) if name in written}
    found = []
    for name in written:
        match = _EXTRACTED.search(name)
        assert match is not None
        position = order.get(name, len(order) + int(match.group(1) or 0))
        found.append((position, match.group(2), name))
    return sorted(found)
