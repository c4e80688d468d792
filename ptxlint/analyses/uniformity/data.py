"""Value uniformity (data dependence): the values of operands (registers, special registers,
parameters), and how what an instruction writes is stored: raised to the control it was written
under, in the state or in the side table.

:class:`DataTransfer` owns the side table of registers written once (almost every register in
compiler output: their values live here instead of in the states, with the blocks that read
each, which the solver revisits when it grows) and the registers each block raised to its
control.
What an instruction computes from its operands is ``results.py``'s question."""

from __future__ import annotations

from typing import Sequence

from ptxlint import ir
from ptxlint.analyses.threads.tid_fields import TID_X, Constant, Level, Multiple, TidSet
from ptxlint.analyses.threads.lane_sets import Threads
from ptxlint.analyses.uniformity.calls import Parameters
from ptxlint.analyses.uniformity.inputs import FunctionInputs
from ptxlint.analyses.uniformity.lattice import (
    UNIFORM,
    Divergence,
    Origin,
    State,
    Value,
    at_least,
    constant_of,
    control_origin,
    join,
    without_bits,
)
from ptxlint.analyses.uniformity.kinds import LOCAL_KEY
from ptxlint.isa.special_registers import PREDEFINED_CONSTANTS, UNIFORMITY, special_register_base


class DataTransfer:
    """The data-dependence transfer of one function (see the module docstring)."""

    def __init__(self, inputs: FunctionInputs, parameters: Parameters) -> None:
        static = inputs.static
        self._cfg = inputs.cfg
        self._lanes = inputs.lanes
        self._space = inputs.space
        self._names = static.names
        # Read on every register operand: kept at hand.
        self._key = static.names.key
        self._state_keys = static.names.written_more_than_once
        self._invariant = static.invariant
        self._private_local = static.private_local
        self._local_frame = static.local_frame
        self._liveness = inputs.liveness
        self._key_bits = static.key_bits
        self._parameters = parameters
        # The side table: registers written once, by key, raised to the control they were
        # written under; the same before the raise (what a callee sees: it is analysed relative
        # to the threads that entered it); per key read from it, the blocks whose visit read it
        # (the solver visits one block at a time: ``visiting``); the readers of keys that grew
        # since the solver last asked (``stale_blocks``).
        self._single: dict[str, Value] = {}
        self._single_data: dict[str, Value] = {}
        self._readers: dict[str, set[int]] = {}
        self._visiting = -1
        self._stale: set[int] = set()
        # Per block: registers written more than once whose last write in the block was raised
        # to the level of the control it ran under, with the value before the raise (see
        # ``lower_raised``).
        self._raised: dict[int, dict[str, Value]] = {}
        self._specials: dict[int, tuple[ir.SpecialRegister, Value]] = {}
        self._immediates: dict[int, Value] = {}

    # --- writes

    def write(
        self, index: int, instruction: ir.Instruction, state: State, execution: Divergence | None,
        keys: Sequence[tuple[str, bool]], written: Value | Sequence[Value],
    ) -> State:
        """Store what an instruction wrote: ``written`` is one value for every key of ``keys``,
        or a list of values aligned with them."""
        values = state.values
        single, single_data = self._single, self._single_data
        if (
            type(written) is Value
            and len(keys) == 1
            and not keys[0][1]
            and (execution is None or written.level >= execution.level)
        ):
            # The common case: one register written once, under uniform control or at least as
            # varying as the control it runs under (no raise).
            key = keys[0][0]
            previous_data = single_data.get(key)
            if previous_data is not written:
                single_data[key] = written if previous_data is None else join(previous_data, written)
            previous = single.get(key)
            if previous is written:
                return state
            merged = written if previous is None else join(previous, written)
            if merged is not previous and merged != previous:  # a join that changes nothing returns its first value
                single[key] = merged
                readers = self._readers.get(key)
                if readers is not None:  # someone used the smaller value: make the solver look again
                    self._stale.update(readers)
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
                current = values.get(key)
                if current is not value and current != value:
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
            if merged is not previous and merged != previous:  # a join that changes nothing returns its first value
                single[key] = merged
                readers = self._readers.get(key)
                if readers is not None:  # someone used the smaller value: make the solver look again
                    self._stale.update(readers)
        if values is state.values:
            return state
        return State(values, state.control, state.exits, state.threads)

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
        reads one of the values stored at the places it overlaps (see ``LocalFrame``)."""
        if not self._private_local or len(instruction.operands) < 2:
            return state
        data = instruction.operands[1]
        frame = self._local_frame
        keys = frame.stores.get(index, (LOCAL_KEY,)) if frame is not None else (LOCAL_KEY,)
        if type(data) is ir.Vector and keys[0] != LOCAL_KEY and len(keys) == len(data.elements):
            # Each element of a vector to its own place.
            values = [without_bits(self.operand_value(element, instruction, state)) for element in data.elements]
            return self.write(index, instruction, state, execution, tuple((key, False) for key in keys), values)
        stored = without_bits(self.operand_value(data, instruction, state))
        return self.write(index, instruction, state, execution, ((keys[0], False),), stored)

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
        self._note_reader(key)
        return self._single.get(key)

    def _note_reader(self, key: str) -> None:
        readers = self._readers.get(key)
        if readers is None:
            self._readers[key] = {self._visiting}
        else:
            readers.add(self._visiting)

    def visiting(self, block: int) -> None:
        """The solver starts a visit of ``block``: reads from now on are its block's."""
        self._visiting = block

    def stale_blocks(self) -> set[int]:
        """The blocks that read a side-table entry which grew since the last call: what they
        computed from it must be computed again."""
        stale = self._stale
        if stale:
            self._stale = set()
        return stale

    def predicate_value(self, predicate: ir.Operand, instruction: ir.Instruction, state: State) -> Value:
        """A guard's value, with its exact `%tid.x` set when it has one: the set is a fact about
        each thread that computed it, whatever control it was computed under (a register written
        once is computed by every thread that reads it, in compiler output)."""
        data = self.data_value(predicate, instruction, state)
        if type(data.bits) is TidSet:
            return data
        return self.operand_value(predicate, instruction, state)

    def _register_value(self, register: ir.Register, instruction: ir.Instruction, state: State) -> Value:
        key = self._key(register.name, instruction.scope)
        if key in self._state_keys:
            return state.values.get(key, UNIFORM)
        readers = self._readers.get(key)
        if readers is None:
            self._readers[key] = {self._visiting}
        else:
            readers.add(self._visiting)
        value = self._single.get(key)
        if value is not None:
            return value
        position = self._names.register_parameters.get(register.name)
        return UNIFORM if position is None else self._parameters.value(position, register.span, register.name)

    def constant_operand(self, operand: ir.Operand, instruction: ir.Instruction, state: State) -> int | None:
        """The value of an immediate, or of a register known to hold a constant."""
        if type(operand) is ir.Immediate:
            return operand.value if isinstance(operand.value, int) else None
        return constant_of(self.operand_value(operand, instruction, state))

    def data_value(self, operand: ir.Operand, instruction: ir.Instruction, state: State) -> Value:
        """An operand's value without the raise to the control it was written under (registers
        written once; others as they are)."""
        if type(operand) is ir.Register:
            key = self._key(operand.name, instruction.scope)
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
            if type(value) is int:  # one value per constant: compare loops read the same ones over and over
                known = self._immediates.get(value)
                if known is None:
                    known = self._immediates[value] = Value(Level.CTA, Constant(value))
                return known
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
        if name in PREDEFINED_CONSTANTS:
            return Value(Level.CTA, Constant(PREDEFINED_CONSTANTS[name]))
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
        if shape.one_dimensional:
            if not shape.assumed:
                return UNIFORM  # y = z = 1: the component is 0
            # The assumption is a one-dimensional block or an x extent that is a multiple of 32
            # (PTX101's Exceptions): either way no warp spans two rows, so the component is the
            # same in every thread of a warp (`if (threadIdx.y == 0)` picks whole warps).
            return Value(Level.WARP, None, Origin(operand.span, f"`{operand.name}` varies between warps"))
        row = shape.x if component == "y" else (shape.x * shape.y if shape.x and shape.y else None)
        if row is None:
            return Value(Level.THREAD, None, origin)
        group_bits = (row & -row).bit_length() - 1
        return Value(self._lanes.level_of_group_bits(group_bits), None, origin)

    def sources_value(self, instruction: ir.Instruction, state: State) -> Value:
        value = UNIFORM
        operands = instruction.operands
        register = ir.Register
        for position in range(instruction.destination_count, len(operands)):  # the sources, unsliced
            operand = operands[position]
            if type(operand) is register:
                value = join(value, self._register_value(operand, instruction, state))
            else:
                value = join(value, self.operand_value(operand, instruction, state))
        return without_bits(value)
