"""Which instructions write and read each register of a function, by name: the def-use index
the analyses' sparse pre-passes walk (uniformity's relevant instructions, the value analysis'
slices), built once per function and shared through the context."""

from __future__ import annotations

from ptxlint.context import ModuleContext
from ptxlint.ir import Function, Immediate, Instruction, Register, Sink, SpecialRegister, Symbol, registers_in


def register_index(context: ModuleContext, function: Function) -> RegisterIndex:
    """The index of ``function``, built once per module context."""
    return context.function_analysis(function, _build)


def _build(context: ModuleContext, function: Function) -> RegisterIndex:
    return RegisterIndex(function.instructions)


class RegisterIndex:
    """The instructions that write and read each register (a guard is a read), over the whole
    function, and the registers any one instruction writes and reads, collected when first asked:
    the pre-passes need the indexes, but the names of only a few instructions."""

    def __init__(self, instructions: tuple[Instruction, ...]) -> None:
        self.instructions = instructions
        self.writers, self.readers = _register_indexes(instructions)
        self._writes: dict[int, list[str]] = {}
        self._reads: dict[int, list[str]] = {}

    def writes(self, index: int) -> list[str]:
        """The registers instruction ``index`` writes."""
        known = self._writes.get(index)
        if known is None:
            known = self._writes[index] = _register_names(self.instructions[index].destinations)
        return known

    def reads(self, index: int) -> list[str]:
        """The registers instruction ``index`` reads, its guard included."""
        known = self._reads.get(index)
        if known is None:
            instruction = self.instructions[index]
            known = _register_names(instruction.sources)
            guard = instruction.guard
            if guard is not None and type(guard.predicate) is Register:
                known.append(guard.predicate.name)
            self._reads[index] = known
        return known


def _register_indexes(instructions: tuple[Instruction, ...]) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
    """The instructions that write and that read each register. One loop over every operand of
    the function, the common kinds tested inline: no per-instruction lists are built."""
    writers: dict[str, list[int]] = {}
    readers: dict[str, list[int]] = {}
    for index, instruction in enumerate(instructions):
        count = instruction.destination_count
        found = writers
        for position, operand in enumerate(instruction.operands):
            if position == count:
                found = readers
            kind = type(operand)
            if kind is Register:
                known = found.get(operand.name)
                if known is None:
                    found[operand.name] = [index]
                else:
                    known.append(index)
            elif kind not in _WITHOUT_REGISTERS:
                for register in registers_in(operand):
                    found.setdefault(register.name, []).append(index)
        guard = instruction.guard
        if guard is not None and type(guard.predicate) is Register:
            readers.setdefault(guard.predicate.name, []).append(index)
    return writers, readers


def _register_names(operands: tuple) -> list[str]:
    names: list[str] = []
    for operand in operands:
        kind = type(operand)
        if kind is Register:
            names.append(operand.name)
        elif kind not in _WITHOUT_REGISTERS:
            names.extend(register.name for register in registers_in(operand))
    return names


# Operands that never hold a register: the common case skips :func:`registers_in`.
_WITHOUT_REGISTERS = frozenset({Immediate, SpecialRegister, Symbol, Sink})
