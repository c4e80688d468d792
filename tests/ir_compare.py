"""Comparing two lowerings of the same text (native and reference front ends; with and without
large initializers left out of the parse)."""

from __future__ import annotations

from ptxlint import ir


def same_ir(reference: ir.Module, native: ir.Module) -> bool:
    """Whether two modules are the same IR, compared through repr: stricter than ==, which calls
    a NaN immediate unequal to itself and 1 equal to 1.0. Function by function, so a corpus file's
    text is never held whole."""
    fields = ("version", "version_span", "targets", "address_size", "variables", "files", "syntax_errors")
    if any(repr(getattr(reference, name)) != repr(getattr(native, name)) for name in fields):
        return False
    return len(reference.functions) == len(native.functions) and all(
        repr(mine) == repr(theirs) for mine, theirs in zip(reference.functions, native.functions)
    )
