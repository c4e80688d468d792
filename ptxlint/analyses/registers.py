"""The register model of a function. Registers are scoped: inline asm declares its own
`.reg .pred p;` (and `%p<3>`-style ranges) inside its `{ }` block, which nvcc pastes wherever the
asm is inlined, so one name in two blocks is two registers. Each register named at an
instruction is resolved once to its declaration, its *scoped key* (the name itself for the
function's own registers, `name@N` for one declared by nested scope N); on those keys: which
instructions write and read each register (the def-use index the sparse pre-passes walk),
backward slices and liveness. Built once per function by the `registers` pass; every analysis
that identifies registers asks it."""

from __future__ import annotations

from bisect import bisect_right
from typing import Callable, Iterable

from ptxlint.cfg import ControlFlowGraph
from ptxlint.context import ModuleContext
from ptxlint.ir import Function, Immediate, Instruction, Operand, Register, Sink, SpecialRegister, Symbol, registers_in
from ptxlint.isa.special_registers import PREDEFINED_CONSTANTS
from ptxlint.passes import Describe, Pass
from ptxlint.records import record


def _build(context: ModuleContext, function: Function) -> Registers:
    return Registers(function)


def _describe_registers(registers: Registers, function: Function) -> Describe:
    """``writes a, b reads c`` per instruction, by scoped key: the def-use index as the sparse
    passes see it."""

    def describe(position: int, instruction: Instruction) -> str:
        written, read = registers.writes(position), registers.reads(position)
        parts = ([f"writes {', '.join(written)}"] if written else []) + ([f"reads {', '.join(read)}"] if read else [])
        return " ".join(parts) or "-"

    return describe


@record(slots=True)
class Constant:
    """The constant an operand holds, and the instructions that set it (the `mov`s writing its
    register; none for an immediate)."""

    value: int
    set_by: tuple[int, ...]


_MOV_CHAIN = 4  # `mov`s followed from a register to the immediate it copies
_ADDRESS_CHAIN = 8  # `mov`s and constant `add`s followed from an address to its variable


def register_of_key(key: str) -> str:
    """The register name of a scoped key (names never hold an `@`)."""
    return key.split("@", 1)[0]


class Registers:
    """The `registers` pass's result: the instructions that write and read each register (a
    guard is a read), over the whole function, by scoped key (see the module's doc); the
    registers any one instruction writes and reads, collected when first asked (the sparse
    passes need the indexes, but the registers of only a few instructions); the resolution of
    a name at a scope (:meth:`key`, cached per scope; :attr:`keys_are_names` where no nested
    scope declares a register); the function's `.reg` parameters."""

    def __init__(self, function: Function) -> None:
        self._scopes = function.scopes
        self._cache: dict[int, dict[str, str]] = {}  # scope → name → key
        # The declarations of nested scopes (only their names can mean more than one register):
        # plain names, and the stems of ranges (`%q<2>`) with their counts, never expanded.
        self._nested_names: dict[str, list[int]] = {}
        self._nested_ranges: dict[str, list[tuple[int, int]]] = {}
        for declaration in function.registers:
            if declaration.scope == 0:
                continue
            if declaration.count:
                self._nested_ranges.setdefault(declaration.name, []).append((declaration.scope, declaration.count))
            else:
                self._nested_names.setdefault(declaration.name, []).append(declaration.scope)
        # Without nested declarations every key is the name itself: the analyses that key their
        # state by register then read an operand's name as it is, resolving nothing.
        self.keys_are_names = not (self._nested_names or self._nested_ranges)
        self._declaring: dict[str, list[int]] = {}  # name → the nested scopes declaring it, ascending
        self.register_parameters = {
            parameter.name: position for position, parameter in enumerate(function.parameters) if parameter.space == "reg"
        }
        self.instructions = instructions = function.instructions
        if self.keys_are_names:
            self.writers, self.readers = _name_indexes(instructions)
        else:
            self.writers, self.readers = self._scoped_indexes(instructions)
        self._writes: dict[int, tuple[str, ...]] = {}
        self._reads: dict[int, tuple[str, ...]] = {}

    def key(self, name: str, scope: int) -> str:
        """The register ``name`` as declared around ``scope``: the name itself when the function
        scope declares it, else `name@N` for the innermost scope N declaring it (see
        :func:`register_of_key`)."""
        candidates = self._declaring.get(name)
        if candidates is None:
            candidates = self._declaring_scopes(name)
        if not candidates:
            return name
        names = self._cache.get(scope)
        if names is None:
            names = self._cache[scope] = {}
        else:
            cached = names.get(name)
            if cached is not None:
                return cached
        declared = self._declaring_scope(candidates, scope)
        key = names[name] = name if not declared else f"{name}@{declared}"
        return key

    def _declaring_scopes(self, name: str) -> list[int]:
        """The nested scopes declaring ``name``, ascending (once per name)."""
        scopes = self._nested_names.get(name)
        stem = name.rstrip("0123456789") if self._nested_ranges else name
        ranges = self._nested_ranges.get(stem) if stem != name else None
        if scopes is None and ranges is None:  # most names: declared by the function only
            self._declaring[name] = _NOWHERE
            return _NOWHERE
        found = list(scopes or ())
        digits = name[len(stem) :]
        if ranges and len(digits) <= 18:  # a longer number is past any count
            number = int(digits)
            found.extend(scope for scope, count in ranges if number < count)
        known = self._declaring[name] = sorted(set(found))
        return known

    def _declaring_scope(self, candidates: list[int], scope: int) -> int:
        """The innermost of the scopes ``candidates`` (ascending) that encloses ``scope``: the
        largest number that does (scopes are numbered in pre-order, so that is the innermost),
        without walking the scope chain; 0, the function's, when none does."""
        scopes = self._scopes
        # The nearest declaring scope at or before ``scope`` usually encloses it (the block
        # itself); otherwise look further back.
        position = bisect_right(candidates, scope)
        while position:
            position -= 1
            declared = candidates[position]
            if declared == scope or (declared < len(scopes) and scope <= scopes[declared].last_descendant):
                return declared
        return 0

    def writes(self, index: int) -> tuple[str, ...]:
        """The registers instruction ``index`` writes."""
        known = self._writes.get(index)
        if known is None:
            instruction = self.instructions[index]
            known = self._writes[index] = tuple(self._keys(instruction.destinations, instruction.scope))
        return known

    def reads(self, index: int) -> tuple[str, ...]:
        """The registers instruction ``index`` reads, its guard included."""
        known = self._reads.get(index)
        if known is None:
            instruction = self.instructions[index]
            found = self._keys(instruction.sources, instruction.scope)
            guard = instruction.guard
            if guard is not None and type(guard.predicate) is Register:
                found.append(self.key(guard.predicate.name, instruction.scope))
            known = self._reads[index] = tuple(found)  # cached and shared: immutable, and smaller
        return known

    def _keys(self, operands: tuple[Operand, ...], scope: int) -> list[str]:
        key = self.key
        found: list[str] = []
        for operand in operands:
            kind = type(operand)
            if kind is Register:
                found.append(key(operand.name, scope))  # type: ignore[union-attr]  # narrowed by `kind`, not seen by mypy
            elif kind not in _WITHOUT_REGISTERS:
                found.extend(key(register.name, scope) for register in registers_in(operand))
        return found

    def constant(self, operand: Operand | None, scope: int) -> Constant | None:
        """What an integer operand read at ``scope`` holds when that is a constant: an
        immediate, or a register every write of which is an unguarded `mov` of the same constant
        (itself an immediate or such a register: nvcc's `mov.u32 %r7, -1;` before the shuffle
        that reads it, a barrier id, a byte count)."""
        return self._constant(operand, scope, 0)

    def _constant(self, operand: Operand | None, scope: int, depth: int) -> Constant | None:
        if type(operand) is Immediate:
            return Constant(operand.value, ()) if type(operand.value) is int else None
        if type(operand) is SpecialRegister and operand.name in PREDEFINED_CONSTANTS:
            return Constant(PREDEFINED_CONSTANTS[operand.name], ())
        if type(operand) is not Register or depth > _MOV_CHAIN:
            return None
        writers = self.writers.get(self.key(operand.name, scope), ())
        value = None
        for index in writers:
            writer = self.instructions[index]
            if writer.opcode.base != "mov" or writer.guard is not None or len(writer.operands) != 2:
                return None
            source = self._constant(writer.operands[1], writer.scope, depth + 1)
            if source is None or (value is not None and source.value != value):
                return None
            value = source.value
        return None if value is None else Constant(value, tuple(writers))

    def symbol_offset(self, operand: Operand | None, scope: int) -> tuple[str, int] | None:
        """Where an address operand read at ``scope`` points when that is a variable plus a
        constant: a symbol, or a register every write of which is an unguarded `mov` of one, or
        an `add` of a constant to such a register (nvcc's `mov.u64 %SPL, __local_depot0;
        add.u64 %rd1, %SPL, 0; add.s64 %rd44, %rd1, 4;`)."""
        return self._symbol_offset(operand, scope, 0)

    def _symbol_offset(self, operand: Operand | None, scope: int, depth: int) -> tuple[str, int] | None:
        if type(operand) is Symbol:
            return operand.name, 0
        if type(operand) is not Register or depth > _ADDRESS_CHAIN:
            return None
        found = None
        for index in self.writers.get(self.key(operand.name, scope), ()):
            writer = self.instructions[index]
            base, operands = writer.opcode.base, writer.operands
            if writer.guard is not None:
                return None
            if base == "mov" and len(operands) == 2:
                place = self._symbol_offset(operands[1], writer.scope, depth + 1)
            elif base == "add" and len(operands) == 3:
                constant = next((o.value for o in operands[1:] if type(o) is Immediate and type(o.value) is int), None)
                other = operands[2] if type(operands[1]) is Immediate else operands[1]
                inner = None if constant is None else self._symbol_offset(other, writer.scope, depth + 1)
                place = None if inner is None or constant is None else (inner[0], inner[1] + constant)
            else:
                return None
            if place is None or (found is not None and place != found):
                return None
            found = place
        return found

    def backward_slice(self, registers: Iterable[str], through: Callable[[int], bool] | None = None) -> tuple[set[str], set[int]]:
        """What ``registers`` are computed from: the registers followed and the instructions
        writing them, transitively through the registers each writer reads — only through the
        writers ``through`` accepts, when given."""
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

    def _scoped_indexes(self, instructions: tuple[Instruction, ...]) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
        """:func:`_name_indexes` for a function with nested declarations: the index by name,
        then the entries of the names some nested scope declares split by the key each
        instruction's scope resolves them to. Those names are few (an inline asm's `p`, its
        `%q<3>`), the function's own many: resolving every operand cost more than the rest of
        the index."""
        writers, readers = _name_indexes(instructions)
        for table in (writers, readers):
            for name in self._possibly_nested(table):
                if not self._declaring_scopes(name):
                    continue
                key = self.key
                split: dict[str, list[int]] = {}
                for index in table.pop(name):
                    split.setdefault(key(name, instructions[index].scope), []).append(index)
                table.update(split)
        return writers, readers

    def _possibly_nested(self, table: dict[str, list[int]]) -> list[str]:
        """The names of ``table`` some nested scope may declare: the declared names and the
        numbered names of declared ranges, spelled out; every name of the table when the ranges
        spell more (`_declaring_scopes` decides each)."""
        ranges = self._nested_ranges
        if sum(count for declared in ranges.values() for _, count in declared) > len(table):
            return sorted(table)
        spelled = set(self._nested_names)
        spelled.update(f"{stem}{number}" for stem, declared in ranges.items() for _, count in declared for number in range(count))
        return sorted(name for name in spelled if name in table)


def _name_indexes(instructions: tuple[Instruction, ...]) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
    """The instructions that write and that read each register, for a function whose every
    register is the function's own (its key is its name). One loop over every operand of the
    function, the common kinds tested inline: no per-instruction lists are built."""
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


_NOWHERE: list[int] = []  # the nested scopes declaring a name no nested scope declares (never changed)

# Operands that never hold a register: the common case skips :func:`registers_in`.
_WITHOUT_REGISTERS = frozenset({Immediate, SpecialRegister, Symbol, Sink})


def live_in(graph: ControlFlowGraph, index: Registers, registers: Iterable[str]) -> Liveness:
    """Which of ``registers`` (keys of ``index``) are live at the entry of each reachable block:
    read on some path from there before an unguarded write (a guarded write may not happen, so
    it kills nothing). Backward liveness over bit masks, one bit per register asked about."""
    bits = {name: 1 << position for position, name in enumerate(registers)}
    if not bits:
        return Liveness(bits, {})
    instructions = index.instructions
    # Per block, its instructions' (index, read mask, killed mask), in reverse order.
    effects: dict[int, dict[int, list[int]]] = {}
    for name, bit in bits.items():
        for position in index.readers.get(name, ()):
            effect = effects.setdefault(graph.block_of(position), {}).setdefault(position, [0, 0])
            effect[0] |= bit
        for position in index.writers.get(name, ()):
            if instructions[position].guard is None:
                effect = effects.setdefault(graph.block_of(position), {}).setdefault(position, [0, 0])
                effect[1] |= bit
    used: dict[int, int] = {}
    killed: dict[int, int] = {}
    for block, by_index in effects.items():
        use = kill = 0
        for position in sorted(by_index, reverse=True):
            read, write = by_index[position]
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
    int per block, however many registers live through it), and their keys on demand."""

    def __init__(self, bits: dict[str, int], masks: dict[int, int]) -> None:
        self.bits = bits  # register → its bit; registers not asked about have none
        self._masks = masks
        # Decoded sets by mask, not by block: the blocks of a stretch of code share a few live
        # sets, and a set per block was a tenth of a path-sensitive pass's memory.
        self._names: dict[int, frozenset[str]] = {}
        self._order = list(bits)

    def mask(self, block: int) -> int:
        """The registers live at the entry of ``block`` (none for an unreachable block)."""
        return self._masks.get(block, 0)

    def names(self, block: int) -> frozenset[str]:
        """The registers live at the entry of ``block``, by key (decoded once per set)."""
        live = self._masks.get(block, 0)
        known = self._names.get(live)
        if known is None:
            found = []
            mask = live
            while mask:
                lowest = mask & -mask
                found.append(self._order[lowest.bit_length() - 1])
                mask ^= lowest
            known = self._names[live] = frozenset(found)
        return known


PASSES = (
    Pass(
        "registers",
        "each register an instruction names resolved to its declaring scope; which instructions write and read it",
        _build,
        per_function=True,
        printer=_describe_registers,
    ),
)
