"""The recording of the facts rules read (``facts.py``), as the driver replays the solved blocks
once the fixed point is reached: per instruction, the divergence it runs under, the exits other
threads may have taken, what it writes and the operands a collective needs uniform.

:class:`FactRecorder` owns the facts recorded so far; it asks the data transfer for operand
values and hands each call site's arguments to the call sites."""

from __future__ import annotations

from typing import Sequence

from ptxlint import ir
from ptxlint.analyses.threads.lane_sets import Threads
from ptxlint.analyses.threads.tid_fields import Level, TidSet
from ptxlint.analyses.uniformity.calls import CallSites
from ptxlint.analyses.uniformity.data import DataTransfer
from ptxlint.analyses.uniformity.facts import InstructionFacts
from ptxlint.analyses.uniformity.inputs import FunctionInputs
from ptxlint.analyses.uniformity.lattice import Divergence, State, Value, at_least, control_origin, join


class FactRecorder:
    """The facts of one function's instructions, recorded while the driver replays its blocks."""

    __slots__ = ("_collectives", "_plans", "_invariant", "_space", "_data", "_calls", "_facts", "_everything")

    def __init__(self, inputs: FunctionInputs, data: DataTransfer, calls: CallSites) -> None:
        self._collectives = inputs.collectives
        self._plans = inputs.static.plans
        self._invariant = inputs.static.invariant
        self._space = inputs.space
        self._data = data
        self._calls = calls
        self._facts: dict[int, InstructionFacts] = {}
        self._everything = False

    def start(self, everything: bool) -> None:
        """Record from now on: the facts of collectives and calls, of every instruction when
        ``everything``."""
        self._facts = {}
        self._everything = everything

    def facts(self) -> dict[int, InstructionFacts]:
        """What was recorded since :meth:`start`."""
        return self._facts

    def record(
        self, index: int, instruction: ir.Instruction, state: State, execution: Divergence | None, results: Sequence[Value]
    ) -> None:
        """The facts of ``instruction`` run in ``state`` under ``execution``, writing ``results``."""
        requirement = self._collectives.get(index)
        is_call = instruction.opcode.base == "call"
        if is_call:
            self._calls.record_arguments(instruction, state)
        if requirement is None and not is_call and not self._everything:
            return
        defined = None
        keys = self._plans[index][1]
        # Not raised when every register it writes is invariant: see ``DataTransfer.write``.
        steady = (
            execution is not None
            and keys is not None
            and bool(keys)
            and any(value.level < execution.level for value in results)
            and all(key in self._invariant for key, _ in keys)
        )
        for value in results:
            if execution is not None and not steady and value.level < execution.level:
                value = at_least(value, execution.level, control_origin(execution))
            defined = value if defined is None else join(defined, value)
        operands: dict[int, Value] = {}
        if requirement is not None:
            for position in requirement.uniform_operands:
                operands[position] = self._data.operand_value(instruction.operands[position], instruction, state)
        exits = state.exits
        space = self._space
        if exits and state.threads is not None and space is not None:
            # Threads that exited do not reach this point; when whole warps (or every thread)
            # reach it, no warp here is missing some of its threads.
            level = space.level(state.threads)
            if level == Level.CTA:
                exits = ()
            elif level == Level.WARP:
                exits = tuple(mark for mark in exits if mark.level <= Level.WARP)
        lanes = warp_lanes = None
        if requirement is not None and requirement.membermask is not None and space is not None:
            lanes, warp_lanes = space.lanes_reaching(self._guarded(instruction, state)), space.full
        self._facts[index] = InstructionFacts(execution, exits, defined, operands, lanes, warp_lanes)

    def _guarded(self, instruction: ir.Instruction, state: State) -> Threads | None:
        """The threads of ``state`` that execute ``instruction``: those its guard lets through,
        when the guard is an exact thread set."""
        threads = state.threads
        guard = instruction.guard
        if guard is None or threads is None:
            return threads
        condition = self._data.predicate_value(guard.predicate, instruction, state).bits
        if type(condition) is not TidSet:
            return threads
        space = self._space
        mask = ~condition.mask & ((1 << space.bound) - 1) if guard.negated else condition.mask  # type: ignore[union-attr]
        return space.restrict(threads, mask)  # type: ignore[union-attr]
