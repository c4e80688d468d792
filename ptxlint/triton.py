"""Lint every kernel Triton compiles in this process.

    import ptxlint.triton
    ptxlint.triton.install()             # print findings on stderr, at the kernel's `.py` lines
    ptxlint.triton.install(strict=True)  # raise KernelFindingsError instead: a test suite fails

Or set `PTXLINT_TRITON=1` (`=strict` to raise) in the environment and `import ptxlint` anywhere in
the process (a `conftest.py` is a good place). The hook is Triton's compilation listener
(`triton.knobs.compilation.listener`): it sees each kernel's PTX as Triton writes it to its
cache, including cache hits, and lints each kernel once per process. A listener that was already
installed keeps being called.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Callable, Iterable, TextIO

from ptxlint.diagnostics import Diagnostic

ENVIRONMENT_VARIABLE = "PTXLINT_TRITON"


class KernelFindingsError(Exception):
    """Raised by a strict hook when a kernel has findings; ``diagnostics`` holds them."""

    def __init__(self, kernel: str, diagnostics: list[Diagnostic]) -> None:
        where = ", ".join(sorted({_where(diagnostic) for diagnostic in diagnostics}))
        super().__init__(f"ptxlint: {len(diagnostics)} finding(s) in Triton kernel `{kernel}` at {where}")
        self.kernel = kernel
        self.diagnostics = diagnostics


class _Listener:
    """Triton's compilation listener: lints the PTX of each compiled kernel."""

    def __init__(self, strict: bool, select: tuple[str, ...] | None, stream: TextIO | None, previous: Any) -> None:
        self.strict = strict
        self.select = select
        self.stream = stream
        self.previous = previous
        self.seen: set[str] = set()

    def __call__(self, *, src: Any, metadata: dict[str, Any], metadata_group: dict[str, str], **rest: Any) -> None:
        if self.previous is not None:
            self.previous(src=src, metadata=metadata, metadata_group=metadata_group, **rest)
        ptx_path = next((path for name, path in metadata_group.items() if name.endswith(".ptx")), None)
        if ptx_path is None or ptx_path in self.seen:
            return
        self.seen.add(ptx_path)
        kernel = str(metadata.get("name") or os.path.basename(ptx_path)[: -len(".ptx")])
        lint_kernel(ptx_path, kernel, self.strict, self.select, self.stream)


def install(strict: bool = False, select: Iterable[str] | None = None, stream: TextIO | None = None) -> None:
    """Lint every kernel Triton compiles from now on in this process. Installing twice replaces
    the first hook (keeping whatever listener was there before it)."""
    import triton

    current = triton.knobs.compilation.listener
    previous = current.previous if isinstance(current, _Listener) else current
    triton.knobs.compilation.listener = _Listener(strict, tuple(select) if select is not None else None, stream, previous)


def uninstall() -> None:
    """Remove the hook, restoring the listener it replaced."""
    import triton

    current = triton.knobs.compilation.listener
    if isinstance(current, _Listener):
        triton.knobs.compilation.listener = current.previous


def lint_kernel(
    ptx_path: str, kernel: str, strict: bool = False, select: Iterable[str] | None = None, stream: TextIO | None = None
) -> list[Diagnostic]:
    """Lint one compiled kernel's PTX file; print its findings at the Python lines, or raise."""
    from ptxlint.api import lint_ptx

    with open(ptx_path, "rb") as handle:
        data = handle.read()
    diagnostics = lint_ptx(data, path=f"{ptx_path}", select=select)
    if diagnostics and strict:
        raise KernelFindingsError(kernel, diagnostics)
    if diagnostics:
        _print(ptx_path, data, diagnostics, stream if stream is not None else sys.stderr)
    return diagnostics


def install_from_environment(environ: dict[str, str] | None = None, installer: Callable[..., None] = install) -> bool:
    """Install the hook when `PTXLINT_TRITON` is set (`1`/`true`/`yes`, or `strict`); called when
    `ptxlint` is imported. Returns whether it installed."""
    value = (environ if environ is not None else os.environ).get(ENVIRONMENT_VARIABLE, "").strip().lower()
    if value in ("", "0", "false", "no", "off"):
        return False
    installer(strict=value == "strict")
    return True


def _print(ptx_path: str, data: bytes, diagnostics: list[Diagnostic], stream: TextIO) -> None:
    from ptxlint.diagnostics import FileResult
    from ptxlint.render import Report
    from ptxlint.render import full
    from ptxlint.source import SourceFile

    result = FileResult(ptx_path, tuple(diagnostics), SourceFile.from_bytes(ptx_path, data), map_to_source=True)
    full.render(Report((result,)), full.console_for(stream, "auto"), show_summary=False)


def _where(diagnostic: Diagnostic) -> str:
    if diagnostic.origin:
        return f"{diagnostic.code} {diagnostic.origin[0]}"
    return f"{diagnostic.code} line {diagnostic.span.line} of the PTX"
