"""The operands and operations of the `wgmma` instructions (PTX ISA §9.7.15) as the
`wgmma_groups` pass reads them: which registers of a `wgmma.mma_async` are its accumulator (`d`,
the first operand) and its A fragment (the second, when a register vector rather than a
shared-memory descriptor), its shape, the N of `wgmma.wait_group N`, and which calls cannot
touch the wgmma state."""

from __future__ import annotations

from ptxlint.callgraph import callee_name
from ptxlint.ir import Function, Instruction, Module, Vector, registers_in


def wgmma_operation(instruction: Instruction) -> str | None:
    """`mma_async`, `fence`, `commit_group` or `wait_group` for a `wgmma` instruction."""
    if instruction.opcode.base != "wgmma" or not instruction.opcode.modifiers:
        return None
    return instruction.opcode.modifiers[0]


def shape_of(instruction: Instruction) -> str | None:
    """The `.mMnNkK` qualifier of a `wgmma.mma_async`."""
    return next((modifier for modifier in instruction.opcode.modifiers if modifier.startswith("m64n")), None)


def accumulator_registers(instruction: Instruction) -> tuple[str, ...]:
    """The `d` registers of a `wgmma.mma_async`."""
    return tuple(register.name for register in registers_in(instruction.operands[0])) if instruction.operands else ()


def fragment_registers(instruction: Instruction) -> tuple[str, ...]:
    """The A-fragment registers of a `wgmma.mma_async` that reads A from registers (none when A
    is a shared-memory descriptor)."""
    if len(instruction.operands) < 2 or type(instruction.operands[1]) is not Vector:
        return ()
    return tuple(register.name for register in registers_in(instruction.operands[1]))


def has_wgmma(function: Function) -> bool:
    """Cheap scan: whether ``function`` issues a `wgmma.mma_async`."""
    return any(
        instruction.opcode.base == "wgmma" and instruction.opcode.modifiers[:1] == ("mma_async",)
        for instruction in function.instructions
    )


def wait_count(instruction: Instruction) -> int | None:
    """N of `wgmma.wait_group N` (None when it is not an integer constant: ptxas rejects that)."""
    value = getattr(instruction.operands[0], "value", None) if instruction.operands else None
    return value if isinstance(value, int) and value >= 0 else None


def quiet_callee(module: Module, instruction: Instruction) -> bool:
    """A callee whose body is in the module and neither issues `wgmma` nor calls anything."""
    name = callee_name(instruction)
    if name is None:
        return False
    callee = next((function for function in module.functions if function.name == name and function.has_body), None)
    return callee is not None and not any(
        other.opcode.base in ("wgmma", "call") for other in callee.instructions
    )
