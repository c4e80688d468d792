"""The bit dependences of lane arithmetic (``TidDependence``) never miss a dependence: checked
against brute-force evaluation over every `%tid.x` of a 1024-thread block."""

from __future__ import annotations

from typing import Callable

import pytest

from ptxlint.analyses.threads.tid_fields import (
    TID_X,
    TidBits,
    TidDependence,
    carried,
    combined,
    dependence_of,
    masked,
    shifted_left,
    shifted_right,
)

TID_BITS = 10
WORD = (1 << 32) - 1
TID = dependence_of(TID_X, TID_BITS)

# (name, the computation on a concrete thread index, the same on dependences)
CASES: list[tuple[str, Callable[[int], int], Callable[[], TidDependence]]] = [
    ("cutlass lane base", lambda t: ((t << 16) | (t >> 3)) & 0x600010 | 256,
     lambda: masked(combined(shifted_left(TID, 16), shifted_right(TID, 3, 32, False)), 0x600010)),
    ("xor of shifts", lambda t: ((t >> 5) ^ (t << 2)) & 0xFF,
     lambda: masked(combined(shifted_right(TID, 5, 32, False), shifted_left(TID, 2)), 0xFF)),
    ("field plus offset", lambda t: (((t >> 5) & 3) + 7) & WORD,
     lambda: dependence_of(TidBits(5, 7, 0, 7), TID_BITS)),
    ("sum of fields", lambda t: ((t >> 5) + (t & 3)) & WORD,
     lambda: carried(combined(shifted_right(TID, 5, 32, False), masked(TID, 3)))),
    ("masked sum", lambda t: (((t << 16) & 0x600000) + t) & 0x600000,
     lambda: masked(carried(combined(masked(shifted_left(TID, 16), 0x600000), TID)), 0x600000)),
]


@pytest.mark.parametrize("name, concrete, symbolic", CASES, ids=[case[0] for case in CASES])
def test_dependence_covers_every_influence(name: str, concrete: Callable[[int], int], symbolic: Callable[[], TidDependence]) -> None:
    dependence = symbolic()
    for thread in range(1 << TID_BITS):
        result = concrete(thread)
        for tid_bit in range(TID_BITS):
            other = thread ^ (1 << tid_bit)
            changed = result ^ concrete(other)
            for bit in range(32):
                if changed >> bit & 1:
                    listed = dependence.bits[bit] if bit < len(dependence.bits) else 0
                    assert listed >> tid_bit & 1, f"{name}: bit {bit} depends on %tid.x bit {tid_bit}"


def test_cutlass_lane_base_depends_on_warp_bits_only() -> None:
    _, _, symbolic = CASES[0]
    assert symbolic().lowest == 5
