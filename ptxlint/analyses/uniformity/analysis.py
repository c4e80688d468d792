"""The uniformity pass over one function: what the forward solver calls (the lattice operations,
the transfer per instruction and per edge), composed of objects that each own their state, as
LLVM's UniformityInfo composes its implementation over a sync-dependence analysis:

- :class:`~ptxlint.analyses.uniformity.inputs.FunctionInputs`: what the function starts from;
- :class:`~ptxlint.analyses.uniformity.data.DataTransfer`: the values of operands, and what
  instructions write: the side table of registers written once, the rest in the state;
- :class:`~ptxlint.analyses.uniformity.results.ResultValues`: what an instruction computes
  from its operands;
- :class:`~ptxlint.analyses.uniformity.sync.SyncDependence`: where a divergent branch's threads
  meet again;
- :class:`~ptxlint.analyses.uniformity.control.ControlDivergence`: the control an instruction
  runs under, the threads on each edge, exits;
- :class:`~ptxlint.analyses.uniformity.calls.Parameters` and
  :class:`~ptxlint.analyses.uniformity.calls.CallSites`: what comes in through parameters and
  goes out through call sites and returns;
- :class:`~ptxlint.analyses.uniformity.recorder.FactRecorder`: the facts rules read."""

from __future__ import annotations

from typing import Collection, Mapping, Sequence

from ptxlint import ir
from ptxlint.analyses.uniformity.calls import CallSites, Parameters
from ptxlint.analyses.uniformity.control import ControlDivergence
from ptxlint.analyses.uniformity.data import DataTransfer
from ptxlint.analyses.uniformity.facts import InstructionFacts
from ptxlint.analyses.uniformity.inputs import FunctionInputs
from ptxlint.analyses.uniformity.lattice import EMPTY_STATE, Argument, State, Value, join_control, join_exits, join_values
from ptxlint.analyses.uniformity.recorder import FactRecorder
from ptxlint.analyses.uniformity.results import ResultValues
from ptxlint.analyses.uniformity.kinds import CALL, ELECT, EXIT, SHUFFLE, STORE_LOCAL, STORE_PARAMETER
from ptxlint.analyses.uniformity.sync import SyncDependence
from ptxlint.callgraph import callee_name


class UniformityAnalysis:
    """The lattice and transfer function for one function (see the package docstring)."""

    def __init__(self, inputs: FunctionInputs) -> None:
        static = inputs.static
        self._plans = static.plans
        self._visited_by_block = static.visited_by_block
        self._space = inputs.space
        self._exiting = inputs.exiting
        parameters = Parameters(inputs)
        self._data = data = DataTransfer(inputs, parameters)
        self._results = ResultValues(inputs, data, parameters)
        self._sync = SyncDependence(inputs, data)
        self._control = ControlDivergence(inputs, data, self._sync)
        self._calls = CallSites(inputs, data, self._results)
        self._recorder = FactRecorder(inputs, data, self._calls)
        self._recording = False
        self._entry = State({}, threads=self._space.everyone) if self._space is not None else EMPTY_STATE

    # --- what the driver reads

    def start_recording(self, everything: bool) -> None:
        """Record the facts of the instructions transferred from now on (collectives and calls;
        every instruction when ``everything``), and collect arguments and return values."""
        self._recorder.start(everything)
        self._recording = True

    def stop_recording(self) -> dict[int, InstructionFacts]:
        """The facts recorded since :meth:`start_recording`."""
        self._recording = False
        return self._recorder.facts()

    @property
    def arguments(self) -> Mapping[str, Sequence[Argument]]:
        """Per callee, the join of the arguments its call sites pass, by position."""
        return self._calls.arguments

    @property
    def returned(self) -> Value:
        """The join of the values the function returns."""
        return self._calls.returned

    # --- lattice

    def instructions_of(self, block: int) -> Sequence[int]:
        """The instructions of ``block`` whose transfer can change a fact anyone reads."""
        return self._visited_by_block[block]

    def bottom(self) -> State:
        return EMPTY_STATE

    def entry(self) -> State:
        return self._entry

    def join(self, first: State, second: State) -> State:
        if first is second:
            return first
        values = first.values
        if second.values is not values:
            values = join_values(values, second.values)
        control = self._sync.bounded(join_control(first.control, second.control))
        exits = join_exits(first.exits, second.exits)
        threads = first.threads
        if threads is not second.threads and self._space is not None:
            threads = self._space.join(threads, second.threads)
        return State(values, control, exits, threads)

    # --- transfer

    def refine(self, source: int, target: int, state: State) -> State:
        control, exits, threads = self._control.edge(source, target, state)
        values = state.values
        if threads is not None:
            values = self._data.lower_raised(source, values, threads)
        if values:
            values = self._data.live_values(target, values)
        if control is state.control and exits is state.exits and values is state.values and threads is state.threads:
            return state
        return State(values, control, exits, threads)

    def entering(self, block: int, state: State) -> State:
        self._data.visiting(block)
        return self._control.entering(block, state)

    def revisits(self) -> Collection[int]:
        """Blocks to visit again although their entry did not change: they read a value of the
        side table that has grown since (see ``DataTransfer.stale_blocks``)."""
        return self._data.stale_blocks()

    def transfer(self, index: int, instruction: ir.Instruction, state: State) -> State:
        kind, keys = self._plans[index]
        execution = self._control.execution(index, instruction, state)
        data = self._data
        if kind == EXIT:
            if self._recording:
                self._recorder.record(index, instruction, state, execution, ())
            return self._control.exit(index, instruction, state, execution)
        if keys:
            value = self._results.value(kind, index, instruction, state)
            if self._recording:
                self._recorder.record(index, instruction, state, execution, (value,))
            return data.write(index, instruction, state, execution, keys, value)
        if kind == ELECT or kind == SHUFFLE or kind == CALL:
            # ``keys`` None: a sparse analysis found nobody reads the results.
            results: list[tuple[ir.Register, Value]] = []
            if instruction.destination_count and keys is not None:
                if kind == CALL:
                    results = self._calls.results(index, instruction)
                else:
                    results = self._results.results(kind, index, instruction, state)
            if self._recording:
                self._recorder.record(index, instruction, state, execution, [value for _, value in results])
            if kind == CALL and state.threads is not None and (callee_name(instruction) or "") in self._exiting:
                state = State(state.values, state.control, state.exits, None)  # it may end some threads
            if not results:
                return state
            return data.write_results(index, instruction, state, execution, results)
        if self._recording:
            self._recorder.record(index, instruction, state, execution, ())
        if kind == STORE_PARAMETER:
            return self._calls.store_parameter(instruction, state, execution, self._recording)
        if kind == STORE_LOCAL and keys is not None:
            return data.store_local(index, instruction, state, execution)
        return state
