"""The interprocedural driver: which functions need the analysis (those reaching a collective
and what they call), the order (callers first, so arguments are complete), and the summaries
callers and callees exchange — parameter values, return values, collectives reached, exits —
iterated to a fixed point."""

from __future__ import annotations

from typing import Callable, Sequence, Union

from ptxlint import cfg as cfg_module
from ptxlint import ir
from ptxlint.analyses.threads.tid_fields import LaneModel
from ptxlint.analyses.launch import block_shape
from ptxlint.analyses.registers import Registers
from ptxlint.analyses.threads.lane_sets import ThreadSpace
from ptxlint.analyses.uniformity.analysis import UniformityAnalysis
from ptxlint.analyses.uniformity.facts import CalledCollective, FunctionUniformity, ModuleUniformity
from ptxlint.analyses.uniformity.inputs import function_inputs
from ptxlint.analyses.uniformity.printer import describe_function
from ptxlint.analyses.uniformity.lattice import Argument, Value, join_arguments
from ptxlint.analyses.uniformity.relevance import FunctionShape, Relevance, module_relevance
from ptxlint.analyses.uniformity.static import StaticFacts, fresh_register_index, function_shape, prepare_static
from ptxlint.callgraph import CallGraph, callee_name
from ptxlint.context import ModuleContext, Options
from ptxlint.dataflow import solve_forward
from ptxlint.isa.aligned import COLLECTIVE_BASES, Collective, Scope, collective
from ptxlint.passes import Pass


def _module_uniformity(context: ModuleContext) -> ModuleUniformity:
    """The analysis of every function that needs it (of every function when the context records
    every fact), on the context's graphs and register indexes."""
    return analyze_module(
        context.module,
        context.options,
        everything=context.record_every_fact,
        graph_of=lambda function: context.result("cfg", function),
        registers_of=lambda function: context.result("registers", function),
        call_graph=context.result("call_graph"),
    )


# ----------------------------------------------------------------------------- the module driver

_MAX_ROUNDS = 6


def direct_collectives(function: ir.Function) -> dict[int, Collective]:
    found = {}
    for index, instruction in enumerate(function.instructions):
        if instruction.opcode.base in COLLECTIVE_BASES:  # nine in ten instructions are not
            requirement = collective(instruction)
            if requirement is not None:
                found[index] = requirement
    return found


def analyze_module(
    module: ir.Module,
    options: Options,
    everything: bool = False,
    sparse: bool = True,
    graph_of: Callable[[ir.Function], cfg_module.ControlFlowGraph] = cfg_module.build,
    registers_of: Callable[[ir.Function], Registers] = fresh_register_index,
    keep_dead_registers: bool = False,
    call_graph: CallGraph | None = None,
) -> ModuleUniformity:
    """Analyse the functions that need it (all of them when ``everything``), interprocedurally.
    ``sparse`` False visits every instruction even when only some facts are wanted, and
    ``keep_dead_registers`` keeps registers no later instruction reads in the states (the
    references the sparse, trimmed analysis is tested against). ``graph_of`` and
    ``registers_of`` build a function's CFG and register index (a context shares them between
    analyses, as they share ``call_graph``)."""
    functions = {function.name: function for function in module.functions if function.has_body}
    direct = {name: direct_collectives(function) for name, function in functions.items()}
    if not everything and not any(direct.values()):
        return ModuleUniformity()
    graph = call_graph if call_graph is not None else CallGraph(module)
    called = _called_collectives(graph, functions, direct)
    selected = _selected_functions(graph, functions, called, everything)
    order = _callers_first(graph, selected, module)
    conservative = _conservative_functions(module, graph, functions)
    # A function with a caller we do not analyse cannot learn its parameters from the callers.
    conservative.update(name for name in order if any(site.caller not in selected for site in graph.callers.get(name, ())))
    exiting = _exiting_functions(graph, functions)
    dense = everything or not sparse
    shapes: dict[str, FunctionShape] = {}

    def shape_of(name: str) -> FunctionShape:
        known = shapes.get(name)
        if known is None:
            function = functions[name]
            known = shapes[name] = function_shape(function, graph_of(function), direct[name], registers_of(function))
        return known

    # The slice of each function, across calls (none when every instruction is visited).
    slices: dict[str, Relevance] = {} if dense else module_relevance(
        order, shape_of, direct, analysed=lambda name: name in selected,
        executed=lambda callee: bool(called.get(callee)) or callee in exiting,
    )
    # What callers and callees tell each other: each function's parameter values (None: nothing
    # known, thread-varying) and the join of what each returns, as of the last round.
    parameters: dict[str, tuple[Argument, ...] | None] = {name: None if name in conservative else () for name in order}
    returned: dict[str, Value] = {}
    analysed_functions: dict[str, FunctionUniformity] = {}
    statics: dict[str, _Prepared] = {}
    thread_spaces: dict[int, ThreadSpace] = {}
    # A function whose parameters and callees' return values did not change since the last
    # round gives the same result: keep it.
    previous: dict[str, tuple[_Inputs, UniformityAnalysis, FunctionUniformity]] = {}
    for _ in range(_MAX_ROUNDS):
        previous_parameters = dict(parameters)
        arguments: dict[str, list[Argument]] = {}
        returns: dict[str, Value] = {}
        for name in order:
            # Callers come first, so this round's arguments are complete (Gauss-Seidel).
            if name not in conservative:
                parameters[name] = tuple(arguments.get(name, ()))
            function = functions[name]
            callees = graph.callees(name)
            inputs = (parameters[name], tuple(returned.get(callee) for callee in callees))
            known = previous.get(name)
            if known is not None and known[0] == inputs:
                analysis, analysed = known[1], known[2]
            else:
                callee_returns = {callee: returned[callee] for callee in callees if callee in returned}
                analysis, analysed = _analyze_function(
                    shape_of(name), options, parameters[name], callee_returns, exiting, called, direct[name], everything,
                    statics, slices.get(name), thread_spaces=thread_spaces, keep_dead_registers=keep_dead_registers,
                )
                previous[name] = (inputs, analysis, analysed)
            analysed_functions[name] = analysed
            for callee, values in analysis.arguments.items():
                _merge_arguments(arguments, callee, values)
            if function.return_parameters:
                returns[name] = analysis.returned
        changed = previous_parameters != parameters or any(returned.get(name) != value for name, value in returns.items())
        returned.update(returns)
        if not changed:
            break
    return ModuleUniformity(analysed_functions)


# A function's parameter values and its callees' return values: what its analysis depends on.
_Inputs = tuple[Union[tuple[Argument, ...], None], tuple[Union[Value, None], ...]]
# What a function's analysis prepares once: its graph, lane model, collectives, the collectives
# its call sites reach, and its static facts.
_Prepared = tuple[
    cfg_module.ControlFlowGraph, LaneModel, dict[int, Collective], dict[int, tuple[CalledCollective, ...]], StaticFacts
]


def _analyze_function(
    shape: FunctionShape, options: Options, parameters: tuple[Argument, ...] | None, returns: dict[str, Value],
    exiting: frozenset[str], called: dict[str, tuple[CalledCollective, ...]], collectives: dict[int, Collective],
    everything: bool, statics: dict[str, _Prepared], relevance: Relevance | None,
    thread_spaces: dict[int, ThreadSpace] | None = None, keep_dead_registers: bool = False,
) -> tuple[UniformityAnalysis, FunctionUniformity]:
    """One round's analysis of a function: ``relevance`` is its slice (None: every instruction)."""
    function = shape.function
    known = statics.get(function.name)
    if known is None:
        graph = shape.graph
        lanes = LaneModel(block_shape(function, options))
        requirements = dict(collectives)
        calls: dict[int, tuple[CalledCollective, ...]] = {}
        for index, instruction in enumerate(function.instructions):
            if instruction.opcode.base == "call":
                reached = called.get(callee_name(instruction) or "", ())
                if reached:
                    calls[index] = reached
        known = statics[function.name] = (graph, lanes, requirements, calls, prepare_static(shape, requirements, relevance))
    graph, lanes, requirements, calls, static = known
    inputs = function_inputs(
        function, graph, lanes, parameters, returns, exiting, requirements, static, thread_spaces, keep_dead_registers
    )
    analysis = UniformityAnalysis(inputs)
    solution = solve_forward(graph, analysis, within=static.solved_blocks)
    analysis.start_recording(everything)
    # Replay the blocks whose facts someone reads: collectives, calls, stores of return values
    # (each only up to the last of them; every instruction when ``everything``).
    instructions = function.instructions
    transfer = analysis.transfer
    entry_states = solution.block_entry
    replayed = static.replayed
    for block in graph.reverse_post_order:
        state = entry_states.get(block)
        if state is None:
            continue
        if everything:
            indices = analysis.instructions_of(block)
        else:
            indices = replayed.get(block, ())
        for index in indices:
            state = transfer(index, instructions[index], state)
    facts = analysis.stop_recording()
    return analysis, FunctionUniformity(function, graph, facts, requirements, calls, solution.converged)


def _called_collectives(
    graph: CallGraph, functions: dict[str, ir.Function], direct: dict[str, dict[int, Collective]]
) -> dict[str, tuple[CalledCollective, ...]]:
    """For each function, the collectives it reaches (its own and its callees'), at most one
    per kind of requirement, so a call site can be checked like the collective itself."""
    memo: dict[str, tuple[CalledCollective, ...]] = {}
    for name in _callees_first(graph, functions):
        found: dict[tuple[Scope, bool, bool], CalledCollective] = {}  # scope, aligned, thread count
        function = functions[name]
        for index, requirement in sorted(direct[name].items()):
            kind = (requirement.scope, requirement.aligned, requirement.thread_count)
            found.setdefault(kind, CalledCollective(name, index, function.instructions[index], requirement))
        for site in graph.call_sites.get(name, ()):
            # Inside a recursive cycle a member not yet summarised contributes nothing: what the
            # cycle reaches is still found through the member that owns it.
            for reached in memo.get(site.callee or "", ()):
                requirement = reached.requirement
                found.setdefault((requirement.scope, requirement.aligned, requirement.thread_count), reached)
        memo[name] = tuple(found.values())
    return memo


def _callees_first(graph: CallGraph, functions: dict[str, ir.Function]) -> list[str]:
    """Every function with a body, each after the functions it calls (post-order; recursion
    broken arbitrarily but deterministically)."""
    order: list[str] = []
    seen: set[str] = set()
    for root in functions:
        if root not in seen:
            order.extend(graph.post_order(root, seen))
    return order


def _exiting_functions(graph: CallGraph, functions: dict[str, ir.Function]) -> frozenset[str]:
    """Functions that contain an `exit` or call one that does."""
    exiting = {name for name, function in functions.items() if any(i.opcode.base == "exit" for i in function.instructions)}
    if not exiting:
        return frozenset()
    return frozenset(name for name in graph.reaching(exiting) if name in functions)


def _selected_functions(
    graph: CallGraph, functions: dict[str, ir.Function], called: dict[str, tuple[CalledCollective, ...]], everything: bool
) -> set[str]:
    """Functions that reach a collective, plus what they call (for return values)."""
    if everything:
        return set(functions)
    selected = {name for name, reached in called.items() if reached}
    return selected | set(graph.reachable_from_any(selected))


def _callers_first(graph: CallGraph, selected: set[str], module: ir.Module) -> list[str]:
    """Selected functions, each after its callers where recursion allows (kernels first)."""
    order: list[str] = []
    seen: set[str] = set()
    roots = [function.name for function in module.functions if function.has_body and function.name in selected]
    roots.sort(key=lambda name: not graph.functions[name].is_kernel)
    for root in roots:
        if root not in seen:
            # Reverse post-order of the call graph from the root: callers before callees.
            order.extend(reversed(graph.post_order(root, seen, within=selected)))
    return order


def _conservative_functions(module: ir.Module, graph: CallGraph, functions: dict[str, ir.Function]) -> set[str]:
    """Functions whose parameters we cannot derive from the call sites in this module: kernels
    (their parameters are CTA-uniform anyway), externally visible, recursive, address-taken, or
    never called."""
    taken = set()
    # Only a `.func` can be called with arguments: without one there is nothing to look for.
    callable_functions = {name for name, function in functions.items() if not function.is_kernel}
    for function in functions.values() if callable_functions else ():
        for instruction in function.instructions:
            if instruction.opcode.base == "call":
                continue
            for operand in instruction.sources:
                if type(operand) is ir.Symbol and operand.name in callable_functions:
                    taken.add(operand.name)
    conservative = set()
    for name, function in functions.items():
        visible = any(linkage in (".visible", ".extern", ".weak", ".common") for linkage in function.linkage)
        uncalled = not graph.callers.get(name)
        if function.is_kernel or visible or name in graph.recursive or name in taken or uncalled:
            conservative.add(name)
    return conservative


def _merge_arguments(arguments: dict[str, list[Argument]], callee: str, values: Sequence[Argument]) -> None:
    known = arguments.get(callee)
    if known is None:
        arguments[callee] = list(values)
        return
    for position, value in enumerate(values):
        if position < len(known):
            known[position] = join_arguments(known[position], value)
        else:
            known.append(value)


PASSES = (
    Pass(
        "uniformity",
        "over which threads each value is equal, and with which threads each instruction runs",
        _module_uniformity,
        requires=("cfg", "registers", "call_graph"),
        printer=describe_function,
    ),
)
