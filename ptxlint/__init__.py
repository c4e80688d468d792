"""ptxlint: a linter and static analyzer for NVIDIA PTX.

The stable Python API is :func:`lint_ptx` and the diagnostic types it returns; the Triton hook is
:mod:`ptxlint.triton`. They are loaded on first use, so that `ptxlint --version` starts fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["Diagnostic", "Label", "Severity", "SourceFrame", "Span", "lint_ptx", "__version__"]

if TYPE_CHECKING:
    from ptxlint.api import lint_ptx
    from ptxlint.diagnostics import Diagnostic, Label, Severity, SourceFrame
    from ptxlint.source import Span

_LAZY = {
    "lint_ptx": "ptxlint.api",
    "Diagnostic": "ptxlint.diagnostics",
    "Label": "ptxlint.diagnostics",
    "Severity": "ptxlint.diagnostics",
    "SourceFrame": "ptxlint.diagnostics",
    "Span": "ptxlint.source",
}


def _install_triton_hook_if_asked() -> None:
    import os

    if os.environ.get("PTXLINT_TRITON", "").strip().lower() not in ("", "0", "false", "no", "off"):
        from ptxlint.triton import install_from_environment

        install_from_environment()


_install_triton_hook_if_asked()


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ptxlint' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
