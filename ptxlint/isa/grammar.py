"""The qualifier grammar of each instruction: which modifiers it takes, which it requires, and
which exclude each other (PTX ISA §9.7, checked against ptxas; where they differ, ptxas wins and
DISAGREEMENTS.md records it).

An instruction is named by its opcode base and leading operation words (`tcgen05.ld.red`,
`mbarrier.try_wait`); the most specific name wins. Its grammar lists slots in the manual's order,
written compactly::

    "sync! aligned! shape=32x32b|16x64b! num=x1|x2 pack=pack::16b type=b32!"

Each slot is `name=value|value`, or a single value naming itself; `!` marks a required slot
(`!70`: from sm_70), `^` one that must directly follow the operation words, `#N` a slot filled
N times (mma's types). A value written `/regex/` matches modifiers by pattern (the `m64nNk16`
shapes). Besides its slots, a grammar lists values that exclude each other (`a+b`) and values
that need another value or slot (`a>b`, `a>b|c`). The version and the targets each value needs
live in :mod:`ptxlint.isa.gating`, beside the instruction's own.

Only instructions listed here are judged, and for them every modifier must belong to some slot.
Order is judged only where ptxas judges it (`^`): it accepts most permutations.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from ptxlint.records import record


@record
class Slot:
    """One qualifier slot of an instruction's grammar: its name and the values it takes."""

    name: str
    values: tuple[str, ...]
    patterns: tuple[re.Pattern[str], ...]
    required: bool
    # Targets from which a required slot is required (`shfl` needs `.sync` from sm_70); 0: all.
    required_from: int = 0
    # How many modifiers fill the slot (mma's `.f32.f16.f16`: 3); 1 means at most one.
    count: int = 1
    # Must directly follow the operation words (`setmaxnreg.inc`, `mbarrier.try_wait.parity`).
    first: bool = False

    def takes(self, modifier: str) -> bool:
        return modifier in self.values or any(p.fullmatch(modifier) for p in self.patterns)

    def describe(self) -> str:
        # A pattern shows its numbers as N: `m64n\d+k\d+` reads `.m64nNkN`.
        shown = [f"`.{value}`" for value in self.values] + [f"`.{p.pattern.replace(chr(92) + 'd+', 'N')}`" for p in self.patterns]
        if len(shown) > 8:
            shown = shown[:8] + ["…"]
        return ", ".join(shown[:-1]) + (" or " if len(shown) > 1 else "") + shown[-1]


@record
class Grammar:
    """The qualifier grammar of one instruction: its slots, exclusions and requirements."""

    instruction: str  # "tcgen05.ld.red"
    slots: tuple[Slot, ...]
    # Pairs of values that may not appear together (`.abs` with an integer type).
    exclusions: tuple[tuple[str, str], ...] = ()
    # (value, what it needs): a value or a slot name (`.release` needs a scope).
    requirements: tuple[tuple[str, str], ...] = ()
    # The grammar judges only opcodes carrying one of these (`cvt` with a narrow float type);
    # empty: every opcode of the instruction.
    when: frozenset[str] = frozenset()

    def slot_of(self, modifier: str) -> Slot | None:
        return next((slot for slot in self.slots if slot.takes(modifier)), None)


# An instruction's grammar as written: (instruction, slots, exclusions, requirements, when).
_Written = tuple[str, str, str, str, str]


def _parse_slot(text: str) -> Slot:
    """`name=a|b!`, `name=a|b!70` (required from sm_70), `type=f16|f32#3` (three of them),
    `name=a|b^` (directly after the operation words)."""
    text, _, count = text.partition("#")
    first = text.endswith("^")
    text, bang, required_from = text.rstrip("^").partition("!")
    name, _, values = text.partition("=") if "=" in text else (text, "", text)
    literal = tuple(v for v in values.split("|") if not v.startswith("/"))
    patterns = tuple(re.compile(v.strip("/")) for v in values.split("|") if v.startswith("/"))
    return Slot(name, literal, patterns, bool(bang), int(required_from or 0), int(count or 1), first)


def _grammar(instruction: str, slots: str, exclusions: str = "", requirements: str = "", when: str = "") -> _Written:
    """``exclusions``: `a+b` pairs that may not appear together; ``requirements``: `a>b`, value
    `a` needs value or slot `b`. Kept as written and parsed when an instruction first needs it:
    a kernel uses a few of the grammars, and parsing all of them was a tenth of a clean run's
    start-up."""
    return (instruction, slots, exclusions, requirements, when)


def _parse(written: _Written) -> Grammar:
    instruction, slots, exclusions, requirements, when = written
    return Grammar(
        instruction,
        tuple(_parse_slot(word) for word in slots.split()),
        tuple(tuple(pair.split("+")) for pair in exclusions.split()),  # type: ignore[misc]
        tuple(tuple(pair.split(">")) for pair in requirements.split()),  # type: ignore[misc]
        frozenset(when.split()),
    )


# Shared slot spellings.
_CTA_GROUP = "cta_group=cta_group::1|cta_group::2"
_SCOPE = "scope=cta|cluster|gpu|sys"
_TCGEN05_LD_SHAPES = "shape=32x32b|16x64b|16x128b|16x256b|16x32bx2"
_TCGEN05_NUMS = "num=x1|x2|x4|x8|x16|x32|x64|x128"
_WGMMA_SHAPE = r"shape=/m64n\d+k\d+/"
# tcgen05.mma (§9.7.16.10.9): block scaling is for the block-scaled kinds, which need it, and each
# takes its scale vector sizes (`.kind::mxf4nvf4` must name one).
_TCGEN05_MMA_KIND = "kind=kind::f16|kind::tf32|kind::f8f6f4|kind::i8|kind::mxf8f6f4|kind::mxf4|kind::mxf4nvf4"
_TCGEN05_SCALE_VEC = "scale_vec=scale_vec::1X|scale_vec::2X|scale_vec::4X|block16|block32"
_TCGEN05_MMA_EXCLUSIONS = " ".join(
    [f"{kind}+block_scale" for kind in ("kind::f16", "kind::tf32", "kind::f8f6f4", "kind::i8")]
    + [f"{kind}+{vec}" for kind, vecs in (
        ("kind::mxf8f6f4", ("scale_vec::2X", "scale_vec::4X", "block16")),
        ("kind::mxf4", ("scale_vec::1X", "scale_vec::4X", "block16")),
        ("kind::mxf4nvf4", ("scale_vec::1X",))) for vec in vecs]
    + ["ashift+collector::a::fill", "ashift+collector::a::use"])
_TCGEN05_MMA_REQUIREMENTS = ("kind::mxf8f6f4>block_scale kind::mxf4>block_scale kind::mxf4nvf4>block_scale "
                             "kind::mxf4nvf4>scale_vec scale_vec::1X>block_scale scale_vec::2X>block_scale "
                             "scale_vec::4X>block_scale block16>block_scale block32>block_scale")
_MBARRIER_SPACE = "space=shared|shared::cta|shared::cluster"
# ptxas accepts (and ignores) a matrix layout on these.
_LAYOUT_IGNORED = "ignored_by_ptxas=row|col#9"
_MBARRIER_SCOPE = "scope=cta|cluster"
# A memory-ordering semantic needs a scope, and a scope a semantic (ptxas: "requires order").
_ORDER_AND_SCOPE = "release>scope acquire>scope relaxed>scope cta>sem cluster>sem gpu>sem sys>sem"
_MBARRIER_WAIT = f"parity^ sem=acquire|relaxed {_MBARRIER_SCOPE} space=shared|shared::cta type=b64!"
_DECOMPRESSION = "b8x16>src_fmt b6x16_p32>dst_fmt b4x16_p64>dst_fmt"

_MMA_SHAPE = "shape=m8n8k4|m8n8k16|m8n8k32|m8n8k128|m16n8k4|m16n8k8|m16n8k16|m16n8k32|m16n8k64|m16n8k128|m16n8k256"
_MMA_KIND = "kind=kind::f8f6f4|kind::mxf8f6f4|kind::mxf4|kind::mxf4nvf4"
_MMA_SCALE_VEC = "scale_vec=scale_vec::1X|scale_vec::2X|scale_vec::4X"
_MMA_TYPES = "f16|f32|f64|bf16|tf32|s8|u8|s4|u4|b1|s32|e4m3|e5m2|e3m2|e2m3|e2m1|ue8m0|ue4m3"
_WMMA_SHAPE = "shape=m16n16k16|m8n32k16|m32n8k16|m8n8k32|m8n8k128|m16n16k8|m8n8k4"
_WMMA_SPACE = "space=global|shared|shared::cta"
_WMMA_TYPES = "f16|f32|s32|f64|bf16|tf32|s8|u8|s4|u4|b1"
_L2_HINT = "hint=L2::cache_hint"
# Vector and packed types ptxas accepts (and ignores) among the types of the matrix instructions.
# Rounding is for double precision, the bit operations for single-bit inputs, saturation for
# integers; block scaling needs a block-scaled kind.
_MMA_REQUIREMENTS = ("rn>f64 rz>f64 rm>f64 rp>f64 xor>b1 and>b1 popc>b1 xor>popc and>popc popc>op satfinite>s32 "
                     "block_scale>kind scale_vec::1X>block_scale scale_vec::2X>block_scale scale_vec::4X>block_scale")
_MMA_IGNORED = "ignored_by_ptxas=bf16x2|v4#9"
_WMMA_LOAD_STORE_IGNORED = "ignored_by_ptxas=v8#9"  # on the A and B fragments
_WMMA_MMA_IGNORED = "ignored_by_ptxas=pred#9"
# `.weak` has no scope; a scope needs an order; `.acc::f32` accumulates half-precision types only.
_WEAK_HAS_NO_SCOPE = " ".join(f"weak+{scope}" for scope in ("cta", "cluster", "gpu", "sys"))
_MULTIMEM_EXCLUSIONS = _WEAK_HAS_NO_SCOPE + " " + " ".join(
    [f"{acc}+{kind}" for acc in ("acc::f32", "acc::f16") for kind in ("b32", "b64", "u32", "u64", "s32", "s64", "f32", "f64")])
_MULTIMEM_ORDER = "relaxed>scope acquire>scope release>scope cta>sem cluster>sem gpu>sem sys>sem"
# (opcode, its `.aligned` slot, modifiers ptxas ignores on its sync and arrive forms)
# The im2col modes need three dimensions or more.
_IM2COL_DIMENSIONS = " ".join(
    f"{dim}+{mode}" for dim in ("1d", "2d") for mode in ("im2col", "im2col_no_offs", "im2col::w", "im2col::w::128"))
_ATOMIC_TYPES = "b16|b32|b64|b128|u32|u64|s32|s64|f32|f64|f16|f16x2|bf16|bf16x2"
_NARROW_FLOATS = ("e4m3x2 e5m2x2 e2m1x2 e2m3x2 e3m2x2 ue8m0x2 e4m3x4 e5m2x4 e2m1x4 e2m3x4 e3m2x4")
_CVT_TYPES = "|".join(_NARROW_FLOATS.split()) + "|f32|f16x2|bf16x2|f16|bf16"
# Bit operations take bit types, increment and decrement unsigned words; half-precision atomics
# need `.noftz`.
_ATOMIC_REQUIREMENTS = (
    "and>b32|b64 or>b32|b64 xor>b32|b64 inc>u32 dec>u32 noftz>f16|f16x2|bf16|bf16x2 "
    "f16>noftz f16x2>noftz bf16>noftz bf16x2>noftz"
)
_L1_EVICTION = ("L1::evict_normal", "L1::evict_unchanged", "L1::evict_first", "L1::evict_last", "L1::no_allocate")
_L2_EVICTION = ("L2::evict_normal", "L2::evict_first", "L2::evict_last")
_NOT_GLOBAL = ("shared", "shared::cta", "shared::cluster", "local", "const", "param", "param::entry", "param::func")
_LD_SPACES = "space=global|shared|shared::cta|shared::cluster|local|const|param|param::entry|param::func"
_ST_SPACES = "space=global|shared|shared::cta|shared::cluster|local|param|param::func"
_LD_ST_COMMON = (
    f"{_SCOPE} l1={'|'.join(_L1_EVICTION)} l2={'|'.join(_L2_EVICTION)} {_L2_HINT} vec=v2|v4|v8 "
    "type=b8|b16|b32|b64|b128|u8|u16|u32|u64|s8|s16|s32|s64|f16|f16x2|bf16|bf16x2|f32|f64!"
)
# Memory ordering excludes cache operators, the non-coherent path and local memory; `.weak` and
# `.volatile` take no scope; L1 eviction hints are for global memory and plain loads.
_ORDERED = ("volatile", "relaxed", "acquire", "release")
_LD_ST_EXCLUSIONS = " ".join(
    [f"{sem}+{cache}" for sem in (*_ORDERED, *_L1_EVICTION) for cache in ("ca", "cg", "cs", "lu", "cv", "wb", "wt")]
    + [f"{sem}+{scope}" for sem in ("weak", "volatile") for scope in ("cta", "cluster", "gpu", "sys")]
    + [f"{sem}+nc" for sem in (*_ORDERED, "weak")]
    + [f"{sem}+{space}" for sem in _ORDERED for space in ("local", "const", "param")]
    + ["nc+cv", "nc+lu"]
    + [f"{hint}+{space}" for hint in _L1_EVICTION for space in ("shared", "shared::cta", "shared::cluster", "local")]
    + [f"{hint}+volatile" for hint in _L1_EVICTION]
    # 256-bit accesses and their L2 eviction hints are for global (or generic) addresses
    + [f"{wide}+{space}" for wide in ("v8", *_L2_EVICTION) for space in _NOT_GLOBAL]
    + [f"L2::cache_hint+{other}" for other in ("shared", "shared::cta", "shared::cluster", "local", "volatile")]
    # `.mmio` is a relaxed, system-scope, scalar access to global memory without cache hints
    + [f"mmio+{other}" for other in ("v2", "v4", "v8", "cta", "cluster", "gpu", "shared", "shared::cta", "shared::cluster",
                                      "local", *_L1_EVICTION, "L2::64B", "L2::128B", "L2::256B")]
)
_LD_ST_REQUIREMENTS = (
    "relaxed>scope acquire>scope release>scope cta>sem cluster>sem gpu>sem sys>sem mmio>relaxed mmio>sys "
    + " ".join(f"{hint}>v8|v4" for hint in _L2_EVICTION)
)
_BARRIERS = (("barrier", "aligned", ""), ("barrier.cta", "aligned", ""), ("bar", "", " ignored_by_ptxas=all|any#9"),
             ("bar.cta", "", " ignored_by_ptxas=all|any#9"))
_MULTIMEM_TYPES = ("b32|b64|u32|u64|s32|s64|f32|f64|f16|f16x2|bf16|bf16x2|e5m2|e5m2x2|e5m2x4|e4m3|e4m3x2|e4m3x4")

_WRITTEN: tuple[_Written, ...] = (
    # --- tcgen05 (§9.7.16)
    _grammar("tcgen05.alloc", f"{_CTA_GROUP}! sync! aligned! space=shared::cta type=b32!"),
    _grammar("tcgen05.dealloc", f"{_CTA_GROUP}! sync! aligned! type=b32!"),
    _grammar("tcgen05.relinquish_alloc_permit", f"{_CTA_GROUP}! sync! aligned!"),
    _grammar("tcgen05.ld", f"sync! aligned {_TCGEN05_LD_SHAPES}! {_TCGEN05_NUMS}! pack=pack::16b type=b32! " + _LAYOUT_IGNORED),
    _grammar("tcgen05.ld.red", f"sync! aligned shape=32x32b|16x32bx2! {_TCGEN05_NUMS}! op=min|max! abs NaN type=f32|u32|s32! " + _LAYOUT_IGNORED,
             "u32+abs s32+abs u32+NaN s32+NaN"),
    _grammar("tcgen05.st", f"sync! aligned {_TCGEN05_LD_SHAPES}! {_TCGEN05_NUMS}! unpack=unpack::16b type=b32! " + _LAYOUT_IGNORED),
    _grammar("tcgen05.wait::ld", "sync! aligned!"),
    _grammar("tcgen05.wait::st", "sync! aligned!"),
    _grammar("tcgen05.cp", f"{_CTA_GROUP}! shape=128x256b|4x256b|128x128b|64x128b|32x128b! "
             "multicast=warpx2::02_13|warpx2::01_23|warpx4 dst_fmt=b8x16 src_fmt=b6x16_p32|b4x16_p64 " + _LAYOUT_IGNORED,
             requirements=_DECOMPRESSION),
    *(_grammar(name, f"{_CTA_GROUP}! sp {_TCGEN05_MMA_KIND}! block_scale {_TCGEN05_SCALE_VEC} ashift "
               "collector=collector::a::fill|collector::a::use|collector::a::lastuse|collector::a::discard",
               _TCGEN05_MMA_EXCLUSIONS, _TCGEN05_MMA_REQUIREMENTS) for name in ("tcgen05.mma", "tcgen05.mma.sp")),
    *(_grammar(name, f"cta_group=cta_group::1! sp {_TCGEN05_MMA_KIND}! block_scale {_TCGEN05_SCALE_VEC} "
               "collector=/collector::b[0-3]::[a-z]+/",
               _TCGEN05_MMA_EXCLUSIONS + " " + " ".join(f"{kind}+ws" for kind in ("kind::mxf8f6f4", "kind::mxf4", "kind::mxf4nvf4")),
               _TCGEN05_MMA_REQUIREMENTS) for name in ("tcgen05.mma.ws", "tcgen05.mma.ws.sp")),
    _grammar("tcgen05.shift", f"{_CTA_GROUP}! down!"),
    _grammar("tcgen05.commit", f"{_CTA_GROUP}! completion=mbarrier::arrive::one! space=shared::cluster "
             "multicast=multicast::cluster type=b64!"),
    _grammar("tcgen05.fence::before_thread_sync", ""),
    _grammar("tcgen05.fence::after_thread_sync", ""),
    # --- warp and warpgroup synchronisation (§9.7.13, §9.7.19.5)
    _grammar("elect", "sync!"),
    _grammar("setmaxnreg", "action=inc|dec!^ sync! aligned! type=u32|s32!"),
    _grammar("griddepcontrol", "action=launch_dependents|wait!"),
    _grammar("bar.warp", "sync!"),
    _grammar("shfl", "sync!70 mode=up|down|bfly|idx! type=b32!"),
    _grammar("vote", "sync!70 mode=all|any|uni|ballot! type=pred|b32!", "all+b32 any+b32 uni+b32 ballot+pred"),
    _grammar("match", "mode=any|all! sync! type=b32|b64!"),
    _grammar("redux", "sync! op=add|min|max|and|or|xor! abs NaN type=u32|s32|b32|f32!",
             "abs+u32 abs+s32 abs+b32 NaN+u32 NaN+s32 NaN+b32 add+b32 min+b32 max+b32 add+f32 "
             "and+u32 and+s32 and+f32 or+u32 or+s32 or+f32 xor+u32 xor+s32 xor+f32"),
    _grammar("barrier.cluster.arrive", "sem=release|relaxed aligned"),
    _grammar("barrier.cluster.wait", "sem=acquire aligned"),
    # --- mbarrier (§9.7.13.15)
    _grammar("mbarrier.init", "space=shared|shared::cta type=b64!"),
    _grammar("mbarrier.inval", "space=shared|shared::cta type=b64!"),
    _grammar("mbarrier.arrive", f"sem=release|relaxed {_MBARRIER_SCOPE} {_MBARRIER_SPACE} noComplete type=b64!",
             "noComplete+shared::cluster", _ORDER_AND_SCOPE),
    _grammar("mbarrier.arrive_drop", f"sem=release|relaxed {_MBARRIER_SCOPE} {_MBARRIER_SPACE} noComplete type=b64!",
             "noComplete+shared::cluster", _ORDER_AND_SCOPE),
    # `.expect_tx` must follow the operation word directly.
    _grammar("mbarrier.arrive.expect_tx", f"sem=release|relaxed {_MBARRIER_SCOPE} {_MBARRIER_SPACE} type=b64!",
             requirements=_ORDER_AND_SCOPE),
    _grammar("mbarrier.arrive_drop.expect_tx", f"sem=release|relaxed {_MBARRIER_SCOPE} {_MBARRIER_SPACE} type=b64!",
             requirements=_ORDER_AND_SCOPE),
    _grammar("mbarrier.expect_tx", f"sem=relaxed {_MBARRIER_SCOPE} {_MBARRIER_SPACE} type=b64!", requirements=_ORDER_AND_SCOPE),
    _grammar("mbarrier.complete_tx", f"sem=relaxed {_MBARRIER_SCOPE} {_MBARRIER_SPACE} type=b64!", requirements=_ORDER_AND_SCOPE),
    _grammar("mbarrier.test_wait", _MBARRIER_WAIT, requirements=_ORDER_AND_SCOPE),
    _grammar("mbarrier.try_wait", _MBARRIER_WAIT, requirements=_ORDER_AND_SCOPE),
    _grammar("mbarrier.pending_count", "type=b64!"),
    # --- fences (§9.7.13.4)
    _grammar("fence.proxy.alias", ""),
    _grammar("fence.proxy.async", "space=global|shared::cta|shared::cluster"),
    _grammar("fence.proxy.tensormap::generic", f"sem=release|acquire! {_SCOPE}! space=global|shared|shared::cta|shared::cluster",
             "acquire+global acquire+shared acquire+shared::cta acquire+shared::cluster"),
    _grammar("fence.mbarrier_init", "sem=release! scope=cluster!"),
    _grammar("tensormap.cp_fenceproxy", "dst=global! src=shared::cta! proxy=tensormap::generic! sem=release! "
             f"{_SCOPE}! sync! aligned!"),
    # --- matrix loads and stores (§9.7.14.5.15–17)
    _grammar("ldmatrix", "sync! aligned! shape=m8n8|m16n16|m8n16! num=x1|x2|x4|x8! trans space=shared|shared::cta "
             "type=b16|b8|b8x16! src_fmt=b6x16_p32|b4x16_p64 " + _LAYOUT_IGNORED,
             "m8n8+b8 m8n8+b8x16 m16n16+b16 m8n16+b16 m8n16+b8 m8n16+trans",
             "m16n16>trans b8x16>src_fmt b6x16_p32>b8x16 b4x16_p64>b8x16"),
    _grammar("stmatrix", "sync! aligned! shape=m8n8|m16n8! num=x1|x2|x4! trans space=shared|shared::cta type=b16|b8! " + _LAYOUT_IGNORED,
             "m8n8+b8 m16n8+b16", "m16n8>trans"),
    # --- wgmma (§9.7.15)
    _grammar("wgmma.fence", "sync! aligned"),
    _grammar("wgmma.commit_group", "sync! aligned"),
    _grammar("wgmma.wait_group", "sync! aligned"),
    *(_grammar(name, f"sync! aligned {_WGMMA_SHAPE}! satfinite "
               "type=f16|f32|bf16|tf32|e4m3|e5m2|s32|s8|u8|b1!#3 op=and popc ignored_by_ptxas=pred|v4|row|col#9",
               "satfinite+f16 satfinite+f32 satfinite+bf16 satfinite+tf32 satfinite+e4m3 satfinite+e5m2",
               "and>popc popc>and and>b1") for name in ("wgmma.mma_async", "wgmma.mma_async.sp")),
)

_WRITTEN += (
    # --- warp-level matrix multiply (§9.7.14.4–6)
    *(_grammar(name, f"sync! aligned! {_MMA_SHAPE}! layout=row|col!#2 satfinite {_MMA_KIND} block_scale "
               f"{_MMA_SCALE_VEC} type={_MMA_TYPES}#6 rounding=rn|rz|rm|rp op=xor|and popc {lenient}",
               requirements=_MMA_REQUIREMENTS)
      for name, lenient in (("mma", "ignored_by_ptxas=bf16x2#9"), ("mma.sp", _MMA_IGNORED),
                            ("mma.sp::ordered_metadata", _MMA_IGNORED))),
    *(_grammar(f"wmma.load.{matrix}", f"sync! aligned! layout=row|col! {_WMMA_SHAPE}! {_WMMA_SPACE} type={_WMMA_TYPES}! "
               + lenient)
      for matrix, lenient in (("a", _WMMA_LOAD_STORE_IGNORED), ("b", _WMMA_LOAD_STORE_IGNORED), ("c", ""))),
    _grammar("wmma.store.d", f"sync! aligned! layout=row|col! {_WMMA_SHAPE}! {_WMMA_SPACE} type={_WMMA_TYPES}!"),
    _grammar("wmma.mma", f"sync! aligned! layout=row|col!#2 {_WMMA_SHAPE}! type={_WMMA_TYPES}#4 satfinite "
             "rounding=rn|rz|rm|rp op=xor|and popc " + _WMMA_MMA_IGNORED, requirements=_MMA_REQUIREMENTS),
    # --- asynchronous copies (§9.7.9.25)
    _grammar("cp.async", f"cache=ca|cg! space=shared|shared::cta! src=global! {_L2_HINT} prefetch=L2::64B|L2::128B|L2::256B"),
    _grammar("cp.async.commit_group", ""),
    _grammar("cp.async.wait_group", ""),
    _grammar("cp.async.wait_all", ""),
    _grammar("cp.async.mbarrier.arrive", "noinc space=shared|shared::cta type=b64!"),
    _grammar("cp.async.bulk", "dst=shared::cluster|shared::cta|global! src=global|shared::cta! "
             f"completion=mbarrier::complete_tx::bytes|bulk_group! multicast=multicast::cluster {_L2_HINT} cp_mask "
             "ignored_by_ptxas=cta|cluster|gpu|sys#9", "shared::cluster+cp_mask"),
    _grammar("cp.async.bulk.tensor", f"dim=1d|2d|3d|4d|5d! dst=shared::cluster|shared::cta|global! src=global|shared::cta! "
             f"load_mode=tile|im2col|im2col_no_offs|tile::gather4|tile::scatter4|im2col::w|im2col::w::128 {_CTA_GROUP} "
             f"completion=mbarrier::complete_tx::bytes|bulk_group! multicast=multicast::cluster {_L2_HINT}",
             # gathers load; scatters and im2col_no_offs store
             _IM2COL_DIMENSIONS + " " + " ".join(f"{dim}+{mode}" for dim in ("1d", "3d", "4d", "5d")
                                                  for mode in ("tile::gather4", "tile::scatter4"))
             + " shared::cluster+shared::cta mbarrier::complete_tx::bytes+im2col_no_offs mbarrier::complete_tx::bytes+tile::scatter4 "
             "bulk_group+tile::gather4"),
    _grammar("cp.async.bulk.prefetch", f"level=L2! src=global! {_L2_HINT}"),
    _grammar("cp.async.bulk.prefetch.tensor", f"dim=1d|2d|3d|4d|5d! level=L2! src=global! "
             f"load_mode=tile|im2col|im2col_no_offs|tile::gather4|im2col::w|im2col::w::128 {_L2_HINT}", _IM2COL_DIMENSIONS),
    _grammar("cp.async.bulk.commit_group", ""),
    _grammar("cp.async.bulk.wait_group", "read"),
    # --- st.async, red.async (§9.7.9.12, §9.7.13.6)
    _grammar("st.async", "sem=weak|release mmio scope=cluster|gpu|sys space=shared::cluster|shared::cta|shared|global "
             "completion=mbarrier::complete_tx::bytes vec=v2|v4 "
             "type=b32|b64|u32|u64|s32|s64|f32|f64!",
             "weak+cluster weak+gpu weak+sys shared::cluster+gpu shared::cluster+sys", "release>scope"),
    # --- grid-wide barriers (§9.7.13.1)
    # `.arrive` and `.red` must follow the opcode (or `.cta`) directly, even past modifiers ptxas
    # otherwise ignores; `.sync` need not. `bar` is `barrier` with `.aligned` implied.
    *(_grammar(name, "sync! " + aligned + lenient) for name, aligned, lenient in _BARRIERS),
    *(_grammar(f"{name}.arrive", aligned + lenient) for name, aligned, lenient in _BARRIERS),
    *(_grammar(f"{name}.red", "op=popc|and|or! type=u32|pred! " + aligned + lenient, "popc+pred and+u32 or+u32")
      for name, aligned, lenient in _BARRIERS),
    # --- tensor maps (§9.7.9.28)
    _grammar("tensormap.replace", "mode=tile! field=global_address|rank|box_dim|global_dim|global_stride|element_stride|"
             "elemtype|interleave_layout|swizzle_mode|swizzle_atomicity|fill_mode! space=global|shared::cta "
             "size=b1024! type=b32|b64!"),
    # --- multimem (§9.7.9.16)
    _grammar("multimem.ld_reduce", f"sem=weak|relaxed|acquire {_SCOPE} space=global ignored_by_ptxas=pred#9 op=min|max|add|and|or|xor! "
             f"acc=acc::f32|acc::f16 vec=v2|v4|v8 type={_MULTIMEM_TYPES}!", _MULTIMEM_EXCLUSIONS, _MULTIMEM_ORDER),
    _grammar("multimem.st", f"sem=weak|relaxed|release {_SCOPE} space=global ignored_by_ptxas=pred#9 vec=v2|v4|v8 "
             f"type={_MULTIMEM_TYPES}!", _WEAK_HAS_NO_SCOPE, _MULTIMEM_ORDER),
    _grammar("multimem.red", f"sem=relaxed|release {_SCOPE} space=global ignored_by_ptxas=pred#9 op=min|max|add|and|or|xor|inc|dec! "
             f"vec=v2|v4|v8 type={_MULTIMEM_TYPES}!", _WEAK_HAS_NO_SCOPE, _MULTIMEM_ORDER),
)

_WRITTEN += (
    # --- atomics and reductions with scopes (§9.7.13.5–6)
    _grammar("atom", f"sem=relaxed|acquire|release|acq_rel {_SCOPE} space=global|shared|shared::cta|shared::cluster "
             f"op=and|or|xor|cas|exch|add|inc|dec|min|max! noftz {_L2_HINT} vec=v2|v4|v8 type={_ATOMIC_TYPES}! "
             "ignored_by_ptxas=pred#9", requirements=_ATOMIC_REQUIREMENTS),
    _grammar("red", f"sem=relaxed|release {_SCOPE} space=global|shared|shared::cta|shared::cluster "
             f"op=and|or|xor|add|inc|dec|min|max! noftz {_L2_HINT} vec=v2|v4|v8 type={_ATOMIC_TYPES}! "
             "ignored_by_ptxas=pred#9", requirements=_ATOMIC_REQUIREMENTS),
    _grammar("red.async", "sem=relaxed|release! scope=cluster|gpu|sys space=shared::cluster|global "
             "completion=mbarrier::complete_tx::bytes op=and|or|xor|add|inc|dec|min|max! mmio "
             f"type={_ATOMIC_TYPES}|u16|s16!",
             "release+shared::cluster release+mbarrier::complete_tx::bytes release+cluster mmio+shared::cluster",
             _ATOMIC_REQUIREMENTS),
    # --- conversions to and from the narrow floats (§9.7.9.21); other cvt forms are not judged
    # Rounding toward zero or up is for the ue8m0 scale format only, which has no relu.
    _grammar("cvt", f"rounding=rn|rz|rp|rs! satfinite relu type={_CVT_TYPES}!#2 ignored_by_ptxas=pred#9",
             "ue8m0x2+relu", "rz>ue8m0x2 rp>ue8m0x2", when=_NARROW_FLOATS),
    # --- loads and stores (§9.7.9.8–9)
    _grammar("ld", f"mmio sem=weak|volatile|relaxed|acquire {_LD_SPACES} {_LD_ST_COMMON} nc cache=ca|cg|cs|lu|cv "
             "prefetch=L2::64B|L2::128B|L2::256B", _LD_ST_EXCLUSIONS, _LD_ST_REQUIREMENTS),
    _grammar("st", f"mmio sem=weak|volatile|relaxed|release {_ST_SPACES} {_LD_ST_COMMON} cache=wb|cg|cs|wt",
             _LD_ST_EXCLUSIONS, _LD_ST_REQUIREMENTS),
    _grammar("st.bulk", "sem=weak space=shared::cta"),
)

# The slot of modifiers ptxas accepts and ignores on one instruction (DISAGREEMENTS.md): taken,
# never suggested.
IGNORED_SLOT = "ignored_by_ptxas"

# Modifiers ptxas accepts (and ignores) on any instruction: the decompression formats, matrix
# layouts, accumulator types and tensor-map fields. ptxlint reports them only where they mean
# something (DISAGREEMENTS.md).
IGNORED_BY_PTXAS = frozenset({
    "b8x16", "b6x16_p32", "b4x16_p64", "acc::f16", "acc::f32",
    # the tensor-map field names of tensormap.replace
    "global_address", "rank", "box_dim", "global_dim", "global_stride", "element_stride", "elemtype",
    "interleave_layout", "swizzle_mode", "swizzle_atomicity", "fill_mode",
})

_WRITTEN_BY_NAME = {written[0]: written for written in _WRITTEN}
JUDGED_BASES = frozenset(name.split(".")[0] for name in _WRITTEN_BY_NAME)


@cache
def _grammar_named(instruction: str) -> Grammar | None:
    written = _WRITTEN_BY_NAME.get(instruction)
    return _parse(written) if written is not None else None


def all_grammars() -> tuple[Grammar, ...]:
    """Every instruction's grammar (the ISA case generator enumerates them)."""
    return tuple(grammar for name in _WRITTEN_BY_NAME if (grammar := _grammar_named(name)) is not None)


@lru_cache(maxsize=4096)
def grammar_of(base: str, modifiers: tuple[str, ...]) -> tuple[Grammar, int] | None:
    """The grammar of this opcode and how many modifiers name its operation (`tcgen05.ld.red`: 2)."""
    for words in range(min(len(modifiers), 4), -1, -1):
        grammar = _grammar_named(".".join((base, *modifiers[:words])))
        if grammar is not None:
            if grammar.when and grammar.when.isdisjoint(modifiers):
                return None
            return grammar, words
    return None


@record
class GrammarProblem:
    """What is wrong with an opcode's qualifiers, and which modifier to point at."""

    index: int | None  # the modifier to point at; None: the opcode
    message: str
    help: str | None = None


def _suggestion(grammar: Grammar, modifier: str) -> str:
    """The values the instruction takes in the slot ``modifier`` most resembles."""
    slots = [slot for slot in grammar.slots if slot.name != IGNORED_SLOT]
    values = {value: slot for slot in slots for value in slot.values}
    import difflib  # only when reporting a problem: a clean run never loads it

    close = difflib.get_close_matches(modifier, list(values), n=1, cutoff=0.6)
    if close:
        return f"it takes {values[close[0]].describe()}"
    if not slots:
        return "it takes no modifiers"
    return "its modifiers are " + "; ".join(slot.describe() for slot in slots)


def _needs(slot: Slot) -> str:
    if len(slot.values) == 1 and not slot.patterns:
        return f"`.{slot.values[0]}`"
    return f"one of {slot.describe()}"


# Instructions whose every operation the grammars list: an opcode of theirs that names none is
# not an instruction.
_COMPLETE_BASES = frozenset({"wmma", "tcgen05", "mbarrier", "wgmma"})


@lru_cache(maxsize=8192)
def grammar_problems(base: str, modifiers: tuple[str, ...], target_number: int = 0) -> tuple[GrammarProblem, ...]:
    """What is wrong with this opcode's modifiers; ``target_number`` is the module's architecture
    (90 for sm_90a; 0 when unknown, which judges every required slot)."""
    found = grammar_of(base, modifiers)
    if found is None and base in _COMPLETE_BASES and "" not in modifiers:
        operations = sorted({name.split(".")[1] for name in _WRITTEN_BY_NAME if name.startswith(base + ".")})
        return (GrammarProblem(None, f"`{base}.{'.'.join(modifiers[:1])}` is not an instruction",
                               f"`{base}` has " + ", ".join(f"`.{operation}`" for operation in operations)),)
    if found is None or "" in modifiers:  # an empty modifier is a syntax error, reported as such
        return ()
    grammar, operation_words = found
    name = grammar.instruction
    qualifiers = modifiers[operation_words:]
    problems = []
    filled: dict[str, list[int]] = {}
    for index, modifier in enumerate(qualifiers, operation_words):
        # A value several slots take (`.global` as destination and source) fills the first with room.
        slot = next((s for s in grammar.slots if s.takes(modifier) and len(filled.get(s.name, ())) < s.count),
                    grammar.slot_of(modifier))
        if slot is not None:
            filled.setdefault(slot.name, []).append(index)
        elif modifier not in IGNORED_BY_PTXAS:
            problems.append(GrammarProblem(
                index, f"`.{modifier}` is not a modifier of `{name}`; {_suggestion(grammar, modifier)}",
                f"remove `.{modifier}`, or write one of the modifiers `{name}` takes"))
    missing = []
    for slot in grammar.slots:
        indices = filled.get(slot.name, [])
        if not indices:
            if slot.required and (not target_number or target_number >= slot.required_from):
                missing.append(slot)
        # ptxas accepts `.sync` repeated
        elif len(indices) > slot.count and not (slot.name == "sync" and len({modifiers[i] for i in indices}) == 1):
            problems.append(GrammarProblem(
                indices[slot.count], f"`{name}` takes {slot.count} `{slot.name}` qualifier{'s' if slot.count > 1 else ''}, "
                f"not {len(indices)}", f"keep one of {', '.join(f'`.{modifiers[i]}`' for i in indices)}"))
        elif slot.first and indices[0] != operation_words:
            problems.append(GrammarProblem(
                indices[0], f"`.{modifiers[indices[0]]}` must directly follow `{name}`",
                f"move `.{modifiers[indices[0]]}` right after `{name}`"))
        elif slot.required and len(indices) < slot.count:
            problems.append(GrammarProblem(
                indices[-1], f"`{name}` takes {slot.count} `{slot.name}` qualifiers, not {len(indices)}",
                f"write {slot.count} `{slot.name}` qualifiers"))
    if missing:
        # One finding for the instruction, naming every missing slot.
        problems.append(GrammarProblem(
            None, f"`{name}` needs " + "; ".join(_needs(slot) for slot in missing),
            "required: " + ", ".join(f"`{slot.name}`" for slot in missing)))
    for first, second in grammar.exclusions:
        if first in qualifiers and second in qualifiers:
            problems.append(GrammarProblem(
                modifiers.index(second, operation_words), f"`.{second}` cannot be combined with `.{first}` in `{name}`",
                f"keep `.{first}` or `.{second}`, not both"))
    for value, needed in grammar.requirements:
        choices = needed.split("|")  # a value or a slot name, or several values any of which will do
        if value in qualifiers and not any(choice in qualifiers or choice in filled for choice in choices):
            slot = next((s for s in grammar.slots if s.name == needed), None)
            wanted = _needs(slot) if slot else " or ".join(f"`.{choice}`" for choice in choices)
            problems.append(GrammarProblem(
                modifiers.index(value, operation_words), f"`.{value}` on `{name}` needs {wanted}", f"add {wanted}"))
    return tuple(problems)
