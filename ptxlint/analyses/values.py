"""Register values as functions of the warp index, and tensor-memory addresses.

The tcgen05 checks need to know, for each warp of the CTA, which TMEM address a `tcgen05.ld`
uses and which warps a branch on the warp index lets through. This analysis gives each register
one of these abstract values:

- absent from the state: unknown, and not computed from the thread or warp index by arithmetic
  this analysis follows (parameters, loop counters, loaded data);
- an *entry*, the same in every warp: an integer, a predicate (`True`/`False`), a
  :class:`SharedAddress` (`symbol + offset`) or a :class:`TensorAddress` (the address
  `tcgen05.alloc` wrote, plus a lane and a column offset);
- a tuple of entries, one per warp of the CTA (warp-uniform, but different between warps), where
  ``None`` means unknown for that warp: `%tid.x >> 5` is ``(0, 1, 2, …)``;
- a :class:`ThreadFunction`: a short chain of arithmetic on `%tid.x` of a one-dimensional block.
  It differs between lanes, but once every warp's 32 lanes agree on its value (`%tid.x >> 5`,
  `(%tid.x << 16) & 0x600000`, `%tid.x > 31`) it becomes a per-warp value;
- :data:`VARYING`: unknown and possibly different between warps or lanes.

Arithmetic is evaluated per warp. The allocation's address has lane field 0 and an unknown first
column, so a :class:`TensorAddress` keeps offsets relative to it. Adding an absent (unknown,
warp-independent) value to a TMEM address is taken to move its column only: lane offsets that
matter are computed from the warp index, and a column offset that carried into the lane field
would address a column past the 512 that exist.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Collection, Sequence, Union

from ptxlint.analyses.launch import WARP_SIZE, block_shape
from ptxlint.analyses.registers import RegisterIndex, register_index
from ptxlint.cfg import ControlFlowGraph
from ptxlint.context import ModuleContext
from ptxlint.dataflow import Solution, StatesBefore, indices_by_block, solve_forward
from ptxlint.ir import (
    Address,
    Function,
    Immediate,
    Instruction,
    Negated,
    Pair,
    Register,
    SpecialRegister,
    Symbol,
    registers_in,
)
from ptxlint.isa.tcgen05 import LANE_SHIFT, COLUMN_MASK, operation
from ptxlint.isa.types import integer_types

MAX_WARPS = 32  # 1024 threads


@dataclass(frozen=True, slots=True)
class SharedAddress:
    """The address of a variable plus a constant (`smem + 131168`)."""

    symbol: str
    offset: int

    @property
    def key(self) -> str:
        return f"{self.symbol}+{self.offset}"


@dataclass(frozen=True, slots=True)
class TensorAddress:
    """The TMEM address `tcgen05.alloc` stored at ``slot``, plus ``lane`` lanes and ``column``
    columns (``None``: a column offset that is not known)."""

    slot: str
    lane: int
    column: int | None


class _Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


VARYING = _Marker("VARYING")

# Longest chain of operations followed on `%tid.x` before giving up (nvcc needs two or three).
MAX_THREAD_STEPS = 6


@dataclass(frozen=True, slots=True)
class ThreadFunction:
    """``%tid.x`` followed by ``steps``: (operation, constant, bits) applied in order."""

    steps: tuple = ()

    def then(self, step: tuple) -> ThreadFunction | None:
        if len(self.steps) >= MAX_THREAD_STEPS:
            return None
        return ThreadFunction(self.steps + (step,))

    def evaluate(self, thread: int):
        value = thread
        for operation_name, constant, bits in self.steps:
            value = _THREAD_STEPS[operation_name](value, constant, bits)
            if value is None:
                return None
        return value


THREAD_INDEX = ThreadFunction()

Entry = Union[int, bool, SharedAddress, TensorAddress, None]
Value = Union[Entry, tuple, _Marker, ThreadFunction]


@dataclass(frozen=True)
class ValueState:
    """Registers with a tracked value (treat ``registers`` as read-only) and the shared-memory
    slots a `tcgen05.alloc` may have written on some path here."""

    registers: dict
    slots: frozenset[str]


# Special registers whose value is the same in every thread of the CTA stay absent (unknown but
# warp-independent); these differ between threads or change between reads.
_THREAD_VARYING_SPECIALS = ("%tid", "%laneid", "%lanemask", "%warpid", "%smid", "%clock", "%globaltimer", "%pm")

# Instructions whose result differs between threads whatever their operands.
_VARYING_BASES = frozenset({"atom", "elect", "activemask", "match", "tcgen05", "vote", "nanosleep"})
_VARYING_OPERATIONS = frozenset({("mbarrier", "try_wait"), ("mbarrier", "test_wait")})


# ----------------------------------------------------------------------------- lattice


def join_values(first: Value, second: Value) -> Value:
    """The least value that describes both (``None`` stands for absent)."""
    if first == second:
        return first
    if first is VARYING or second is VARYING or type(first) is ThreadFunction or type(second) is ThreadFunction:
        return VARYING
    if first is None or second is None:
        other = second if first is None else first
        return None if _column_like(other) else VARYING
    if type(first) is tuple or type(second) is tuple:
        return _normalise(tuple(_join_entries(a, b) for a, b in zip(_per_warp(first, second), _per_warp(second, first))))
    joined = _join_entries(first, second)
    if joined is None:
        # Two different warp-independent values: which one a warp holds depends on the path it
        # took. Small integers (column offsets, loop counters) stay "unknown, warp-independent";
        # anything that may carry a lane offset may now differ between warps.
        return None if _column_like(first) and _column_like(second) else VARYING
    return joined


def _join_registers(first: dict, second: dict) -> dict:
    """Join two register maps. States share value objects (they are copied on write), so an
    identity test settles most registers without comparing or hashing per-warp tables."""
    registers = {}
    for name, value in first.items():
        other = second.get(name)
        joined = value if other is value else join_values(value, other)
        if joined is not None:
            registers[name] = joined
    for name, value in second.items():
        if name not in first:
            joined = join_values(None, value)
            if joined is not None:
                registers[name] = joined
    return registers


def _column_like(value: Value) -> bool:
    """Values whose merging cannot hide a lane offset: small integers, predicates, shared
    addresses."""
    if type(value) is bool or type(value) is SharedAddress:
        return True
    return type(value) is int and 0 <= value <= COLUMN_MASK


def _join_entries(first: Entry, second: Entry) -> Entry:
    if first == second:
        return first
    if type(first) is TensorAddress and type(second) is TensorAddress:
        if first.slot == second.slot and first.lane == second.lane:
            return TensorAddress(first.slot, first.lane, None)
    return None


def _per_warp(value: Value, shaped_like: Value) -> tuple:
    if type(value) is tuple:
        return value
    width = len(shaped_like)  # type: ignore[arg-type]
    return (value,) * width


def _normalise(entries: tuple) -> Value:
    """A per-warp tuple whose entries are all equal and known is a warp-independent entry; one
    whose entries are all unknown is VARYING."""
    first = entries[0]
    if all(entry == first for entry in entries):
        return VARYING if first is None else first
    return entries


def entry_for_warp(value: Value, warp: int) -> Entry:
    """What warp ``warp`` holds, or None when unknown."""
    if type(value) is tuple:
        return value[warp] if warp < len(value) else None
    if value is VARYING or type(value) is ThreadFunction:
        return None
    return value  # type: ignore[return-value]


# ----------------------------------------------------------------------------- arithmetic


def _wrap(value: int, bits: int) -> int:
    return value & ((1 << bits) - 1)


def _signed(value: int, bits: int) -> int:
    value = _wrap(value, bits)
    return value - (1 << bits) if value >> (bits - 1) else value


def _width(instruction: Instruction) -> tuple[int, bool]:
    """Bits and signedness of the instruction's (last) integer type (`.s32` → 32, True)."""
    types = integer_types(instruction.opcode.modifiers)
    return types[-1] if types else (32, False)


class _Opaque:
    """An absent operand inside per-warp arithmetic: unknown but warp-independent."""

    def __repr__(self) -> str:
        return "OPAQUE"


OPAQUE = _Opaque()


def _add(a, b, bits: int):
    if type(a) is TensorAddress or type(b) is TensorAddress:
        address, other = (a, b) if type(a) is TensorAddress else (b, a)
        return _offset_tensor_address(address, other)
    if type(a) is SharedAddress and type(b) is int:
        return SharedAddress(a.symbol, a.offset + b)
    if type(b) is SharedAddress and type(a) is int:
        return SharedAddress(b.symbol, b.offset + a)
    if type(a) is int and type(b) is int:
        return _wrap(a + b, bits)
    return None


def _offset_tensor_address(address: TensorAddress, delta) -> TensorAddress | None:
    if delta is OPAQUE:
        return TensorAddress(address.slot, address.lane, None)
    if type(delta) is not int or type(delta) is bool:
        return None
    delta = _signed(delta, 32)
    if address.column is None:
        return TensorAddress(address.slot, address.lane + (delta >> LANE_SHIFT), None)
    total = (address.lane << LANE_SHIFT) + address.column + delta
    return TensorAddress(address.slot, total >> LANE_SHIFT, total & COLUMN_MASK)


def _or(a, b, bits: int):
    """`or` into a TMEM address whose lane offset is 0 sets the lane field (CUTLASS builds
    addresses as `base | lane << 16`); the base's own column is unknown, so low bits make the
    column unknown."""
    if type(a) is TensorAddress or type(b) is TensorAddress:
        address, other = (a, b) if type(a) is TensorAddress else (b, a)
        if type(other) is not int:
            return None
        lane = address.lane | (other >> LANE_SHIFT)
        column = address.column if other & COLUMN_MASK == 0 else None
        return TensorAddress(address.slot, lane, column)
    if type(a) is int and type(b) is int:
        return _wrap(a | b, bits)
    return None


def _integers(function: Callable[[int, int], int]):
    def apply(a, b, bits: int):
        if type(a) is int and type(b) is int:
            return _wrap(function(a, b), bits)
        return None

    return apply


def _shift_right(signed: bool):
    def apply(a, b, bits: int):
        if type(a) is not int or type(b) is not int:
            return None
        return _wrap((_signed(a, bits) if signed else a) >> min(b, bits), bits)

    return apply


def _divide(signed: bool):
    def apply(a, b, bits: int):
        if type(a) is not int or type(b) is not int or b == 0:
            return None
        if signed:
            x, y = _signed(a, bits), _signed(b, bits)
            quotient = abs(x) // abs(y)
            return _wrap(quotient if (x < 0) == (y < 0) else -quotient, bits)
        return a // b

    return apply


def _minimum(signed: bool, larger: bool):
    def apply(a, b, bits: int):
        if type(a) is not int or type(b) is not int:
            return None
        key = (lambda v: _signed(v, bits)) if signed else (lambda v: v)
        return max(a, b, key=key) if larger else min(a, b, key=key)

    return apply


_COMPARISONS: dict[str, Callable[[int, int], bool]] = {
    "eq": lambda a, b: a == b, "ne": lambda a, b: a != b,
    "lt": lambda a, b: a < b, "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b,
    "lo": lambda a, b: a < b, "ls": lambda a, b: a <= b,
    "hi": lambda a, b: a > b, "hs": lambda a, b: a >= b,
}


def _compare(relation: str, signed: bool):
    test = _COMPARISONS[relation]

    def apply(a, b, bits: int):
        if type(a) is bool or type(b) is bool or type(a) is not int or type(b) is not int:
            return None
        if signed and relation not in ("lo", "ls", "hi", "hs"):
            return test(_signed(a, bits), _signed(b, bits))
        return test(a, b)

    return apply


def _logical(function: Callable[[bool, bool], bool]):
    def apply(a, b, bits: int):
        if type(a) is bool and type(b) is bool:
            return function(a, b)
        return None

    return apply


# ----------------------------------------------------------------------------- the analysis


class WarpValues:
    """The forward analysis. ``warp_count`` is the number of warps values are tabulated for."""

    def __init__(self, warp_count: int, tid_x_is_linear: bool, sliced: Slices | None = None) -> None:
        self.warp_count = warp_count
        self.tid_x_is_linear = tid_x_is_linear
        self.warp_index = tuple(range(warp_count))
        # Indices of the instructions whose results can matter (None: all of them), and of those
        # that feed addresses. For an instruction that only feeds conditions, VARYING and absent
        # mean the same (no warp's outcome is known), so it stores nothing: states stay small.
        self.needed = None if sliced is None else sliced.needed
        self.feeds_addresses = None if sliced is None else sliced.addresses
        # Registers whose value does not depend on the path (see :meth:`settle`), and the
        # instructions that define them, which the transfer function then skips.
        self.settled: dict[str, Value] = {}
        self.settled_definitions: frozenset[int] = frozenset()
        # Instruction index → registers whose last use it is (see :meth:`expire_block_locals`).
        self.expiring: dict[int, tuple[str, ...]] = {}
        # Per block, the instructions the transfer function does not skip (see :meth:`plan_visits`).
        self._visited_by_block: list[Sequence[int]] = []

    def settle(self, instructions: tuple[Instruction, ...], names: RegisterIndex) -> None:
        """Evaluate once the registers with a single unguarded definition whose operands are
        immediates, special registers, symbols or such registers defined earlier in the text:
        their value is the same on every path (nvcc's PTX is nearly SSA; constants, the warp
        index and shared addresses are all of this kind). Keeping them out of the dataflow state
        makes its joins cheap. Loads stay in the state: what they read depends on the
        allocations seen.

        Only the registers the needed instructions write are asked about, each once, walking
        back through the definitions they depend on: most of a function is never looked at. A
        register whose definition is not needed settles as unknown (None); one the needed
        instructions only read has no definition among them, which puts no value in the state
        either, so it reads as unknown whether settled or not (the data a `tcgen05.st` stores
        would otherwise send the walk through the whole epilogue)."""
        writers = names.writers
        reads = names.reads
        writes = names.writes
        needed = self.needed
        settled = self.settled
        unsettled: set[str] = set()
        settled_definitions: list[int] = []
        empty = ValueState({}, frozenset())
        indices = range(len(instructions)) if needed is None else needed
        roots = [name for index in indices for name in writes(index)]
        for root in roots:
            stack = [root]
            while stack:
                name = stack[-1]
                if name in settled or name in unsettled:
                    stack.pop()
                    continue
                definition = self._single_plain_definition(name, instructions, names)
                if definition is None:
                    unsettled.add(name)
                    stack.pop()
                    continue
                # Operands settle first. Each must have its definition earlier in the text, so
                # the walk ends.
                operands = reads(definition)
                if any(operand in unsettled or writers.get(operand, (definition,))[0] >= definition for operand in operands):
                    unsettled.update(writes(definition))
                    stack.pop()
                    continue
                undecided = [operand for operand in operands if operand not in settled]
                if undecided:
                    stack.extend(undecided)
                    continue
                stack.pop()
                if needed is None or definition in needed:
                    settled.update(self._evaluate(instructions[definition], empty))
                else:
                    settled.update((name, None) for name in writes(definition))
                unsettled.update(name for name in writes(definition) if name not in settled)
                settled_definitions.append(definition)
        self.settled_definitions = frozenset(settled_definitions)

    @staticmethod
    def _single_plain_definition(name: str, instructions: tuple[Instruction, ...], names: RegisterIndex) -> int | None:
        """The one instruction that writes ``name``, when it is unguarded, not a load, tcgen05
        operation or call, and the only writer of everything it writes."""
        writers = names.writers
        defined = writers.get(name, ())
        if len(defined) != 1:
            return None
        index = defined[0]
        instruction = instructions[index]
        if instruction.guard is not None or instruction.opcode.base in ("ld", "tcgen05", "call"):
            return None
        if any(len(writers[written]) != 1 for written in names.writes(index)):
            return None
        return index

    def bottom(self) -> ValueState:
        return ValueState({}, frozenset())

    def entry(self) -> ValueState:
        return ValueState({}, frozenset())

    def join(self, first: ValueState, second: ValueState) -> ValueState:
        if first.registers is second.registers or first.registers == second.registers:
            registers = first.registers
        else:
            registers = _join_registers(first.registers, second.registers)
        if registers is first.registers and first.slots >= second.slots:
            return first
        return ValueState(registers, first.slots | second.slots)

    def expire_block_locals(self, graph: ControlFlowGraph, names: RegisterIndex) -> None:
        """Registers defined once and used only later in the same block (most of nvcc's
        temporaries) are dropped from the state after their last use: no join ever needs them.
        Only registers the transfer function can put in the state (written by an instruction
        it does not skip) need it."""
        uses = names.readers
        writers = names.writers
        needed = self.needed
        expiring: dict[int, list[str]] = {}
        candidates = writers if needed is None else {name for index in needed for name in names.writes(index)}
        for name in candidates:
            defined = writers[name]
            if len(defined) != 1 or name in self.settled:
                continue
            used = uses.get(name, [])
            block = graph.block_of(defined[0])
            if all(position > defined[0] and graph.block_of(position) == block for position in used):
                expiring.setdefault(max(used, default=defined[0]), []).append(name)
        self.expiring = {index: tuple(names) for index, names in expiring.items()}

    def plan_visits(self, graph: ControlFlowGraph) -> None:
        """Decide which instructions the solver visits: the needed ones that are not settled,
        and those where registers expire. Call after :meth:`settle` and
        :meth:`expire_block_locals`."""
        if self.needed is None:
            visited: Collection[int] = range(len(graph.function.instructions))
        else:
            visited = (self.needed - self.settled_definitions).union(self.expiring)
        self._visited_by_block = indices_by_block(graph, visited)

    def instructions_of(self, block: int) -> Sequence[int]:
        """The instructions of ``block`` whose transfer can change the state (see
        :func:`ptxlint.dataflow.solve_forward`)."""
        return self._visited_by_block[block]

    def transfer(self, index: int, instruction: Instruction, state: ValueState) -> ValueState:
        state = self._transfer(index, instruction, state)
        expiring = self.expiring.get(index)
        if expiring is None or not any(name in state.registers for name in expiring):
            return state
        registers = dict(state.registers)  # a copy in C, then a few deletions: states are large
        for name in expiring:
            registers.pop(name, None)
        return ValueState(registers, state.slots)

    def _transfer(self, index: int, instruction: Instruction, state: ValueState) -> ValueState:
        if self.needed is not None and index not in self.needed or index in self.settled_definitions:
            return state
        opcode = instruction.opcode
        if operation(opcode.base, opcode.modifiers) == "alloc":
            return self._allocate(instruction, state)
        if not instruction.destination_count:
            return state
        results = self._evaluate(instruction, state)
        registers = state.registers
        changed = False
        condition_only = self.feeds_addresses is not None and index not in self.feeds_addresses
        for destination, value in results:
            if condition_only and value is VARYING:
                value = None
            if instruction.guard is not None:  # it may not execute: the old value may survive
                value = join_values(registers.get(destination), value)
            if registers.get(destination) is value or registers.get(destination) == value:
                continue
            if not changed:
                registers = dict(registers)
                changed = True
            if value is None:
                registers.pop(destination, None)
            else:
                registers[destination] = value
        return ValueState(registers, state.slots) if changed else state

    # -- helpers used by rules

    def value_of(self, operand, state: ValueState) -> Value:
        """The abstract value of a source operand (an absent register is ``None``)."""
        kind = type(operand)
        if kind is Register:
            name = operand.name
            return self.settled[name] if name in self.settled else state.registers.get(name)
        if kind is Immediate:
            value = operand.value
            return _wrap(value, 64) if type(value) is int else None
        if kind is Symbol:
            return SharedAddress(operand.name, 0)
        if kind is SpecialRegister:
            return self._special(operand.name)
        if kind is Negated:
            inner = self.value_of(operand.operand, state)
            return self._map(lambda a: (not a) if type(a) is bool else None, (inner,))
        if kind is Address:
            return self._address(operand, state)
        return None

    def truth(self, predicate, state: ValueState) -> tuple | None:
        """Per warp: True, False or None (unknown) for a predicate operand, or None when nothing
        is known for any warp."""
        value = self.value_of(predicate, state)
        if value is None or value is VARYING or type(value) is ThreadFunction:
            return None
        entries = _per_warp(value, self.warp_index)
        return tuple(entry if type(entry) is bool else None for entry in entries)

    # -- internals

    def _allocate(self, instruction: Instruction, state: ValueState) -> ValueState:
        target = instruction.operands[0] if instruction.operands else None
        slot = self._address(target, state) if isinstance(target, Address) else None
        if type(slot) is not SharedAddress or slot.key in state.slots:
            return state
        return ValueState(state.registers, state.slots | {slot.key})

    def _address(self, address: Address, state: ValueState) -> Value:
        if address.base is None:
            return None
        base = self.value_of(address.base, state)
        if address.offset == 0:
            return base
        return self._map(lambda a: _add(a, address.offset, 64), (base,))

    def _special(self, name: str) -> Value:
        if name == "%tid.x" and self.tid_x_is_linear:
            return THREAD_INDEX
        if name.startswith(_THREAD_VARYING_SPECIALS):
            return VARYING
        return None

    def _evaluate(self, instruction: Instruction, state: ValueState) -> list[tuple[str, Value]]:
        """(destination register, value) pairs the instruction writes."""
        destinations = [
            operand.name for operand in _flatten(instruction.destinations) if type(operand) is Register
        ]
        opcode = instruction.opcode
        first = opcode.modifiers[0] if opcode.modifiers else ""
        if opcode.base in _VARYING_BASES or (opcode.base, first) in _VARYING_OPERATIONS:
            return [(name, VARYING) for name in destinations]
        if opcode.base == "ld":
            return [(name, self._load(instruction, state)) for name in destinations[:1]] + [
                (name, VARYING) for name in destinations[1:]
            ]
        if opcode.base == "shfl":
            return self._shuffle(instruction, state, destinations)
        sources = [self.value_of(operand, state) for operand in instruction.sources]
        if opcode.base == "setp" and len(destinations) >= 1:
            return self._set_predicate(instruction, sources, destinations)
        value = self._operate(instruction, sources)
        if value is _UNMODELLED:
            value = VARYING if any(_tracked(source) for source in sources) else None
        return [(destinations[0], value)] + [(name, VARYING) for name in destinations[1:]] if destinations else []

    def _load(self, instruction: Instruction, state: ValueState) -> Value:
        """`ld.shared` of the slot `tcgen05.alloc` wrote gives the allocation's TMEM address."""
        sources = instruction.sources
        address = self._address(sources[0], state) if sources and type(sources[0]) is Address else VARYING
        if type(address) is SharedAddress and address.key in state.slots:
            return TensorAddress(address.key, 0, 0)
        return VARYING if _tracked(address) else None

    def _shuffle(self, instruction: Instruction, state: ValueState, destinations: list[str]) -> list:
        """`shfl.sync.idx` of a warp-uniform value reads that same value, whatever lane it
        names; the predicate output is left unknown."""
        results: list[tuple[str, Value]] = [(name, VARYING) for name in destinations]
        if "idx" not in instruction.opcode.modifiers or not destinations or not instruction.sources:
            return results
        value = self.value_of(instruction.sources[0], state)
        if value is not VARYING and type(value) is not ThreadFunction:
            results[0] = (destinations[0], value)
        return results

    def _set_predicate(self, instruction: Instruction, sources: list, destinations: list[str]) -> list:
        modifiers = instruction.opcode.modifiers
        bits, signed = _width(instruction)
        relation = modifiers[0] if modifiers else ""
        if relation not in _COMPARISONS or len(sources) != 2 or any(m.startswith("f") for m in modifiers[1:]):
            value = VARYING if any(_tracked(source) for source in sources) else None
        elif any(type(source) is ThreadFunction for source in sources):
            value = self._compare_thread_function(relation, signed, bits, sources)
        else:
            value = self._map(lambda a, b: _compare(relation, signed)(a, b, bits), sources)
        results = [(destinations[0], value)]
        if len(destinations) > 1:
            negation = self._map(lambda a: (not a) if type(a) is bool else None, (value,))
            results.append((destinations[1], negation))
        return results

    def _compare_thread_function(self, relation: str, signed: bool, bits: int, sources: list) -> Value:
        """`%tid.x > 31` is the same in every lane of a warp when it holds for all of warp w's
        thread indices 32w … 32w+31 or for none."""
        thread_first = type(sources[0]) is ThreadFunction
        function, constant = (sources[0], sources[1]) if thread_first else (sources[1], sources[0])
        if type(constant) is not int or type(constant) is bool:
            return VARYING
        test = _compare(relation, signed)
        step = (lambda value: test(value, constant, bits)) if thread_first else (lambda value: test(constant, value, bits))
        return self._per_warp_of_threads(lambda thread: _apply_or_none(step, function.evaluate(thread)))

    def _per_warp_of_threads(self, function: Callable[[int], object]) -> Value:
        """A per-warp value when every warp's lanes agree, else VARYING."""
        entries = []
        for warp in self.warp_index:
            first = function(warp * WARP_SIZE)
            if first is None:
                return VARYING
            for thread in range(warp * WARP_SIZE + 1, warp * WARP_SIZE + WARP_SIZE):
                if function(thread) != first:
                    return VARYING
            entries.append(first)
        return _normalise(tuple(entries))

    def _operate(self, instruction: Instruction, sources: list) -> Value:
        opcode = instruction.opcode
        base = opcode.base
        bits, signed = _width(instruction)
        if base in ("mov", "cvt", "cvta") and sources:
            if type(sources[0]) is ThreadFunction:
                return sources[0]
            return self._map(lambda a: _wrap(a, bits) if type(a) is int and type(a) is not bool else a, sources[:1])
        if any(type(source) is ThreadFunction for source in sources):
            if base == "mul" and not (opcode.has("lo") or opcode.has("wide")):
                return VARYING
            return self._thread_arithmetic(base, sources, bits)
        if base == "selp" and len(sources) == 3:
            return self._map(lambda a, b, p: (a if p else b) if type(p) is bool else (a if a == b else None), sources)
        binary = _BINARY.get(base)
        if base == "mul" and not opcode.has("lo") and not opcode.has("wide"):
            binary = None
        if base == "mad" and len(sources) == 3 and (opcode.has("lo") or opcode.has("wide")):
            product = self._map(lambda a, b: _integers(lambda x, y: x * y)(a, b, 64), sources[:2])
            return self._map(lambda a, b: _add(a, b, bits), (product, sources[2]))
        if base in ("shr", "div") or (base in ("min", "max") and signed):
            binary = _SIGNED_BINARY[base](signed)
        if base in ("min", "max") and not signed:
            binary = _minimum(False, base == "max")
        if binary is not None and len(sources) == 2:
            if base in ("and", "or", "xor") and any(m == "pred" for m in opcode.modifiers):
                binary = _LOGICAL[base]
            return self._map(lambda a, b: binary(a, b, bits), sources)
        if base == "not" and len(sources) == 1:
            return self._map(lambda a: (not a) if type(a) is bool else (_wrap(~a, bits) if type(a) is int else None), sources)
        if base == "neg" and len(sources) == 1:
            return self._map(lambda a: _wrap(-a, bits) if type(a) is int and type(a) is not bool else None, sources)
        return _UNMODELLED

    def _thread_arithmetic(self, base: str, sources: list, bits: int) -> Value:
        """One more step on `%tid.x`; a per-warp value once each warp's lanes agree."""
        if len(sources) != 2 or type(sources[0]) is not ThreadFunction or base not in _THREAD_STEPS:
            return VARYING
        constant = sources[1]
        if type(constant) is not int or type(constant) is bool:
            return VARYING
        function = sources[0].then((base, constant, bits))
        if function is None:
            return VARYING
        collapsed = self._per_warp_of_threads(function.evaluate)
        return function if collapsed is VARYING else collapsed

    def _map(self, function: Callable, values) -> Value:
        """Apply ``function`` to entries, per warp when any value is per-warp."""
        if any(value is VARYING or type(value) is ThreadFunction for value in values):
            return VARYING
        if not any(type(value) is tuple for value in values):
            arguments = [OPAQUE if value is None else value for value in values]
            result = function(*arguments)
            return None if result is OPAQUE else result
        columns = [value if type(value) is tuple else (OPAQUE if value is None else value,) * self.warp_count for value in values]
        results = []
        for arguments in zip(*columns):
            if any(argument is None for argument in arguments):
                results.append(None)
                continue
            result = function(*arguments)
            results.append(None if result is OPAQUE else result)
        return _normalise(tuple(results))


_UNMODELLED = _Marker("UNMODELLED")


def _apply_or_none(function: Callable, value):
    return None if value is None else function(value)


# Operations followed on `%tid.x`: (value, constant, bits) → value.
_THREAD_STEPS: dict[str, Callable[[int, int, int], int | None]] = {
    "shl": lambda value, amount, bits: _wrap(value << min(amount, 64), bits),
    "shr": lambda value, amount, bits: _wrap(value, bits) >> min(amount, 64),
    "and": lambda value, mask, bits: _wrap(value & mask, bits),
    "or": lambda value, mask, bits: _wrap(value | mask, bits),
    "add": lambda value, addend, bits: _wrap(value + addend, bits),
    "sub": lambda value, subtrahend, bits: _wrap(value - subtrahend, bits),
    "mul": lambda value, factor, bits: _wrap(value * factor, bits),
    "div": lambda value, divisor, bits: value // divisor if divisor > 0 else None,
    "rem": lambda value, divisor, bits: value % divisor if divisor > 0 else None,
}

_BINARY = {
    "add": _add,
    "sub": lambda a, b, bits: _add(a, _wrap(-b, bits), bits) if type(b) is int and type(b) is not bool else (
        TensorAddress(a.slot, a.lane, None) if type(a) is TensorAddress and b is OPAQUE else None),
    "mul": _integers(lambda a, b: a * b),
    "shl": _integers(lambda a, b: a << min(b, 64)),
    "and": _integers(lambda a, b: a & b),
    "or": _or,
    "xor": _integers(lambda a, b: a ^ b),
    "rem": lambda a, b, bits: a % b if type(a) is int and type(b) is int and b > 0 else None,
    "min": _minimum(False, False),
    "max": _minimum(False, True),
}
_SIGNED_BINARY = {
    "shr": _shift_right,
    "div": _divide,
    "min": lambda signed: _minimum(signed, False),
    "max": lambda signed: _minimum(signed, True),
}
_LOGICAL = {
    "and": _logical(lambda a, b: a and b),
    "or": _logical(lambda a, b: a or b),
    "xor": _logical(lambda a, b: a != b),
}


def _tracked(value: Value) -> bool:
    """Whether a value depends on the warp or thread index."""
    return value is VARYING or type(value) is ThreadFunction or type(value) is tuple


def _flatten(operands) -> list:
    found = []
    for operand in operands:
        kind = type(operand)
        if kind is Pair:
            found.extend(_flatten((operand.first, operand.second)))
        elif hasattr(operand, "elements"):
            found.extend(_flatten(operand.elements))
        else:
            found.append(operand)
    return found


# ----------------------------------------------------------------------------- per-function facts



class FunctionValues:
    """The solved analysis of one function."""

    def __init__(self, analysis: WarpValues, solution: Solution[ValueState], names: RegisterIndex) -> None:
        self.analysis = analysis
        self.solution = solution
        self.names = names  # shared with the analyses built on this one
        self.state_before = StatesBefore(solution, analysis)

    @property
    def cfg(self) -> ControlFlowGraph:
        return self.solution.cfg

    @property
    def warp_count(self) -> int:
        return self.analysis.warp_count


def warp_count_of(context: ModuleContext, function: Function) -> tuple[int, bool]:
    """How many warps to tabulate, and whether the count is known from a launch directive."""
    shape = block_shape(function, context.options)
    # `.reqntid 0` (rejected by ptxas, but fed to us anyway) names no warp: tabulate as unknown.
    if function.is_kernel and shape.warp_count:
        return min(shape.warp_count, MAX_WARPS), True
    return MAX_WARPS, False


# Guards whose per-warp truth the tcgen05 rules use: branches and exits (which warps go where),
# tcgen05 operations, calls and the hand-offs of PTX202.
_GUARDS_THAT_MATTER = frozenset(
    {"bra", "brx", "ret", "exit", "tcgen05", "call", "mbarrier", "bar", "barrier", "atom", "red", "st", "cp"}
)


@dataclass(frozen=True)
class Slices:
    """Backward slices over register names, flow-insensitive: the instructions whose results
    can reach a TMEM address or an MMA's descriptor (``addresses``), and those that can reach a
    guard or branch condition the rules use (``conditions``). Everything else (epilogue
    arithmetic, stores of results) is skipped by the transfer function; a debug build is mostly
    that."""

    addresses: frozenset[int]
    conditions: frozenset[int]

    @property
    def needed(self) -> frozenset[int]:
        return self.addresses | self.conditions


def slices(function: Function, names: RegisterIndex) -> Slices:
    instructions = function.instructions
    writers = names.writers
    addresses: list[str] = []
    conditions: list[str] = []
    tcgen05: set[int] = set()
    for index, instruction in enumerate(instructions):
        if instruction.opcode.base == "tcgen05":
            addresses.extend(_operand_names(instruction))
            tcgen05.add(index)
        guard = instruction.guard
        if guard is not None and type(guard.predicate) is Register and instruction.opcode.base in _GUARDS_THAT_MATTER:
            conditions.append(guard.predicate.name)
    return Slices(
        frozenset(_backward_slice(names, writers, addresses) | tcgen05),
        frozenset(_depends_on_thread_index(instructions, names, _backward_slice(names, writers, conditions))),
    )


def _depends_on_thread_index(instructions: tuple[Instruction, ...], names: RegisterIndex, within: set[int]) -> set[int]:
    """The instructions of ``within`` whose operands derive from `%tid` (forward,
    flow-insensitive), and every other writer of the registers they write. A condition computed
    from anything else holds alike in every warp, so evaluating it per warp tells nothing about
    roles. But a skipped instruction leaves its destination's old value in the state, so the
    other writers of a register that holds a per-warp value must run too: CUTLASS computes a
    role number from the warp index and rewrites it with a constant on each role's path
    (`shr.s32 %r9, %r8, 2` then `mov.b32 %r9, 1`), and the constant replaces the per-warp
    table. ``within`` is a backward slice: it holds every writer of what its instructions read,
    so the search need not leave it."""
    readers = names.readers
    writers = names.writers
    found: set[int] = set()
    for index in within:
        if any(type(operand) is SpecialRegister and operand.name.startswith("%tid") for operand in instructions[index].sources):
            found.add(index)
    pending = list(found)
    while pending:
        for name in names.writes(pending.pop()):
            for dependent in (*readers.get(name, ()), *writers[name]):
                if dependent in within and dependent not in found:
                    found.add(dependent)
                    pending.append(dependent)
    return found


def _backward_slice(names: RegisterIndex, writers: dict[str, list[int]], pending: list[str]) -> set[int]:
    wanted: set[str] = set()
    found: set[int] = set()
    while pending:
        name = pending.pop()
        if name in wanted:
            continue
        wanted.add(name)
        for index in writers.get(name, ()):
            if index not in found:
                found.add(index)
                pending.extend(names.reads(index))
    return found


def _operand_names(instruction: Instruction) -> list[str]:
    """The registers of a tcgen05 instruction the rules evaluate: its TMEM and shared-memory
    addresses and an MMA's instruction descriptor (not data vectors or matrix descriptors)."""
    operands = [operand for operand in instruction.operands if type(operand) is Address]
    if instruction.opcode.modifiers[:1] == ("mma",):
        operands += [operand for operand in instruction.operands[3:] if type(operand) is not Address][:1]
    return [register.name for operand in operands for register in registers_in(operand)]


def function_values(context: ModuleContext, function: Function) -> FunctionValues:
    """Solve the analysis for ``function``."""
    graph = context.control_flow_graph(function)
    warp_count, _ = warp_count_of(context, function)
    shape = block_shape(function, context.options)
    names = register_index(context, function)
    analysis = WarpValues(warp_count, shape.linear_tid_is_tid_x, slices(function, names))
    analysis.settle(function.instructions, names)
    analysis.expire_block_locals(graph, names)
    analysis.plan_visits(graph)
    return FunctionValues(analysis, solve_forward(graph, analysis), names)
