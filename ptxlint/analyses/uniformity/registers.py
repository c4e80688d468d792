"""Registers as the uniformity analysis keys them: the scoped keys of the `registers` pass, split
into those written once (kept in a side table) and more than once (kept in the state), and the
registers every write of which computes one CTA-invariant value (value numbering)."""

from __future__ import annotations

from typing import Callable, Mapping, cast

from ptxlint import ir
from ptxlint.analyses.registers import Registers
from ptxlint.isa.special_registers import UNIFORMITY, special_register_base


# A structural name of a CTA-invariant value: ("immediate", 4), ("ld", "ld.param.u32", address, 0)…
ValueNumber = tuple[object, ...]


class RegisterNames:
    """The registers as the uniformity analysis keys them (the scoped keys of the `registers`
    pass), split into those written once by the instructions it visits (kept in a side table)
    and those written more than once (kept in the state)."""

    def __init__(self, registers: Registers, written: Mapping[int, tuple[str, ...]]) -> None:
        """``written``: per visited instruction, the keys it writes."""
        self.key: Callable[[str, int], str] = registers.key
        self.register_parameters = registers.register_parameters
        # Every writer of a register a visited instruction reads is visited too, so counting
        # the visited writers is exact for every register the analysis looks at.
        counts: dict[str, int] = {}
        for keys in written.values():
            for key in keys:
                counts[key] = counts.get(key, 0) + 1
        self.written_more_than_once = frozenset(written for written, count in counts.items() if count > 1)


# ----------------------------------------------------------------------------- the analysis

# Results that differ per lane whatever the inputs: per-lane fragments of matrix instructions,

# Operations whose result is a function of their operands alone (no memory, no lane exchange).
_PURE_OPERATIONS = frozenset(
    {"mov", "add", "sub", "mul", "mad", "shl", "shr", "and", "or", "xor", "not", "neg", "abs", "min", "max",
     "div", "rem", "cvt", "cvta", "selp", "setp", "bfe", "bfi", "prmt"}
)
# Special registers that hold one value for a thread's whole life, the same across its CTA.
_STEADY_SPECIAL_LEVELS = frozenset({"cta", "cluster", "grid"})


class InvariantRegisters:
    """Registers every write of which computes one CTA-invariant expression: from immediates,
    symbols, kernel parameters and `.const` memory (read-only), the special registers fixed for
    a CTA's life, and registers with the same property (value numbering). Compilers rematerialise
    such values (nvcc reloads kernel parameters inside loops); a thread that skipped a rewrite
    under divergent control still holds the same value, so the rewrite does not make threads
    differ. Asked only about registers written under divergent control, so computed on demand."""

    _MAX_DEPTH = 64  # registers followed through one expression before giving up (not invariant)

    def __init__(self, function: ir.Function, written: Mapping[int, tuple[str, ...]], names: RegisterNames) -> None:
        self._function = function
        self._written = written
        self._names = names
        self._kernel_parameters = (
            frozenset(parameter.name for parameter in function.parameters) if function.is_kernel else frozenset()
        )
        self._writes: dict[str, list[tuple[int, int]]] | None = None
        self._numbers: dict[str, ValueNumber | None] = {}

    def __contains__(self, key: str) -> bool:
        return self.number(key, 0) is not None

    def number(self, key: str, depth: int) -> ValueNumber | None:
        """The value number of ``key``, or None when it is not invariant (or is being computed:
        a register defined through itself is not known to be invariant)."""
        if key in self._numbers:
            return self._numbers[key]
        if depth > self._MAX_DEPTH:
            return None
        self._numbers[key] = None
        writes = self._all_writes().get(key, ())
        number = None
        for index, position in writes:
            this = _value_number(self._function.instructions[index], position, self, depth + 1)
            if this is None or (number is not None and this != number):
                number = None
                break
            number = this
        self._numbers[key] = number
        return number

    def key(self, register: ir.Register, instruction: ir.Instruction) -> str:
        return self._names.key(register.name, instruction.scope)

    @property
    def kernel_parameters(self) -> frozenset[str]:
        return self._kernel_parameters

    def _all_writes(self) -> dict[str, list[tuple[int, int]]]:
        """Register → (instruction, position among its results), over the visited instructions
        (every writer of a register a visited instruction reads is visited)."""
        if self._writes is None:
            writes: dict[str, list[tuple[int, int]]] = {}
            for index, keys in self._written.items():
                for position, key in enumerate(keys):
                    writes.setdefault(key, []).append((index, position))
            self._writes = writes
        return self._writes


def _value_number(instruction: ir.Instruction, position: int, registers: InvariantRegisters, depth: int) -> ValueNumber | None:
    """A structural name for the value ``instruction`` writes to its result ``position`` when
    that value is CTA-invariant (equal names, equal values), else None."""
    opcode = instruction.opcode
    sources = instruction.sources
    if opcode.base == "ld" and len(sources) == 1 and type(sources[0]) is ir.Address:
        address = _operand_number(sources[0], instruction, registers, depth)
        if address is None:
            return None
        if opcode.has("const") or (opcode.has("param") and _root_symbol(address) in registers.kernel_parameters):
            return ("ld", opcode.text, address, position)
        return None
    if opcode.base not in _PURE_OPERATIONS:
        return None
    operands = tuple(_operand_number(operand, instruction, registers, depth) for operand in sources)
    if None in operands:
        return None
    if opcode.base == "mov" and len(operands) == 1:
        return operands[0]  # a copy is the value copied
    return (opcode.text, operands, position)


def _operand_number(operand: ir.Operand, instruction: ir.Instruction, registers: InvariantRegisters, depth: int) -> ValueNumber | None:
    kind = type(operand)
    if kind is ir.Register:
        return registers.number(registers.key(operand, instruction), depth)  # type: ignore[arg-type]
    if kind is ir.Immediate:
        return ("immediate", operand.value)  # type: ignore[union-attr]
    if kind is ir.Symbol:
        return ("symbol", operand.name)  # type: ignore[union-attr]
    if kind is ir.SpecialRegister:
        base = special_register_base(operand.name)  # type: ignore[union-attr]
        return ("special", operand.name) if base is not None and UNIFORMITY[base] in _STEADY_SPECIAL_LEVELS else None  # type: ignore[union-attr]
    if kind is ir.Address and not operand.extra:  # type: ignore[union-attr]
        base = ("none",) if operand.base is None else _operand_number(operand.base, instruction, registers, depth)  # type: ignore[union-attr]
        return None if base is None else ("address", base, operand.offset)  # type: ignore[union-attr]
    return None


def _root_symbol(address: ValueNumber) -> str | None:
    """The symbol an address number is an offset from, if any."""
    # ("address", base number, offset) and ("symbol", name), as _operand_number builds them.
    base = cast(ValueNumber, address[1]) if address[0] == "address" else address
    return cast(str, base[1]) if base[0] == "symbol" else None
