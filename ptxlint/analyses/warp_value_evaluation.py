"""What one instruction computes in each warp, from the abstract values of its operands.

:class:`WarpEvaluator` is the half of the values analysis that knows nothing of control flow:
given a state (the registers' abstract values of :mod:`ptxlint.analyses.warp_value_lattice`),
it gives an operand's value, a predicate's truth per warp and the values an instruction writes.
:class:`~ptxlint.analyses.warp_values.WarpValues`, the forward analysis, builds on it; the
tcgen05 rules and analyses ask it through ``FunctionValues.analysis``.
"""

from __future__ import annotations

from typing import Callable

from ptxlint.analyses.launch import WARP_SIZE
from ptxlint.analyses.warp_value_lattice import (
    BINARY_OPERATIONS,
    INTEGER_COMPARISONS,
    LOGICAL_OPERATIONS,
    OPAQUE,
    SIGNED_OPERATIONS,
    THREAD_INDEX,
    THREAD_STEPS,
    VARYING,
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
from ptxlint.ir import Address, Immediate, Instruction, Negated, Pair, Register, SpecialRegister, Symbol

# Special registers whose value is the same in every thread of the CTA stay absent (unknown but
# warp-independent); these differ between threads or change between reads.
_THREAD_VARYING_SPECIALS = ("%tid", "%laneid", "%lanemask", "%warpid", "%smid", "%clock", "%globaltimer", "%pm")

# Instructions whose result differs between threads whatever their operands.
_VARYING_BASES = frozenset({"atom", "elect", "activemask", "match", "tcgen05", "vote", "nanosleep"})
_VARYING_OPERATIONS = frozenset({("mbarrier", "try_wait"), ("mbarrier", "test_wait")})


class WarpEvaluator:
    """Abstract values of operands and results for ``warp_count`` warps. ``settled`` holds the
    registers whose value is the same on every path (filled in by the analysis); they are read
    from there rather than from a state."""

    def __init__(self, warp_count: int, tid_x_is_linear: bool) -> None:
        self.warp_count = warp_count
        self.tid_x_is_linear = tid_x_is_linear
        self.warp_index = tuple(range(warp_count))
        self.settled: dict[str, Value] = {}

    # -- helpers used by rules

    def value_of(self, operand, state: ValueState) -> Value:
        """The abstract value of a source operand (an absent register is ``None``)."""
        kind = type(operand)
        if kind is Register:
            name = operand.name
            return self.settled[name] if name in self.settled else state.registers.get(name)
        if kind is Immediate:
            value = operand.value
            return wrap(value, 64) if type(value) is int else None
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
        entries = per_warp(value, self.warp_index)
        return tuple(entry if type(entry) is bool else None for entry in entries)

    # -- internals

    def _address(self, address: Address, state: ValueState) -> Value:
        if address.base is None:
            return None
        base = self.value_of(address.base, state)
        if address.offset == 0:
            return base
        return self._map(lambda a: add_values(a, address.offset, 64), (base,))

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
        bits, signed = integer_width(instruction)
        relation = modifiers[0] if modifiers else ""
        if relation not in INTEGER_COMPARISONS or len(sources) != 2 or any(m.startswith("f") for m in modifiers[1:]):
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

    def _compare_thread_function(self, relation: str, signed: bool, bits: int, sources: list) -> Value:
        """`%tid.x > 31` is the same in every lane of a warp when it holds for all of warp w's
        thread indices 32w … 32w+31 or for none."""
        thread_first = type(sources[0]) is ThreadFunction
        function, constant = (sources[0], sources[1]) if thread_first else (sources[1], sources[0])
        if type(constant) is not int or type(constant) is bool:
            return VARYING
        test = comparison(relation, signed)
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
        return normalise(tuple(entries))

    def _operate(self, instruction: Instruction, sources: list) -> Value:
        opcode = instruction.opcode
        base = opcode.base
        bits, signed = integer_width(instruction)
        if base in ("mov", "cvt", "cvta") and sources:
            if type(sources[0]) is ThreadFunction:
                return sources[0]
            return self._map(lambda a: wrap(a, bits) if type(a) is int and type(a) is not bool else a, sources[:1])
        if any(type(source) is ThreadFunction for source in sources):
            if base == "mul" and not (opcode.has("lo") or opcode.has("wide")):
                return VARYING
            return self._thread_arithmetic(base, sources, bits)
        if base == "selp" and len(sources) == 3:
            return self._map(lambda a, b, p: (a if p else b) if type(p) is bool else (a if a == b else None), sources)
        binary = BINARY_OPERATIONS.get(base)
        if base == "mul" and not opcode.has("lo") and not opcode.has("wide"):
            binary = None
        if base == "mad" and len(sources) == 3 and (opcode.has("lo") or opcode.has("wide")):
            product = self._map(lambda a, b: on_integers(lambda x, y: x * y)(a, b, 64), sources[:2])
            return self._map(lambda a, b: add_values(a, b, bits), (product, sources[2]))
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

    def _thread_arithmetic(self, base: str, sources: list, bits: int) -> Value:
        """One more step on `%tid.x`; a per-warp value once each warp's lanes agree."""
        if len(sources) != 2 or type(sources[0]) is not ThreadFunction or base not in THREAD_STEPS:
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
        return normalise(tuple(results))


_UNMODELLED = Marker("UNMODELLED")


def _apply_or_none(function: Callable, value):
    return None if value is None else function(value)


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
