"""Which instructions write and read each register of a function, by name: the def-use index
the analyses' sparse pre-passes walk (uniformity's relevant instructions, the value analysis'
slices), built once per function and shared through the context; and liveness on it."""

from __future__ import annotations

from typing import Callable, Iterable

from ptxlint.cfg import ControlFlowGraph
from ptxlint.context import ModuleContext
from ptxlint.ir import Function, Immediate, Instruction, Operand, Register, Sink, SpecialRegister, Symbol, registers_in
from ptxlint.passes import Describe, Pass


def _build(context: ModuleContext, function: Function) -> RegisterIndex:
    return RegisterIndex(function.instructions)


def _describe_registers(index: RegisterIndex, function: Function) -> Describe:
    """``writes a, b reads c`` per instruction: the def-use index as the sparse passes see it."""

    def describe(position: int, instruction: Instruction) -> str:
        written, read = index.writes(position), index.reads(position)
        parts = ([f"writes {', '.join(written)}"] if written else []) + ([f"reads {', '.join(read)}"] if read else [])
        return " ".join(parts) or "-"

    return describe


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

    def backward_slice(self, registers: Iterable[str], through: Callable[[int], bool] | None = None) -> tuple[set[str], set[int]]:
        """What ``registers`` are computed from: the registers followed and the instructions
        writing them, transitively through the registers each writer reads — only through the
        writers ``through`` accepts, when given (by name: a superset across scopes)."""
        pending = list(registers)
        followed: set[str] = set()
        found: set[int] = set()
        while pending:
            name = pending.pop()
            if name in followed:
                continue
            followed.add(name)
            for index in self.writers.get(name, ()):
                if index not in found and (through is None or through(index)):
                    found.add(index)
                    pending.extend(self.reads(index))
        return followed, found


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
                # mypy does not narrow `operand` through `kind`; a cast per operand would cost time.
                known = found.get(operand.name)  # type: ignore[union-attr]
                if known is None:
                    found[operand.name] = [index]  # type: ignore[union-attr]
                else:
                    known.append(index)
            elif kind not in _WITHOUT_REGISTERS:
                for register in registers_in(operand):
                    found.setdefault(register.name, []).append(index)
        guard = instruction.guard
        if guard is not None and type(guard.predicate) is Register:
            readers.setdefault(guard.predicate.name, []).append(index)
    return writers, readers


def _register_names(operands: tuple[Operand, ...]) -> list[str]:
    names: list[str] = []
    for operand in operands:
        kind = type(operand)
        if kind is Register:
            names.append(operand.name)  # type: ignore[union-attr]  # narrowed by `kind`, not seen by mypy
        elif kind not in _WITHOUT_REGISTERS:
            names.extend(register.name for register in registers_in(operand))
    return names


# Operands that never hold a register: the common case skips :func:`registers_in`.
_WITHOUT_REGISTERS = frozenset({Immediate, SpecialRegister, Symbol, Sink})


def live_in(graph: ControlFlowGraph, names: RegisterIndex, registers: Iterable[str]) -> Liveness:
    """Which of ``registers`` are live at the entry of each reachable block: read on some path
    from there before an unguarded write (a guarded write may not happen, so it kills nothing).
    Backward liveness over bit masks, one bit per register."""
    bits = {name: 1 << position for position, name in enumerate(registers)}
    if not bits:
        return Liveness(bits, {})
    instructions = names.instructions
    # Per block, its instructions' (index, read mask, killed mask), in reverse order.
    effects: dict[int, dict[int, list[int]]] = {}
    for name, bit in bits.items():
        for index in names.readers.get(name, ()):
            effect = effects.setdefault(graph.block_of(index), {}).setdefault(index, [0, 0])
            effect[0] |= bit
        for index in names.writers.get(name, ()):
            if instructions[index].guard is None:
                effect = effects.setdefault(graph.block_of(index), {}).setdefault(index, [0, 0])
                effect[1] |= bit
    used: dict[int, int] = {}
    killed: dict[int, int] = {}
    for block, by_index in effects.items():
        use = kill = 0
        for index in sorted(by_index, reverse=True):
            read, write = by_index[index]
            use = (use & ~write) | read
            kill |= write
        used[block], killed[block] = use, kill
    # A worklist, each block's mask only growing: a block is revisited at most once per register.
    live = {block: used.get(block, 0) for block in graph.reverse_post_order}
    pending = list(graph.reverse_post_order)  # popped from the end: post-order first
    queued = set(pending)
    while pending:
        block = pending.pop()
        queued.discard(block)
        out = 0
        for successor in graph.successors(block):
            out |= live.get(successor, 0)
        entry = used.get(block, 0) | (out & ~killed.get(block, 0))
        if entry != live[block]:
            live[block] = entry
            for predecessor in graph.predecessors(block):
                if predecessor in live and predecessor not in queued:
                    queued.add(predecessor)
                    pending.append(predecessor)
    return Liveness(bits, live)


class Liveness:
    """The result of :func:`live_in`: per block a bit mask over the registers asked about (one
    int per block, however many registers live through it), and their names on demand."""

    def __init__(self, bits: dict[str, int], masks: dict[int, int]) -> None:
        self.bits = bits  # register → its bit; registers not asked about have none
        self._masks = masks
        self._names: dict[int, frozenset[str]] = {}
        self._order = list(bits)

    def mask(self, block: int) -> int:
        """The registers live at the entry of ``block`` (none for an unreachable block)."""
        return self._masks.get(block, 0)

    def names(self, block: int) -> frozenset[str]:
        """The registers live at the entry of ``block``, by name (decoded once per block)."""
        known = self._names.get(block)
        if known is None:
            found = []
            mask = self._masks.get(block, 0)
            while mask:
                lowest = mask & -mask
                found.append(self._order[lowest.bit_length() - 1])
                mask ^= lowest
            known = self._names[block] = frozenset(found)
        return known


PASSES = (
    Pass(
        "registers",
        "which instructions write and read each register (the def-use index sparse passes walk)",
        _build,
        per_function=True,
        printer=_describe_registers,
    ),
)
