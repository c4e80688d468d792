"""PTX names in a finding's texts, said in the terms of the source the PTX was compiled from.

Messages name what the PTX names: `%p1`, `$L__BB0_2`, "the branch at line 54". Someone who wrote
`if (threadIdx.x < 16)` in a `.cu` file never saw those; for them a predicate is what defines it
("a comparison of `threadIdx.x`"), a label and a PTX line are the source lines they stand for.
:func:`terms` works that out from the IR: the instruction that defines a register (the nearest
definition before the place the finding is about), followed back through moves and arithmetic to
what it is computed from (thread and block indices, kernel parameters, loads, `elect.sync`). The
result is a table of replacements that renderers apply when they show a finding at its source
line; the PTX wording stays as it was for PTX readers.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable

from ptxlint.diagnostics import SourceFrame
from ptxlint.ir import Address, Function, Immediate, Instruction, Negated, Register, SpecialRegister, Symbol, registers_in

# Special registers as CUDA C++ spells them.
CUDA_NAMES = {
    "%tid.x": "threadIdx.x", "%tid.y": "threadIdx.y", "%tid.z": "threadIdx.z",
    "%ntid.x": "blockDim.x", "%ntid.y": "blockDim.y", "%ntid.z": "blockDim.z",
    "%ctaid.x": "blockIdx.x", "%ctaid.y": "blockIdx.y", "%ctaid.z": "blockIdx.z",
    "%nctaid.x": "gridDim.x", "%nctaid.y": "gridDim.y", "%nctaid.z": "gridDim.z",
    "%laneid": "the lane index", "%warpid": "the hardware warp slot", "%smid": "the SM index",
    "%clock": "the clock", "%clock64": "the clock", "%globaltimer": "the global timer",
}
ELECTED = "the `elect.sync` result (true in one lane)"
_BACKTICKED = re.compile(r"`(!?)([%$]?[A-Za-z_][\w$.]*)`")
_ADDRESS = re.compile(r"`\[(%[A-Za-z_][\w$.]*)(?:\s*[+-]\s*\d+)?\]`")  # `[%r4]`, `[%r4+8]`
_PTX_LINE = re.compile(r"\b(at|on) line (\d+)\b")
_NOUNS = ("guard", "operand", "register", "predicate")  # "guard `%p1`": the description in parentheses
_MAX_FROM = 3  # what a value is computed from, named at most
_MAX_DEPTH = 8  # definitions followed back


def terms(
    function: Function, index: int, texts: Iterable[str], frame_of: Callable[[Instruction], SourceFrame | None], home: str | None,
    definitions: dict[int, dict[str, list[int]]] | None = None,
) -> tuple[tuple[str, str], ...]:
    """Replacements for the PTX names in ``texts`` of a finding at instruction ``index`` of
    ``function``: each backticked register, special register or label, and each "at/on line N".
    ``frame_of`` gives the source frame shown for an instruction; a line in file ``home`` (the
    finding's own source file) is named by its number alone. ``definitions`` keeps each
    function's register definitions between calls (by ``id`` of the function)."""
    describer = _Describer(function, index, definitions if definitions is not None else {})
    found: dict[str, str] = {}
    for text in texts:
        for match in _BACKTICKED.finditer(text):
            whole, negated, name = match.group(0), match.group(1), match.group(2)
            if whole in found:
                continue
            said = describer.name(name, frame_of, home)
            if said is not None:
                said = f"the opposite of {said}" if negated else said
                found[whole] = said
                # "its guard `%p1` varies" reads as "its guard (a comparison of …) varies".
                for noun in _NOUNS:
                    found[f"{noun} {whole}"] = f"{noun} ({said})"
        for match in _ADDRESS.finditer(text):
            whole = match.group(0)
            if whole in found:
                continue
            said = describer.name(match.group(1), frame_of, home)
            if said is not None:
                said = said.replace("a value computed from ", "computed from ", 1) if said.startswith("a value ") else said
                found[whole] = f"the address ({said})"
                found[f"operand {whole}"] = f"address operand ({said})"
        for match in _PTX_LINE.finditer(text):
            whole = match.group(0)
            if whole in found:
                continue
            instruction = next((item for item in function.instructions if item.span.line == int(match.group(2))), None)
            frame = frame_of(instruction) if instruction is not None else None
            if frame is not None:
                found[whole] = f"{match.group(1)} {_line_name(frame, home)}"
    return tuple(found.items())


def _line_name(frame: SourceFrame, home: str | None) -> str:
    return f"line {frame.line}" if frame.path == home else f"{frame.path}:{frame.line}"


class _Describer:
    """What registers of one function hold, seen from one instruction."""

    def __init__(self, function: Function, index: int, known: dict[int, dict[str, list[int]]]) -> None:
        self.function = function
        self.index = index
        self._known = known

    def name(self, name: str, frame_of: Callable[[Instruction], SourceFrame | None], home: str | None) -> str | None:
        if name in CUDA_NAMES:
            said = CUDA_NAMES[name]
            return said if said.startswith("the ") else f"`{said}`"
        if name.startswith("$") or self._is_label(name):
            return self._label(name, frame_of, home)
        position = self._definition(name, self.index)
        if position is None:
            return None
        return self._value(position, 0)

    # -- labels

    def _is_label(self, name: str) -> bool:
        return any(label.name == name for label in self.function.labels) and not self._is_register(name)

    def _is_register(self, name: str) -> bool:
        return name in self._definitions_by_name()

    def _label(self, name: str, frame_of: Callable[[Instruction], SourceFrame | None], home: str | None) -> str | None:
        label = next((label for label in self.function.labels if label.name == name), None)
        if label is None:
            return None
        for instruction in self.function.instructions[label.index :]:
            frame = frame_of(instruction)
            if frame is not None:
                return _line_name(frame, home)
        return None

    # -- registers

    def _definitions_by_name(self) -> dict[str, list[int]]:
        found = self._known.get(id(self.function))
        if found is None:
            found = self._known[id(self.function)] = {}
            for position, instruction in enumerate(self.function.instructions):
                for operand in instruction.destinations:
                    for register in registers_in(operand):
                        found.setdefault(register.name, []).append(position)
        return found

    def _definition(self, name: str, before: int) -> int | None:
        """Where ``name`` is defined nearest before instruction ``before`` (a loop's value may
        come from after it: then its last definition)."""
        positions = self._definitions_by_name().get(name)
        if not positions:
            return None
        earlier = [position for position in positions if position < before]
        return earlier[-1] if earlier else positions[-1]

    def _value(self, position: int, depth: int) -> str:
        instruction = self.function.instructions[position]
        base = instruction.opcode.base
        if base == "elect":
            return ELECTED
        leaves = self._sources(position, depth, {position})
        if leaves == ["`elect.sync`"] and base in ("setp", "selp", "mov", "and", "or"):
            return ELECTED  # CUTLASS's elect_one_sync: `selp` of the elected predicate, compared
        sources = _names(leaves)
        if base == "setp":
            return f"a comparison of {sources}" if sources else "a comparison"
        if base in ("and", "or", "xor", "not") and instruction.opcode.has("pred"):
            return f"a condition on {sources}" if sources else "a condition"
        if base == "ld" and instruction.opcode.has("param"):
            return _parameter(instruction)
        if base in ("ld", "ldu", "atom"):
            return "a value loaded from memory"
        return f"a value computed from {sources}" if sources else f"the result of `{instruction.opcode.text}`"

    def _sources(self, position: int, depth: int, seen: set[int]) -> list[str]:
        """What the sources of the instruction at ``position`` are computed from: indices,
        parameters, loads."""
        found: list[str] = []
        instruction = self.function.instructions[position]
        # A guarded definition (`@%px mov r, 1`) depends on its guard as much as on its sources.
        operands = instruction.sources + ((instruction.guard.predicate,) if instruction.guard is not None else ())
        for operand in operands:
            for leaf in self._leaves(operand, position, depth, seen):
                if leaf not in found:
                    found.append(leaf)
        return found[: _MAX_FROM + 1]

    def _leaves(self, operand: object, position: int, depth: int, seen: set[int]) -> list[str]:
        kind = type(operand)
        if kind is Negated:
            return self._leaves(operand.operand, position, depth, seen)  # type: ignore[attr-defined]
        if kind is SpecialRegister:
            name: str = operand.name  # type: ignore[attr-defined]
            said = CUDA_NAMES.get(name, name)
            return [said if said.startswith("the ") else f"`{said}`"]
        if kind is Immediate or kind is Symbol or kind is Address:
            return []
        if kind is not Register:
            return [leaf for register in registers_in(operand) for leaf in self._leaves(register, position, depth, seen)]  # type: ignore[arg-type]
        found = self._definition(operand.name, position)  # type: ignore[attr-defined]
        if found is None or found in seen:
            return []
        seen.add(found)
        definition = self.function.instructions[found]
        base = definition.opcode.base
        if base == "elect":
            return ["`elect.sync`"]
        if base == "ld" and definition.opcode.has("param"):
            return [_parameter(definition)]
        if base in ("ld", "ldu", "atom"):
            return ["a value loaded from memory"]
        if depth + 1 >= _MAX_DEPTH:
            return []
        return self._sources(found, depth + 1, seen)


def _parameter(load: Instruction) -> str:
    """A `ld.param` as the parameter it reads: nvcc names them `<kernel>_param_<N>`, counted from
    0, in the order of the C++ signature."""
    for operand in load.sources:
        base = operand.base if type(operand) is Address else operand  # type: ignore[union-attr]
        if type(base) is Symbol and "_param_" in base.name:  # type: ignore[union-attr]
            number = base.name.rpartition("_param_")[2]  # type: ignore[union-attr]
            if number.isdigit():
                return f"kernel parameter {int(number) + 1}"
    return "a kernel parameter"


def _names(found: list[str]) -> str:
    if len(found) > _MAX_FROM:
        found = found[:_MAX_FROM] + ["more"]
    if len(found) <= 1:
        return "".join(found)
    return ", ".join(found[:-1]) + " and " + found[-1]
