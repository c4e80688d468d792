"""Value uniformity (data dependence): the value an instruction writes, from the values of its
operands, special registers, parameters and call summaries, and how a write under divergent
control raises it. A mixin of :class:`~ptxlint.analyses.uniformity.analysis.UniformityAnalysis`."""

from __future__ import annotations

from typing import Sequence

from ptxlint import ir
from ptxlint.analyses.lanes import TID_X, Constant, Level, Multiple, TidSet
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
    SHUFFLE,
    SOURCES,
    VARYING,
    WARP_RESULT,
)
from ptxlint.analyses.uniformity.thread_index import integer_only
from ptxlint.analyses.uniformity.transfer import Transfer
from ptxlint.isa.barriers import cta_barrier_of
from ptxlint.isa.special_registers import UNIFORMITY, special_register_base
from ptxlint.source import Span

_FULL_MASKS = frozenset({-1, 0xFFFFFFFF})


class DataTransfer(Transfer):
    """The data half of the uniformity transfer. Besides what the control half shares (see
    ``ControlTransfer``), it reads ``lanes``, ``names``, ``summaries``, ``parameters``,
    ``parameter_positions``, ``thread_index``, ``_invariant`` and ``_private_local``, and writes
    the side tables ``single``/``single_data``, ``epoch``, ``returned``, ``argument_data`` and
    its caches ``_specials`` and ``_origins``."""

    def _write(
        self, index: int, instruction: ir.Instruction, state: State, execution: Divergence | None,
        keys: Sequence[tuple[str, bool]], written: Value | Sequence[Value],
    ) -> State:
        """Store what an instruction wrote: ``written`` is one value for every key of ``keys``,
        or a list of values aligned with them."""
        values = state.values
        epoch = state.epoch
        single, single_data = self.single, self.single_data
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
                if key in self.read:
                    self.epoch += 1
                    return State(values, state.control, state.exits, self.epoch, state.threads)
            return state
        guarded = instruction.guard is not None
        invariant = self._invariant
        raised = self._raised.get(self.cfg.block_of(index)) if self.space is not None else None
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
                if self.space is not None:
                    if not guarded and value is not data_value and value.level > data_value.level:
                        if raised is None:
                            raised = self._raised[self.cfg.block_of(index)] = {}
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
                if key in self.read:  # someone used the smaller value: make the solver look again
                    self.epoch += 1
                    epoch = self.epoch
        if values is state.values and epoch == state.epoch:
            return state
        return State(values, state.control, state.exits, epoch, state.threads)

    # --- values of operands

    def _register_value(self, register: ir.Register, instruction: ir.Instruction, state: State) -> Value:
        key = self.names.key(register.name, instruction.scope)
        if key in self.names.written_more_than_once:
            return state.values.get(key, UNIFORM)
        self.read.add(key)
        value = self.single.get(key)
        if value is not None:
            return value
        position = self.names.register_parameters.get(register.name)
        return UNIFORM if position is None else self._parameter_value(position, register.span, register.name)

    def _constant_operand(self, operand: ir.Operand, instruction: ir.Instruction, state: State) -> int | None:
        """The value of an immediate, or of a register known to hold a constant."""
        if type(operand) is ir.Immediate:
            return operand.value if isinstance(operand.value, int) else None
        return constant_of(self._operand_value(operand, instruction, state))

    def _data_value(self, operand: ir.Operand, instruction: ir.Instruction, state: State) -> Value:
        """An operand's value without the raise to the control it was written under (registers
        written once; others as they are)."""
        if type(operand) is ir.Register:
            key = self.names.key(operand.name, instruction.scope)
            data_value = self.single_data.get(key)
            if data_value is not None:
                return data_value
        return self._operand_value(operand, instruction, state)

    def _operand_value(self, operand: ir.Operand, instruction: ir.Instruction, state: State) -> Value:
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
            return self._operand_value(operand.operand, instruction, state)  # type: ignore[union-attr]
        if kind is ir.Address:
            value = UNIFORM if operand.base is None else self._operand_value(operand.base, instruction, state)  # type: ignore[union-attr]
            for element in operand.extra:  # type: ignore[union-attr]
                value = join(value, self._operand_value(element, instruction, state))
            return without_bits(value)
        if kind is ir.Pair:
            return without_bits(
                join(
                    self._operand_value(operand.first, instruction, state),  # type: ignore[union-attr]
                    self._operand_value(operand.second, instruction, state),  # type: ignore[union-attr]
                )
            )
        elements = operand.names if kind is ir.Expression else operand.elements  # type: ignore[union-attr]
        value = UNIFORM
        for element in elements:
            value = join(value, self._operand_value(element, instruction, state))
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
        if name == "%ntid.x" and self.lanes.warp_bits_ok:
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
            return Value(self.lanes.level_of_bits(TID_X), TID_X, origin)
        shape = self.lanes.shape
        if shape.one_dimensional and not shape.assumed:
            return UNIFORM  # y = z = 1: the component is 0
        row = shape.x if component == "y" else (shape.x * shape.y if shape.x and shape.y else None)
        if row is None:
            return Value(Level.THREAD, None, origin)
        group_bits = (row & -row).bit_length() - 1
        return Value(self.lanes.level_of_group_bits(group_bits), None, origin)

    def _sources_value(self, instruction: ir.Instruction, state: State) -> Value:
        value = UNIFORM
        for operand in instruction.sources:
            value = join(value, self._operand_value(operand, instruction, state))
        return without_bits(value)

    # --- what an instruction writes

    def _results(self, kind: int, index: int, instruction: ir.Instruction, state: State) -> list[tuple[ir.Register, Value]]:
        """What `elect`, `shfl` and `call` write, register by register."""
        destinations = instruction.destinations
        if kind == ELECT:
            return self._elect(index, instruction, destinations)
        if kind == SHUFFLE:
            return self._shuffle(index, instruction, state, destinations)
        return self._call(index, instruction, destinations)

    def _value(self, kind: int, index: int, instruction: ir.Instruction, state: State) -> Value:
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
            return self._varying(index, f"the result of `{instruction.opcode.text}` differs between lanes", instruction.opcode_span)
        if kind == WARP_RESULT:
            return self._warp_result(index, instruction, state)
        if kind == BARRIER:
            barrier = cta_barrier_of(instruction)  # `bar.red`: the CTA's reduction, or its participants'
            return with_level(Level.CTA if barrier is None or barrier.whole_cta else Level.WARP, None)
        if kind == PREDICATE:
            if self.space is not None:
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
        chosen = join(self._operand_value(sources[0], instruction, state), self._operand_value(sources[1], instruction, state))
        if chosen.level >= value.level:
            return value
        condition = sources[2]
        decided_by = self._operand_value(condition, instruction, state).origin
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

    def _varying(self, index: int, message: str, span: Span) -> Value:
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
        return self._varying(index, f"`{instruction.opcode.text}` with a partial mask differs between lanes", instruction.opcode_span)

    def _elect(self, index: int, instruction: ir.Instruction, destinations: Sequence[ir.Operand]) -> list[tuple[ir.Register, Value]]:
        """`elect.sync d|p`: the leader's lane id `d` is warp-uniform, `p` is true in one lane."""
        pair = destinations[0] if destinations else None
        if type(pair) is not ir.Pair:
            return []
        results = []
        if type(pair.first) is ir.Register:
            results.append((pair.first, Value(Level.WARP)))
        if type(pair.second) is ir.Register:
            results.append((pair.second, self._varying(index, ELECTED, instruction.opcode_span)))
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
        data_value = self._operand_value(data, instruction, state)
        full = self._constant_operand(membermask, instruction, state) in _FULL_MASKS
        clamp_value = self._constant_operand(clamp, instruction, state)
        lane_value = self._operand_value(lane, instruction, state)
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
            value = self._varying(index, message, instruction.opcode_span)
        results = [(registers[0], value)]
        if len(registers) > 1:
            in_range = Value(Level.WARP) if broadcast else self._varying(index, "the `shfl.sync` in-range predicate differs between lanes", instruction.opcode_span)
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
                return self._varying(index, "`.local` memory is private to each thread", instruction.opcode_span)
            # One of the values this function stores to `.local` memory (each thread reads its
            # own copy), from a slot as uniform as the address.
            self.read.add(LOCAL_KEY)
            stored = self.single.get(LOCAL_KEY, UNIFORM)
            return without_bits(join(stored, self._operand_value(address, instruction, state)))
        if address is None:
            return self._sources_value(instruction, state)
        if any(modifier.startswith("param") for modifier in modifiers) and type(address.base) is ir.Symbol:
            name = address.base.name
            if self.function.is_kernel and name in self.parameter_positions:
                return UNIFORM
            position = self.parameter_positions.get(name)
            if position is not None:
                return self._parameter_value(position, address.base.span, name)
            return state.values.get("param:" + name, UNIFORM)
        value = self._operand_value(address, instruction, state)
        if value.level == Level.CTA:
            return UNIFORM
        origin = value.origin or Origin(address.span, "the address differs between threads")
        return Value(value.level, None, origin)

    # --- the thread-index arithmetic (``thread_index.py``), on operand values

    def _arithmetic(self, instruction: ir.Instruction, state: State) -> Value:
        sources = instruction.sources
        if not sources or not integer_only(instruction.opcode):
            return self._sources_value(instruction, state)
        values = [self._operand_value(operand, instruction, state) for operand in sources]
        return self.thread_index.arithmetic(instruction.opcode, values)

    def _predicate_logic(self, base: str, instruction: ir.Instruction, state: State) -> Value:
        """`mov`/`not`/`and`/`or`/`xor` of predicates keep exact `%tid.x` sets."""
        fallback = self._sources_value(instruction, state)
        sources = instruction.sources
        if fallback.level == Level.CTA or not sources or len(sources) > 2:
            return fallback
        masks = []
        for operand in sources:
            value = self._operand_value(operand, instruction, state)
            if type(value.bits) is not TidSet:
                return fallback
            masks.append(value.bits.mask)
        return self.thread_index.predicate_logic(base, masks, fallback)

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
        value = self._operand_value(left, instruction, state)
        exact = len(instruction.destinations) == 1
        return self.thread_index.compare(instruction.opcode.modifiers, value, constant, swapped, fallback, exact)
