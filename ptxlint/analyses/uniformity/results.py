"""What an instruction computes from its operands: the value it writes (arithmetic through the
exact `%tid.x` forms of ``thread_index.py``, comparisons, selections, loads, the warp-level
primitives, results that differ per lane), and the origin a user is shown for a value that
varies.

:class:`ResultValues` owns the thread-index arithmetic and the origins it made (one per
instruction and cause, so that values compare by identity); it asks the data transfer for the
values of operands and the parameters for what `ld.param` reads."""

from __future__ import annotations

from typing import Sequence

from ptxlint import ir
from ptxlint.analyses.threads.tid_fields import Level, Multiple, TidBound, TidDependence, TidSet, alignment_of
from ptxlint.analyses.uniformity.calls import Parameters
from ptxlint.analyses.uniformity.data import DataTransfer
from ptxlint.analyses.uniformity.inputs import FunctionInputs
from ptxlint.analyses.uniformity.lattice import (
    ELECTED,
    UNIFORM,
    Origin,
    State,
    Value,
    constant_of,
    multiple_of,
    join,
    subject_text,
    with_level,
    without_bits,
)
from ptxlint.analyses.uniformity.kinds import (
    ARITHMETIC,
    BARRIER,
    ELECT,
    LANE_ARITHMETIC,
    LOAD,
    LOCAL_KEY,
    PREDICATE,
    SELECT,
    SETP,
    SOURCES,
    VARYING,
    WARP_RESULT,
)
from ptxlint.analyses.uniformity.lane_functions import LaneFunctions
from ptxlint.analyses.uniformity.thread_comparisons import ThreadIndexComparisons
from ptxlint.analyses.uniformity.thread_index import ThreadIndexArithmetic, integer_only
from ptxlint.isa.types import access_bytes
from ptxlint.isa.barriers import cta_barrier_of
from ptxlint.source import Span

_FULL_MASKS = frozenset({-1, 0xFFFFFFFF})


class ResultValues:
    """The values instructions write, from the values of their operands."""

    def __init__(self, inputs: FunctionInputs, data: DataTransfer, parameters: Parameters) -> None:
        self._space = inputs.space
        self._private_local = inputs.static.private_local
        self._local_frame = inputs.static.local_frame
        self._data = data
        self._parameters = parameters
        self._thread_index = ThreadIndexArithmetic(inputs.lanes, inputs.space)
        self._comparisons = ThreadIndexComparisons(inputs.lanes, inputs.space)
        self._lane_functions = LaneFunctions(inputs.lanes, inputs.space)
        self._origins: dict[tuple[int, str], Origin] = {}
        # Per instruction whose result differs per lane whatever its operands: that value.
        self._lane_results: dict[int, Value] = {}

    def results(self, kind: int, index: int, instruction: ir.Instruction, state: State) -> list[tuple[ir.Register, Value]]:
        """What `elect` and `shfl` (``kind``) write, register by register."""
        destinations = instruction.destinations
        if kind == ELECT:
            return self._elect(index, instruction, destinations)
        return self._shuffle(index, instruction, state, destinations)

    def value(self, kind: int, index: int, instruction: ir.Instruction, state: State) -> Value:
        """The value an instruction writes to each of its destinations."""
        if kind == ARITHMETIC:
            return self._arithmetic(instruction, state)
        if kind == SOURCES:
            return self._data.sources_value(instruction, state)
        if kind == SELECT:
            return self._select(index, instruction, state)
        if kind == LOAD:
            return self._load(index, instruction, state)
        if kind == SETP:
            return self._compare(instruction, state)
        if kind == VARYING:
            known = self._lane_results.get(index)
            if known is None:
                message = f"the result of `{instruction.opcode.text}` differs between lanes"
                known = self._lane_results[index] = self.varying(index, message, instruction.opcode_span)
            return known
        if kind == WARP_RESULT:
            return self._warp_result(index, instruction, state)
        if kind == BARRIER:
            barrier = cta_barrier_of(instruction)  # `bar.red`: the CTA's reduction, or its participants'
            return with_level(Level.CTA if barrier is None or barrier.whole_cta else Level.WARP, None)
        if kind == PREDICATE:
            if self._space is not None:
                return self._predicate_logic(instruction.opcode.base, instruction, state)
            if instruction.opcode.base in LANE_ARITHMETIC:
                return self._arithmetic(instruction, state)
        return self._data.sources_value(instruction, state)

    def _select(self, index: int, instruction: ir.Instruction, state: State) -> Value:
        """`selp d, a, b, c` / `slct d, a, b, c`: ``a`` or ``b`` by ``c``. When the choice varies
        more than the values chosen from (an allocated address for one thread, 0 for the others),
        the selection is what made the result vary: it is the origin the user must see, rather
        than whatever made ``c`` vary further back."""
        value = self._data.sources_value(instruction, state)
        sources = instruction.sources
        if len(sources) != 3:
            return value
        if value.bits is None and value.level <= Level.WARP:
            # Both values a multiple of 2**k (`p ? 32 : 0`, a thread count less a warp): so is
            # the one chosen.
            alignment = min(
                alignment_of(self._data.operand_value(sources[0], instruction, state).bits),
                alignment_of(self._data.operand_value(sources[1], instruction, state).bits),
            )
            if alignment:
                return multiple_of(alignment) if value.level == Level.CTA else Value(value.level, Multiple(alignment), value.origin)
        if value.level == Level.CTA:
            return value
        chosen = join(self._data.operand_value(sources[0], instruction, state), self._data.operand_value(sources[1], instruction, state))
        if chosen.level >= value.level:
            return value
        condition = sources[2]
        decided_by = self._data.operand_value(condition, instruction, state).origin
        if decided_by is not None and decided_by.message == ELECTED:
            # `selp d, 1, 0, p` of an elected `p` (CUTLASS's elect_one_sync): the election is the
            # cause a reader recognises, not the selection that copies it.
            return Value(value.level, None, decided_by)
        message = (
            f"`{instruction.opcode.base}` chooses between its values by `{subject_text(condition)}`, "
            f"which is {value.level.adjective}"
        )
        origin = self._origins.get((index, message))
        if origin is None:
            origin = self._origins[(index, message)] = Origin(instruction.opcode_span, message)
        return Value(value.level, None, origin)

    def varying(self, index: int, message: str, span: Span) -> Value:
        origin = self._origins.get((index, message))
        if origin is None:
            origin = self._origins[(index, message)] = Origin(span, message)
        return Value(Level.THREAD, None, origin)

    def _warp_result(self, index: int, instruction: ir.Instruction, state: State) -> Value:
        """`vote.sync`, `redux.sync`, `match.all.sync`: equal in every lane of the mask; with a
        full mask, warp-uniform."""
        membermask = instruction.operands[-1] if instruction.operands else None
        if membermask is not None and self._data.constant_operand(membermask, instruction, state) in _FULL_MASKS:
            sources = instruction.sources
            if len(sources) == 2 and self._lane_functions.reduces_lane_function(
                self._data.operand_value(sources[0], instruction, state)
            ):
                return UNIFORM  # every warp reduces the same lane values (`buf[lane]`)
            return Value(Level.WARP)
        return self.varying(index, f"`{instruction.opcode.text}` with a partial mask differs between lanes", instruction.opcode_span)

    def _elect(self, index: int, instruction: ir.Instruction, destinations: Sequence[ir.Operand]) -> list[tuple[ir.Register, Value]]:
        """`elect.sync d|p`: the leader's lane id `d` is warp-uniform, `p` is true in one lane."""
        pair = destinations[0] if destinations else None
        if type(pair) is not ir.Pair:
            return []
        results = []
        if type(pair.first) is ir.Register:
            results.append((pair.first, Value(Level.WARP)))
        if type(pair.second) is ir.Register:
            results.append((pair.second, self.varying(index, ELECTED, instruction.opcode_span)))
        return results

    def _shuffle(
        self, index: int, instruction: ir.Instruction, state: State, destinations: Sequence[ir.Operand]
    ) -> list[tuple[ir.Register, Value]]:
        """`shfl.sync.mode d|p, a, b, c, mask`. A warp-uniform `a` stays what it is in any mode;
        `idx` with a full mask, uniform lane `b` and no segments (c = 0x1f) broadcasts one lane,
        the CUTLASS/Triton idiom for a uniform warp index."""
        sources = instruction.sources
        destination = destinations[0] if destinations else None
        registers = ir.registers_in(destination) if destination is not None else ()
        if len(sources) < 4 or not registers:
            return [(register, self._data.sources_value(instruction, state)) for register in registers]
        data, lane, clamp, membermask = sources[:4]
        data_value = self._data.operand_value(data, instruction, state)
        full = self._data.constant_operand(membermask, instruction, state) in _FULL_MASKS
        clamp_value = self._data.constant_operand(clamp, instruction, state)
        lane_value = self._data.operand_value(lane, instruction, state)
        lane_constant = constant_of(lane_value)
        broadcast = (
            full
            and instruction.opcode.has("idx")
            and clamp_value is not None
            and (clamp_value >> 8) & 0x1F == 0
            and lane_value.level <= Level.WARP
            and (lane_constant is None or 0 <= lane_constant <= (clamp_value & 0x1F))
        )
        if full and data_value.level <= Level.WARP:
            value = data_value
        elif broadcast:
            value = Value(Level.WARP)
        else:
            message = f"`{instruction.opcode.text}` reads a different lane in each thread"
            value = self.varying(index, message, instruction.opcode_span)
        results = [(registers[0], value)]
        if len(registers) > 1:
            in_range = Value(Level.WARP) if broadcast else self.varying(index, "the `shfl.sync` in-range predicate differs between lanes", instruction.opcode_span)
            results.append((registers[1], in_range))
        return results

    def _load(self, index: int, instruction: ir.Instruction, state: State) -> Value:
        """Loads are as uniform as their address, except from `.local` memory; `ld.param` reads
        a kernel parameter (CTA-uniform), a `.func` parameter (the callers' join) or a `.param`
        variable of a call sequence (tracked like a register)."""
        modifiers = instruction.opcode.modifiers
        address = next((operand for operand in instruction.sources if type(operand) is ir.Address), None)
        if any(modifier.startswith("local") for modifier in modifiers):
            if not self._private_local or address is None:
                return self.varying(index, "`.local` memory is private to each thread", instruction.opcode_span)
            # One of the values this function stores to `.local` memory (each thread reads its
            # own copy), from a slot as uniform as the address.
            frame = self._local_frame
            stored = None
            for key in frame.loads.get(index, (LOCAL_KEY,)) if frame is not None else (LOCAL_KEY,):
                value = self._data.written_once_value(key)
                if value is not None:
                    stored = value if stored is None else join(stored, value)
            if stored is None:
                stored = UNIFORM
            return without_bits(join(stored, self._data.operand_value(address, instruction, state)))
        if address is None:
            return self._data.sources_value(instruction, state)
        if any(modifier.startswith("param") for modifier in modifiers) and type(address.base) is ir.Symbol:
            name = address.base.name
            parameter = self._parameters.loaded(name, address.base.span, address.offset, access_bytes(modifiers))
            if parameter is not None:
                return parameter
            return state.values.get("param:" + name, UNIFORM)
        value = self._data.operand_value(address, instruction, state)
        if value.level == Level.CTA:
            return UNIFORM
        if address.base is not None and not address.extra:  # `[%r6+8]`: the register's form holds
            base = self._data.operand_value(address.base, instruction, state)
            by_lane = self._lane_functions.loaded_by_lane(base, 8 * (access_bytes(modifiers) or 8))
            if by_lane is not None:
                return by_lane
        origin = value.origin or Origin(address.span, "the address differs between threads")
        return Value(value.level, None, origin)

    # --- the thread-index arithmetic (``thread_index.py``), on operand values

    def _arithmetic(self, instruction: ir.Instruction, state: State) -> Value:
        sources = instruction.sources
        if not sources or not integer_only(instruction.opcode):
            return self._data.sources_value(instruction, state)
        values = [self._data.operand_value(operand, instruction, state) for operand in sources]
        return self._thread_index.arithmetic(instruction.opcode, values)

    def _predicate_logic(self, base: str, instruction: ir.Instruction, state: State) -> Value:
        """`mov`/`not`/`and`/`or`/`xor` of predicates keep exact `%tid.x` sets."""
        fallback = self._data.sources_value(instruction, state)
        sources = instruction.sources
        if fallback.level == Level.CTA or not sources or len(sources) > 2:
            return fallback
        masks = []
        values = [self._data.operand_value(operand, instruction, state) for operand in sources]
        if base in ("and", "or") and any(type(value.bits) is TidBound for value in values):
            # One run of threads and whole warps: still one run per warp, at most one warp split.
            if sum(type(value.bits) is TidBound for value in values) == 1 and all(
                type(value.bits) is TidBound or value.level <= Level.WARP for value in values
            ):
                return Value(fallback.level, TidBound(), fallback.origin)
            return fallback
        for value in values:
            if type(value.bits) is not TidSet:
                return fallback
            masks.append(value.bits.mask)
        return self._comparisons.predicate_logic(base, masks, fallback)

    def _compare(self, instruction: ir.Instruction, state: State) -> Value:
        """`setp.cmp p, a, b`: see ``thread_comparisons.ThreadIndexComparisons.compare``."""
        fallback = self._data.sources_value(instruction, state)
        sources = instruction.sources
        if fallback.level == Level.CTA or len(sources) != 2:
            return fallback
        left, right = sources
        swapped = type(left) is ir.Immediate and type(right) is not ir.Immediate
        if swapped:
            left, right = right, left
        constant = self._data.constant_operand(right, instruction, state)
        value = self._data.operand_value(left, instruction, state)
        other = self._data.operand_value(right, instruction, state) if constant is None else None
        if type(value.bits) is TidDependence or (other is not None and type(other.bits) is TidDependence):
            if other is None:
                other = self._data.operand_value(right, instruction, state)
            return self._lane_functions.compare_lane_values(value, other, fallback)
        if other is not None:
            modifiers = instruction.opcode.modifiers
            same_field = self._comparisons.compare_same_field(modifiers, value, other, fallback)
            if same_field is not fallback:
                return same_field
            return self._comparisons.compare_with_bound(modifiers, value, other, fallback)
        exact = len(instruction.destinations) == 1
        return self._comparisons.compare(instruction.opcode.modifiers, value, constant, swapped, fallback, exact)
