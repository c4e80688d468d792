"""Bit-field arithmetic on TMEM addresses, for the per-warp values analysis: masks (`and`),
`bfi`, `bfe`, `prmt` and right shifts, on integers and on
:class:`~ptxlint.analyses.threads.values_lattice.TensorAddress` values.

A TMEM address is a lane in bits 31–16 and a column in bits 15–0. `tcgen05.alloc` writes one with
lane 0 and a column below 512, so a `TensorAddress(slot, lane, column)` holds the integer
``lane << 16`` in its upper half exactly, and in its lower half the allocation's unknown column
plus ``column`` (``None``: an unknown column offset, taken never to carry into the lane field, as
:mod:`~ptxlint.analyses.threads.values_lattice` does for additions). Operations that keep the lower
half whole and compute the upper half from known bits give an address again (`base & 0xFFFF` is
the column part, `bfi d, lane, base, 16, 16` sets the lane); operations that keep only the upper
half give an integer (`base & 0xFFFF0000` is 0, `base >> 16` the lane); everything else is
unknown (``None``). ``OPAQUE`` operands (unknown, warp-independent) and the rest give ``None``.

These are the forms CUTLASS, CuTe and hand-written kernels build lane fields with.
"""

from __future__ import annotations

from typing import TypeGuard

from ptxlint.analyses.threads.values_lattice import OPAQUE, Argument, Entry, TensorAddress, wrap
from ptxlint.isa.tcgen05 import COLUMN_MASK, COLUMNS, LANE_SHIFT

_HALF = LANE_SHIFT  # bits in the column half


def _integer(value: object) -> TypeGuard[int]:
    return type(value) is int


def _lane_half(address: TensorAddress) -> int | None:
    """The upper half of the address as an integer (``lane << 16``), when the lane is a lane."""
    if not 0 <= address.lane <= COLUMN_MASK:
        return None
    return address.lane << LANE_SHIFT


def _column_survives(address: TensorAddress, mask: int) -> bool:
    """Whether ``mask``'s lower half keeps every bit the address's column can have: all 16, or
    (with a known, non-negative column offset) the low bits up to the allocation's first column
    (below 512) plus that offset."""
    low = mask & COLUMN_MASK
    if low == COLUMN_MASK:
        return True
    ones = (~low & (low + 1)).bit_length() - 1  # trailing ones of the lower half
    return address.column is not None and address.column >= 0 and COLUMNS + address.column <= 1 << ones


def and_values(a: Argument, b: Argument, bits: int) -> Entry:
    """`and`: a mask of a TMEM address keeps the lane bits it names; its column half is kept
    whole (`& 0xFFFF`), dropped (`& 0xFFFF0000`: an integer) or unknown."""
    if type(a) is TensorAddress or type(b) is TensorAddress:
        address: TensorAddress
        address, mask = (a, b) if type(a) is TensorAddress else (b, a)  # type: ignore[assignment]  # one is
        upper = _lane_half(address)
        if not _integer(mask) or upper is None:
            return None
        lane_bits = upper & mask & 0xFFFF0000
        if mask & COLUMN_MASK == 0:
            return lane_bits
        if _column_survives(address, mask):
            return TensorAddress(address.slot, lane_bits >> LANE_SHIFT, address.column)
        return None
    if _integer(a) and _integer(b):
        return wrap(a & b, bits)
    return None


def shift_right_address(address: TensorAddress, amount: Argument, bits: int) -> Entry:
    """`shr` of a TMEM address by 16 or more: bits of its lane (an integer)."""
    upper = _lane_half(address)
    if not _integer(amount) or amount < _HALF or upper is None:
        return None
    return wrap(upper, bits) >> min(amount, 64)


def insert_field(a: Argument, b: Argument, position: Argument, length: Argument, bits: int) -> Argument:
    """`bfi.bX f, a, b, pos, len`: b with bits pos … pos+len-1 replaced by a's low bits (bits past
    the register's width are dropped; PTX ISA §9.7.1.20)."""
    if not (_integer(position) and _integer(length)):
        return None
    start = position & 0xFF
    end = min(start + (length & 0xFF), bits)
    if start >= end:
        return None if b is OPAQUE else b
    if _integer(a) and _integer(b):
        field = ((1 << (end - start)) - 1) << start
        return wrap((b & ~field) | ((a << start) & field), bits)
    if type(b) is TensorAddress:
        # Bits below 16 replace part of the column (unknown after); bits from 16 up, of the lane.
        upper = _lane_half(b)
        if upper is None:
            return None
        if end > _HALF:
            if not _integer(a):
                return None
            field = (((1 << (end - start)) - 1) << start) & 0xFFFF0000
            upper = (upper & ~field) | ((a << start) & field)
        return TensorAddress(b.slot, upper >> LANE_SHIFT, b.column if start >= _HALF else None)
    if type(a) is TensorAddress and _integer(b) and start == 0 and end == _HALF:
        # The address's column half inserted under a lane field: `bfi d, base, lane << 16, 0, 16`.
        return TensorAddress(a.slot, (b >> LANE_SHIFT) & COLUMN_MASK, a.column)
    return None


def extract_field(a: Argument, position: Argument, length: Argument, bits: int, signed: bool) -> Entry:
    """`bfe.uX`/`.sX d, a, pos, len` (PTX ISA §9.7.1.19): the field shifted down, zero- or
    sign-extended. Of a TMEM address: a field of the lane half is an integer; bits 0–15 are its
    column half (an address with lane 0)."""
    if not (_integer(position) and _integer(length)):
        return None
    start, size = position & 0xFF, length & 0xFF
    if type(a) is TensorAddress:
        if start == 0 and size == _HALF and not signed:
            return TensorAddress(a.slot, 0, a.column)
        upper = _lane_half(a)
        if start < _HALF or upper is None:
            return None
        a = upper  # only bits from 16 up are read
    if not _integer(a):
        return None
    a = wrap(a, bits)
    sign = (a >> min(start + size - 1, bits - 1)) & 1 if signed and size else 0
    result = 0
    for bit in range(bits):
        value = (a >> (start + bit)) & 1 if bit < size and start + bit < bits else sign
        result |= value << bit
    return result


def permute_bytes(a: Argument, b: Argument, selector: Argument) -> Entry:
    """`prmt.b32 d, a, b, c` in its default mode: each byte of d is the byte of {b, a} that a
    nibble of c names, or that byte's sign replicated (PTX ISA §9.7.8.7). A TMEM address's two
    upper bytes are its lane; its two lower bytes must stay together and in place for the result
    to be an address (`prmt d, column, lane, 0x5410`)."""
    if not _integer(selector):
        return None
    sources = (a, b)
    chosen = []
    for position in range(4):
        nibble = selector >> (4 * position) & 0xF
        byte = _byte(sources[(nibble & 7) >> 2], nibble & 3)
        if nibble & 8:
            byte = (0xFF if byte >> 7 & 1 else 0) if _integer(byte) else None
        chosen.append(byte)
    if not (_integer(chosen[2]) and _integer(chosen[3])):
        return None
    upper = chosen[2] | chosen[3] << 8
    if _integer(chosen[0]) and _integer(chosen[1]):
        return chosen[0] | chosen[1] << 8 | upper << LANE_SHIFT
    first, second = chosen[0], chosen[1]
    if type(first) is tuple and first[0] == 0 and second == (1, first[1]):
        address = first[1]
        return TensorAddress(address.slot, upper, address.column)
    return None


def _byte(value: Argument, index: int) -> int | tuple[int, TensorAddress] | None:
    """Byte ``index`` of a source: an integer, a marker for a column byte of an address, or None."""
    if _integer(value):
        return wrap(value, 32) >> (8 * index) & 0xFF
    if type(value) is TensorAddress:
        if index < 2:
            return (index, value)  # a byte of the column half: only whole and in place is known
        upper = _lane_half(value)
        return None if upper is None else upper >> (8 * index) & 0xFF
    return None
