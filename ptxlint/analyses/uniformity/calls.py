"""Calls and parameters: what flows between functions through call sites and `.param`
variables. A call's results take the callee's return summary; `st.param` stores of arguments
and return values are tracked like registers written more than once; a `.func` parameter is the
join over every call site's argument (``driver.py`` computes it from what ``_record_arguments``
collects). A mixin of :class:`~ptxlint.analyses.uniformity.analysis.UniformityAnalysis`."""

from __future__ import annotations

from typing import Sequence

from ptxlint import ir
from ptxlint.analyses.threads.tid_fields import Level
from ptxlint.analyses.uniformity.lattice import UNIFORM, Divergence, Origin, State, Value, at_least, control_origin, join
from ptxlint.analyses.uniformity.transfer import Transfer
from ptxlint.callgraph import callee_name
from ptxlint.source import Span


class CallTransfer(Transfer):
    """The call half of the uniformity transfer: it reads ``summaries``, ``parameters`` and
    the state the other halves share (see ``ControlTransfer``), and collects ``arguments``,
    ``argument_data`` and ``returned`` for the driver."""

    def _store_parameter(self, instruction: ir.Instruction, state: State, execution: Divergence | None) -> State:
        """`st.param [name+offset], value`: call arguments and the return value travel through
        `.param` variables; track them like registers written more than once."""
        target = instruction.operands[0] if instruction.operands else None
        if type(target) is not ir.Address or type(target.base) is not ir.Symbol or len(instruction.operands) < 2:
            return state
        data_value = self._data_value(instruction.operands[1], instruction, state)
        value = self._operand_value(instruction.operands[1], instruction, state)
        if execution is not None:
            value = at_least(value, execution.level, control_origin(execution))
        name = target.base.name
        if self.recording is not None:
            self.argument_data[name] = data_value
        if self.recording is not None and not self.function.is_kernel and self._is_return_parameter(name):
            self.returned = join(self.returned, value)
        key = "param:" + name
        if target.offset:  # a later field of an aggregate: a weak update
            value = join(state.values.get(key, UNIFORM), value)
        if state.values.get(key) == value:
            return state
        values = dict(state.values)
        values[key] = value
        return State(values, state.control, state.exits, state.epoch, state.threads)

    def _is_return_parameter(self, name: str) -> bool:
        return any(parameter.name == name for parameter in self.function.return_parameters)

    def _parameter_value(self, position: int, span: Span, name: str) -> Value:
        known = self.parameters
        if known is not None and position < len(known):
            return known[position]
        return Value(Level.THREAD, None, Origin(span, f"parameter `{name}` may differ between threads (not all callers are known)"))

    def _call(self, index: int, instruction: ir.Instruction, destinations: Sequence[ir.Operand]) -> list[tuple[ir.Register, Value]]:
        """The return value of a direct call is the callee's summary; record the arguments."""
        callee = callee_name(instruction)
        value = self.summaries.returns.get(callee) if callee is not None else None
        if value is None:
            value = self._varying(index, f"the result of calling `{callee or 'an indirect target'}` may differ between threads", instruction.opcode_span)
        results = []
        for operand in destinations:
            elements = operand.elements if type(operand) is ir.ArgumentList else (operand,)
            for element in elements:
                if type(element) is ir.Register:
                    results.append((element, value))
                elif type(element) is ir.Symbol:
                    results.append((ir.Register("param:" + element.name, element.span), value))
        return results

    def _record_arguments(self, instruction: ir.Instruction, state: State, execution: Divergence | None) -> None:
        callee = callee_name(instruction)
        if callee is None:
            return
        lists = [operand for operand in instruction.sources if type(operand) is ir.ArgumentList]
        if not lists:
            return
        values = []
        for argument in lists[0].elements:
            if type(argument) is ir.Symbol:
                value = self.argument_data.get(argument.name, UNIFORM)
            else:
                value = self._data_value(argument, instruction, state)
            values.append(value)
        known = self.arguments.get(callee)
        if known is None:
            self.arguments[callee] = values
        else:
            for position, value in enumerate(values[: len(known)]):
                known[position] = join(known[position], value)
