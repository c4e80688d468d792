"""PTX's fundamental types (§5.2.1), as analyses read them from an opcode's modifiers."""

from __future__ import annotations

from typing import Sequence

from ptxlint.isa.shapes import VECTOR_WIDTHS

# `.s8` … `.u64`, `.b8` … `.b128`: their width in bits and whether they are signed.
_INTEGER_TYPES = {f"{kind}{bits}": (bits, kind == "s") for kind in "sub" for bits in (8, 16, 32, 64)}
_INTEGER_TYPES["b128"] = (128, False)


def integer_types(modifiers: Sequence[str]) -> list[tuple[int, bool]]:
    """(width, signed) of each integer type among ``modifiers``, in order (`cvt.u64.u32`: the
    destination's first). A modifier that only looks like one (`.u3184467440737095516162`, which
    ptxas rejects) is none: analyses compute with these widths, and must not build a number of
    that many bits."""
    return [_INTEGER_TYPES[modifier] for modifier in modifiers if modifier in _INTEGER_TYPES]


# The width in bits of the types an access moves: the integer types and `.f16`/`.f32`/`.f64`.
_ACCESS_BITS = {name: bits for name, (bits, _) in _INTEGER_TYPES.items()} | {"f16": 16, "f32": 32, "f64": 64}


def access_bytes(modifiers: Sequence[str]) -> int | None:
    """How many bytes a load or store with these modifiers moves (`ld.param.v2.b32`: 8); None
    when no type says."""
    count, bits = 1, None
    for modifier in modifiers:
        if modifier in VECTOR_WIDTHS:
            count = VECTOR_WIDTHS[modifier]
        elif modifier in _ACCESS_BITS:
            bits = _ACCESS_BITS[modifier]
    return None if bits is None else count * max(bits // 8, 1)
