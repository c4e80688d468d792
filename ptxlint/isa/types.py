"""PTX's fundamental integer types (§5.2.1), as analyses read them from an opcode's modifiers."""

from __future__ import annotations

from typing import Sequence

# `.s8` … `.u64`, `.b8` … `.b128`: their width in bits and whether they are signed.
_INTEGER_TYPES = {f"{kind}{bits}": (bits, kind == "s") for kind in "sub" for bits in (8, 16, 32, 64)}
_INTEGER_TYPES["b128"] = (128, False)


def integer_types(modifiers: Sequence[str]) -> list[tuple[int, bool]]:
    """(width, signed) of each integer type among ``modifiers``, in order (`cvt.u64.u32`: the
    destination's first). A modifier that only looks like one (`.u3184467440737095516162`, which
    ptxas rejects) is none: analyses compute with these widths, and must not build a number of
    that many bits."""
    return [_INTEGER_TYPES[modifier] for modifier in modifiers if modifier in _INTEGER_TYPES]
