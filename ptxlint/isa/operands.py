"""The operand forms of each instruction: how many operands it takes and what each may be (PTX ISA
§9.7, the "Syntax" block of each instruction, checked against ptxas 13.0; where they differ,
ptxas wins and DISAGREEMENTS.md records it).

An instruction is named as in :mod:`ptxlint.isa.grammar` (its opcode base and operation words,
the most specific name wins). Its forms are written compactly, one string per accepted operand
list, operands separated by commas; each operand is the set of kinds it may be:

    p  a predicate register          i  an immediate
    h  a 16-bit register             a  an address `[...]`
    r  a 32-bit register             v  a brace vector (its size: :mod:`ptxlint.isa.shapes`)
    b  a 32-bit integer register     _  the sink `_`
    R  a 64-bit register             w  a brace vector of 32-bit registers

`b_|p` is a pair `d|p` whose first half may be `b` or `_`. A trailing `?` makes the operands from
there on optional (each form lists what may be left off, in order). A form may apply only when the
opcode carries some qualifiers (`+shared::cluster`) or lacks them (`-shared::cluster`).

Operands whose kind cannot be known from the text alone (a register declared nowhere in sight, a
symbol, an expression, a special register, a negated predicate) match every kind: precision first.
"""

from __future__ import annotations

from functools import cache, lru_cache
from ptxlint.records import record

# What each letter accepts, for messages.
KIND_NAMES = {
    "p": "a predicate", "h": "a 16-bit register", "r": "a 32-bit register", "b": "a 32-bit integer register",
    "R": "a 64-bit register", "i": "an immediate", "a": "an address", "v": "a vector",
    "w": "a vector of 32-bit registers", "_": "the sink `_`",
}
# The kinds an operand has (a 32-bit integer register is also a 32-bit register; a vector of
# 32-bit registers is also a vector; a vector of elements not known here fits both).
_IMPLIED = {"b": "br", "w": "wv", "u": "uvw"}


@record
class OperandForm:
    """One accepted operand list: per position, the kinds allowed there (a pair: two such sets)."""

    positions: tuple[str, ...]  # "ri", "r_|p"
    required: int  # how many operands must be present; the rest are optional
    needs: frozenset[str] = frozenset()  # modifiers the opcode must carry for this form
    excludes: frozenset[str] = frozenset()  # modifiers it must not carry

    def applies(self, modifiers: tuple[str, ...]) -> bool:
        return self.needs.issubset(modifiers) and self.excludes.isdisjoint(modifiers)


def _form(text: str) -> OperandForm:
    """`a, ri ? ri`; conditions first: `+shared::cluster -noComplete : R_, a`."""
    needs: set[str] = set()
    excludes: set[str] = set()
    if ":" in text.split(",")[0] and text.lstrip().startswith(("+", "-")):
        condition, _, text = text.partition(" : ")
        for word in condition.split():
            (needs if word[0] == "+" else excludes).add(word[1:])
    required_part, _, optional_part = text.partition("?")
    required = [p.strip() for p in required_part.split(",") if p.strip()]
    optional = [p.strip() for p in optional_part.split(",") if p.strip()]
    return OperandForm(tuple(required + optional), len(required), frozenset(needs), frozenset(excludes))


# (instruction, its forms). An instruction not listed is not judged.
_WRITTEN: dict[str, tuple[str, ...]] = {
    # --- warp and warpgroup synchronisation
    "elect": ("b_|p, bi",),
    "setmaxnreg": ("i",),
    "barrier.cluster.arrive": ("",),
    "barrier.cluster.wait": ("",),
    # --- mbarrier (§9.7.13.15)
    "mbarrier.init": ("a, bi",),
    "mbarrier.inval": ("a",),
    "mbarrier.expect_tx": ("a, bi",),
    "mbarrier.complete_tx": ("a, bi",),
    # With `.shared::cluster` the state is not returned: the destination is the sink.
    "mbarrier.arrive": ("+noComplete : R_, a, bi", "-noComplete -shared::cluster : R_, a ? bi",
                        "-noComplete +shared::cluster : _, a ? bi"),
    "mbarrier.arrive_drop": ("+noComplete : R_, a, bi", "-noComplete -shared::cluster : R_, a ? bi",
                             "-noComplete +shared::cluster : _, a ? bi"),
    "mbarrier.arrive.expect_tx": ("-shared::cluster : R_, a, bi", "+shared::cluster : _, a, bi"),
    "mbarrier.arrive_drop.expect_tx": ("-shared::cluster : R_, a, bi", "+shared::cluster : _, a, bi"),
    "mbarrier.test_wait": ("+parity : p, a, bi", "-parity : p, a, Ri"),
    "mbarrier.try_wait": ("+parity : p, a, bi ? bi", "-parity : p, a, Ri ? bi"),
    "mbarrier.pending_count": ("b, Ri",),
    # --- st.async (§9.7.9.12)
    # the value: a register or vector of the type's width (written out below, by type)
    # --- tcgen05 (§9.7.16)
    "tcgen05.alloc": ("a, bi",),
    "tcgen05.dealloc": ("bi, bi",),
    "tcgen05.relinquish_alloc_permit": ("",),
    "tcgen05.commit": ("+multicast::cluster : a, h", "-multicast::cluster : a"),
    "tcgen05.shift": ("a",),
    "tcgen05.fence::before_thread_sync": ("",),
    "tcgen05.fence::after_thread_sync": ("",),
    "tcgen05.wait::ld": ("",),
    "tcgen05.wait::st": ("",),
    # the half-split offset belongs to `.16x32bx2` (PTX402 says when it is missing or extra)
    "tcgen05.ld": ("w, a ? i",),
    "tcgen05.st": ("a, i, w", "a, w"),
    "tcgen05.ld.red": ("w, r, a ? i",),
    "tcgen05.cp": ("a, Ri",),
    # --- wgmma (§9.7.15)
    "wgmma.fence": ("",),
    "wgmma.commit_group": ("",),
    "wgmma.wait_group": ("i",),
    # --- wgmma (§9.7.15.5.2): A from a descriptor or four registers; scale-d a predicate; the
    # scales and transposes immediates (half precision takes both transposes, A's only from a
    # descriptor; tf32 and the fp8 types take the scales; integers neither). scale-d may be an
    # immediate 0 or 1, as Triton writes it.
    "wgmma.mma_async": (
        "+f16 -e4m3 -e5m2 -s32 : w, Ri, Ri, pi, i, i, i, i", "+f16 -e4m3 -e5m2 -s32 : w, w, Ri, pi, i, i, i",
        "+bf16 : w, Ri, Ri, pi, i, i, i, i", "+bf16 : w, w, Ri, pi, i, i, i",
        "+tf32 : w, Ri, Ri, pi, i, i", "+tf32 : w, w, Ri, pi, i, i",
        "+e4m3 : w, Ri, Ri, pi, i, i", "+e4m3 : w, w, Ri, pi, i, i",
        "+e5m2 : w, Ri, Ri, pi, i, i", "+e5m2 : w, w, Ri, pi, i, i",
        "+s32 : w, Ri, Ri, pi", "+s32 : w, w, Ri, pi",
    ),
    # the sparse form adds the metadata and the sparsity selector after B
    "wgmma.mma_async.sp": (
        "+f16 -e4m3 -e5m2 -s32 : w, Ri, Ri, ri, i, pi, i, i, i, i", "+f16 -e4m3 -e5m2 -s32 : w, w, Ri, ri, i, pi, i, i, i",
        "+bf16 : w, Ri, Ri, ri, i, pi, i, i, i, i", "+bf16 : w, w, Ri, ri, i, pi, i, i, i",
        "+tf32 : w, Ri, Ri, ri, i, pi, i, i", "+tf32 : w, w, Ri, ri, i, pi, i, i",
        "+e4m3 : w, Ri, Ri, ri, i, pi, i, i", "+e4m3 : w, w, Ri, ri, i, pi, i, i",
        "+e5m2 : w, Ri, Ri, ri, i, pi, i, i", "+e5m2 : w, w, Ri, ri, i, pi, i, i",
        "+s32 : w, Ri, Ri, ri, i, pi", "+s32 : w, w, Ri, ri, i, pi",
    ),
    # --- tcgen05.mma (§9.7.16.10.9): [d], a-desc or [a], b-desc, idesc, ({mask},) enable-input-d
    # (, scale-input-d, an immediate); block scaling adds the scale factors' tensor memory.
    "tcgen05.mma": (
        "-block_scale -sp : a, Rai, Ri, bi, pi ? i", "-block_scale -sp : a, Rai, Ri, bi, w, pi ? i",
        "-block_scale +sp : a, Rai, Ri, a, bi, pi ? i", "-block_scale +sp : a, Rai, Ri, a, bi, w, pi ? i",
        "+block_scale -sp : a, Rai, Ri, bi, a, a, pi", "+block_scale +sp : a, Rai, Ri, a, bi, a, a, pi",
    ),
    "tcgen05.mma.sp": ("-block_scale : a, Rai, Ri, a, bi, pi ? i", "-block_scale : a, Rai, Ri, a, bi, w, pi ? i",
                       "+block_scale : a, Rai, Ri, a, bi, a, a, pi"),
    "tcgen05.mma.ws": ("-block_scale : a, Rai, Ri, bi, pi ? Ri", "+block_scale : a, Rai, Ri, bi, a, a, pi ? Ri"),
    "tcgen05.mma.ws.sp": ("a, Rai, Ri, a, bi, pi ? Ri",),
    # --- cp.async.bulk.tensor (§9.7.9.25.5.1): written out below, by mode
    # --- matrix loads and stores
    "ldmatrix": ("w, a",),
    "stmatrix": ("a, w",),
    "wmma.load.a": ("+f64 : v, a ? bi", "-f64 : w, a ? bi"),
    "wmma.load.b": ("+f64 : v, a ? bi", "-f64 : w, a ? bi"),
    "wmma.load.c": ("+f64 : v, a ? bi", "-f64 : w, a ? bi"),
    "wmma.store.d": ("+f64 : a, v ? bi", "-f64 : a, w ? bi"),
    "wmma.mma": ("v, v, v, v",),
    "mma": ("+f64 : v, v, v, v", "-f64 : w, w, w, w"),
    # sparse: the metadata and the sparsity selector follow C
    "mma.sp": ("v, v, v, v, ri, ri",),
    "mma.sp::ordered_metadata": ("v, v, v, v, ri, ri",),
}

# cp.async.bulk.tensor: the load takes [dst], [tensorMap, coordinates], [mbar], then the im2col
# offsets (im2col modes), a CTA mask (multicast) and a cache policy (cache hint), in that order;
# the store to global takes [tensorMap, coordinates], [src] and a cache policy.
_LOAD_MODES_WITH_OFFSETS = ("im2col", "im2col::w", "im2col::w::128")


def _bulk_tensor_forms() -> tuple[str, ...]:
    forms = []
    for offsets in (True, False):
        for multicast in (True, False):
            for hint in (True, False):
                if offsets:
                    conditions = [[f"+{mode}"] for mode in _LOAD_MODES_WITH_OFFSETS]
                else:
                    conditions = [[f"-{mode}" for mode in _LOAD_MODES_WITH_OFFSETS]]
                for condition in conditions:
                    words = condition + ["-bulk_group"]
                    words += ["+multicast::cluster" if multicast else "-multicast::cluster"]
                    words += ["+L2::cache_hint" if hint else "-L2::cache_hint"]
                    # ptxas takes a register for the destination and the mbarrier address
                    operands = ["aRrh", "a", "aRrh"] + (["v"] if offsets else []) + (["hi"] if multicast else []) + (["Ri"] if hint else [])
                    forms.append(" ".join(words) + " : " + ", ".join(operands))
    forms.append("+bulk_group -L2::cache_hint : a, aRrh")
    forms.append("+bulk_group +L2::cache_hint : a, aRrh, Ri")
    return tuple(forms)


_WRITTEN["cp.async.bulk.tensor"] = _bulk_tensor_forms()


def _st_async_forms() -> tuple[str, ...]:
    """st.async [a], b{, [mbar]}: b a register (or `.v2`/`.v4` vector) as wide as the type."""
    forms = []
    for types, value in (("b32 u32 s32 f32", "riw"), ("b64 u64 s64 f64", "Riv")):
        for kind in types.split():
            forms += [f"+{kind} +mbarrier::complete_tx::bytes : a, {value}, a",
                      f"+{kind} -mbarrier::complete_tx::bytes : a, {value}"]
    return tuple(forms)


_WRITTEN["st.async"] = _st_async_forms()

_OPERATION_WORDS = 4


@cache
def _forms_named(instruction: str) -> tuple[OperandForm, ...] | None:
    written = _WRITTEN.get(instruction)
    return tuple(_form(text) for text in written) if written is not None else None


JUDGED_BASES = frozenset(name.split(".")[0] for name in _WRITTEN)


@lru_cache(maxsize=4096)
def operand_forms(base: str, modifiers: tuple[str, ...]) -> tuple[str, tuple[OperandForm, ...]] | None:
    """The instruction's name and the operand forms that apply to this opcode; None if not judged."""
    if base not in JUDGED_BASES:
        return None
    for words in range(min(len(modifiers), _OPERATION_WORDS), -1, -1):
        name = ".".join((base, *modifiers[:words]))
        forms = _forms_named(name)
        if forms is not None:
            return name, tuple(form for form in forms if form.applies(modifiers))
    return None


def _accepts(allowed: str, kind: str) -> bool:
    if kind == "?":
        return True
    return any(k in allowed for k in _IMPLIED.get(kind, kind))


def position_accepts(allowed: str, kind: str) -> bool:
    """Whether an operand of ``kind`` (a letter, `?` unknown, or `x|y` for a pair) fits ``allowed``."""
    if "|" in allowed:
        if "|" not in kind:
            return kind == "?"
        first, second = allowed.split("|")
        kind_first, kind_second = kind.split("|")
        return _accepts(first, kind_first) and _accepts(second, kind_second)
    if "|" in kind:
        return False
    return _accepts(allowed, kind)


@record
class OperandProblem:
    """A wrong operand (``position``) or a wrong operand count (``position`` None)."""

    position: int | None
    message: str
    help: str | None = None


def describe(allowed: str) -> str:
    if "|" in allowed:
        first, second = allowed.split("|")
        return f"a pair `d|p` of {describe(first)} and {describe(second)}"
    names = [KIND_NAMES[k] for k in allowed]
    return ", ".join(names[:-1]) + (" or " if len(names) > 1 else "") + names[-1]


@lru_cache(maxsize=8192)  # a kernel repeats a few hundred distinct opcode and operand shapes
def operand_problems(base: str, modifiers: tuple[str, ...], kinds: tuple[str, ...]) -> tuple[OperandProblem, ...]:
    """What is wrong with the operands of this opcode, each operand given as a kind letter (`?`
    when unknown). Nothing when any applicable form fits."""
    found = operand_forms(base, modifiers)
    if found is None:
        return ()
    name, forms = found
    if not forms:
        return ()
    fitting_count = [form for form in forms if form.required <= len(kinds) <= len(form.positions)]
    if not fitting_count:
        counts = sorted({n for form in forms for n in range(form.required, len(form.positions) + 1)})
        expected = " or ".join(str(n) for n in counts)
        return (OperandProblem(None, f"`{name}` takes {expected} operand{'s' if counts[-1] != 1 else ''}, not {len(kinds)}"),)
    best: list[int] | None = None
    best_form = fitting_count[0]
    for form in fitting_count:
        wrong = [index for index, kind in enumerate(kinds) if not position_accepts(form.positions[index], kind)]
        if not wrong:
            return ()
        if best is None or len(wrong) < len(best):
            best, best_form = wrong, form
    assert best is not None
    index = best[0]
    allowed = best_form.positions[index]
    return (OperandProblem(index, f"operand {index + 1} of `{name}` must be {describe(allowed)}"),)
