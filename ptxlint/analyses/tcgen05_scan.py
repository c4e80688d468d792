"""Which functions and instructions use tensor memory: the cheap scans every tcgen05 rule gates
on, and the tcgen05 operations each function (and what it calls) performs. Kept apart from the
path analysis (`tcgen05.py`) so that linting a module without tensor memory never loads it."""

from __future__ import annotations

from ptxlint.callgraph import CallGraph, callee_name
from ptxlint.context import ModuleContext
from ptxlint.ir import Function, Instruction


def tensor_memory_instructions(context: ModuleContext, function: Function) -> tuple[int, ...]:
    """The indices of ``function``'s tcgen05 instructions and calls (a callee may use tensor
    memory): all the tensor-memory rules look at, found in one scan they share."""
    return context.function_analysis(function, _tensor_memory_instructions)


def _tensor_memory_instructions(context: ModuleContext, function: Function) -> tuple[int, ...]:
    return tuple(
        index
        for index, instruction in enumerate(function.instructions)
        if instruction.opcode.base in ("tcgen05", "call")
    )


def tcgen05_operations(context: ModuleContext, function: Function) -> frozenset[str]:
    """The tcgen05 operations a function's own body uses (`ld`, `mma`, `wait::ld`, …)."""
    return context.function_analysis(function, _tcgen05_operations)


def _tcgen05_operations(context: ModuleContext, function: Function) -> frozenset[str]:
    instructions = function.instructions
    return frozenset(
        instructions[index].opcode.modifiers[0]
        for index in tensor_memory_instructions(context, function)
        if instructions[index].opcode.base == "tcgen05" and instructions[index].opcode.modifiers
    )


def callee_operations(context: ModuleContext) -> dict[str, frozenset[str]]:
    """For each function with a body: the tcgen05 operations it or anything it calls uses."""

    def compute() -> dict[str, frozenset[str]]:
        calls = context.cached(CallGraph, lambda: CallGraph(context.module))
        own = {name: tcgen05_operations(context, function) for name, function in calls.functions.items()}
        return calls.transitive(own, lambda values: frozenset().union(*values))

    return context.cached(("tcgen05", "callee_operations"), compute)


def called_operations(instruction: Instruction, summaries: dict[str, frozenset[str]]) -> frozenset[str] | None:
    """What a `call` does in tcgen05 terms, or None when the callee's body is unknown."""
    name = callee_name(instruction)
    return summaries.get(name) if name is not None else None


def issues_tmem_accesses(context: ModuleContext, function: Function) -> bool:
    """The cheap test that lets functions without `tcgen05.ld`/`st` skip the analyses."""
    operations = tcgen05_operations(context, function)
    return "ld" in operations or "st" in operations


def works_on_allocated_tmem(context: ModuleContext, function: Function) -> bool:
    """Whether ``function`` can run with tensor memory allocated: a kernel that allocates (itself
    or through a call), or a `.func` in a module where something allocates. TMEM accesses
    anywhere else are undefined whatever their order, so ordering findings there would be noise
    (instruction-list tests, fragments)."""
    summaries = callee_operations(context)
    if function.is_kernel:
        return "alloc" in summaries.get(function.name, frozenset())
    return any("alloc" in operations for operations in summaries.values())
