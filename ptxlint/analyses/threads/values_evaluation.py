"""What one instruction computes in each warp, from the abstract values of its operands.

:class:`WarpEvaluator` is the half of the values analysis that knows nothing of control flow:
given a state (the registers' abstract values of :mod:`ptxlint.analyses.threads.values_lattice`),
it gives an operand's value, a predicate's truth per warp and the values an instruction writes.
Registers are keyed as the `registers` pass keys them: a name at the scope of the instruction
that names it resolved to its declaration (see :mod:`ptxlint.analyses.registers`), so two
inline-asm blocks that each declare `.reg .pred p;` hold two values. It owns the values that
hold on every path (the settled registers, the slots a `tcgen05.alloc` fills);
:class:`~ptxlint.analyses.threads.values.WarpValues`, the forward analysis, holds one and tells
it which registers to settle. Rules and other analyses ask
:class:`~ptxlint.analyses.threads.values.FunctionValues`, which asks the evaluator.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable, Iterable, KeysView, Sequence

from ptxlint.analyses.launch import WARP_SIZE
from ptxlint.analyses.threads.thread_sets import thread_bound, threads_where, warp_entries, warp_truths
from ptxlint.analyses.threads.values_bits import and_values, extract_field, insert_field, permute_bytes, shift_right_address
from ptxlint.analyses.threads.values_lattice import (
    BINARY_OPERATIONS,
    LOGICAL_OPERATIONS,
    OPAQUE,
    SIGNED_OPERATIONS,
    THREAD_INDEX,
    THREAD_STEPS,
    VARYING,
    Argument,
    Entry,
    Marker,
    SharedAddress,
    TensorAddress,
    ThreadFunction,
    Value,
    ValueState,
    add_values,
    comparison,
    integer_width,
    minimum,
    normalise,
    on_integers,
    per_warp,
    wrap,
)
from ptxlint.ir import Address, Immediate, Instruction, Negated, Operand, Pair, Register, SpecialRegister, Symbol
from ptxlint.isa.comparisons import RELATIONS
from ptxlint.isa.special_registers import PREDEFINED_CONSTANTS
from ptxlint.isa.tcgen05 import operation

# Special registers whose value is the same in every thread of the CTA stay absent (unknown but
# warp-independent); these differ between threads or change between reads.
_THREAD_VARYING_SPECIALS = ("%tid", "%laneid", "%lanemask", "%warpid", "%smid", "%clock", "%globaltimer", "%pm")

# Instructions whose result differs between threads whatever their operands.
_VARYING_BASES = frozenset({"atom", "elect", "activemask", "match", "tcgen05", "vote", "nanosleep"})
_VARYING_OPERATIONS = frozenset({("mbarrier", "try_wait"), ("mbarrier", "test_wait")})

# The thread-index bits below the warp index.
_WARP_BITS = WARP_SIZE.bit_length() - 1

# Instructions that can write shared memory at their first address operand.
_MEMORY_WRITES = frozenset({"st", "atom", "red", "cp", "stmatrix", "mbarrier", "multimem"})

# The state of no path: what a settled register's definition is evaluated in.
_EMPTY = ValueState({}, frozenset())

# Operations on the thread index whose operands may be swapped.
_COMMUTATIVE = frozenset({"add", "mul", "and", "or", "xor", "min", "max"})


class WarpEvaluator:
    """Abstract values of operands and results for ``warp_count`` warps. It owns the registers
    whose value is the same on every path (:meth:`settle`): they are read from there rather
    than from a state. ``extents`` is the block's shape when `.reqntid` fixes it: then
    `%tid.y`, `%tid.z` and `%ntid` are known functions of the linear thread index. ``key``
    resolves a register name at a scope to its key (:meth:`Registers.key
    <ptxlint.analyses.registers.Registers.key>`); None when every key is the name itself (a
    function without nested register declarations), which then costs nothing to resolve."""

    def __init__(
        self,
        warp_count: int,
        tid_x_is_linear: bool,
        extents: tuple[int, int, int] | None = None,
        key: Callable[[str, int], str] | None = None,
    ) -> None:
        self._key = key
        self._warp_count = warp_count
        self._tid_x_is_linear = tid_x_is_linear
        self._warp_index = tuple(range(warp_count))
        self._settled: dict[str, Value] = {}
        # Shared-memory slots that hold a `tcgen05.alloc` address on every path that reads them.
        self._allocation_slots: frozenset[str] = frozenset()
        self._thread_count = warp_count * WARP_SIZE
        self._specials: dict[str, Value] = {}
        if extents is not None and all(extent > 0 for extent in extents):
            self._thread_count = min(self._thread_count, extents[0] * extents[1] * extents[2])
            self._specials = self._thread_coordinates(*extents)

    # -- what holds on every path

    def settle(self, instruction: Instruction) -> None:
        """Record what ``instruction`` writes as the value of its destinations on every path:
        its operands are immediates, special registers, symbols or settled registers."""
        self._settled.update(self.evaluate(instruction, _EMPTY))

    def settle_unknown(self, keys: Iterable[str]) -> None:
        """Record the registers ``keys`` as unknown (but the same) on every path."""
        self._settled.update((key, None) for key in keys)

    def settled_keys(self) -> KeysView[str]:
        """The registers settled so far, by key (a live view)."""
        return self._settled.keys()

    def find_allocation_slots(self, instructions: tuple[Instruction, ...]) -> None:
        """The shared-memory slots a `tcgen05.alloc` of this function writes, at an address
        known on every path (call after settling), and that nothing else here writes.
        Warp-specialised kernels allocate in one warp and read the address back in others after
        a barrier, on paths the allocation is not on: whatever path reads such a slot, what it
        holds is the allocation's address (lane 0). ``state.slots`` still says which slots an
        allocation may have written on the path, for the allocations at other addresses."""
        allocated: set[str] = set()
        written: set[str] = set()
        for instruction in instructions:
            base = instruction.opcode.base
            if base != "tcgen05" and base not in _MEMORY_WRITES:
                continue
            target = next((operand for operand in instruction.operands if type(operand) is Address), None)
            slot = self._address(target, _EMPTY, instruction.scope) if target is not None else None
            if type(slot) is not SharedAddress:
                continue
            if operation(base, instruction.opcode.modifiers) == "alloc":
                allocated.add(slot.key)
            elif base != "tcgen05":
                written.add(slot.key)
        self._allocation_slots = frozenset(allocated - written)

    # -- queries

    def value_of(self, operand: Operand | None, state: ValueState, scope: int) -> Value:
        """The abstract value of a source operand of an instruction in scope ``scope`` (an
        absent register is ``None``)."""
        # The hottest dispatch of the analysis: mypy does not narrow ``operand`` through ``kind``,
        # and a cast per operand would cost time, hence the ignores.
        kind = type(operand)
        if kind is Register:
            name = operand.name  # type: ignore[union-attr]
            if self._key is not None:
                name = self._key(name, scope)
            return self._settled[name] if name in self._settled else state.registers.get(name)
        if kind is Immediate:
            value = operand.value  # type: ignore[union-attr]
            return wrap(value, 64) if type(value) is int else None
        if kind is Symbol:
            return SharedAddress(operand.name, 0)  # type: ignore[union-attr]
        if kind is SpecialRegister:
            return self._special(operand.name)  # type: ignore[union-attr]
        if kind is Negated:
            inner = self.value_of(operand.operand, state, scope)  # type: ignore[union-attr]
            return self._map(lambda a: (not a) if type(a) is bool else None, (inner,))
        if kind is Address:
            return self._address(operand, state, scope)  # type: ignore[arg-type]
        return None

    def truth(self, predicate: Operand, state: ValueState, scope: int) -> tuple[bool | None, ...] | None:
        """Per warp: True, False or None (unknown) for a predicate operand of an instruction in
        scope ``scope``, or None when nothing is known for any warp."""
        value = self.value_of(predicate, state, scope)
        if value is None or value is VARYING or type(value) is ThreadFunction:
            return None
        entries = per_warp(value, self._warp_index)
        return tuple(entry if type(entry) is bool else None for entry in entries)

    def evaluate(self, instruction: Instruction, state: ValueState) -> list[tuple[str, Value]]:
        """(destination register's key, value) pairs the instruction writes."""
        key = self._key
        scope = instruction.scope
        destinations = [
            operand.name if key is None else key(operand.name, scope)
            for operand in _flatten(instruction.destinations)
            if type(operand) is Register
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
        sources = [self.value_of(operand, state, scope) for operand in instruction.sources]
        if opcode.base == "setp" and len(destinations) >= 1:
            return self._set_predicate(instruction, sources, destinations)
        value = self._operate(instruction, sources)
        if value is _UNMODELLED:
            value = VARYING if any(_tracked(source) for source in sources) else None
        return [(destinations[0], value)] + [(name, VARYING) for name in destinations[1:]] if destinations else []

    # -- internals

    def _address(self, address: Address, state: ValueState, scope: int) -> Value:
        if address.base is None:
            return None
        base = self.value_of(address.base, state, scope)
        if address.offset == 0:
            return base
        return self._map(lambda a: add_values(a, address.offset, 64), (base,))

    def _thread_coordinates(self, x: int, y: int, z: int) -> dict[str, Value]:
        """`%tid.*` of a block of known shape, from the linear thread index t = tid.x + tid.y ·
        ntid.x + tid.z · ntid.x · ntid.y, and `%ntid.*`."""
        linear = THREAD_INDEX
        coordinates: dict[str, Value] = {"%ntid.x": x, "%ntid.y": y, "%ntid.z": z}
        tid_x = linear if y == z == 1 else linear.then(("rem", x, 32))
        tid_y = ThreadFunction((("div", x, 32),) + ((("rem", y, 32),) if z > 1 else ()))
        tid_z = linear.then(("div", x * y, 32))
        for name, function, extent in (("%tid.x", tid_x, x), ("%tid.y", tid_y, y), ("%tid.z", tid_z, z)):
            coordinates[name] = 0 if extent == 1 else self._collapse(function) if function is not None else VARYING
        return coordinates

    def _special(self, name: str) -> Value:
        known = self._specials.get(name)
        if known is not None:
            return known
        if name == "%tid.x" and self._tid_x_is_linear:
            return THREAD_INDEX
        if name in PREDEFINED_CONSTANTS:
            return PREDEFINED_CONSTANTS[name]
        if name.startswith(_THREAD_VARYING_SPECIALS):
            return VARYING
        return None

    def _load(self, instruction: Instruction, state: ValueState) -> Value:
        """`ld.shared` of the slot `tcgen05.alloc` wrote (on this path, or anywhere when the
        slot holds nothing else) gives the allocation's TMEM address."""
        sources = instruction.sources
        address = self._address(sources[0], state, instruction.scope) if sources and type(sources[0]) is Address else VARYING
        if type(address) is SharedAddress and (address.key in state.slots or address.key in self._allocation_slots):
            return TensorAddress(address.key, 0, 0)
        return VARYING if _tracked(address) else None

    def _shuffle(self, instruction: Instruction, state: ValueState, destinations: list[str]) -> list[tuple[str, Value]]:
        """`shfl.sync.idx` of a warp-uniform value reads that same value, whatever lane it
        names; the predicate output is left unknown."""
        results: list[tuple[str, Value]] = [(name, VARYING) for name in destinations]
        if "idx" not in instruction.opcode.modifiers or not destinations or not instruction.sources:
            return results
        value = self.value_of(instruction.sources[0], state, instruction.scope)
        if value is not VARYING and type(value) is not ThreadFunction:
            results[0] = (destinations[0], value)
        return results

    def _set_predicate(self, instruction: Instruction, sources: list[Value], destinations: list[str]) -> list[tuple[str, Value]]:
        modifiers = instruction.opcode.modifiers
        bits, signed = integer_width(instruction)
        relation = modifiers[0] if modifiers else ""
        if relation not in RELATIONS or len(sources) != 2 or any(m.startswith("f") for m in modifiers[1:]):
            value = VARYING if any(_tracked(source) for source in sources) else None
        elif any(type(source) is ThreadFunction for source in sources):
            value = self._compare_thread_function(relation, signed, bits, sources)
        else:
            value = self._map(lambda a, b: comparison(relation, signed)(a, b, bits), sources)
        results = [(destinations[0], value)]
        if len(destinations) > 1:
            negation = self._map(lambda a: (not a) if type(a) is bool else None, (value,))
            results.append((destinations[1], negation))
        return results

    def _compare_thread_function(self, relation: str, signed: bool, bits: int, sources: list[Value]) -> Value:
        """`%tid.x > 31` is the same in every lane of a warp when it holds for all of warp w's
        thread indices 32w … 32w+31 or for none."""
        thread_first = type(sources[0]) is ThreadFunction
        function: ThreadFunction
        function, constant = (sources[0], sources[1]) if thread_first else (sources[1], sources[0])  # type: ignore[assignment]  # one is
        if type(constant) is not int or type(constant) is bool:
            return VARYING
        return _compared_per_warp(function, constant, relation, signed, bits, thread_first, self._warp_count, self._thread_count)

    def _collapse(self, function: ThreadFunction) -> Value:
        """The per-warp value of ``function`` when each warp's lanes agree, else the function."""
        field = function.field
        if field is not None and field.low >= _WARP_BITS:
            # Only warp bits of the thread index: the field's value in a warp's first lane is
            # every lane's.
            entries: tuple[Entry, ...] | None = tuple(field.at(warp * WARP_SIZE) for warp in self._warp_index)
        else:
            entries = _entries_per_warp(function, self._warp_count, self._thread_count)
        return function if entries is None else normalise(entries)

    def _operate(self, instruction: Instruction, sources: list[Value]) -> Value:
        opcode = instruction.opcode
        base = opcode.base
        bits, signed = integer_width(instruction)
        if base in ("mov", "cvt", "cvta") and sources:
            if type(sources[0]) is ThreadFunction:
                return sources[0]
            return self._map(lambda a: wrap(a, bits) if type(a) is int and type(a) is not bool else a, sources[:1])
        if base == "mad" and len(sources) == 3 and (opcode.has("lo") or opcode.has("wide")):
            product = self._binary("mul", sources[0], sources[1], 64)
            return self._binary("add", product, sources[2], bits)
        if any(type(source) is ThreadFunction for source in sources):
            if base == "mul" and not (opcode.has("lo") or opcode.has("wide")):
                return VARYING
            return self._thread_arithmetic(base, sources, bits)
        fields = self._bit_fields(instruction, sources, bits, signed)
        if fields is not _UNMODELLED:
            return fields
        if base == "selp" and len(sources) == 3:
            return self._map(lambda a, b, p: (a if p else b) if type(p) is bool else (a if a == b else None), sources)
        binary = BINARY_OPERATIONS.get(base)
        if base == "mul" and not opcode.has("lo") and not opcode.has("wide"):
            binary = None
        if base in ("shr", "div") or (base in ("min", "max") and signed):
            binary = SIGNED_OPERATIONS[base](signed)
        if base in ("min", "max") and not signed:
            binary = minimum(False, base == "max")
        if binary is not None and len(sources) == 2:
            if base in ("and", "or", "xor") and any(m == "pred" for m in opcode.modifiers):
                binary = LOGICAL_OPERATIONS[base]
            return self._map(lambda a, b: binary(a, b, bits), sources)
        if base == "not" and len(sources) == 1:
            return self._map(lambda a: (not a) if type(a) is bool else (wrap(~a, bits) if type(a) is int else None), sources)
        if base == "neg" and len(sources) == 1:
            return self._map(lambda a: wrap(-a, bits) if type(a) is int and type(a) is not bool else None, sources)
        return _UNMODELLED

    def _binary(self, base: str, first: Value, second: Value, bits: int) -> Value:
        """``first`` ``base`` ``second``, of thread functions or per warp (`mad` is two of these)."""
        if type(first) is ThreadFunction or type(second) is ThreadFunction:
            return self._thread_arithmetic(base, [first, second], bits)
        if base == "mul":
            return self._map(lambda a, b: on_integers(lambda x, y: x * y)(a, b, bits), (first, second))
        return self._map(lambda a, b: add_values(a, b, bits), (first, second))

    def _thread_arithmetic(self, base: str, sources: list[Value], bits: int) -> Value:
        """One more step on the thread index; a per-warp value once each warp's lanes agree. The
        other operand is a constant, a thread function or a per-warp table of integers."""
        if len(sources) != 2 or base not in THREAD_STEPS:
            return VARYING
        function, operand = sources
        if type(function) is not ThreadFunction:
            if base == "sub":
                base = "rsub"
            elif base not in _COMMUTATIVE:
                return VARYING
            function, operand = operand, function
        # ``function`` is the ThreadFunction now, ``operand`` one of the kinds a step takes.
        kind = type(operand)
        if kind is tuple:
            if not all(type(entry) is int for entry in operand):  # type: ignore[union-attr]
                return VARYING
        elif kind is not int and kind is not ThreadFunction:
            return VARYING
        function = function.then((base, operand, bits))  # type: ignore[union-attr,arg-type]
        return VARYING if function is None else self._collapse(function)

    def _bit_fields(self, instruction: Instruction, sources: list[Value], bits: int, signed: bool) -> Value:
        """Masks, shifts, `bfi`, `bfe` and `prmt`, which can take a TMEM address apart and put
        one together (see :mod:`ptxlint.analyses.threads.values_bits`)."""
        base = instruction.opcode.base
        count = len(sources)
        if base == "and" and count == 2 and not instruction.opcode.has("pred"):
            return self._map(lambda a, b: and_values(a, b, bits), sources)
        if base == "shr" and count == 2:
            shift = SIGNED_OPERATIONS["shr"](signed)
            return self._map(
                lambda a, b: shift_right_address(a, b, bits) if type(a) is TensorAddress else shift(a, b, bits), sources
            )
        if base == "bfi" and count == 4:
            return self._map(lambda a, b, c, d: insert_field(a, b, c, d, bits), sources)
        if base == "bfe" and count == 3:
            return self._map(lambda a, b, c: extract_field(a, b, c, bits, signed), sources)
        if base == "prmt" and count == 3 and instruction.opcode.modifiers == ("b32",):
            return self._map(permute_bytes, sources)
        return _UNMODELLED

    def _map(self, function: Callable[..., Argument], values: Sequence[Value]) -> Value:
        """Apply ``function`` to entries, per warp when any value is per-warp."""
        if any(value is VARYING or type(value) is ThreadFunction for value in values):
            return VARYING
        if not any(type(value) is tuple for value in values):
            arguments = [OPAQUE if value is None else value for value in values]
            result = function(*arguments)
            return None if result is OPAQUE else result  # type: ignore[return-value]  # not OPAQUE
        columns = [value if type(value) is tuple else (OPAQUE if value is None else value,) * self._warp_count for value in values]
        results: list[Entry] = []
        for arguments in zip(*columns):
            if any(argument is None for argument in arguments):
                results.append(None)
                continue
            result = function(*arguments)
            results.append(None if result is OPAQUE else result)  # type: ignore[arg-type]  # not OPAQUE
        return normalise(tuple(results))


_UNMODELLED = Marker("UNMODELLED")


def _tracked(value: Value) -> bool:
    """Whether a value depends on the warp or thread index."""
    return value is VARYING or type(value) is ThreadFunction or type(value) is tuple


def _flatten(operands: Iterable[Operand]) -> list[Operand]:
    found: list[Operand] = []
    for operand in operands:
        kind = type(operand)
        if kind is Pair:
            found.extend(_flatten((operand.first, operand.second)))  # type: ignore[union-attr]  # a Pair
        elif hasattr(operand, "elements"):
            found.extend(_flatten(operand.elements))
        else:
            found.append(operand)
    return found


# The per-thread evaluations below look at up to 1,024 threads each. The functions they evaluate
# recur across a module (every kernel of a CUTLASS collection computes its warp roles alike), so
# each is computed once per process: pure functions of hashable values.


@lru_cache(maxsize=4096)
def _compared_per_warp(
    function: ThreadFunction, constant: int, relation: str, signed: bool, bits: int, thread_first: bool,
    warp_count: int, thread_count: int,
) -> Value:
    """Per warp, the truth of ``function(thread) relation constant`` (of ``constant relation
    function(thread)`` unless ``thread_first``), from the exact set of threads where it holds
    (as uniformity's `%tid.x` comparisons keep it): each warp sees its projection."""
    test = comparison(relation, signed)
    step = (lambda value: test(value, constant, bits)) if thread_first else (lambda value: test(constant, value, bits))
    threads = threads_where(function.evaluate, step, thread_bound(warp_count, thread_count))
    if threads is None:
        return VARYING
    truths = warp_truths(threads, warp_count, thread_count)
    if all(truth is None for truth in truths):
        return VARYING
    return normalise(truths)


@lru_cache(maxsize=4096)
def _entries_per_warp(function: ThreadFunction, warp_count: int, thread_count: int) -> tuple[Entry, ...] | None:
    """Per warp, the value of ``function`` every lane of it has (None when some warp's lanes
    differ or a value is unknown)."""
    return warp_entries(function.evaluate, warp_count, thread_count)
