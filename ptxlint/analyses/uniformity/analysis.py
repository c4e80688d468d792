"""The uniformity pass over one function: the lattice operations and the transfer function the
forward solver calls, composed of the control (``control.py``), data (``data.py``) and call
(``calls.py``) transfers, and the recording of the facts rules read."""

from __future__ import annotations

from typing import Sequence

from ptxlint import cfg as cfg_module
from ptxlint import ir
from ptxlint.analyses.lanes import LaneModel, Level
from ptxlint.analyses.threads.lane_sets import Threads, ThreadSpace
from ptxlint.analyses.uniformity.calls import CallTransfer
from ptxlint.analyses.uniformity.control import ControlTransfer
from ptxlint.analyses.uniformity.data import DataTransfer
from ptxlint.analyses.uniformity.facts import InstructionFacts, Summaries
from ptxlint.analyses.uniformity.lattice import (
    EMPTY_STATE,
    UNIFORM,
    Divergence,
    Origin,
    State,
    Value,
    at_least,
    control_origin,
    join,
    join_control,
    join_exits,
    join_values,
    without_bits,
)
from ptxlint.analyses.uniformity.static import (
    CALL,
    ELECT,
    EXIT,
    LOCAL_KEY,
    SHUFFLE,
    STORE_LOCAL,
    STORE_PARAMETER,
    StaticFacts,
    fresh_register_index,
)
from ptxlint.analyses.uniformity.thread_index import ThreadIndexArithmetic
from ptxlint.callgraph import callee_name
from ptxlint.isa.aligned import Collective


class UniformityAnalysis(ControlTransfer, DataTransfer, CallTransfer):
    """The lattice and transfer function for one function (see the package docstring)."""

    def __init__(
        self,
        function: ir.Function,
        graph: cfg_module.ControlFlowGraph,
        lanes: LaneModel,
        summaries: Summaries,
        collectives: dict[int, Collective],
        static: StaticFacts | None = None,
        thread_spaces: dict[int, ThreadSpace] | None = None,
        keep_dead_registers: bool = False,
    ) -> None:
        """``keep_dead_registers``: never drop a register no later instruction reads from the
        state (slower, and the same facts: what tests compare against)."""
        self.function = function
        self.cfg = graph
        self.lanes = lanes
        self.summaries = summaries
        self.collectives = collectives
        if static is None:
            static = StaticFacts(function, graph, collectives, dense=True, registers=fresh_register_index(function))
        self.names = static.names
        self._plans = static.plans
        self._liveness = None if keep_dead_registers else static.liveness
        self._key_bits = static.key_bits
        self._visited_by_block = static.visited_by_block
        self._last_control = ()
        self._last_threads: Threads | None = None
        self._last_worst: Divergence | None = None
        self._divergences = {}
        self._worst = {}  # id(control) → (control, its worst divergence)
        self._specials: dict[int, tuple[ir.SpecialRegister, Value]] = {}
        self.parameters = summaries.parameters.get(function.name)
        self.parameter_positions = {parameter.name: position for position, parameter in enumerate(function.parameters)}
        self.single: dict[str, Value] = {}
        # The same, before raising to the level of the control they were written under: what a
        # callee sees (it is analysed relative to the threads that entered it).
        self.single_data: dict[str, Value] = {}
        self.read: set[str] = set()
        self.epoch = 0
        self.recording: dict[int, InstructionFacts] | None = None
        self.record_everything = False
        self.arguments: dict[str, list[Value]] = {}
        self.argument_data: dict[str, Value] = {}  # `.param` name → the data value last stored
        self.returned = UNIFORM
        self._origins: dict[tuple[int, str], Origin] = {}
        self._branches = static.branches
        self._private_local = static.private_local
        self._invariant = static.invariant
        self._ending_at = static.ending_at
        # Path facts: which threads reach each block (only when `%tid.x / 32` is the warp rank).
        bound = lanes.x_bound
        self.space = None
        if lanes.warp_bits_ok and bound is not None and bound <= 1024:
            # One per block size and module: its tables depend on nothing else.
            spaces = thread_spaces if thread_spaces is not None else {}
            self.space = spaces.get(bound) or spaces.setdefault(bound, ThreadSpace(bound))
        self.thread_index = ThreadIndexArithmetic(lanes, self.space)
        self._entry = State({}, threads=self.space.everyone) if self.space is not None else EMPTY_STATE
        # Per block: registers written more than once whose last write in the block was raised to
        # the level of the control it ran under, with the value before the raise (see refine).
        self._raised: dict[int, dict[str, Value]] = {}
        # Loops left by one edge: the threads that entered each (by header), for that edge.
        self._sole_exit_loops = self.cfg.sole_exit_loops if self.space is not None else {}
        self._loop_headers = frozenset(self._sole_exit_loops.values())
        self._loop_entry_threads: dict[int, Threads | None] = {}
        # Where the paths from each branch meet again (its immediate post-dominator), every thread
        # that took the branch has arrived: {meeting block: branch blocks}, and the threads that
        # left each branch block.
        self._meeting_of: dict[int, list[int]] = {}
        if self.space is not None:
            for block, info in self._branches.items():
                if info.post_dominator is not None and info.post_dominator != self.cfg.exit:
                    self._meeting_of.setdefault(info.post_dominator, []).append(block)
        self._threads_leaving: dict[int, Threads | None] = {}
        self._paths = {}
        self._correlated = static.correlated
        self._correlated_endings = {}

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
        control = self._bounded(join_control(first.control, second.control))
        exits = join_exits(first.exits, second.exits)
        threads = first.threads
        if threads is not second.threads and self.space is not None:
            threads = self.space.join(threads, second.threads)
        return State(values, control, exits, max(first.epoch, second.epoch), threads)

    def transfer(self, index: int, instruction: ir.Instruction, state: State) -> State:
        kind, keys = self._plans[index]
        execution = self._execution(index, instruction, state)
        if kind == EXIT:
            return self._exit(index, instruction, state, execution)
        if keys:
            value = self._value(kind, index, instruction, state)
            if self.recording is not None:
                self._record(index, instruction, state, execution, (value,))
            return self._write(index, instruction, state, execution, keys, value)
        if kind == ELECT or kind == SHUFFLE or kind == CALL:
            # ``keys`` None: a sparse analysis found nobody reads the results.
            results = self._results(kind, index, instruction, state) if instruction.destination_count and keys is not None else []
            if self.recording is not None:
                self._record(index, instruction, state, execution, [value for _, value in results])
            if kind == CALL and state.threads is not None and (callee_name(instruction) or "") in self.summaries.exiting:
                state = State(state.values, state.control, state.exits, state.epoch, None)  # it may end some threads
            if not results:
                return state
            sensitive = self.names.written_more_than_once
            key_of = self.names.key
            scope = instruction.scope
            plan = []
            for register, _ in results:
                key = key_of(register.name, scope)
                plan.append((key, key in sensitive or key.startswith("param:")))
            return self._write(index, instruction, state, execution, plan, [value for _, value in results])
        if self.recording is not None:
            self._record(index, instruction, state, execution, ())
        if kind == STORE_PARAMETER:
            return self._store_parameter(instruction, state, execution)
        if kind == STORE_LOCAL and keys is not None and self._private_local and len(instruction.operands) >= 2:
            stored = without_bits(self._operand_value(instruction.operands[1], instruction, state))
            return self._write(index, instruction, state, execution, ((LOCAL_KEY, False),), stored)
        return state

    def _record(
        self, index: int, instruction: ir.Instruction, state: State, execution: Divergence | None, results: Sequence[Value]
    ) -> None:
        requirement = self.collectives.get(index)
        is_call = instruction.opcode.base == "call"
        if is_call:
            self._record_arguments(instruction, state, execution)
        if requirement is None and not is_call and not self.record_everything:
            return
        defined = None
        keys = self._plans[index][1]
        # Not raised when every register it writes is invariant: see ``DataTransfer._write``.
        steady = (
            execution is not None
            and keys is not None
            and bool(keys)
            and any(value.level < execution.level for value in results)
            and all(key in self._invariant for key, _ in keys)
        )
        for value in results:
            if execution is not None and not steady:
                value = at_least(value, execution.level, control_origin(execution))
            defined = value if defined is None else join(defined, value)
        operands: dict[int, Value] = {}
        if requirement is not None:
            for position in requirement.uniform_operands:
                operands[position] = self._operand_value(instruction.operands[position], instruction, state)
        exits = state.exits
        if exits and state.threads is not None:
            # Threads that exited do not reach this point; when whole warps (or every thread)
            # reach it, no warp here is missing some of its threads.
            level = self.space.level(state.threads)  # type: ignore[union-attr]
            if level == Level.CTA:
                exits = ()
            elif level == Level.WARP:
                exits = tuple(mark for mark in exits if mark.level <= Level.WARP)
        self.recording[index] = InstructionFacts(execution, exits, defined, operands)  # type: ignore[index]

