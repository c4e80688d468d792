"""`ptxlint dump uniformity`: every instruction with the uniformity of what it defines and the
level at which it runs, in the annotation syntax the fact fixtures use."""

from __future__ import annotations


from ptxlint import ir
from ptxlint.analyses.uniformity.facts import InstructionFacts
from ptxlint.analyses.uniformity.driver import analyze_module
from ptxlint.context import Options

def format_uniformity(module: ir.Module, options: Options) -> str:
    """Per instruction: the level of what it defines and the level at which it executes, in
    the annotation syntax the fixtures use (``// uniformity: warp executes: cta``)."""
    result = analyze_module(module, options, everything=True)
    lines = [f"module {module.path}"]
    for function in module.functions:
        analysed = result.functions.get(function.name)
        if analysed is None or analysed.function is not function:
            continue
        kind = "entry" if function.is_kernel else "func"
        lines.append("")
        lines.append(f"{function.span.line}: {kind} {function.name}")
        for index, instruction in enumerate(function.instructions):
            text = module.source.data[instruction.span.start : instruction.span.end].decode("utf-8", "replace")
            text = " ".join(text.split())
            lines.append(f"{instruction.span.line:>7}  {text:<60}  {describe_facts(analysed.facts.get(index))}")
    return "\n".join(lines) + "\n"


def describe_facts(facts: InstructionFacts | None) -> str:
    """``<defined> executes: <level>`` (``-`` when nothing is defined), ``unreachable`` when the
    solver never reached the instruction, ``after-exit`` when threads may have exited before."""
    if facts is None:
        return "unreachable"
    defined = facts.defined.level.short if facts.defined is not None else "-"
    text = f"{defined} executes: {facts.execution_level.short}"
    return text + " after-exit" if facts.exits else text
