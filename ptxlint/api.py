"""The Python API: lint PTX text held in memory (a Triton hook, a kernel compiler's test suite).

    >>> import ptxlint
    >>> for diagnostic in ptxlint.lint_ptx(ptx_text, path="kernel.ptx", select=["PTX1"]):
    ...     print(diagnostic.code, diagnostic.span.line, diagnostic.message)

The names exported from :mod:`ptxlint` (``lint_ptx``, ``Diagnostic``, ``Severity``, ``Label``,
``SourceFrame``, ``Span``) are the stable API; everything else is internal.
"""

from __future__ import annotations

from typing import Iterable

from ptxlint.diagnostics import Diagnostic


class SelectionError(ValueError):
    """A rule selector in ``select`` or ``ignore`` names no rule."""


def lint_ptx(
    text: str | bytes,
    path: str = "<string>",
    select: Iterable[str] | None = None,
    ignore: Iterable[str] = (),
) -> list[Diagnostic]:
    """The findings on one PTX module, sorted by position.

    ``path`` only names the module in diagnostics. ``select`` and ``ignore`` take rule codes, names
    or prefixes as on the command line (``select=None``: the rules enabled by default;
    ``["ALL"]``: every rule). Configuration files are not read. Each diagnostic's ``origin`` holds
    the CUDA or Triton source position its `.loc` names, when the PTX has line information.
    Suppression comments apply from the PTX and from the CUDA/Python files its `.file` directives
    name, where those can be read.
    """
    from ptxlint.config import CommandLineSelection, ConfigError, FileConfig, resolve
    from ptxlint.lint import LintSettings, lint_source
    from ptxlint.source import SourceFile

    try:
        config = resolve(FileConfig(), CommandLineSelection(select=_tuple(select), ignore=tuple(ignore)))
    except ConfigError as error:
        raise SelectionError(str(error)) from None
    settings = LintSettings(rules=config.rules_for(path), options=config.options, severity=config.severity)
    data = text.encode("utf-8", errors="surrogateescape") if isinstance(text, str) else bytes(text)
    return lint_source(SourceFile.from_bytes(path, data), settings)


def _tuple(selectors: Iterable[str] | None) -> tuple[str, ...] | None:
    if selectors is None:
        return None
    if isinstance(selectors, str):
        return (selectors,)
    return tuple(selectors)
