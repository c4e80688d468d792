"""Which PTX ISA version and which targets each instruction and qualifier needs.

Each row reads like the manual's "PTX ISA Notes" / "Target ISA Notes": an instruction (the opcode
base and its leading operation words, `tcgen05.ld.red`), optionally one qualifier of it, and the
availability as ``"version: targets; version: targets"``. Target spellings follow
:mod:`ptxlint.isa.targets` (`sm_90` onion-layered, `sm_100f` family, `sm_100a` exact).

An instruction is judged by its most specific instruction row (`tcgen05.ld.red` over `tcgen05`),
then by the rows of each of its qualifiers. What no row mentions is not judged.
"""

from __future__ import annotations

from functools import lru_cache

from ptxlint.isa.targets import Target, Version, parse_version, supports
from ptxlint.records import record

# The tcgen05 availability (§9.7.16, Table 60/61): a-targets in 8.6, family targets in 8.8,
# sm_110 names in 9.0.
_TCGEN05 = "8.6: sm_100a sm_101a; 8.8: sm_100f sm_101f; 9.0: sm_110f"
# "sm_100a, sm_101a, sm_120a → 8.8 f-targets → 9.0 sm_110f": the Blackwell extras shared with sm_120.
_BLACKWELL_EXTRAS = "8.6: sm_100a sm_101a sm_120a; 8.8: sm_100f sm_101f sm_120f; 9.0: sm_110f"

# (instruction, qualifier or None, availability)
GATES: tuple[tuple[str, str | None, str], ...] = (
    # --- tcgen05 (§9.7.16)
    ("tcgen05", None, _TCGEN05),
    ("tcgen05.ld.red", None, "8.8: sm_101a sm_101f sm_103f; 9.0: sm_110f"),
    ("tcgen05.shift", None, "8.6: sm_100a sm_101a; 8.8: sm_103a; 9.0: sm_110a"),
    ("tcgen05.mma", "kind::i8", "8.6: sm_100a sm_101a; 9.0: sm_110a"),
    ("mma", "and", "7.1: sm_80"),
    ("tcgen05.mma", "scale_vec::4X", "8.7: sm_100a sm_101a; 8.8: sm_103a; 9.0: sm_110a"),
    ("tcgen05.mma", "kind::mxf4nvf4", "8.7: sm_100a sm_101a; 8.8: sm_100f sm_101f; 9.0: sm_110f"),
    *(("tcgen05.mma", size, "8.8: sm_100a sm_101a sm_100f sm_101f; 9.0: sm_110f") for size in ("block16", "block32")),
    # --- wgmma, setmaxnreg (§9.7.15, §9.7.19.5)
    ("wgmma", None, "8.0: sm_90a"),
    ("wgmma.mma_async.sp", None, "8.2: sm_90a"),
    ("setmaxnreg", None, "8.0: sm_90a; 8.6: sm_100a sm_101a sm_120a; 8.8: sm_100f sm_101f sm_120f; 9.0: sm_110f"),
    # --- warp and cluster synchronisation
    ("elect", None, "8.0: sm_90"),
    ("griddepcontrol", None, "7.8: sm_90"),
    ("barrier.cluster", None, "7.8: sm_90"),
    ("barrier.cluster", "release", "8.0: sm_90"),
    ("barrier.cluster", "relaxed", "8.0: sm_90"),
    ("barrier.cluster", "acquire", "8.0: sm_90"),
    ("barrier", "cta", "7.8: sm_30"),
    ("bar", "cta", "7.8: sm_30"),
    ("bar.warp", None, "6.0: sm_30"),
    ("redux", None, "7.0: sm_80"),
    ("redux", "f32", "8.6: sm_100a; 8.8: sm_100f"),
    ("match", None, "6.0: sm_70"),
    ("activemask", None, "6.2: sm_30"),
    ("nanosleep", None, "6.3: sm_70"),
    # --- fences (§9.7.13.4)
    ("fence.proxy", None, "7.5: sm_70"),
    ("fence.proxy.async", None, "8.0: sm_90"),
    ("fence.mbarrier_init", None, "8.0: sm_90"),
    ("fence.proxy.tensormap::generic", None, "8.3: sm_90"),
    ("tensormap.cp_fenceproxy", None, "8.3: sm_90"),
    # --- mbarrier (§9.7.13.15)
    ("mbarrier", None, "7.0: sm_80"),
    ("mbarrier", "shared::cta", "7.8: sm_80"),
    ("mbarrier.try_wait", None, "7.8: sm_90"),
    ("mbarrier.expect_tx", None, "8.0: sm_90"),
    ("mbarrier.complete_tx", None, "8.0: sm_90"),
    ("mbarrier.arrive", "expect_tx", "8.0: sm_90"),
    ("mbarrier", "release", "8.0: sm_80"),
    ("mbarrier", "acquire", "8.0: sm_80"),
    ("mbarrier.arrive", "relaxed", "8.6: sm_90"),
    ("mbarrier.arrive_drop", "relaxed", "8.6: sm_90"),
    ("mbarrier.test_wait", "relaxed", "8.6: sm_90"),
    ("mbarrier.try_wait", "relaxed", "8.6: sm_90"),
    ("mbarrier", "cta", "8.0: sm_80"),
    ("mbarrier", "cluster", "8.0: sm_90"),
    ("mbarrier", "shared::cluster", "8.0: sm_90"),
    # --- asynchronous copies (§9.7.9.25)
    ("cp.async", None, "7.0: sm_80"),
    *(("cp.async", qualifier, "7.4: sm_80") for qualifier in ("L2::64B", "L2::128B", "L2::256B", "L2::cache_hint")),
    ("cp.async.mbarrier.arrive", "shared::cta", "7.8: sm_80"),
    ("cp.async.bulk", "cp_mask", "8.6: sm_100"),
    *(("cp.async.bulk.tensor", qualifier, "8.6: sm_100") for qualifier in (
        "tile::gather4", "tile::scatter4", "im2col::w", "im2col::w::128")),
    ("multimem.ld_reduce", "acc::f32", "8.2: sm_90"),
    ("multimem.ld_reduce", "acc::f16", "8.6: sm_100a sm_101a sm_120a sm_121a; 8.8: sm_100f sm_101f sm_120f; 9.0: sm_110f"),
    ("cp.async.bulk", None, "8.0: sm_90"),
    ("cp.reduce.async.bulk", None, "8.0: sm_90"),
    ("cp.async.bulk", "cta_group::1", "8.6: sm_100a sm_101a; 8.8: sm_100f sm_101f; 9.0: sm_110f"),
    ("cp.async.bulk", "cta_group::2", "8.6: sm_100a sm_101a; 8.8: sm_100f sm_101f; 9.0: sm_110f"),
    ("st.async", None, "8.1: sm_90"),
    ("st.async", "release", "8.7: sm_100"),
    ("red.async", None, "8.1: sm_90"),
    ("red.async", "release", "8.7: sm_100"),
    ("red.async", "mmio", "8.7: sm_100"),
    ("st.bulk", None, "8.6: sm_100"),
    ("multimem", None, "8.1: sm_90"),
    ("clusterlaunchcontrol", None, "8.6: sm_100"),
    ("tensormap.replace", None, "8.3: sm_90a; " + _BLACKWELL_EXTRAS),
    # --- matrix instructions (§9.7.14)
    ("ldmatrix", None, "6.5: sm_75"),
    ("ldmatrix", "shared::cta", "7.8: sm_75"),
    ("ldmatrix", "m16n16", _BLACKWELL_EXTRAS),
    ("ldmatrix", "m8n16", _BLACKWELL_EXTRAS),
    ("ldmatrix", "b8", _BLACKWELL_EXTRAS),
    ("stmatrix", None, "7.8: sm_90"),
    ("stmatrix", "m16n8", _BLACKWELL_EXTRAS),
    ("stmatrix", "b8", _BLACKWELL_EXTRAS),
    ("movmatrix", None, "7.8: sm_75"),
    ("wmma", None, "6.0: sm_70"),
    ("wmma", "s8", "6.3: sm_72"),
    ("wmma", "u8", "6.3: sm_72"),
    ("wmma", "m8n8k32", "6.3: sm_75"),
    ("wmma", "m8n8k128", "6.3: sm_75"),
    ("wmma", "bf16", "7.0: sm_80"),
    ("wmma", "tf32", "7.0: sm_80"),
    ("wmma", "m16n16k8", "7.0: sm_80"),
    ("wmma", "m8n8k4", "7.0: sm_80"),
    ("wmma", "shared::cta", "7.8: sm_70"),
    ("mma", None, "6.4: sm_70"),
    ("mma.sp", None, "7.1: sm_80"),
    ("mma", "m16n8k8", "6.5: sm_75"),
    ("mma", "m8n8k16", "6.5: sm_75"),
    ("mma", "m8n8k32", "6.5: sm_75"),
    ("mma", "m16n8k32", "7.0: sm_80"),
    ("mma", "m16n8k16", "7.0: sm_80"),
    ("mma", "bf16", "7.0: sm_80"),
    ("mma", "tf32", "7.0: sm_80"),
    ("mma", "e4m3", "8.4: sm_89"),
    ("mma", "e5m2", "8.4: sm_89"),
    # the sm_120 block-scaled and narrow-float forms (§9.7.14.5.14)
    *(("mma", qualifier, "8.7: sm_120a; 8.8: sm_120f") for qualifier in (
        "kind::f8f6f4", "kind::mxf8f6f4", "block_scale", "scale_vec::1X", "scale_vec::2X", "e3m2", "e2m3", "e2m1", "ue8m0")),
    *(("mma", qualifier, "8.7: sm_120a sm_121a") for qualifier in ("kind::mxf4", "kind::mxf4nvf4", "scale_vec::4X", "ue4m3")),
    # --- loads, stores, atomics (§9.7.9.8–9, §9.7.13.5–6)
    *((instruction, qualifier, availability) for instruction in ("ld", "st", "atom", "red") for qualifier, availability in (
        ("cluster", "7.8: sm_90"), ("shared::cluster", "7.8: sm_90"), ("shared::cta", "7.8: sm_30"))),
    *((instruction, qualifier, "7.4: sm_70") for instruction in ("ld", "st") for qualifier in (
        "L1::evict_normal", "L1::evict_unchanged", "L1::evict_first", "L1::evict_last", "L1::no_allocate",
        "L2::64B", "L2::128B", "L2::256B")),
    *((instruction, qualifier, "8.8: sm_100") for instruction in ("ld", "st") for qualifier in (
        "v8", "L2::evict_normal", "L2::evict_first", "L2::evict_last")),
    ("ld", "mmio", "8.2: sm_70"),
    *((instruction, "param::entry", "8.3: sm_30") for instruction in ("ld", "st")),
    ("st", "mmio", "8.2: sm_70"),
    # --- conversions with narrow floats (§9.7.9.21)
    ("cvt", "e4m3x2", "8.1: sm_89; 7.8: sm_90"),
    ("cvt", "e5m2x2", "8.1: sm_89; 7.8: sm_90"),
    *(("cvt", qualifier, _BLACKWELL_EXTRAS) for qualifier in ("e2m1x2", "e2m3x2", "e3m2x2", "ue8m0x2")),
    ("cvt", "rs", "8.7: sm_100a; 8.8: sm_103a"),
    # --- arithmetic
    ("add", "f32x2", "8.6: sm_100"),
    ("sub", "f32x2", "8.6: sm_100"),
    ("mul", "f32x2", "8.6: sm_100"),
    ("fma", "f32x2", "8.6: sm_100"),
    ("tanh", None, "7.0: sm_75"),
)


# Operand forms some targets lack, judged like qualifiers: (instruction, form, availability). The
# form is named by :func:`operand_forms_used`.
OPERAND_GATES: tuple[tuple[str, str, str], ...] = (
    # an immediate scale-input-d (§9.7.16.10.9): ptxas 13.0 rejects it on sm_110a/sm_110f
    ("tcgen05.mma", "an immediate scale-input-d", "8.6: sm_100a; 8.8: sm_100f"),
    # block scaling without `.scale_vec`/`.block*` means `.block32`, which needs PTX 8.8
    ("tcgen05.mma", "block scaling without a scale vector size", "8.8: sm_100a sm_101a sm_100f sm_101f; 9.0: sm_110f"),
    # `mbarrier.arrive` with a count needs `.noComplete` before sm_90 (§9.7.13.15.13)
    ("mbarrier.arrive", "a count and no `.noComplete`", "7.8: sm_90"),
    ("mbarrier.arrive_drop", "a count and no `.noComplete`", "7.8: sm_90"),
    # double-precision mma shapes (§9.7.14.5.14)
    ("mma", "`.f64` in `.m8n8k4`", "7.0: sm_80"),
    *(("mma", f"`.f64` in `.{shape}`", "7.8: sm_90") for shape in ("m16n8k4", "m16n8k8", "m16n8k16")),
    # fp8 mma accumulating in `.f16`, or in shape `.m16n8k16`: PTX 8.7
    ("mma", "fp8 inputs and `.f16` accumulators", "8.7: sm_89"),
    ("mma", "fp8 inputs in `.m16n8k16`", "8.7: sm_89"),
    ("wgmma.mma_async", "mixed signed and unsigned integers", "8.4: sm_90a"),
    # cp.async.bulk.tensor (§9.7.9.25.5.1): a CTA's own shared memory as the destination from PTX
    # 8.6; gathers into the cluster's shared memory only on the architecture and family targets
    ("cp.async.bulk.tensor", "a `.shared::cta` destination", "8.6: sm_90"),
    ("cp.async.bulk.tensor", "`.tile::gather4` into `.shared::cluster`", _TCGEN05),
)


@record
class Availability:
    """From which version each target set has the feature."""

    since: tuple[tuple[Version, tuple[str, ...]], ...]

    @staticmethod
    def parse(text: str) -> Availability:
        since = []
        for clause in text.split(";"):
            version, targets = clause.split(":")
            since.append((parse_version(version.strip()), tuple(targets.split())))
        return Availability(tuple(since))

    def minimum_version_on(self, target: Target) -> Version | None:
        """The oldest version in which ``target`` has the feature; None if it never does."""
        versions = [version for version, targets in self.since if any(supports(t, target) for t in targets)]
        return min(versions, default=None)

    def describe(self) -> str:
        """`sm_100a, sm_101a (PTX 8.6); sm_100f, sm_101f (PTX 8.8)` for a message."""
        return "; ".join(f"{', '.join(targets)} (PTX {v[0]}.{v[1]})" for v, targets in self.since)


@record
class Gate:
    """What an instruction or one of its qualifiers needs: a PTX version and targets."""

    instruction: tuple[str, ...]  # ("tcgen05", "ld", "red")
    qualifier: str | None
    availability: Availability

    # The qualifier names a form (an operand or a combination of modifiers), not a modifier.
    operand_form: bool = False

    @property
    def feature(self) -> str:
        name = ".".join(self.instruction)
        if self.operand_form:
            return f"{name} with {self.qualifier}"
        return f"{name} .{self.qualifier}" if self.qualifier else name

    def matches_instruction(self, base: str, modifiers: tuple[str, ...]) -> bool:
        words = self.instruction
        return words[0] == base and modifiers[: len(words) - 1] == words[1:]


TABLE: tuple[Gate, ...] = tuple(
    Gate(tuple(instruction.split(".")), qualifier, Availability.parse(availability))
    for instruction, qualifier, availability in GATES
)


OPERAND_TABLE: tuple[Gate, ...] = tuple(
    Gate(tuple(instruction.split(".")), form, Availability.parse(availability), operand_form=True)
    for instruction, form, availability in OPERAND_GATES
)


@record
class GateFailure:
    """A feature the module cannot use: on this target at all (``minimum_version`` None), or not
    before ``minimum_version``."""

    gate: Gate
    qualifier_index: int | None  # which modifier to point at; None for the instruction itself
    minimum_version: Version | None
    operand_index: int | None = None  # the operand an operand-form gate is about

    @property
    def is_target_failure(self) -> bool:
        return self.minimum_version is None


def instruction_gate(base: str, modifiers: tuple[str, ...]) -> Gate | None:
    """The most specific instruction row for this opcode."""
    candidates = [g for g in TABLE if g.qualifier is None and g.matches_instruction(base, modifiers)]
    return max(candidates, key=lambda gate: len(gate.instruction), default=None)


def qualifier_gates(base: str, modifiers: tuple[str, ...]) -> list[tuple[Gate, int]]:
    """Rows for the qualifiers this opcode carries, each with the qualifier's index."""
    found = []
    for gate in TABLE:
        if gate.qualifier is not None and gate.matches_instruction(base, modifiers):
            start = len(gate.instruction) - 1  # the operation words are not qualifiers
            for index in range(start, len(modifiers)):
                if modifiers[index] == gate.qualifier:
                    found.append((gate, index))
    return found


def _judge(gate: Gate, index: int | None, target: Target, version: Version | None) -> GateFailure | None:
    minimum = gate.availability.minimum_version_on(target)
    if minimum is None:
        return GateFailure(gate, index, None)
    if version is not None and version < minimum:
        return GateFailure(gate, index, minimum)
    return None


# A kernel repeats a few hundred distinct opcodes hundreds of thousands of times: judge each once.
@lru_cache(maxsize=8192)
def gate_failures(
    base: str, modifiers: tuple[str, ...], target: Target, version: Version | None
) -> tuple[GateFailure, ...]:
    """What this instruction uses that ``target`` at ``version`` does not have. When the
    instruction itself is unavailable its qualifiers are not judged (one finding, not five)."""
    gate = instruction_gate(base, modifiers)
    if gate is not None:
        failure = _judge(gate, None, target, version)
        if failure is not None:
            return (failure,)
    failures = []
    for qualifier_gate, index in qualifier_gates(base, modifiers):
        failure = _judge(qualifier_gate, index, target, version)
        if failure is not None:
            failures.append(failure)
    return tuple(failures)


def operand_gate_failures(
    base: str, modifiers: tuple[str, ...], forms: dict[str, int | None], target: Target, version: Version | None
) -> tuple[GateFailure, ...]:
    """What the operand forms an instruction uses (``forms``: form name → operand index) need that
    ``target`` at ``version`` lacks. Judged only when the instruction itself is available."""
    failures = []
    for gate in OPERAND_TABLE:
        if gate.qualifier in forms and gate.matches_instruction(base, modifiers):
            failure = _judge(gate, None, target, version)
            if failure is not None:
                failures.append(GateFailure(gate, None, failure.minimum_version, forms[gate.qualifier]))
    return tuple(failures)
