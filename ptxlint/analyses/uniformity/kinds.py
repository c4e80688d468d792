"""How each instruction's result is computed, as the uniformity analysis sees it: one small
integer per opcode text, decided once per process."""

from __future__ import annotations

from ptxlint import ir
from ptxlint.isa.barriers import BARRIER_BASES

# Results that differ per lane whatever the inputs: per-lane fragments of matrix instructions,
# atomics, and waits that may succeed in some lanes first.
_PER_LANE_BASES = frozenset(
    {"atom", "wmma", "mma", "ldmatrix", "movmatrix", "wgmma", "tex", "tld4", "suld", "txq", "suq", "activemask"}
)
_WARP_RESULT_BASES = frozenset({"vote", "redux"})

_PREDICATE_LOGIC = frozenset({"mov", "not", "and", "or", "xor"})
LANE_ARITHMETIC = frozenset({"mov", "cvt", "shr", "shl", "and", "div", "rem", "mul", "mad", "bfe", "add", "sub", "or", "xor"})

# How an instruction's result is computed (see DataTransfer.value).
VARYING, WARP_RESULT, LOAD, BARRIER, SETP, PREDICATE, ARITHMETIC, SOURCES, SELECT = range(9)
ELECT, SHUFFLE, CALL, EXIT, STORE_PARAMETER, STORE_LOCAL = range(9, 15)
LOCAL_KEY = "local:"  # the side-table entry for what a function stores to its `.local` memory
_KINDS: dict[str, int] = {}


def instruction_kind(opcode: ir.Opcode) -> int:
    known = _KINDS.get(opcode.text)
    if known is not None:
        return known
    base = opcode.base
    if base in ("exit", "ret"):
        kind = EXIT
    elif base == "st" and opcode.has("param"):
        kind = STORE_PARAMETER
    elif base == "st" and opcode.has("local"):
        kind = STORE_LOCAL
    elif base == "elect":
        kind = ELECT
    elif base == "shfl":
        kind = SHUFFLE
    elif base == "call":
        kind = CALL
    elif base in _PER_LANE_BASES or base == "tcgen05" or base == "mbarrier" or (base == "match" and opcode.has("any")):
        kind = VARYING
    elif base in _WARP_RESULT_BASES or base == "match":
        kind = WARP_RESULT
    elif base in ("ld", "ldu"):
        kind = LOAD
    elif base in BARRIER_BASES:
        kind = BARRIER
    elif base == "setp":
        kind = SETP
    elif base in _PREDICATE_LOGIC and opcode.has("pred"):
        kind = PREDICATE
    elif base in LANE_ARITHMETIC:
        kind = ARITHMETIC
    elif base in ("selp", "slct"):
        kind = SELECT
    else:
        kind = SOURCES
    _KINDS[opcode.text] = kind
    return kind
