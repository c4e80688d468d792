"""Calls and parameters: what flows between functions through call sites and `.param`
variables. :class:`Parameters` is what a function's parameters arrive with (the join over every
call site's argument, which ``driver.py`` computes callers-first); :class:`CallSites` is what
the function hands on: a call's results take the callee's return summary, `st.param` stores of
arguments and return values are tracked like registers written more than once, and the
arguments of each call site and the value returned are collected for the driver."""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Sequence

from ptxlint import ir
from ptxlint.analyses.threads.tid_fields import Level
from ptxlint.analyses.uniformity.inputs import FunctionInputs
from ptxlint.analyses.uniformity.lattice import (
    UNIFORM, Argument, Divergence, Fields, Origin, State, Value, argument_value, at_least, control_origin, join,
    join_arguments,
)
from ptxlint.callgraph import call_arguments, call_results, callee_name, parameter_store
from ptxlint.source import Span

if TYPE_CHECKING:
    from ptxlint.analyses.uniformity.data import DataTransfer
    from ptxlint.analyses.uniformity.results import ResultValues


class Parameters:
    """The values a function's parameters arrive with: the callers' join, or thread-varying when
    not every caller is known. Fixed for one round of the interprocedural iteration."""

    __slots__ = ("_known", "_positions", "_is_kernel")

    def __init__(self, inputs: FunctionInputs) -> None:
        function = inputs.function
        self._known = inputs.parameters
        self._positions = {parameter.name: position for position, parameter in enumerate(function.parameters)}
        self._is_kernel = function.is_kernel

    def value(self, position: int, span: Span, name: str) -> Value:
        """The value of the parameter at ``position`` (``name`` at ``span`` for the origin)."""
        known = self._known
        if known is not None and position < len(known):
            return argument_value(known[position])
        return self._unknown(span, name)

    def loaded(self, name: str, span: Span, offset: int = 0, size: int | None = None) -> Value | None:
        """What `ld.param [name+offset]` of ``size`` bytes reads when ``name`` is a parameter of
        the function (a kernel's are CTA-uniform; of an aggregate, the fields read); None when
        it is not one."""
        position = self._positions.get(name)
        if position is None:
            return None
        if self._is_kernel:
            return UNIFORM
        known = self._known
        if known is None or position >= len(known):
            return self._unknown(span, name)
        argument = known[position]
        return argument.read(offset, size) if isinstance(argument, Fields) else argument

    @staticmethod
    def _unknown(span: Span, name: str) -> Value:
        return Value(Level.THREAD, None, Origin(span, f"parameter `{name}` may differ between threads (not all callers are known)"))


class CallSites:
    """What a function hands on through calls and `.param` variables. It owns the arguments
    collected per callee, the data value last stored to each `.param` variable and the join of
    the values returned; it asks ``data`` for the values of operands, and ``results`` for the
    origin of a result that varies."""

    __slots__ = ("_data", "_results", "_returns", "_return_names", "_is_kernel", "_arguments", "_argument_data", "_returned")

    def __init__(self, inputs: FunctionInputs, data: DataTransfer, results: ResultValues) -> None:
        function = inputs.function
        self._data = data
        self._results = results
        self._returns = inputs.returns
        self._return_names = frozenset(parameter.name for parameter in function.return_parameters)
        self._is_kernel = function.is_kernel
        self._arguments: dict[str, list[Argument]] = {}
        # `.param` name → the data value stored at each byte offset (the fields of an aggregate;
        # a later store at an offset replaces what was stored there).
        self._argument_data: dict[str, dict[int, Value]] = {}
        self._returned = UNIFORM

    @property
    def arguments(self) -> Mapping[str, Sequence[Argument]]:
        """Per callee, the join of the arguments of its call sites, by position."""
        return self._arguments

    @property
    def returned(self) -> Value:
        """The join of the values the function returns."""
        return self._returned

    def store_parameter(self, instruction: ir.Instruction, state: State, execution: Divergence | None, recording: bool) -> State:
        """`st.param [name+offset], value`: call arguments and the return value travel through
        `.param` variables; track them like registers written more than once. What the driver
        reads (arguments, the value returned) is collected while ``recording``."""
        stored = parameter_store(instruction)
        if stored is None or len(instruction.operands) < 2:
            return state
        name, offset = stored
        data = self._data
        data_value = data.data_value(instruction.operands[1], instruction, state)
        value = data.operand_value(instruction.operands[1], instruction, state)
        if execution is not None and value.level < execution.level:  # else the raise changes nothing
            value = at_least(value, execution.level, control_origin(execution))
        if recording:
            self._argument_data.setdefault(name, {})[offset] = data_value
            if not self._is_kernel and name in self._return_names:
                self._returned = join(self._returned, value)
        key = "param:" + name
        if offset:  # a later field of an aggregate: a weak update
            value = join(state.values.get(key, UNIFORM), value)
        current = state.values.get(key)
        if current is value or current == value:
            return state
        values = dict(state.values)
        values[key] = value
        return State(values, state.control, state.exits, state.threads)

    def results(self, index: int, instruction: ir.Instruction) -> list[tuple[ir.Register, Value]]:
        """What a call writes: the return value of a direct call is the callee's summary."""
        callee = callee_name(instruction)
        value = self._returns.get(callee) if callee is not None else None
        if value is None:
            value = self._results.varying(index, f"the result of calling `{callee or 'an indirect target'}` may differ between threads", instruction.opcode_span)
        results = []
        for element in call_results(instruction):
            if type(element) is ir.Register:
                results.append((element, value))
            elif type(element) is ir.Symbol:
                results.append((ir.Register("param:" + element.name, element.span), value))
        return results

    def record_arguments(self, instruction: ir.Instruction, state: State) -> None:
        """Join the arguments of a call site into its callee's."""
        callee = callee_name(instruction)
        if callee is None:
            return
        passed = call_arguments(instruction)
        if not passed:
            return
        values: list[Argument] = []
        for argument in passed:
            value: Argument
            if type(argument) is ir.Symbol:
                fields = self._argument_data.get(argument.name)
                if not fields:
                    value = UNIFORM
                elif len(fields) == 1 and 0 in fields:
                    value = fields[0]
                else:
                    value = Fields(tuple(sorted(fields.items())))
            else:
                value = self._data.data_value(argument, instruction, state)
            values.append(value)
        known = self._arguments.get(callee)
        if known is None:
            self._arguments[callee] = values
        else:
            for position, value in enumerate(values[: len(known)]):
                known[position] = join_arguments(known[position], value)
