"""C++ names as people read them. nvcc names every kernel and device function by its Itanium
mangled name (`_Z11gemm_deviceI13SharedStorage…`), hundreds of characters long for a CUTLASS
template; the human formats show it demangled, with template arguments and parameters elided
once the name is too wide to read, and the machine formats carry both.

Demangling uses the C++ runtime's own `__cxa_demangle` (libstdc++ or libc++, loaded with ctypes):
it is on every machine that runs nvcc's host compiler. Where it is missing, names stay mangled.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import re
from typing import Callable

DISPLAY_WIDTH = 72  # characters of a demangled name shown before its template arguments are elided
_MANGLED = re.compile(r"\b_Z[A-Za-z0-9_$]+")
_RUNTIMES = ("libstdc++.so.6", "libc++abi.so.1", "libc++.so.1", "libc++abi.dylib", "libstdc++.6.dylib")


def demangle(symbol: str) -> str | None:
    """The demangled form of ``symbol``, or None if it is not a mangled C++ name (or no C++
    runtime is available to demangle it)."""
    if not symbol.startswith("_Z"):
        return None
    demangler = _demangler()
    return demangler(symbol) if demangler is not None else None


def mangled_names(text: str) -> list[str]:
    """The mangled C++ names in ``text``, in order of appearance, each once."""
    return list(dict.fromkeys(_MANGLED.findall(text)))


def readable(text: str, width: int = DISPLAY_WIDTH) -> str:
    """``text`` with each mangled name replaced by its demangled, shortened form."""
    if "_Z" not in text:
        return text

    def replace(match: re.Match[str]) -> str:
        name = demangle(match.group())
        return shorten(name, width) if name is not None else match.group()

    return _MANGLED.sub(replace, text)


def shorten(name: str, width: int = DISPLAY_WIDTH) -> str:
    """``name`` cut to about ``width`` characters the way a reader skims it: first the template
    arguments become `<…>`, then the parameter list `(…)`, then the tail is cut."""
    if len(name) <= width:
        return name
    name = _collapse(name, "<", ">")
    if len(name) > width:
        name = _collapse(name, "(", ")")
    if len(name) > width:
        name = name[: width - 1] + "…"
    return name


def _collapse(name: str, opening: str, closing: str) -> str:
    """Every outermost ``opening``…``closing`` group of ``name`` emptied to `opening…closing`."""
    out: list[str] = []
    depth = 0
    for character in name:
        if character == opening:
            if depth == 0:
                out.append(opening + "…")
            depth += 1
        elif character == closing and depth > 0:
            depth -= 1
            if depth == 0:
                out.append(closing)
        elif depth == 0:
            out.append(character)
    return "".join(out)


@functools.cache
def _demangler() -> Callable[[str], str | None] | None:
    candidates = [*_RUNTIMES, ctypes.util.find_library("stdc++"), ctypes.util.find_library("c++")]
    for library in filter(None, candidates):
        try:
            runtime = ctypes.CDLL(library)
            function = getattr(runtime, "__cxa_demangle")
            free = ctypes.CDLL(None).free
        except (OSError, AttributeError):
            continue
        function.restype = ctypes.c_void_p
        function.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
        free.argtypes = [ctypes.c_void_p]
        free.restype = None
        return functools.partial(_call, function, free)
    return None


def _call(function: Callable[..., int | None], free: Callable[[int], None], symbol: str) -> str | None:
    status = ctypes.c_int(0)
    pointer = function(symbol.encode("ascii", errors="replace"), None, None, ctypes.byref(status))
    if status.value != 0 or not pointer:
        return None
    try:
        return ctypes.string_at(pointer).decode("utf-8", errors="replace")
    finally:
        free(pointer)
