"""What the module's `.target` and `.version` do not allow: the architecture it is written for,
and each instruction that uses something that architecture or version lacks. Shared by the ISA
rules (PTX402–PTX404), which used to judge every instruction once each."""

from __future__ import annotations

from ptxlint.context import ModuleContext
from ptxlint.ir import Address, Immediate, Instruction, Module, Vector
from ptxlint.isa.gating import GateFailure, gate_failures, operand_gate_failures
from ptxlint.isa.values import has_scale_input_d
from ptxlint.isa.targets import Target, architecture_of
from ptxlint.passes import Pass
from ptxlint.source import Span


def module_architecture(module: Module) -> Target | None:
    """The architecture the module's `.target` names (the highest, with several)."""
    return architecture_of(tuple(target.name for target in module.targets))


def failure_span(instruction: Instruction, failure: GateFailure) -> Span:
    """Where a failure points: the qualifier it is about, or the opcode."""
    if failure.operand_index is not None:
        return instruction.operands[failure.operand_index].span
    if failure.qualifier_index is None:
        return instruction.opcode_span
    return instruction.modifier_span(failure.qualifier_index)


def _gated_instructions(context: ModuleContext) -> tuple[tuple[Instruction, tuple[GateFailure, ...]], ...]:
    """Every instruction the module's target or version does not allow, with what it uses that
    they lack: one pass over the instructions, judging each distinct opcode text once."""
    module = context.module
    architecture = module_architecture(module)
    if architecture is None:
        return ()
    by_text: dict[str, tuple[GateFailure, ...]] = {}
    found = []
    for function in module.functions:
        for instruction in function.instructions:
            opcode = instruction.opcode
            failures = by_text.get(opcode.text)
            if failures is None:
                failures = by_text[opcode.text] = gate_failures(opcode.base, opcode.modifiers, architecture, module.version)
            if not failures and opcode.base in _FORM_GATED:
                forms = _forms_used(instruction)
                if forms:
                    failures = operand_gate_failures(opcode.base, opcode.modifiers, forms, architecture, module.version)
            if failures:
                found.append((instruction, failures))
    return tuple(found)


_FORM_GATED = frozenset({"tcgen05", "mbarrier", "mma", "wgmma", "cp"})
_FP8 = ("e4m3", "e5m2")
_F64_SHAPES = ("m8n8k4", "m16n8k4", "m16n8k8", "m16n8k16")


def _forms_used(instruction: Instruction) -> dict[str, int | None]:
    """The forms of `isa.gating.OPERAND_GATES` this instruction uses, each with the operand it
    is about (None: the opcode)."""
    modifiers = instruction.opcode.modifiers
    operation = modifiers[0] if modifiers else ""
    base = instruction.opcode.base
    forms: dict[str, int | None] = {}
    if base == "tcgen05" and operation == "mma":
        kinds = tuple(
            "vector" if isinstance(operand, Vector) else "address" if isinstance(operand, Address)
            else "immediate" if isinstance(operand, Immediate) else "other"
            for operand in instruction.operands)
        if "kind::i8" not in modifiers and has_scale_input_d(modifiers, kinds):
            forms["an immediate scale-input-d"] = len(kinds) - 1
        if ("block_scale" in modifiers and ("kind::mxf8f6f4" in modifiers or "kind::mxf4" in modifiers)
                and not any(m.startswith(("scale_vec::", "block16", "block32")) for m in modifiers)):
            forms["block scaling without a scale vector size"] = None
    elif base == "mbarrier" and modifiers[:1] in (("arrive",), ("arrive_drop",)):
        if modifiers[1:2] != ("expect_tx",) and "noComplete" not in modifiers and len(instruction.operands) == 3:
            forms["a count and no `.noComplete`"] = 2
    elif base == "mma" and operation == "sync" and "f64" in modifiers:
        shape = next((m for m in modifiers if m in _F64_SHAPES), None)
        if shape:
            forms[f"`.f64` in `.{shape}`"] = None
    elif base == "mma" and operation == "sync" and any(m in _FP8 for m in modifiers):
        if "f16" in modifiers:
            forms["fp8 inputs and `.f16` accumulators"] = None
        if "m16n8k16" in modifiers:
            forms["fp8 inputs in `.m16n8k16`"] = None
    elif base == "wgmma" and operation == "mma_async" and "s8" in modifiers and "u8" in modifiers:
        forms["mixed signed and unsigned integers"] = None
    elif base == "cp" and modifiers[:3] == ("async", "bulk", "tensor"):
        spaces = [m for m in modifiers if m in ("shared::cta", "shared::cluster", "global")]
        if spaces[:1] == ["shared::cta"]:
            forms["a `.shared::cta` destination"] = None
        if spaces[:1] == ["shared::cluster"] and "tile::gather4" in modifiers:
            forms["`.tile::gather4` into `.shared::cluster`"] = None
    return forms


PASSES = (
    Pass(
        "target_gates",
        "each instruction the module's `.target` or `.version` does not allow, with what it lacks",
        _gated_instructions,
    ),
)
