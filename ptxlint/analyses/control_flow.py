"""The graphs every other pass stands on: each function's control-flow graph and the module's
call graph, built once per module context."""

from __future__ import annotations

from ptxlint.callgraph import CallGraph
from ptxlint.cfg import ControlFlowGraph, build
from ptxlint.context import ModuleContext
from ptxlint.ir import Function, Instruction
from ptxlint.passes import Describe, Pass


def _control_flow_graph(context: ModuleContext, function: Function) -> ControlFlowGraph:
    return build(function)


def _call_graph(context: ModuleContext) -> CallGraph:
    return CallGraph(context.module)


def _describe_blocks(graph: ControlFlowGraph, function: Function) -> Describe:
    """``block N`` on each instruction, with ``-> successors`` on a block's last one (``exit``
    for the function's end), and ``idom M`` on its first: the shape every other pass sees."""

    def describe(index: int, instruction: Instruction) -> str:
        number = graph.block_of(index)
        block = graph.blocks[number]
        text = f"block {number}"
        if index == block.start and number != 0:
            dominator = graph.immediate_dominators.get(number)
            text += f" idom {dominator}" if dominator is not None else " unreachable"
        if index == block.end - 1:
            successors = ", ".join("exit" if successor == graph.exit else str(successor) for successor in block.successors)
            text += f" -> {successors or 'none'}"
        return text

    return describe


PASSES = (
    Pass(
        "cfg",
        "basic blocks, successors, dominators and post-dominators of a function",
        _control_flow_graph,
        per_function=True,
        printer=_describe_blocks,
    ),
    Pass("call_graph", "who calls whom, from which instruction; recursive functions", _call_graph),
)
