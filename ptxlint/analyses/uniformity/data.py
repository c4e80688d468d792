"""Value uniformity (data dependence): the value an instruction writes, from the values of its
operands, special registers and parameters, and how a write under divergent control raises it.

:class:`DataTransfer` owns the side table of registers written once (almost every register in
compiler output: their values live here instead of in the states, with the epoch that makes the
solver revisit a read of one that grew), the registers each block raised to its control, and
its caches of origins. The rest of the analysis asks it for operand values and hands it what
instructions write."""

from __future__ import annotations

from typing import Sequence

from ptxlint import ir
from ptxlint.analyses.lanes import TID_X, Constant, Level, Multiple, TidSet
from ptxlint.analyses.reaching_threads import Threads
from ptxlint.analyses.uniformity.calls import Parameters
from ptxlint.analyses.uniformity.inputs import FunctionInputs
from ptxlint.analyses.uniformity.lattice import (
    ELECTED,
    UNIFORM,
    Divergence,
    Origin,
    State,
    Value,
    at_least,
    constant_of,
    control_origin,
    join,
    subject_text,
    with_level,
    without_bits,
)
from ptxlint.analyses.uniformity.static import (
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
from ptxlint.analyses.uniformity.thread_index import ThreadIndexArithmetic, integer_only
from ptxlint.isa.special_registers import UNIFORMITY, special_register_base
from ptxlint.source import Span

_FULL_MASKS = frozenset({-1, 0xFFFFFFFF})


class DataTransfer:
    """The data-dependence transfer of one function (see the module docstring)."""

    def __init__(self, inputs: FunctionInputs, parameters: Parameters) -> None:
        static = inputs.static
        self._cfg = inputs.cfg
        self._lanes = inputs.lanes
        self._space = inputs.space
        self._names = static.names
        self._invariant = static.invariant
        self._private_local = static.private_local
        self._liveness = inputs.liveness
        self._key_bits = static.key_bits
        self._parameters = parameters
        self._thread_index = ThreadIndexArithmetic(inputs.lanes, inputs.space)
        # The side table: registers written once, by key, raised to the control they were
        # written under; the same before the raise (what a callee sees: it is analysed relative
        # to the threads that entered it); the keys read from it; its epoch.
        self._single: dict[str, Value] = {}
        self._single_data: dict[str, Value] = {}
        self._read: set[str] = set()
        self._epoch = 0
        # Per block: registers written more than once whose last write in the block was raised
        # to the level of the control it ran under, with the value before the raise (see
        # ``lower_raised``).
        self._raised: dict[int, dict[str, Value]] = {}
        self._specials: dict[int, tuple[ir.SpecialRegister, Value]] = {}
        self._origins: dict[tuple[int, str], Origin] = {}

    # --- writes

    def write(
        self, index: int, instruction: ir.Instruction, state: State, execution: Divergence | None,
        keys: Sequence[tuple[str, bool]], written: Value | Sequence[Value],
    ) -> State:
        """Store what an instruction wrote: ``written`` is one value for every key of ``keys``,
        or a list of values aligned with them."""
        values = state.values
        epoch = state.epoch
        single, single_data = self._single, self._single_data
        if type(written) is Value and execution is None and len(keys) == 1 and not keys[0][1]:
            # The common case: one register written once, under uniform control.
            key = keys[0][0]
            previous_data = single_data.get(key)
            if previous_data is not written:
                single_data[key] = written if previous_data is None else join(previous_data, written)
            previous = single.get(key)
            if previous is written:
                return state
            merged = written if previous is None else join(previous, written)
            if merged != previous:
                single[key] = merged
                if key in self._read:
                    self._epoch += 1
                    return State(values, state.control, state.exits, self._epoch, state.threads)
            return state
        guarded = instruction.guard is not None
        invariant = self._invariant
        raised = self._raised.get(self._cfg.block_of(index)) if self._space is not None else None
        last_value: Value | None = None  # results usually share one value: raise it once
        last_raised = UNIFORM  # read only once ``last_value`` is set
        shared = written if type(written) is Value else None
        for position, (key, sensitive) in enumerate(keys):
            value = shared if shared is not None else written[position]  # type: ignore[index]  # a sequence unless a Value
            data_value = value
            # A constant in a register written once is the same in every thread that reads it
            # (each read follows the one write) and in every loop iteration: no raise. Nor for a
            # register every write of which computes one CTA-invariant expression.
            if (
                execution is not None
                and value.level < execution.level  # else the raise changes nothing
                and not (not sensitive and type(value.bits) is Constant)
                and key not in invariant
            ):
                if value is not last_value:
                    last_value, last_raised = value, at_least(value, execution.level, control_origin(execution))
                value = last_raised
            if sensitive:
                if self._space is not None:
                    if not guarded and value is not data_value and value.level > data_value.level:
                        if raised is None:
                            raised = self._raised[self._cfg.block_of(index)] = {}
                        raised[key] = data_value
                    elif raised is not None:
                        raised.pop(key, None)
                if guarded:  # threads whose guard is false keep the old value
                    value = join(values.get(key, UNIFORM), value)
                if values.get(key) != value:
                    if values is state.values:
                        values = dict(values)
                    values[key] = value
                continue
            previous_data = single_data.get(key)
            if previous_data is not data_value:
                single_data[key] = data_value if previous_data is None else join(previous_data, data_value)
            previous = single.get(key)
            if previous is value:
                continue
            merged = value if previous is None else join(previous, value)
            if merged != previous:
                single[key] = merged
                if key in self._read:  # someone used the smaller value: make the solver look again
                    self._epoch += 1
                    epoch = self._epoch
        if values is state.values and epoch == state.epoch:
            return state
        return State(values, state.control, state.exits, epoch, state.threads)

    def write_results(
        self, index: int, instruction: ir.Instruction, state: State, execution: Divergence | None,
        results: Sequence[tuple[ir.Register, Value]],
    ) -> State:
        """Store what `elect`, `shfl` or a call wrote, register by register."""
        sensitive = self._names.written_more_than_once
        key_of = self._names.key
        scope = instruction.scope
        plan = []
        for register, _ in results:
            key = key_of(register.name, scope)
            plan.append((key, key in sensitive or key.startswith("param:")))
        return self.write(index, instruction, state, execution, plan, [value for _, value in results])

    def store_local(self, index: int, instruction: ir.Instruction, state: State, execution: Divergence | None) -> State:
        """`st.local`: when only this function's stores write its `.local` memory, a `ld.local`
        reads one of the values stored (see ``_load``)."""
        if not self._private_local or len(instruction.operands) < 2:
            return state
        stored = without_bits(self.operand_value(instruction.operands[1], instruction, state))
        return self.write(index, instruction, state, execution, ((LOCAL_KEY, False),), stored)

    # --- along an edge

    def lower_raised(self, source: int, values: dict[str, Value], threads: Threads) -> dict[str, Value]:
        """Along an edge out of ``source`` taken by whole warps (``threads``), a register the
        block wrote under divergent control is as uniform as the value written, but for the
        warps: every thread of each warp on the edge wrote it (the raise at the write is for
        threads that skipped it and meet these later, and none of those is in the same warp)."""
        raised = self._raised.get(source)
        if not raised or self._space is None:
            return values
        level = self._space.level(threads)
        if level is None:
            return values
        lowered = values
        for key, data in raised.items():
            current = values.get(key)
            if current is None or current.level <= max(data.level, level):
                continue
            if lowered is values:
                lowered = dict(values)
            lowered[key] = at_least(data, level, current.origin)
        return lowered

    def live_values(self, block: int, values: dict[str, Value]) -> dict[str, Value]:
        """``values`` without the registers that neither ``block`` nor anything after it reads
        before writing them again (all of them when the inputs keep dead registers). nvcc's
        loop-carried and divergently written registers die a few blocks after their last write;
        kept, they made every join and copy of the state scale with the whole function instead
        of with what is live (a fourteenth of it in CUTLASS's FMHA)."""
        if self._liveness is None:
            return values
        live = self._liveness.mask(block)
        bits = self._key_bits
        if all(live & bits[key] for key in values if key in bits):
            return values
        return {key: value for key, value in values.items() if key not in bits or live & bits[key]}

    # --- values of operands

    def written_once_value(self, key: str) -> Value | None:
        """The side table's value of the register written once under ``key`` (None before its
        write); the solver revisits the reader when it grows."""
        self._read.add(key)
        return self._single.get(key)

    def predicate_value(self, predicate: ir.Operand, instruction: ir.Instruction, state: State) -> Value:
        """A guard's value, with its exact `%tid.x` set when it has one: the set is a fact about
        each thread that computed it, whatever control it was computed under (a register written
        once is computed by every thread that reads it, in compiler output)."""
        data = self.data_value(predicate, instruction, state)
        if type(data.bits) is TidSet:
            return data
        return self.operand_value(predicate, instruction, state)

    def _register_value(self, register: ir.Register, instruction: ir.Instruction, state: State) -> Value:
        key = self._names.key(register.name, instruction.scope)
        if key in self._names.written_more_than_once:
            return state.values.get(key, UNIFORM)
        self._read.add(key)
        value = self._single.get(key)
        if value is not None:
            return value
        position = self._names.register_parameters.get(register.name)
        return UNIFORM if position is None else self._parameters.value(position, register.span, register.name)

    def _constant_operand(self, operand: ir.Operand, instruction: ir.Instruction, state: State) -> int | None:
        """The value of an immediate, or of a register known to hold a constant."""
        if type(operand) is ir.Immediate:
            return operand.value if isinstance(operand.value, int) else None
        return constant_of(self.operand_value(operand, instruction, state))

    def data_value(self, operand: ir.Operand, instruction: ir.Instruction, state: State) -> Value:
        """An operand's value without the raise to the control it was written under (registers
        written once; others as they are)."""
        if type(operand) is ir.Register:
            key = self._names.key(operand.name, instruction.scope)
            data_value = self._single_data.get(key)
            if data_value is not None:
                return data_value
        return self.operand_value(operand, instruction, state)

    def operand_value(self, operand: ir.Operand, instruction: ir.Instruction, state: State) -> Value:
        kind = type(operand)
        if kind is ir.Register:
            return self._register_value(operand, instruction, state)  # type: ignore[arg-type]
        if kind is ir.Immediate:
            value = operand.value  # type: ignore[union-attr]
            return Value(Level.CTA, Constant(value)) if isinstance(value, int) else UNIFORM
        if kind is ir.Symbol or kind is ir.Sink:
            return UNIFORM
        if kind is ir.SpecialRegister:
            known = self._specials.get(id(operand))
            if known is None or known[0] is not operand:
                known = self._specials[id(operand)] = (operand, self._special_value(operand))  # type: ignore[arg-type,assignment]  # kind
            return known[1]
        if kind is ir.Negated:
            return self.operand_value(operand.operand, instruction, state)  # type: ignore[union-attr]
        if kind is ir.Address:
            value = UNIFORM if operand.base is None else self.operand_value(operand.base, instruction, state)  # type: ignore[union-attr]
            for element in operand.extra:  # type: ignore[union-attr]
                value = join(value, self.operand_value(element, instruction, state))
            return without_bits(value)
        if kind is ir.Pair:
            return without_bits(
                join(
                    self.operand_value(operand.first, instruction, state),  # type: ignore[union-attr]
                    self.operand_value(operand.second, instruction, state),  # type: ignore[union-attr]
                )
            )
        elements = operand.names if kind is ir.Expression else operand.elements  # type: ignore[union-attr]
        value = UNIFORM
        for element in elements:
            value = join(value, self.operand_value(element, instruction, state))
        return without_bits(value) if len(elements) != 1 else value

    def _special_value(self, operand: ir.SpecialRegister) -> Value:
        name = operand.name
        base = special_register_base(name)
        level_name = UNIFORMITY.get(base, "thread") if base is not None else "thread"
        if base == "%tid":
            return self._thread_index_value(operand)
        if level_name == "thread":
            return Value(Level.THREAD, None, Origin(operand.span, f"`{name}` varies per thread"))
        if level_name == "volatile":
            message = f"`{name}` may change at any time (it is not a stable index)"
            return Value(Level.THREAD, None, Origin(operand.span, message))
        if name == "%ntid.x" and self._lanes.warp_bits_ok:
            # Blocks are made of whole warps (a partial last warp would break every warp
            # collective anyway), so `ctaid.x * ntid.x + tid.x` keeps the warp bits of tid.x.
            return Value(Level.CTA, Multiple(5))
        if level_name == "warp":
            return Value(Level.WARP, None, Origin(operand.span, f"`{name}` varies between warps"))
        return UNIFORM

    def _thread_index_value(self, operand: ir.SpecialRegister) -> Value:
        component = operand.name.rpartition(".")[2]
        origin = Origin(operand.span, f"`{operand.name}` varies per thread")
        if component == "x":
            return Value(self._lanes.level_of_bits(TID_X), TID_X, origin)
        shape = self._lanes.shape
        if shape.one_dimensional and not shape.assumed:
            return UNIFORM  # y = z = 1: the component is 0
        row = shape.x if component == "y" else (shape.x * shape.y if shape.x and shape.y else None)
        if row is None:
            return Value(Level.THREAD, None, origin)
        group_bits = (row & -row).bit_length() - 1
        return Value(self._lanes.level_of_group_bits(group_bits), None, origin)

    def _sources_value(self, instruction: ir.Instruction, state: State) -> Value:
        value = UNIFORM
        for operand in instruction.sources:
            value = join(value, self.operand_value(operand, instruction, state))
        return without_bits(value)

    # --- what an instruction writes

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
            return self._sources_value(instruction, state)
        if kind == SELECT:
            return self._select(index, instruction, state)
        if kind == LOAD:
            return self._load(index, instruction, state)
        if kind == SETP:
            return self._compare(instruction, state)
        if kind == VARYING:
            return self.varying(index, f"the result of `{instruction.opcode.text}` differs between lanes", instruction.opcode_span)
        if kind == WARP_RESULT:
            return self._warp_result(index, instruction, state)
        if kind == BARRIER:
            return with_level(Level.CTA if len(instruction.sources) <= 2 else Level.WARP, None)
        if kind == PREDICATE:
            if self._space is not None:
                return self._predicate_logic(instruction.opcode.base, instruction, state)
            if instruction.opcode.base in LANE_ARITHMETIC:
                return self._arithmetic(instruction, state)
        return self._sources_value(instruction, state)

    def _select(self, index: int, instruction: ir.Instruction, state: State) -> Value:
        """`selp d, a, b, c` / `slct d, a, b, c`: ``a`` or ``b`` by ``c``. When the choice varies
        more than the values chosen from (an allocated address for one thread, 0 for the others),
        the selection is what made the result vary: it is the origin the user must see, rather
        than whatever made ``c`` vary further back."""
        value = self._sources_value(instruction, state)
        sources = instruction.sources
        if value.level == Level.CTA or len(sources) != 3:
            return value
        chosen = join(self.operand_value(sources[0], instruction, state), self.operand_value(sources[1], instruction, state))
        if chosen.level >= value.level:
            return value
        condition = sources[2]
        decided_by = self.operand_value(condition, instruction, state).origin
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
        if membermask is not None and self._constant_operand(membermask, instruction, state) in _FULL_MASKS:
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
            return [(register, self._sources_value(instruction, state)) for register in registers]
        data, lane, clamp, membermask = sources[:4]
        data_value = self.operand_value(data, instruction, state)
        full = self._constant_operand(membermask, instruction, state) in _FULL_MASKS
        clamp_value = self._constant_operand(clamp, instruction, state)
        lane_value = self.operand_value(lane, instruction, state)
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
            self._read.add(LOCAL_KEY)
            stored = self._single.get(LOCAL_KEY, UNIFORM)
            return without_bits(join(stored, self.operand_value(address, instruction, state)))
        if address is None:
            return self._sources_value(instruction, state)
        if any(modifier.startswith("param") for modifier in modifiers) and type(address.base) is ir.Symbol:
            name = address.base.name
            parameter = self._parameters.loaded(name, address.base.span)
            if parameter is not None:
                return parameter
            return state.values.get("param:" + name, UNIFORM)
        value = self.operand_value(address, instruction, state)
        if value.level == Level.CTA:
            return UNIFORM
        origin = value.origin or Origin(address.span, "the address differs between threads")
        return Value(value.level, None, origin)

    # --- the thread-index arithmetic (``thread_index.py``), on operand values

    def _arithmetic(self, instruction: ir.Instruction, state: State) -> Value:
        sources = instruction.sources
        if not sources or not integer_only(instruction.opcode):
            return self._sources_value(instruction, state)
        values = [self.operand_value(operand, instruction, state) for operand in sources]
        return self._thread_index.arithmetic(instruction.opcode, values)

    def _predicate_logic(self, base: str, instruction: ir.Instruction, state: State) -> Value:
        """`mov`/`not`/`and`/`or`/`xor` of predicates keep exact `%tid.x` sets."""
        fallback = self._sources_value(instruction, state)
        sources = instruction.sources
        if fallback.level == Level.CTA or not sources or len(sources) > 2:
            return fallback
        masks = []
        for operand in sources:
            value = self.operand_value(operand, instruction, state)
            if type(value.bits) is not TidSet:
                return fallback
            masks.append(value.bits.mask)
        return self._thread_index.predicate_logic(base, masks, fallback)

    def _compare(self, instruction: ir.Instruction, state: State) -> Value:
        """`setp.cmp p, a, b`: see ``thread_index.ThreadIndexArithmetic.compare``."""
        fallback = self._sources_value(instruction, state)
        sources = instruction.sources
        if fallback.level == Level.CTA or len(sources) != 2:
            return fallback
        left, right = sources
        swapped = type(left) is ir.Immediate and type(right) is not ir.Immediate
        if swapped:
            left, right = right, left
        constant = self._constant_operand(right, instruction, state)
        value = self.operand_value(left, instruction, state)
        exact = len(instruction.destinations) == 1
        return self._thread_index.compare(instruction.opcode.modifiers, value, constant, swapped, fallback, exact)
