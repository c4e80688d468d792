"""`ptxlint dump uniformity`: every instruction with the uniformity of what it defines and the
level at which it runs, in the annotation syntax the fact fixtures use."""

from __future__ import annotations

from typing import Callable

from ptxlint import ir
from ptxlint.analyses.uniformity.driver import analyze_module
from ptxlint.analyses.uniformity.facts import InstructionFacts
from ptxlint.context import Options
from ptxlint.printer import format_annotated


def format_uniformity(module: ir.Module, options: Options) -> str:
    """Per instruction: the level of what it defines and the level at which it executes, in
    the annotation syntax the fixtures use (``// uniformity: warp executes: cta``)."""
    result = analyze_module(module, options, everything=True)

    def describer_of(function: ir.Function) -> Callable[[int, ir.Instruction], str] | None:
        analysed = result.functions.get(function.name)
        if analysed is None or analysed.function is not function:
            return None
        return lambda index, _: describe_facts(analysed.facts.get(index))

    return format_annotated(module, describer_of)


def describe_facts(facts: InstructionFacts | None) -> str:
    """``<defined> executes: <level>`` (``-`` when nothing is defined), ``unreachable`` when the
    solver never reached the instruction, ``after-exit`` when threads may have exited before."""
    if facts is None:
        return "unreachable"
    defined = facts.defined.level.short if facts.defined is not None else "-"
    text = f"{defined} executes: {facts.execution_level.short}"
    return text + " after-exit" if facts.exits else text
