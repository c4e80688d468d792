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
            if not failures and opcode.base == "tcgen05" and opcode.modifiers[:1] == ("mma",):
                failures = operand_gate_failures(
                    opcode.base, opcode.modifiers, _operand_forms(instruction), architecture, module.version)
            if failures:
                found.append((instruction, failures))
    return tuple(found)


def _operand_forms(instruction: Instruction) -> dict[str, int]:
    """The operand forms some targets lack that this instruction uses, with their positions."""
    kinds = tuple(
        "vector" if isinstance(operand, Vector) else "address" if isinstance(operand, Address)
        else "immediate" if isinstance(operand, Immediate) else "other"
        for operand in instruction.operands)
    if "kind::i8" not in instruction.opcode.modifiers and has_scale_input_d(instruction.opcode.modifiers, kinds):
        return {"scale-input-d": len(kinds) - 1}
    return {}


PASSES = (
    Pass(
        "target_gates",
        "each instruction the module's `.target` or `.version` does not allow, with what it lacks",
        _gated_instructions,
    ),
)
