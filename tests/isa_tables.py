"""ISA-conformance cases written from the PTX ISA manual's own syntax tables, independently of
ptxlint's data: this module never imports `ptxlint.isa` (a generator built from the data it tests
cannot find what the data lacks). ptxas judges every case (tests/isa_cases.py's cached oracle).

Fifteen instruction families. For each, the manual's syntax is written below as forms (an opcode
and its operands) and slot tables (each qualifier slot and the values the manual lists), and the
cases cross, deterministically:

- every value of every qualifier slot, each slot dropped, and values of other slots put in its
  place;
- every operand replaced by each other operand kind (a 32- or 64-bit register, a predicate, a
  float register, an immediate, the sink `_`, an address, a vector) and, for vector operands,
  every size around the legal one;
- immediate operands over their range's edges and off its multiples;
- every target ptxas 13.0 knows, under PTX versions from before the target's introduction (where
  that is still a valid header) to 9.0.

The expected verdicts are never written here: ptxas decides which cases are right.
`python tests/isa_tables.py` prints how many cases each family has.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from isa_cases import Case

# Every target ptxas 13.0 assembles (`ptxas --help`, --gpu-name) and the PTX version that
# introduced it, as ptxas knows them.
FIRST_VERSION = {
    "sm_75": "6.3", "sm_80": "7.0", "sm_86": "7.1", "sm_87": "7.4", "sm_88": "7.3", "sm_89": "7.8",
    "sm_90": "7.8", "sm_90a": "8.0",
    "sm_100": "8.6", "sm_100a": "8.6", "sm_100f": "8.8", "sm_103": "8.8", "sm_103a": "8.8", "sm_103f": "8.8",
    "sm_110": "9.0", "sm_110a": "9.0", "sm_110f": "9.0",
    "sm_120": "8.7", "sm_120a": "8.7", "sm_120f": "8.8", "sm_121": "8.8", "sm_121a": "8.8", "sm_121f": "8.8",
}
TARGETS = tuple(FIRST_VERSION)
VERSIONS = ("6.3", "6.4", "6.5", "7.0", "7.1", "7.3", "7.4", "7.8", "8.0", "8.1", "8.2", "8.3", "8.4", "8.5",
            "8.6", "8.7", "8.8", "9.0")


def _key(version: str) -> tuple[int, int]:
    major, minor = version.split(".")
    return int(major), int(minor)


def headers(since: str = "6.3") -> list[tuple[str, str]]:
    """Every (version, target) pair ptxas accepts as a header, from ``since``."""
    return [(version, target) for target in TARGETS for version in VERSIONS
            if _key(version) >= max(_key(FIRST_VERSION[target]), _key(since))]


def vector(count: int, prefix: str = "%r", start: int = 10) -> str:
    return "{" + ", ".join(f"{prefix}{start + i}" for i in range(count)) + "}"


def around(count: int, limit: int = 128) -> list[int]:
    """Every size around the legal one: one less, one more, double, half, and one."""
    sizes = {count, count - 1, count + 1, count * 2, count // 2, 1, count + 2}
    return sorted(size for size in sizes if 1 <= size <= limit)


# ----------------------------------------------------------------------------- operand kinds

# What each operand may be replaced by: one of every other kind.
_SCALAR_ALTERNATIVES = ("%r5", "%rd5", "%p5", "%f5", "%h5", "7", "_", "[%r5]")
# The register prefixes of the test prelude (isa_cases.PRELUDE) and the kind each declares.
_PREFIX_LIMIT = {"%r": 250, "%f": 130, "%rd": 30, "%fd": 7, "%h": 7, "%p": 7}


def operand_alternatives(operand: str) -> list[str]:
    """Each other operand kind, and for a vector every size around its own."""
    if operand.startswith("{"):
        elements = [e.strip() for e in operand.strip("{}").split(",")]
        first = elements[0]
        prefix = first.rstrip("0123456789")
        start = int(first[len(prefix):]) if first[len(prefix):].isdigit() else 10
        limit = _PREFIX_LIMIT.get(prefix, 8) - start
        sizes = [vector(size, prefix, start) for size in around(len(elements), limit) if size != len(elements)]
        other = "%rd" if prefix != "%rd" else "%r"
        return sizes + [first, vector(len(elements), other, 1 if other == "%rd" else 10)]
    if operand.startswith("["):
        # A predicate or the sink where an address belongs makes ptxas 13.0 run out of memory
        # (cp.async.bulk.tensor, tcgen05.st): left out, the other kinds are tried.
        return [alternative for alternative in _SCALAR_ALTERNATIVES if alternative not in (operand, "%p5", "_")]
    return [alternative for alternative in _SCALAR_ALTERNATIVES if alternative != operand]


def instruction(opcode: str, operands: Iterable[str]) -> str:
    operands = list(operands)
    return f"{opcode} {', '.join(operands)};" if operands else f"{opcode};"


class Family:
    """The cases of one family, collected without duplicates."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.cases: dict[str, Case] = {}

    def add(self, version: str, target: str, opcode: str, operands: Iterable[str] = ()) -> None:
        case = Case(self.name, version, target, instruction(opcode, operands))
        self.cases.setdefault(case.key, case)

    def operand_kinds(self, version: str, target: str, opcode: str, operands: list[str], skip: Iterable[int] = ()) -> None:
        """The form, and each operand replaced by each other kind (one at a time)."""
        self.add(version, target, opcode, operands)
        for position, operand in enumerate(operands):
            if position in skip:
                continue
            for alternative in operand_alternatives(operand):
                self.add(version, target, opcode, operands[:position] + [alternative] + operands[position + 1:])
        # one operand too few and one too many
        if operands:
            self.add(version, target, opcode, operands[:-1])
        self.add(version, target, opcode, operands + ["%r6"])

    def targets(self, forms: list[tuple[str, list[str]]], since: str = "6.3", stride: int = 1) -> None:
        """Each form under every header; with ``stride`` > 1, every target with a rotating subset
        of its versions (each version still appears for each target across the forms)."""
        all_headers = headers(since)
        for index, (opcode, operands) in enumerate(forms):
            for number, (version, target) in enumerate(all_headers):
                if stride == 1 or (number + index) % stride == 0 or version == "9.0":
                    self.add(version, target, opcode, operands)


def slot_variants(slots: list[tuple[str, ...]], chosen: list[str]) -> Iterator[list[str]]:
    """The chosen value per slot ("" for none), then each slot set to each of its values, dropped,
    and given another slot's value."""
    yield list(chosen)
    every = sorted({value for values in slots for value in values if value})
    for index, values in enumerate(slots):
        for value in (*values, ""):
            if value != chosen[index]:
                yield chosen[:index] + [value] + chosen[index + 1:]
        for foreign in every:
            if foreign not in values:
                yield chosen[:index] + [foreign] + chosen[index + 1:]


def join(words: Iterable[str]) -> str:
    return ".".join(word for word in words if word)


# ----------------------------------------------------------------------------- the families


def elect_sync() -> Family:
    """§9.7.13.12: `elect.sync d|p, membermask;` d a .b32 register or `_`, p a predicate."""
    family = Family("elect.sync")
    destinations = ("%r1|%p1", "_|%p1", "%r1", "%p1", "_", "%p1|%p2", "%r1|%r2", "%rd1|%p1", "%f1|%p1", "%r1|_",
                    "%h1|%p1", "_|_", "7|%p1", "%r1|7")
    masks = ("-1", "0", "0xffffffff", "%r2", "%rd2", "%p2", "%f2", "_", "[%r2]")
    for version, target in (("8.0", "sm_90"), ("8.6", "sm_100a")):
        for destination in destinations:
            for mask in masks:
                family.add(version, target, "elect.sync", [destination, mask])
        for opcode in ("elect", "elect.sync.aligned", "elect.sync.b32", "elect.sync.any", "elect.aligned"):
            family.add(version, target, opcode, ["%r1|%p1", "-1"])
        family.add(version, target, "elect.sync", ["%r1|%p1"])
        family.add(version, target, "elect.sync", ["%r1|%p1", "-1", "%r3"])
    family.targets([("elect.sync", ["%r1|%p1", "-1"]), ("elect.sync", ["_|%p1", "%r2"])])
    return family


def setmaxnreg() -> Family:
    """§9.7.19.5: `setmaxnreg.action.sync.aligned.u32 imm-reg-count;` action .inc/.dec, the count
    a multiple of 8 in 24…256."""
    family = Family("setmaxnreg")
    counts = sorted({*range(0, 272, 8), 1, 4, 12, 20, 23, 25, 31, 36, 100, 129, 250, 255, 257, 264, 320, 512, 1024, -8})
    for version, target in (("8.0", "sm_90a"), ("8.6", "sm_100a"), ("8.8", "sm_100f"), ("8.7", "sm_120a")):
        for action in ("inc", "dec"):
            for count in counts:
                family.add(version, target, f"setmaxnreg.{action}.sync.aligned.u32", [str(count)])
    slots = [("inc", "dec"), ("sync",), ("aligned",), ("u32",)]
    for words in slot_variants(slots, ["inc", "sync", "aligned", "u32"]):
        family.add("8.0", "sm_90a", "setmaxnreg." + join(words), ["64"])
    for words in (["sync", "aligned", "inc", "u32"], ["inc", "sync", "aligned", "s32"], ["inc", "sync", "aligned", "b32"]):
        family.add("8.0", "sm_90a", "setmaxnreg." + join(words), ["64"])
    family.operand_kinds("8.0", "sm_90a", "setmaxnreg.dec.sync.aligned.u32", ["64"])
    family.targets([("setmaxnreg.inc.sync.aligned.u32", ["128"]), ("setmaxnreg.dec.sync.aligned.u32", ["40"])], since="7.8")
    return family


def barrier_cluster() -> Family:
    """§9.7.13.3: `barrier.cluster.arrive{.sem}{.aligned}; barrier.cluster.wait{.acquire}{.aligned};`
    sem .release or .relaxed on arrive."""
    family = Family("barrier.cluster")
    for version, target in (("8.0", "sm_90"), ("7.8", "sm_90"), ("8.6", "sm_100a")):
        for operation in ("arrive", "wait"):
            for sem in ("", "release", "relaxed", "acquire", "acq_rel", "weak"):
                for aligned in ("", "aligned", "sync"):
                    family.add(version, target, "barrier.cluster." + join([operation, sem, aligned]))
        for opcode in ("barrier.cluster", "barrier.cluster.sync", "barrier.cluster.arrive.release.cta.aligned",
                       "barrier.cluster.wait.acquire.cluster", "barrier.cluster.arrive.aligned.release"):
            family.add(version, target, opcode)
        family.add(version, target, "barrier.cluster.arrive", ["0"])
        family.add(version, target, "barrier.cluster.wait", ["%r1"])
    family.targets([("barrier.cluster.arrive.aligned", []), ("barrier.cluster.wait", []),
                    ("barrier.cluster.arrive.relaxed.aligned", []), ("barrier.cluster.wait.acquire.aligned", [])],
                   since="7.8", stride=2)
    return family


def mbarrier() -> Family:
    """§9.7.13.15: init, inval, expect_tx, complete_tx, arrive, arrive_drop, test_wait, try_wait,
    pending_count, with their sem/scope/state-space slots and operand forms."""
    family = Family("mbarrier")
    forms = [
        ("mbarrier.init.shared::cta.b64", ["[mbar]", "%r1"]),
        ("mbarrier.init.shared::cta.b64", ["[mbar]", "32"]),
        ("mbarrier.inval.shared::cta.b64", ["[mbar]"]),
        ("mbarrier.expect_tx.relaxed.cta.shared::cta.b64", ["[mbar]", "%r1"]),
        ("mbarrier.complete_tx.relaxed.cta.shared::cta.b64", ["[mbar]", "%r1"]),
        ("mbarrier.arrive.shared::cta.b64", ["%rd1", "[mbar]"]),
        ("mbarrier.arrive.shared::cta.b64", ["%rd1", "[mbar]", "%r1"]),
        ("mbarrier.arrive.release.cluster.shared::cluster.b64", ["_", "[%r1]"]),
        ("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64", ["%rd1", "[mbar]", "%r1"]),
        ("mbarrier.arrive.noComplete.shared::cta.b64", ["%rd1", "[mbar]", "%r1"]),
        ("mbarrier.arrive_drop.shared::cta.b64", ["%rd1", "[mbar]"]),
        ("mbarrier.arrive_drop.noComplete.shared::cta.b64", ["%rd1", "[mbar]", "%r1"]),
        ("mbarrier.test_wait.shared::cta.b64", ["%p1", "[mbar]", "%rd1"]),
        ("mbarrier.test_wait.parity.shared::cta.b64", ["%p1", "[mbar]", "%r1"]),
        ("mbarrier.try_wait.shared::cta.b64", ["%p1", "[mbar]", "%rd1"]),
        ("mbarrier.try_wait.shared::cta.b64", ["%p1", "[mbar]", "%rd1", "%r2"]),
        ("mbarrier.try_wait.parity.shared::cta.b64", ["%p1", "[mbar]", "%r1"]),
        ("mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64", ["%p1", "[mbar]", "%r1", "1000"]),
        ("mbarrier.pending_count.b64", ["%r1", "%rd1"]),
    ]
    for opcode, operands in forms:
        family.operand_kinds("8.0", "sm_90", opcode, operands)
    # every qualifier slot value on every operation
    slots = [("release", "relaxed", "acquire", "acq_rel"), ("cta", "cluster", "gpu"), ("shared", "shared::cta", "shared::cluster", "global")]
    for opcode, operands in forms:
        operation, rest = opcode.split(".", 2)[1], opcode.split(".")[2:]
        head = ["mbarrier", operation] + [w for w in rest if w in ("parity", "expect_tx", "noComplete")]
        present = [next((w for w in rest if w in values), "") for values in slots]
        for words in slot_variants(slots, present):
            for version, target in (("8.0", "sm_90"), ("8.6", "sm_100a")):
                family.add(version, target, join(head + words + ["b64"]), operands)
    for opcode, operands in forms[:: 2]:
        family.add("8.0", "sm_90", opcode.replace(".b64", ""), operands)
        family.add("8.0", "sm_90", opcode.replace(".b64", ".b32"), operands)
    family.targets([(opcode, operands) for opcode, operands in forms if "cluster" not in opcode and "relaxed" not in opcode],
                   since="7.0", stride=6)
    family.targets([(opcode, operands) for opcode, operands in forms if "cluster" in opcode or "relaxed" in opcode],
                   since="7.8", stride=3)
    return family


_ST_ASYNC_TYPES = ("b32", "b64", "u32", "u64", "s32", "s64", "f32", "f64")


def st_async() -> Family:
    """§9.7.9.12: `st.async{.sem}{.scope}{.ss}{.completion_mechanism}{.vec}.type [a], b, [mbar];`
    (.weak .cluster .shared::cluster .mbarrier::complete_tx::bytes, .v2/.v4 of 32 or 64 bits), and
    the release form `st.async{.mmio}.release.scope{.global}.type [a], b;` (.gpu/.sys)."""
    family = Family("st.async")
    register = {"b32": "%r", "u32": "%r", "s32": "%r", "f32": "%f", "b64": "%rd", "u64": "%rd", "s64": "%rd", "f64": "%rd"}
    for version, target in (("8.1", "sm_90"), ("8.6", "sm_90a"), ("8.7", "sm_100a"), ("8.8", "sm_100f"), ("8.8", "sm_120")):
        for space in ("shared::cluster", "shared::cta", "shared", "global", ""):
            for width in ("", "v2", "v4"):
                for kind in _ST_ASYNC_TYPES:
                    count = int(width[1:]) if width else 1
                    value = f"{register[kind]}2" if count == 1 else vector(count, register[kind], 2)
                    family.add(version, target, join(["st.async", space, "mbarrier::complete_tx::bytes", width, kind]),
                               ["[%r1]", value, "[%r8]"])
        for kind in ("b16", "u8", "b128", "f16"):
            family.add(version, target, f"st.async.shared::cluster.mbarrier::complete_tx::bytes.{kind}", ["[%r1]", "%r2", "[%r8]"])
    base = ["weak", "cluster", "shared::cluster", "mbarrier::complete_tx::bytes", "", "b32"]
    slots = [("weak", "release", "relaxed"), ("cluster", "cta", "gpu", "sys"), ("shared::cluster", "shared::cta", "global"),
             ("mbarrier::complete_tx::bytes",), ("v2", "v4"), ("b32", "u64")]
    for words in slot_variants(slots, base):
        operands = ["[%r1]", "%r2" if "u64" not in words else "%rd2", "[%r8]"]
        if "v2" in words or "v4" in words:
            operands[1] = vector(2 if "v2" in words else 4, "%r" if "u64" not in words else "%rd", 2)
        for version, target in (("8.1", "sm_90"), ("8.7", "sm_100a")):
            family.add(version, target, join(["st.async"] + words), operands)
    family.operand_kinds("8.1", "sm_90", "st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32",
                         ["[%r1]", "{%r2, %r3}", "[%r8]"])
    # the release form (PTX 8.7, sm_100)
    for version, target in (("8.7", "sm_100"), ("8.7", "sm_100a"), ("8.6", "sm_100a"), ("8.7", "sm_90a")):
        for mmio in ("", "mmio"):
            for scope in ("gpu", "sys", "cluster", "cta", ""):
                for space in ("global", "", "shared::cluster"):
                    for kind in ("b32", "u64", "f32", "s64"):
                        family.add(version, target, join(["st.async", mmio, "release", scope, space, kind]),
                                   ["[%rd1]", register[kind] + "2"])
    family.operand_kinds("8.7", "sm_100a", "st.async.release.gpu.global.b32", ["[%rd1]", "%r2"])
    family.targets([("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32", ["[%r1]", "%r2", "[%r8]"]),
                    ("st.async.shared::cta.mbarrier::complete_tx::bytes.v2.b32", ["[%r1]", "{%r2, %r3}", "[%r8]"]),
                    ("st.async.release.gpu.global.b32", ["[%rd1]", "%r2"])], since="8.0", stride=2)
    return family


def tcgen05_misc() -> Family:
    """§9.7.16.7–9: alloc, dealloc, relinquish_alloc_permit, commit, fence, wait, shift."""
    family = Family("tcgen05 misc")
    groups = ("cta_group::1", "cta_group::2", "cta_group::4", "")
    forms = [
        (["tcgen05", "alloc", "CG", "sync", "aligned", "shared::cta", "b32"], ["[smem]", "64"]),
        (["tcgen05", "alloc", "CG", "sync", "aligned", "shared::cta", "b32"], ["[%r1]", "%r2"]),
        (["tcgen05", "dealloc", "CG", "sync", "aligned", "b32"], ["%r1", "64"]),
        (["tcgen05", "dealloc", "CG", "sync", "aligned", "b32"], ["%r1", "%r2"]),
        (["tcgen05", "relinquish_alloc_permit", "CG", "sync", "aligned"], []),
        (["tcgen05", "commit", "CG", "mbarrier::arrive::one", "shared::cluster", "b64"], ["[mbar]"]),
        (["tcgen05", "commit", "CG", "mbarrier::arrive::one", "b64"], ["[%rd1]"]),
        (["tcgen05", "commit", "CG", "mbarrier::arrive::one", "shared::cluster", "multicast::cluster", "b64"], ["[mbar]", "%h1"]),
        (["tcgen05", "shift", "CG", "down"], ["[%r1]"]),
        (["tcgen05", "fence::before_thread_sync"], []),
        (["tcgen05", "fence::after_thread_sync"], []),
        (["tcgen05", "wait::ld", "sync", "aligned"], []),
        (["tcgen05", "wait::st", "sync", "aligned"], []),
    ]
    target_forms = []
    for words, operands in forms:
        for group in groups:
            opcode = join(word if word != "CG" else group for word in words)
            for version, target in (("8.6", "sm_100a"), ("8.8", "sm_103a")):
                family.add(version, target, opcode, operands)
            if group == "cta_group::1" or "CG" not in words:
                family.operand_kinds("8.6", "sm_100a", opcode, operands)
                target_forms.append((opcode, operands))
                # each word dropped, and modifiers of the other forms added
                for index in range(2, len(words)):
                    family.add("8.6", "sm_100a", join(w if w != "CG" else group for i, w in enumerate(words) if i != index),
                               operands)
                for extra in ("sync", "aligned", "shared::cta", "shared::cluster", "b32", "b64", "down", "multicast::cluster"):
                    if extra not in words:
                        family.add("8.6", "sm_100a", opcode + "." + extra, operands)
    for columns in (0, 16, 31, 32, 33, 48, 64, 96, 128, 192, 256, 384, 511, 512, 513, 1024, -32):
        family.add("8.6", "sm_100a", "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32", ["[smem]", str(columns)])
        family.add("8.6", "sm_100a", "tcgen05.dealloc.cta_group::2.sync.aligned.b32", ["%r1", str(columns)])
    family.targets(target_forms, since="8.5", stride=3)
    return family


_TCGEN05_LD_SHAPES = {"32x32b": 1, "16x64b": 1, "16x128b": 2, "16x256b": 4, "16x32bx2": 1}
_NUMS = ("x1", "x2", "x4", "x8", "x16", "x32", "x64", "x128")


def tcgen05_ld_st() -> Family:
    """§9.7.16.8.3–4: `tcgen05.ld.sync.aligned.shape.num{.pack::16b}.b32 r, [taddr]{, immHalfSplitoff};`
    and `tcgen05.st.sync.aligned.shape.num{.unpack::16b}.b32 [taddr]{, immHalfSplitoff}, r;`"""
    family = Family("tcgen05.ld/st")
    for shape, per in _TCGEN05_LD_SHAPES.items():
        offset = ["16"] if shape == "16x32bx2" else []
        for power, num in enumerate(_NUMS):
            right = per << power
            for count in around(right, 240):
                family.add("8.6", "sm_100a", f"tcgen05.ld.sync.aligned.{shape}.{num}.b32", [vector(count), "[%r1]", *offset])
                family.add("8.6", "sm_100a", f"tcgen05.st.sync.aligned.{shape}.{num}.unpack::16b.b32",
                           ["[%r1]", *offset, vector(count)])
            if right <= 128:
                family.add("8.6", "sm_100a", f"tcgen05.ld.sync.aligned.{shape}.{num}.pack::16b.b32", [vector(right), "[%r1]", *offset])
                family.add("8.6", "sm_100a", f"tcgen05.ld.sync.aligned.{shape}.{num}.b32", [vector(right), "[%r1]", *(offset or ["16"])])
                family.add("8.6", "sm_100a", f"tcgen05.ld.sync.aligned.{shape}.{num}.b32", [vector(right), "[%r1]"])
    family.operand_kinds("8.6", "sm_100a", "tcgen05.ld.sync.aligned.16x32bx2.x2.b32", ["{%r10, %r11}", "[%r1]", "16"])
    family.operand_kinds("8.6", "sm_100a", "tcgen05.st.sync.aligned.32x32b.x2.b32", ["[%r1]", "{%r10, %r11}"])
    for immediate in ("0", "1", "-1", "4095", "65535", "65536", "%r3"):
        family.add("8.6", "sm_100a", "tcgen05.ld.sync.aligned.16x32bx2.x1.b32", ["{%r10}", "[%r1]", immediate])
    slots = [("sync",), ("aligned",), tuple(_TCGEN05_LD_SHAPES), ("x1", "x2"), ("pack::16b", "unpack::16b"), ("b32", "b64", "u32", "f32")]
    for operation in ("ld", "st"):
        for words in slot_variants(slots, ["sync", "aligned", "32x32b", "x1", "", "b32"]):
            operands = ["{%r10}", "[%r1]"] if operation == "ld" else ["[%r1]", "{%r10}"]
            family.add("8.6", "sm_100a", join(["tcgen05", operation] + words), operands)
    family.targets([("tcgen05.ld.sync.aligned.32x32b.x2.b32", ["{%r10, %r11}", "[%r1]"]),
                    ("tcgen05.st.sync.aligned.16x64b.x1.b32", ["[%r1]", "{%r10}"]),
                    ("tcgen05.wait::ld.sync.aligned", [])], since="8.5", stride=2)
    return family


def tcgen05_ld_red() -> Family:
    """§9.7.16.8.5: `tcgen05.ld.red.sync.aligned.shape.num.redOp{.abs}{.NaN}.type r, redval, [taddr]{, immHalfSplitoff};`
    shape .32x32b/.16x32bx2, redOp .min/.max, .abs/.NaN for .f32 only."""
    family = Family("tcgen05.ld.red")
    register = {"f32": "%f", "u32": "%r", "s32": "%r", "b32": "%r", "f16": "%r"}
    for version, target in (("8.8", "sm_103a"), ("8.8", "sm_103f"), ("9.0", "sm_110a")):
        for shape in ("32x32b", "16x32bx2", "16x64b"):
            offset = ["16"] if shape == "16x32bx2" else []
            for power, num in enumerate(_NUMS):
                if power not in (0, 1, 3, 6, 7):
                    continue
                right = 1 << power
                for count in around(right, 128) if version == "8.8" and target == "sm_103a" else [right]:
                    for op in ("min", "max"):
                        for extra in ("", "abs", "NaN", "abs.NaN"):
                            for kind in ("f32", "u32", "s32", "b32") if count == right else ("f32",):
                                prefix = register[kind] if count <= 120 else "%r"
                                family.add(version, target, join(["tcgen05.ld.red.sync.aligned", shape, num, op, extra, kind]),
                                           [vector(count, prefix, 10), register[kind] + "2", "[%r1]", *offset])
    family.operand_kinds("8.8", "sm_103a", "tcgen05.ld.red.sync.aligned.32x32b.x2.min.f32", ["{%f10, %f11}", "%f2", "[%r1]"])
    family.operand_kinds("8.8", "sm_103a", "tcgen05.ld.red.sync.aligned.16x32bx2.x1.max.u32", ["{%r10}", "%r2", "[%r1]", "16"])
    for op in ("add", "and", "min.max", ""):
        family.add("8.8", "sm_103a", join(["tcgen05.ld.red.sync.aligned.32x32b.x1", op, "u32"]), ["{%r10}", "%r2", "[%r1]"])
    family.targets([("tcgen05.ld.red.sync.aligned.32x32b.x2.min.u32", ["{%r10, %r11}", "%r2", "[%r1]"]),
                    ("tcgen05.ld.red.sync.aligned.16x32bx2.x1.max.abs.f32", ["{%f10}", "%f2", "[%r1]", "16"])], since="8.6")
    return family


def tcgen05_cp() -> Family:
    """§9.7.16.9.1: `tcgen05.cp.cta_group.shape{.multicast}{.dst_fmt.src_fmt} [taddr], s-desc;`"""
    family = Family("tcgen05.cp")
    shapes = ("128x256b", "4x256b", "128x128b", "64x128b", "32x128b", "64x256b", "32x32b")
    multicasts = ("", "warpx2::02_13", "warpx2::01_23", "warpx4", "warpx2")
    formats = ("", "b8x16.b6x16_p32", "b8x16.b4x16_p64", "b8x16", "b6x16_p32", "b4x16_p64.b8x16")
    for group in ("cta_group::1", "cta_group::2"):
        for shape in shapes:
            for multicast in multicasts:
                for fmt in formats[:3]:
                    family.add("8.6", "sm_100a", join(["tcgen05.cp", group, shape, multicast, fmt]), ["[%r1]", "%rd1"])
            for fmt in formats[3:]:
                family.add("8.6", "sm_100a", join(["tcgen05.cp", group, shape, fmt]), ["[%r1]", "%rd1"])
    family.add("8.6", "sm_100a", "tcgen05.cp.128x256b", ["[%r1]", "%rd1"])
    family.add("8.6", "sm_100a", "tcgen05.cp.cta_group::1", ["[%r1]", "%rd1"])
    family.add("8.6", "sm_100a", "tcgen05.cp.cta_group::1.sync.aligned.128x256b", ["[%r1]", "%rd1"])
    family.operand_kinds("8.6", "sm_100a", "tcgen05.cp.cta_group::1.128x256b", ["[%r1]", "%rd1"])
    family.operand_kinds("8.6", "sm_100a", "tcgen05.cp.cta_group::2.64x128b.warpx2::02_13.b8x16.b6x16_p32", ["[%r1]", "%rd1"])
    family.targets([("tcgen05.cp.cta_group::1.128x256b", ["[%r1]", "%rd1"]),
                    ("tcgen05.cp.cta_group::1.32x128b.warpx4.b8x16.b4x16_p64", ["[%r1]", "%rd1"])], since="8.5")
    return family


def tcgen05_mma() -> Family:
    """§9.7.16.10.9: `tcgen05.mma.cta_group.kind [d-tmem], a-desc|[a-tmem], b-desc, idesc,
    {disable-output-lane}, enable-input-d {, scale-input-d};` its `.sp`, `.ws`, block-scaled and
    collector forms."""
    family = Family("tcgen05.mma")
    kinds = ("kind::f16", "kind::tf32", "kind::f8f6f4", "kind::i8", "kind::mxf8f6f4", "kind::mxf4", "kind::mxf4nvf4", "kind::f32")
    for version, target in (("8.6", "sm_100a"), ("8.8", "sm_100f"), ("8.8", "sm_103a"), ("9.0", "sm_110a")):
        for group, lanes in (("cta_group::1", 4), ("cta_group::2", 8)):
            for kind in kinds:
                for a in ("%rd1", "[%r4]"):
                    family.add(version, target, f"tcgen05.mma.{group}.{kind}", ["[%r1]", a, "%rd2", "%r2", "%p1"])
                    family.add(version, target, f"tcgen05.mma.{group}.{kind}", ["[%r1]", a, "%rd2", "%r2", vector(lanes), "%p1"])
                    for scale in ("0", "15", "%r3"):
                        family.add(version, target, f"tcgen05.mma.{group}.{kind}", ["[%r1]", a, "%rd2", "%r2", "%p1", scale])
                family.add(version, target, f"tcgen05.mma.{group}.{kind}.block_scale", ["[%r1]", "%rd1", "%rd2", "%r2", "[%r5]", "[%r6]", "%p1"])
                family.add(version, target, f"tcgen05.mma.sp.{group}.{kind}", ["[%r1]", "%rd1", "%rd2", "[%r3]", "%r2", "%p1"])
                if group == "cta_group::1":
                    family.add(version, target, f"tcgen05.mma.ws.{group}.{kind}", ["[%r1]", "%rd1", "%rd2", "%r2", "%p1"])
                    family.add(version, target, f"tcgen05.mma.ws.{group}.{kind}.collector::b0::fill", ["[%r1]", "%rd1", "%rd2", "%r2", "%p1", "%rd3"])
    # the disable-output-lane mask and scale-input-d around their legal forms
    for group, lanes in (("cta_group::1", 4), ("cta_group::2", 8)):
        for count in around(lanes, 16):
            for kind in ("kind::f16", "kind::tf32", "kind::f8f6f4"):
                family.add("8.6", "sm_100a", f"tcgen05.mma.{group}.{kind}", ["[%r1]", "%rd1", "%rd2", "%r2", vector(count), "%p1"])
        for scale in ("-1", "0", "1", "7", "15", "16", "31", "%r3", "%p2"):
            for kind in ("kind::f16", "kind::tf32"):
                family.add("8.6", "sm_100a", f"tcgen05.mma.{group}.{kind}", ["[%r1]", "%rd1", "%rd2", "%r2", "%p1", scale])
                family.add("8.6", "sm_100a", f"tcgen05.mma.{group}.{kind}", ["[%r1]", "%rd1", "%rd2", "%r2", vector(lanes), "%p1", scale])
    for scale_vec in ("scale_vec::1X", "scale_vec::2X", "scale_vec::4X", "block16", "block32"):
        for kind in ("kind::mxf8f6f4", "kind::mxf4", "kind::mxf4nvf4"):
            family.add("8.6", "sm_100a", f"tcgen05.mma.cta_group::1.{kind}.block_scale.{scale_vec}",
                       ["[%r1]", "%rd1", "%rd2", "%r2", "[%r5]", "[%r6]", "%p1"])
    for collector in ("collector::a::fill", "collector::a::use", "collector::a::lastuse", "collector::a::discard", "collector::b0::fill"):
        for ashift in ("", "ashift"):
            family.add("8.6", "sm_100a", join(["tcgen05.mma.cta_group::1.kind::f16", ashift, collector]),
                       ["[%r1]", "[%r4]", "%rd2", "%r2", "%p1"])
    family.operand_kinds("8.6", "sm_100a", "tcgen05.mma.cta_group::1.kind::f16", ["[%r1]", "%rd1", "%rd2", "%r2", "%p1"])
    family.operand_kinds("8.6", "sm_100a", "tcgen05.mma.cta_group::2.kind::tf32",
                         ["[%r1]", "[%r4]", "%rd2", "%r2", vector(8), "%p1", "3"])
    family.operand_kinds("8.6", "sm_100a", "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale",
                         ["[%r1]", "%rd1", "%rd2", "%r2", "[%r5]", "[%r6]", "%p1"])
    family.targets([("tcgen05.mma.cta_group::1.kind::f16", ["[%r1]", "%rd1", "%rd2", "%r2", "%p1"]),
                    ("tcgen05.mma.cta_group::1.kind::f16", ["[%r1]", "%rd1", "%rd2", "%r2", "%p1", "3"]),
                    ("tcgen05.mma.cta_group::2.kind::i8", ["[%r1]", "%rd1", "%rd2", "%r2", "%p1"]),
                    ("tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X",
                     ["[%r1]", "%rd1", "%rd2", "%r2", "[%r5]", "[%r6]", "%p1"]),
                    ("tcgen05.mma.ws.cta_group::1.kind::tf32", ["[%r1]", "%rd1", "%rd2", "%r2", "%p1"])], since="8.5")
    return family


def cp_async_bulk_tensor() -> Family:
    """§9.7.9.25.5.1: `cp.async.bulk.tensor.dim.dst.src{.load_mode}.completion_mechanism{.cta_group}
    {.multicast}{.level::cache_hint} [dstMem], [tensorMap, tensorCoords], [mbar]{, im2colInfo}
    {, ctaMask}{, cache-policy};` and the bulk_group store to global."""
    family = Family("cp.async.bulk.tensor")
    load = "shared::cluster.global"
    mbar = "mbarrier::complete_tx::bytes"
    for version, target in (("8.0", "sm_90"), ("8.6", "sm_100a"), ("8.8", "sm_100f")):
        for dims in range(1, 6):
            for count in around(dims, 8):
                coordinates = vector(count, "%r", 20)
                family.add(version, target, f"cp.async.bulk.tensor.{dims}d.{load}.tile.{mbar}",
                           ["[smem]", f"[%rd1, {coordinates}]", "[mbar]"])
                family.add(version, target, f"cp.async.bulk.tensor.{dims}d.global.shared::cta.tile.bulk_group",
                           [f"[%rd1, {coordinates}]", "[smem]"])
            for mode in ("im2col", "im2col::w", "im2col::w::128", "tile::gather4", "tile::scatter4", "im2col_no_offs"):
                offsets = max(dims - 2, 1)
                for count in sorted({offsets, offsets + 1, max(offsets - 1, 1)}):
                    family.add(version, target, f"cp.async.bulk.tensor.{dims}d.{load}.{mode}.{mbar}",
                               ["[smem]", f"[%rd1, {vector(dims, '%r', 20)}]", "[mbar]", vector(count, "%h", 1)])
                family.add(version, target, f"cp.async.bulk.tensor.{dims}d.{load}.{mode}.{mbar}",
                           ["[smem]", f"[%rd1, {vector(dims, '%r', 20)}]", "[mbar]"])
    two = f"[%rd1, {vector(2, '%r', 20)}]"
    slots = [("2d",), ("shared::cluster", "shared::cta", "global"), ("global", "shared::cta"), ("tile", "im2col"),
             (mbar, "bulk_group"), ("cta_group::1", "cta_group::2"), ("multicast::cluster",), ("L2::cache_hint",)]
    for words in slot_variants(slots, ["2d", "shared::cluster", "global", "", mbar, "", "", ""]):
        operands = ["[smem]", two, "[mbar]"]
        if "multicast::cluster" in words:
            operands.append("%h1")
        if "L2::cache_hint" in words:
            operands.append("%rd3")
        for version, target in (("8.0", "sm_90a"), ("8.6", "sm_100a")):
            family.add(version, target, "cp.async.bulk.tensor." + join(words), operands)
    family.operand_kinds("8.0", "sm_90", f"cp.async.bulk.tensor.2d.{load}.{mbar}.multicast::cluster.L2::cache_hint",
                         ["[smem]", two, "[mbar]", "%h1", "%rd3"], skip=(1,))
    family.operand_kinds("8.0", "sm_90", "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group.L2::cache_hint",
                         [two, "[smem]", "%rd3"], skip=(0,))
    family.targets([(f"cp.async.bulk.tensor.2d.{load}.{mbar}", ["[smem]", two, "[mbar]"]),
                    (f"cp.async.bulk.tensor.3d.{load}.im2col.{mbar}.cta_group::2",
                     ["[smem]", f"[%rd1, {vector(3, '%r', 20)}]", "[mbar]", "{%h1}"]),
                    (f"cp.async.bulk.tensor.2d.{load}.tile::gather4.{mbar}", ["[smem]", f"[%rd1, {vector(5, '%r', 20)}]", "[mbar]"]),
                    ("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group", [f"[%rd1, {{%r20}}]", "[smem]"])],
                   since="7.8", stride=2)
    return family


def wgmma() -> Family:
    """§9.7.15.5: `wgmma.mma_async.sync.aligned.shape.dtype.atype.btype d, a-desc|a, b-desc,
    scale-d, imm-scale-a, imm-scale-b{, imm-trans-a, imm-trans-b};` and fence, commit_group,
    wait_group."""
    family = Family("wgmma")
    for n in (8, 16, 24, 32, 64, 96, 128, 136, 192, 256, 4, 12, 264):
        for dtype, divisor, prefix in (("f32", 2, "%f"), ("f16", 4, "%r")):
            right = max(n // divisor, 1)
            for count in around(right, 128 if prefix == "%f" else 200):
                start = 0 if prefix == "%f" else 10
                family.add("8.0", "sm_90a", f"wgmma.mma_async.sync.aligned.m64n{n}k16.{dtype}.f16.f16",
                           [vector(count, prefix, start), "%rd1", "%rd2", "%p1", "1", "1", "0", "0"])
    forms = [
        ("m64n8k16.f32.bf16.bf16", 4, True, "%f"), ("m64n8k8.f32.tf32.tf32", 4, False, "%f"),
        ("m64n8k32.f32.e4m3.e5m2", 4, False, "%f"), ("m64n8k32.f16.e5m2.e5m2", 2, False, "%r"),
        ("m64n8k32.s32.s8.u8", 4, None, "%r"), ("m64n8k256.s32.b1.b1.and.popc", 4, None, "%r"),
    ]
    for shape_types, count, transposable, prefix in forms:
        operands = [vector(count, prefix, 10 if prefix == "%r" else 0), "%rd1", "%rd2", "%p1"]
        if transposable is not None:
            operands += ["1", "1"] + (["0", "0"] if transposable else [])
        family.operand_kinds("8.0", "sm_90a", f"wgmma.mma_async.sync.aligned.{shape_types}", operands, skip=(0,))
        family.add("8.0", "sm_90a", f"wgmma.mma_async.sync.aligned.{shape_types}", operands + ["0"])
    base = [vector(4, "%f", 0), "%rd1", "%rd2", "%p1", "1", "1", "0", "0"]
    family.operand_kinds("8.0", "sm_90a", "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", base)
    for scale in ("1", "-1", "0", "2", "-2"):
        for trans in ("0", "1", "2", "-1"):
            family.add("8.0", "sm_90a", "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", base[:4] + [scale, "1", trans, "0"])
            family.add("8.0", "sm_90a", "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", base[:4] + ["1", scale, "0", trans])
    # A from registers: four 32-bit registers, no transpose for A
    for count in (2, 3, 4, 5, 8):
        family.add("8.0", "sm_90a", "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16",
                   [vector(4, "%f", 0), vector(count, "%r", 40), "%rd2", "%p1", "1", "1", "0"])
    family.add("8.0", "sm_90a", "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16",
               [vector(4, "%f", 0), vector(4, "%r", 40), "%rd2", "%p1", "1", "1", "0", "0"])
    slots = [("sync",), ("aligned",), ("m64n8k16", "m64n8k8", "m64n8k32", "m32n8k16"), ("f32", "f16", "s32"),
             ("f16", "bf16", "tf32", "e4m3"), ("f16", "bf16", "e5m2")]
    for words in slot_variants(slots, ["sync", "aligned", "m64n8k16", "f32", "f16", "f16"]):
        family.add("8.0", "sm_90a", "wgmma.mma_async." + join(words), base)
    for group in ("0", "1", "7", "-1", "%r1", "8", "100"):
        family.add("8.0", "sm_90a", "wgmma.wait_group.sync.aligned", [group])
    for opcode in ("wgmma.fence.sync.aligned", "wgmma.commit_group.sync.aligned", "wgmma.fence", "wgmma.commit_group.sync",
                   "wgmma.fence.aligned", "wgmma.wait_group.sync"):
        family.add("8.0", "sm_90a", opcode)
        family.add("8.0", "sm_90a", opcode, ["0"])
    family.targets([("wgmma.fence.sync.aligned", []), ("wgmma.commit_group.sync.aligned", []),
                    ("wgmma.wait_group.sync.aligned", ["0"]),
                    ("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16", base)], since="7.8")
    return family


_LDMATRIX = {"m8n8": ("b16", 1), "m16n16": ("b8", 2), "m8n16": ("b8x16.b6x16_p32", 1)}


def ldmatrix_stmatrix() -> Family:
    """§9.7.14.5.15–16: `ldmatrix.sync.aligned.shape.num{.trans}{.ss}.type r, [p];`,
    `stmatrix.sync.aligned.shape.num{.trans}{.ss}.type [p], r;`"""
    family = Family("ldmatrix/stmatrix")
    for version, target in (("7.8", "sm_90"), ("8.6", "sm_100a"), ("8.6", "sm_100"), ("8.7", "sm_120a")):
        for shape, (kind, per) in _LDMATRIX.items():
            for power, num in enumerate(("x1", "x2", "x4", "x8")):
                for count in around(per << power, 16):
                    for trans in ("", "trans"):
                        family.add(version, target, join(["ldmatrix.sync.aligned", shape, num, trans, "shared", kind]),
                                   [vector(count), "[%r1]"])
        for shape, kind in (("m8n8", "b16"), ("m16n8", "b8"), ("m16n16", "b8")):
            for power, num in enumerate(("x1", "x2", "x4")):
                for count in around(1 << power, 8):
                    for trans in ("", "trans"):
                        family.add(version, target, join(["stmatrix.sync.aligned", shape, num, trans, "shared", kind]),
                                   ["[%r1]", vector(count)])
    slots = [("sync",), ("aligned",), ("m8n8", "m16n16", "m8n16", "m16n8"), ("x1", "x2", "x4"), ("trans",),
             ("shared", "shared::cta", "global", "shared::cluster"), ("b16", "b8", "b32", "b8x16.b4x16_p64", "b8x16.b6x16_p32")]
    for words in slot_variants(slots, ["sync", "aligned", "m8n8", "x1", "", "shared", "b16"]):
        for version, target in (("7.8", "sm_90"), ("8.6", "sm_100a")):
            family.add(version, target, "ldmatrix." + join(words), ["{%r10}", "[%r1]"])
            family.add(version, target, "stmatrix." + join(words), ["[%r1]", "{%r10}"])
    family.operand_kinds("7.8", "sm_90", "ldmatrix.sync.aligned.m8n8.x2.shared.b16", ["{%r10, %r11}", "[%r1]"])
    family.operand_kinds("7.8", "sm_90", "stmatrix.sync.aligned.m8n8.x2.trans.shared.b16", ["[%r1]", "{%r10, %r11}"])
    family.targets([("ldmatrix.sync.aligned.m8n8.x1.shared.b16", ["{%r10}", "[%r1]"]),
                    ("stmatrix.sync.aligned.m8n8.x1.shared.b16", ["[%r1]", "{%r10}"]),
                    ("ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8", ["{%r10, %r11}", "[%r1]"]),
                    ("ldmatrix.sync.aligned.m8n16.x1.shared.b8x16.b4x16_p64", ["{%r10}", "[%r1]"]),
                    ("stmatrix.sync.aligned.m16n8.x1.trans.shared.b8", ["[%r1]", "{%r10}"])], since="6.5", stride=2)
    return family


# mma.sync (§9.7.14.5.14): shape, A/B type, accumulator types → registers in A, B, C/D.
_MMA = (
    ("m8n8k4", "f16", ("f16", "f32"), 2, 2, {"f16": 4, "f32": 8}),
    ("m16n8k8", "f16", ("f16", "f32"), 2, 1, {"f16": 2, "f32": 4}),
    ("m16n8k16", "f16", ("f16", "f32"), 4, 2, {"f16": 2, "f32": 4}),
    ("m16n8k8", "bf16", ("f32",), 2, 1, {"f32": 4}),
    ("m16n8k16", "bf16", ("f32",), 4, 2, {"f32": 4}),
    ("m16n8k4", "tf32", ("f32",), 2, 1, {"f32": 4}),
    ("m16n8k8", "tf32", ("f32",), 4, 2, {"f32": 4}),
    ("m8n8k4", "f64", ("f64",), 1, 1, {"f64": 2}),
    ("m16n8k4", "f64", ("f64",), 2, 1, {"f64": 4}),
    ("m16n8k8", "f64", ("f64",), 4, 2, {"f64": 4}),
    ("m16n8k16", "f64", ("f64",), 8, 4, {"f64": 4}),
    ("m8n8k16", "s8", ("s32",), 1, 1, {"s32": 2}),
    ("m16n8k16", "u8", ("s32",), 2, 1, {"s32": 4}),
    ("m16n8k32", "s8", ("s32",), 4, 2, {"s32": 4}),
    ("m8n8k32", "s4", ("s32",), 1, 1, {"s32": 2}),
    ("m16n8k32", "u4", ("s32",), 2, 1, {"s32": 4}),
    ("m16n8k64", "s4", ("s32",), 4, 2, {"s32": 4}),
    ("m8n8k128", "b1", ("s32",), 1, 1, {"s32": 2}),
    ("m16n8k128", "b1", ("s32",), 2, 1, {"s32": 4}),
    ("m16n8k256", "b1", ("s32",), 4, 2, {"s32": 4}),
    ("m16n8k32", "e4m3", ("f32", "f16"), 4, 2, {"f32": 4, "f16": 2}),
    ("m16n8k16", "e5m2", ("f32", "f16"), 2, 1, {"f32": 4, "f16": 2}),
)


def _mma_opcode(shape: str, atype: str, dtype: str) -> str:
    extra = {"s8": ".satfinite", "u8": "", "s4": "", "u4": ".satfinite", "b1": ".xor.popc"}.get(atype, "")
    if atype == "b1":
        extra = ".and.popc"
    ctype = dtype
    return f"mma.sync.aligned.{shape}.row.col{extra}.{dtype}.{atype}.{atype}.{ctype}"


def mma_sync() -> Family:
    family = Family("mma.sync")
    prefixes = {"f16": "%r", "f32": "%f", "f64": "%rd", "s32": "%r", "bf16": "%r", "tf32": "%r"}
    for version, target in (("8.4", "sm_89"), ("8.6", "sm_100a"), ("8.7", "sm_120a"), ("7.0", "sm_80")):
        for shape, atype, dtypes, a, b, accumulators in _MMA:
            a_prefix = "%rd" if atype == "f64" else "%r"
            for dtype in dtypes:
                prefix, c = prefixes[dtype], accumulators[dtype]
                start = 1 if prefix == "%rd" else 10
                right = [vector(c, prefix, start), vector(a, a_prefix, 40 if a_prefix == "%r" else 10),
                         vector(b, a_prefix, 60 if a_prefix == "%r" else 20), vector(c, prefix, start + 8 if prefix == "%rd" else 80)]
                opcode = _mma_opcode(shape, atype, dtype)
                family.add(version, target, opcode, right)
                if version != "8.6":
                    continue
                for position in range(4):
                    first = right[position].strip("{}").split(", ")[0]
                    pre = first.rstrip("0123456789")
                    limit = 30 - int(first[len(pre):]) if pre == "%rd" else 40
                    count = right[position].count(",") + 1
                    for size in around(count, limit):
                        if size != count:
                            operands = list(right)
                            operands[position] = vector(size, pre, int(first[len(pre):]))
                            family.add(version, target, opcode, operands)
    # operand kinds and qualifier slots on two common forms
    f16 = ["{%f10, %f11, %f12, %f13}", "{%r40, %r41, %r42, %r43}", "{%r60, %r61}", "{%f80, %f81, %f82, %f83}"]
    family.operand_kinds("8.6", "sm_100a", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", f16)
    slots = [("sync",), ("aligned",), ("m16n8k16", "m16n8k8", "m8n8k4", "m16n8k32"), ("row", "col"), ("col", "row"),
             ("f32",), ("f16", "bf16", "tf32", "e4m3"), ("f16", "bf16"), ("f32", "f16"), ("satfinite", "rn", "ftz")]
    for words in slot_variants(slots, ["sync", "aligned", "m16n8k16", "row", "col", "f32", "f16", "f16", "f32", ""]):
        family.add("8.6", "sm_100a", "mma." + join(words), f16)
    family.targets([("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", f16),
                    ("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32",
                     ["{%f10, %f11, %f12, %f13}", "{%r40, %r41}", "{%r60}", "{%f80, %f81, %f82, %f83}"]),
                    ("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", f16),
                    ("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64", ["{%rd1, %rd2}", "{%rd10}", "{%rd20}", "{%rd3, %rd4}"])],
                   since="6.4", stride=3)
    return family


# wmma (§9.7.14.4): shape, A/B type, accumulator type → registers in A, B, C/D.
_WMMA = (
    ("m16n16k16", "f16", "f16", 8, 8, 4), ("m16n16k16", "f16", "f32", 8, 8, 8),
    ("m8n32k16", "f16", "f32", 8, 8, 8), ("m32n8k16", "f16", "f16", 8, 8, 4),
    ("m16n16k16", "bf16", "f32", 4, 4, 8), ("m8n32k16", "bf16", "f32", 2, 8, 8), ("m32n8k16", "bf16", "f32", 8, 2, 8),
    ("m16n16k16", "s8", "s32", 2, 2, 8), ("m8n32k16", "u8", "s32", 1, 4, 8), ("m32n8k16", "s8", "s32", 4, 1, 8),
    ("m16n16k8", "tf32", "f32", 4, 4, 8), ("m8n8k4", "f64", "f64", 1, 1, 2),
    ("m8n8k32", "s4", "s32", 1, 1, 2), ("m8n8k128", "b1", "s32", 1, 1, 2),
)


def wmma() -> Family:
    """§9.7.14.4: wmma.load.{a,b,c}, wmma.store.d, wmma.mma with fragment sizes by shape and type."""
    family = Family("wmma")
    prefixes = {"f16": "%r", "f32": "%f", "s32": "%r", "f64": "%rd", "bf16": "%r", "s8": "%r", "u8": "%r", "tf32": "%r",
                "s4": "%r", "b1": "%r"}
    for version, target in (("8.6", "sm_100a"), ("7.0", "sm_80"), ("6.3", "sm_75")):
        for shape, atype, ctype, a, b, c in _WMMA:
            for fragment, count, kind, layout in (("a", a, atype, "row"), ("b", b, atype, "col"), ("c", c, ctype, "row")):
                prefix = prefixes[kind]
                for size in around(count, 7 if prefix == "%rd" else 16) if version == "8.6" else [count]:
                    family.add(version, target, f"wmma.load.{fragment}.sync.aligned.{layout}.{shape}.shared.{kind}",
                               [vector(size, prefix, 1 if prefix == "%rd" else 10), "[%r1]"])
            prefix = prefixes[ctype]
            for size in around(c, 7 if prefix == "%rd" else 16) if version == "8.6" else [c]:
                family.add(version, target, f"wmma.store.d.sync.aligned.row.{shape}.shared.{ctype}",
                           ["[%r1]", vector(size, prefix, 1 if prefix == "%rd" else 10)])
            a_prefix = prefixes[atype]
            start = 1 if prefix == "%rd" else 10
            mma_types = {"f16": f"{ctype}.{ctype}", "f64": "f64.f64", "b1": "s32.b1.b1.s32"}.get(
                atype, f"{ctype}.{atype}.{atype}.{ctype}")
            op = ".xor.popc" if atype == "b1" else ""
            operands = [vector(c, prefix, start), vector(a, a_prefix, 20 if a_prefix == "%rd" else 40),
                        vector(b, a_prefix, 25 if a_prefix == "%rd" else 60), vector(c, prefix, start + 3 if prefix == "%rd" else 80)]
            opcode = f"wmma.mma.sync.aligned.row.col.{shape}.{mma_types}{op}"
            family.add(version, target, opcode, operands)
            if version == "8.6":
                for position in range(4):
                    first = operands[position].strip("{}").split(", ")[0]
                    pre = first.rstrip("0123456789")
                    count = operands[position].count(",") + 1
                    for size in around(count, 5 if pre == "%rd" else 16):
                        if size != count:
                            changed = list(operands)
                            changed[position] = vector(size, pre, int(first[len(pre):]))
                            family.add(version, target, opcode, changed)
    family.operand_kinds("7.0", "sm_80", "wmma.load.a.sync.aligned.row.m16n16k16.shared.f16", [vector(8), "[%r1]", "%r2"])
    family.operand_kinds("7.0", "sm_80", "wmma.store.d.sync.aligned.row.m16n16k16.shared.f32",
                         ["[%r1]", vector(8, "%f", 10), "%r2"])
    slots = [("load",), ("a", "b", "c", "d"), ("sync",), ("aligned",), ("row", "col"),
             ("m16n16k16", "m8n32k16", "m32n8k16", "m16n16k8"), ("shared", "global", "shared::cta", "shared::cluster", "local"),
             ("f16", "f32", "s32")]
    for words in slot_variants(slots, ["load", "a", "sync", "aligned", "row", "m16n16k16", "shared", "f16"]):
        family.add("7.0", "sm_80", "wmma." + join(words), [vector(8), "[%r1]"])
    family.targets([("wmma.load.a.sync.aligned.row.m16n16k16.shared.f16", [vector(8), "[%r1]"]),
                    ("wmma.load.a.sync.aligned.row.m16n16k8.shared.tf32", [vector(4), "[%r1]"]),
                    ("wmma.load.c.sync.aligned.row.m8n8k32.shared.s32", [vector(2), "[%r1]"]),
                    ("wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32",
                     [vector(8, "%f", 10), vector(8, "%r", 40), vector(8, "%r", 60), vector(8, "%f", 80)])],
                   since="6.3", stride=3)
    return family


FAMILIES = (elect_sync, wmma, mma_sync, setmaxnreg, tcgen05_mma, cp_async_bulk_tensor, tcgen05_misc, wgmma, st_async,
            mbarrier, barrier_cluster, ldmatrix_stmatrix, tcgen05_ld_st, tcgen05_cp, tcgen05_ld_red)


def all_cases() -> list[Case]:
    cases: dict[str, Case] = {}
    for make in FAMILIES:
        for key, case in make().cases.items():
            cases.setdefault(key, case)
    return list(cases.values())


if __name__ == "__main__":
    from collections import Counter

    found = all_cases()
    print(len(found))
    for family, count in sorted(Counter(case.family for case in found).items()):
        print(f"{family:<24}{count:>6}")
    print(len({(c.version, c.target) for c in found}), "headers")
