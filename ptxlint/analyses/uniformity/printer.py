"""What ``ptxlint dump uniformity`` prints per instruction: the uniformity of what it defines and
the level at which it runs, in the annotation syntax the fact fixtures use
(``// uniformity: warp executes: cta``)."""

from __future__ import annotations

from ptxlint import ir
from ptxlint.analyses.uniformity.facts import InstructionFacts, ModuleUniformity
from ptxlint.passes import Describe


def describe_function(result: ModuleUniformity, function: ir.Function) -> Describe | None:
    """How to describe each instruction of ``function``, if the analysis covered it."""
    analysed = result.functions.get(function.name)
    if analysed is None or analysed.function is not function:
        return None
    return lambda index, _: describe_facts(analysed.facts.get(index))

def describe_facts(facts: InstructionFacts | None) -> str:
    """``<defined> executes: <level>`` (``-`` when nothing is defined), ``unreachable`` when the
    solver never reached the instruction, ``after-exit`` when threads may have exited before."""
    if facts is None:
        return "unreachable"
    defined = facts.defined.level.short if facts.defined is not None else "-"
    text = f"{defined} executes: {facts.execution_level.short}"
    return text + " after-exit" if facts.exits else text
