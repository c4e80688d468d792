"""Register values as functions of the warp index, and tensor-memory addresses: the forward
analysis and its solution for one function.

The tcgen05 checks need to know, for each warp of the CTA, which TMEM address a `tcgen05.ld`
uses and which warps a branch on the warp index lets through. :class:`WarpValues` computes, before
each instruction, the abstract value of each register, by the scoped key of the `registers` pass
(see
:mod:`ptxlint.analyses.threads.values_lattice`); what an instruction computes, it asks the
:class:`~ptxlint.analyses.threads.values_evaluation.WarpEvaluator` it holds. It is sparse: it visits
only the instructions of the backward slices of :mod:`ptxlint.analyses.threads.values_slices`, has
the evaluator settle once the registers whose value does not depend on the path, and drops
block-local temporaries after their last use. :class:`FunctionValues`, the solution, is what rules
and other analyses ask.
"""

from __future__ import annotations

from typing import Collection, Sequence

from ptxlint.analyses.launch import block_shape
from ptxlint.analyses.registers import Registers
from ptxlint.analyses.threads.values_evaluation import WarpEvaluator
from ptxlint.analyses.threads.values_lattice import VARYING, SharedAddress, Value, ValueState, join_registers, join_values
from ptxlint.analyses.threads.values_parameters import (
    ParameterOffset,
    argument_stores,
    call_arguments,
    parameter_offset,
    stored_value,
)
from ptxlint.analyses.threads.values_slices import Slices, slices
from ptxlint.cfg import ControlFlowGraph
from ptxlint.context import ModuleContext
from ptxlint.dataflow import Solution, StatesBefore, indices_by_block, solve_forward
from ptxlint.ir import Address, Function, Instruction, Operand
from ptxlint.isa.tcgen05 import operation
from ptxlint.passes import Pass

MAX_WARPS = 32  # 1024 threads


class WarpValues:
    """The forward analysis, over the values ``evaluator`` computes (which it settles)."""

    def __init__(self, evaluator: WarpEvaluator, sliced: Slices | None = None) -> None:
        self._evaluator = evaluator
        # Indices of the instructions whose results can matter (None: all of them), and of those
        # that feed addresses. For an instruction that only feeds conditions, VARYING and absent
        # mean the same (no warp's outcome is known), so it stores nothing: states stay small.
        self._needed = None if sliced is None else sliced.needed
        self._feeds_addresses = None if sliced is None else sliced.addresses
        # The instructions that define the registers whose value does not depend on the path
        # (see :meth:`settle`; the evaluator holds their values), which the transfer function
        # then skips.
        self._settled_definitions: frozenset[int] = frozenset()
        # Instruction index → registers whose last use it is (see :meth:`expire_block_locals`).
        self._expiring: dict[int, tuple[str, ...]] = {}
        # Per block, the instructions the transfer function does not skip (see :meth:`plan_visits`).
        self._visited_by_block: Sequence[Sequence[int]] = []

    def settle(self, instructions: tuple[Instruction, ...], registers: Registers) -> None:
        """Evaluate once the registers with a single unguarded definition whose operands are
        immediates, special registers, symbols or such registers defined earlier in the text:
        their value is the same on every path (nvcc's PTX is nearly SSA; constants, the warp
        index and shared addresses are all of this kind). Keeping them out of the dataflow state
        makes its joins cheap. Loads stay in the state: what they read depends on the
        allocations seen.

        Only the registers the needed instructions write are asked about, each once, walking
        back through the definitions they depend on: most of a function is never looked at. A
        register whose definition is not needed settles as unknown (None); one the needed
        instructions only read has no definition among them, which puts no value in the state
        either, so it reads as unknown whether settled or not (the data a `tcgen05.st` stores
        would otherwise send the walk through the whole epilogue)."""
        writers = registers.writers
        reads = registers.reads
        writes = registers.writes
        needed = self._needed
        evaluator = self._evaluator
        settled = evaluator.settled_keys()
        unsettled: set[str] = set()
        settled_definitions: list[int] = []
        indices = range(len(instructions)) if needed is None else needed
        roots = [name for index in indices for name in writes(index)]
        for root in roots:
            stack = [root]
            while stack:
                name = stack[-1]
                if name in settled or name in unsettled:
                    stack.pop()
                    continue
                definition = self._single_plain_definition(name, instructions, registers)
                if definition is None:
                    unsettled.add(name)
                    stack.pop()
                    continue
                # Operands settle first. Each must have its definition earlier in the text, so
                # the walk ends.
                operands = reads(definition)
                if any(operand in unsettled or writers.get(operand, (definition,))[0] >= definition for operand in operands):
                    unsettled.update(writes(definition))
                    stack.pop()
                    continue
                undecided = [operand for operand in operands if operand not in settled]
                if undecided:
                    stack.extend(undecided)
                    continue
                stack.pop()
                if needed is None or definition in needed:
                    evaluator.settle(instructions[definition])
                else:
                    evaluator.settle_unknown(writes(definition))
                unsettled.update(name for name in writes(definition) if name not in settled)
                settled_definitions.append(definition)
        self._settled_definitions = frozenset(settled_definitions)

    @staticmethod
    def _single_plain_definition(name: str, instructions: tuple[Instruction, ...], registers: Registers) -> int | None:
        """The one instruction that writes ``name``, when it is unguarded, not a load, tcgen05
        operation or call, and the only writer of everything it writes."""
        writers = registers.writers
        defined = writers.get(name, ())
        if len(defined) != 1:
            return None
        index = defined[0]
        instruction = instructions[index]
        if instruction.guard is not None or instruction.opcode.base in ("ld", "tcgen05", "call"):
            return None
        if any(len(writers[written]) != 1 for written in registers.writes(index)):
            return None
        return index

    def bottom(self) -> ValueState:
        return ValueState({}, frozenset())

    def entry(self) -> ValueState:
        return ValueState({}, frozenset())

    def join(self, first: ValueState, second: ValueState) -> ValueState:
        if first.registers is second.registers or first.registers == second.registers:
            registers = first.registers
        else:
            registers = join_registers(first.registers, second.registers)
        if registers is first.registers and first.slots >= second.slots:
            return first
        return ValueState(registers, first.slots | second.slots)

    def expire_block_locals(self, graph: ControlFlowGraph, registers: Registers) -> None:
        """Registers defined once and used only later in the same block (most of nvcc's
        temporaries) are dropped from the state after their last use: no join ever needs them.
        Only registers the transfer function can put in the state (written by an instruction
        it does not skip) need it."""
        uses = registers.readers
        writers = registers.writers
        needed = self._needed
        expiring: dict[int, list[str]] = {}
        settled = self._evaluator.settled_keys()
        candidates = writers if needed is None else {name for index in needed for name in registers.writes(index)}
        for name in candidates:
            defined = writers[name]
            if len(defined) != 1 or name in settled:
                continue
            used = uses.get(name, [])
            block = graph.block_of(defined[0])
            if all(position > defined[0] and graph.block_of(position) == block for position in used):
                expiring.setdefault(max(used, default=defined[0]), []).append(name)
        self._expiring = {index: tuple(keys) for index, keys in expiring.items()}

    def plan_visits(self, graph: ControlFlowGraph) -> None:
        """Decide which instructions the solver visits: the needed ones that are not settled,
        and those where registers expire. Call after :meth:`settle` and
        :meth:`expire_block_locals`."""
        if self._needed is None:
            visited: Collection[int] = range(len(graph.function.instructions))
        else:
            visited = (self._needed - self._settled_definitions).union(self._expiring)
        self._visited_by_block = indices_by_block(graph, visited)

    def instructions_of(self, block: int) -> Sequence[int]:
        """The instructions of ``block`` whose transfer can change the state (see
        :func:`ptxlint.dataflow.solve_forward`)."""
        return self._visited_by_block[block]

    def transfer(self, index: int, instruction: Instruction, state: ValueState) -> ValueState:
        state = self._transfer(index, instruction, state)
        expiring = self._expiring.get(index)
        if expiring is None or not any(name in state.registers for name in expiring):
            return state
        registers = dict(state.registers)  # a copy in C, then a few deletions: states are large
        for name in expiring:
            registers.pop(name, None)
        return ValueState(registers, state.slots)

    def _transfer(self, index: int, instruction: Instruction, state: ValueState) -> ValueState:
        if self._needed is not None and index not in self._needed or index in self._settled_definitions:
            return state
        opcode = instruction.opcode
        if operation(opcode.base, opcode.modifiers) == "alloc":
            return self._allocate(instruction, state)
        if not instruction.destination_count:
            return state
        results = self._evaluator.evaluate(instruction, state)
        registers = state.registers
        changed = False
        condition_only = self._feeds_addresses is not None and index not in self._feeds_addresses
        for destination, value in results:
            if condition_only and value is VARYING:
                value = None
            if instruction.guard is not None:  # it may not execute: the old value may survive
                value = join_values(registers.get(destination), value)
            if registers.get(destination) is value or registers.get(destination) == value:
                continue
            if not changed:
                registers = dict(registers)
                changed = True
            if value is None:
                registers.pop(destination, None)
            else:
                registers[destination] = value
        return ValueState(registers, state.slots) if changed else state

    # -- internals

    def _allocate(self, instruction: Instruction, state: ValueState) -> ValueState:
        target = instruction.operands[0] if instruction.operands else None
        slot = self._evaluator.value_of(target, state, instruction.scope) if isinstance(target, Address) else None
        if type(slot) is not SharedAddress or slot.key in state.slots:
            return state
        return ValueState(state.registers, state.slots | {slot.key})


# ----------------------------------------------------------------------------- per-function facts


class FunctionValues:
    """The solved analysis of one function, asked through its queries."""

    def __init__(
        self, analysis: WarpValues, evaluator: WarpEvaluator, solution: Solution[ValueState], registers: Registers, warp_count: int
    ) -> None:
        self._evaluator = evaluator
        self._cfg = solution.cfg
        self._instructions = solution.cfg.function.instructions
        self._registers = registers
        self._warp_count = warp_count
        self._state_before = StatesBefore(solution, analysis)

    @property
    def cfg(self) -> ControlFlowGraph:
        """The function's control-flow graph."""
        return self._cfg

    @property
    def registers(self) -> Registers:
        """The function's register model, whose scoped keys the values are keyed by (shared
        with the analyses built on this one)."""
        return self._registers

    @property
    def warp_count(self) -> int:
        """The number of warps values are tabulated for."""
        return self._warp_count

    def value_before(self, index: int, operand: Operand | None) -> Value:
        """The abstract value of ``operand``, an operand of instruction ``index`` (its registers
        are those of that instruction's scope), before it executes (None, unknown, in an
        unreachable block)."""
        state = self._state_before(index)
        return None if state is None else self._evaluator.value_of(operand, state, self._instructions[index].scope)

    def truth_before(self, index: int, predicate: Operand) -> tuple[bool | None, ...] | None:
        """Per warp, whether ``predicate``, an operand of instruction ``index``, holds before it
        (True, False or None, unknown), or None when nothing is known for any warp (or the
        block is unreachable)."""
        state = self._state_before(index)
        return None if state is None else self._evaluator.truth(predicate, state, self._instructions[index].scope)

    def call_arguments(self, index: int) -> tuple[tuple[int, Operand] | None, ...]:
        """For each argument of the `call` at ``index``, the `st.param` that writes it and the
        operand it writes (whose value :meth:`state_before` that instruction tells), or None."""
        instructions = self.cfg.function.instructions
        found: list[tuple[int, Operand] | None] = []
        for store in call_arguments(instructions, self.cfg, index):
            value = None if store is None else stored_value(instructions[store])
            found.append(None if store is None or value is None else (store, value))
        return tuple(found)

    def parameter_offset(self, index: int, operand: Operand) -> ParameterOffset | None:
        """``operand``, an operand of instruction ``index``, as one of the function's parameters
        plus a constant, on every path."""
        return parameter_offset(self.cfg.function, self._registers, operand, self._instructions[index].scope)


def _calls_to_tensor_memory_users(context: ModuleContext, function: Function) -> list[int]:
    """The calls of ``function`` to functions that issue `tcgen05.ld`/`st` themselves: their
    arguments may be TMEM addresses whose lanes the caller's warps choose."""
    calls = context.result("call_graph")
    sites = calls.sites_in(function)
    if not sites:
        return []
    scan = context.result("tcgen05_scan")
    functions = calls.functions
    return [
        site.instruction_index
        for site in sites
        if site.callee in functions and scan.issues_accesses(functions[site.callee])
    ]


def warp_count_of(context: ModuleContext, function: Function) -> tuple[int, bool]:
    """How many warps to tabulate, and whether the count is known from a launch directive."""
    shape = block_shape(function, context.options)
    # `.reqntid 0` (rejected by ptxas, but fed to us anyway) names no warp: tabulate as unknown.
    if function.is_kernel and shape.warp_count:
        return min(shape.warp_count, MAX_WARPS), True
    return MAX_WARPS, False


def function_values(context: ModuleContext, function: Function) -> FunctionValues:
    """Solve the analysis for ``function``."""
    graph = context.result("cfg", function)
    warp_count, _ = warp_count_of(context, function)
    shape = block_shape(function, context.options)
    registers = context.result("registers", function)
    extents = (shape.x, shape.y, shape.z) if function.is_kernel and shape.x is not None else None
    stores = argument_stores(function.instructions, graph, _calls_to_tensor_memory_users(context, function))
    key = None if registers.keys_are_names else registers.key
    evaluator = WarpEvaluator(warp_count, shape.linear_tid_is_tid_x, extents, key)  # type: ignore[arg-type]
    analysis = WarpValues(evaluator, slices(function, registers, stores))
    analysis.settle(function.instructions, registers)
    evaluator.find_allocation_slots(function.instructions)
    analysis.expire_block_locals(graph, registers)
    analysis.plan_visits(graph)
    return FunctionValues(analysis, evaluator, solve_forward(graph, analysis), registers, warp_count)


PASSES = (
    Pass(
        "warp_values",
        "registers as functions of the warp index; tensor-memory addresses and their lane fields",
        function_values,
        per_function=True,
        requires=("cfg", "registers", "call_graph", "tcgen05_scan"),
    ),
)
