"""Which functions and instructions use tensor memory: the cheap scans every tcgen05 rule gates
on, and the tcgen05 operations each function (and what it calls) performs. Kept apart from the
path analysis (`pending.py`) so that linting a module without tensor memory never loads it."""

from __future__ import annotations

from ptxlint.callgraph import CallGraph, callee_name
from ptxlint.context import ModuleContext
from ptxlint.ir import Function, Instruction
from ptxlint.passes import Describe, Pass


class TensorMemoryScan:
    """Per function, its tcgen05 instructions and calls and the operations it uses; per function
    with a body, what it and everything it calls uses. Each function is scanned when first asked."""

    def __init__(self, calls: CallGraph) -> None:
        self._calls = calls
        self._instructions: dict[int, tuple[int, ...]] = {}
        self._operations: dict[int, frozenset[str]] = {}
        self._callee_operations: dict[str, frozenset[str]] | None = None

    def instructions(self, function: Function) -> tuple[int, ...]:
        """The indices of ``function``'s tcgen05 instructions and calls (a callee may use tensor
        memory): all the tensor-memory rules look at."""
        known = self._instructions.get(id(function))
        if known is None:
            known = self._instructions[id(function)] = tuple(
                index
                for index, instruction in enumerate(function.instructions)
                if instruction.opcode.base in ("tcgen05", "call")
            )
        return known

    def operations(self, function: Function) -> frozenset[str]:
        """The tcgen05 operations a function's own body uses (`ld`, `mma`, `wait::ld`, …)."""
        known = self._operations.get(id(function))
        if known is None:
            instructions = function.instructions
            known = self._operations[id(function)] = frozenset(
                instructions[index].opcode.modifiers[0]
                for index in self.instructions(function)
                if instructions[index].opcode.base == "tcgen05" and instructions[index].opcode.modifiers
            )
        return known

    @property
    def callee_operations(self) -> dict[str, frozenset[str]]:
        """For each function with a body: the tcgen05 operations it or anything it calls uses."""
        if self._callee_operations is None:
            own = {name: self.operations(function) for name, function in self._calls.functions.items()}
            self._callee_operations = self._calls.transitive(own, lambda values: frozenset().union(*values))
        return self._callee_operations

    def called_operations(self, instruction: Instruction) -> frozenset[str] | None:
        """What a `call` does in tcgen05 terms, or None when the callee's body is unknown."""
        return called_operations(instruction, self.callee_operations)

    def issues_accesses(self, function: Function) -> bool:
        """Whether ``function`` itself issues `tcgen05.ld`/`st`: functions that do not skip the
        path analyses."""
        operations = self.operations(function)
        return "ld" in operations or "st" in operations

    def may_have_pending(self, function: Function) -> bool:
        """Whether a thread of ``function`` can have a `tcgen05.ld`/`st` pending: the function
        issues one, or calls a `.func` that does (and may return it unwaited)."""
        if self.issues_accesses(function):
            return True
        operations = self.callee_operations.get(function.name, frozenset())
        return "ld" in operations or "st" in operations

    def works_on_allocated(self, function: Function) -> bool:
        """Whether ``function`` can run with tensor memory allocated: a kernel that allocates
        (itself or through a call), or a `.func` in a module where something allocates. TMEM
        accesses anywhere else are undefined whatever their order, so ordering findings there
        would be noise (instruction-list tests, fragments)."""
        summaries = self.callee_operations
        if function.is_kernel:
            return "alloc" in summaries.get(function.name, frozenset())
        return any("alloc" in operations for operations in summaries.values())


def called_operations(instruction: Instruction, summaries: dict[str, frozenset[str]]) -> frozenset[str] | None:
    """What a `call` does in tcgen05 terms, or None when the callee's body is unknown."""
    name = callee_name(instruction)
    return summaries.get(name) if name is not None else None


def _scan(context: ModuleContext) -> TensorMemoryScan:
    return TensorMemoryScan(context.result("call_graph"))


def _describe_scan(scan: TensorMemoryScan, function: Function) -> Describe | None:
    """At each tcgen05 instruction or call: the operation, or what the callee uses."""
    if not function.has_body:
        return None
    marked = frozenset(scan.instructions(function))

    def describe(index: int, instruction: Instruction) -> str:
        if index not in marked:
            return ""
        if instruction.opcode.base == "call":
            operations = scan.called_operations(instruction)
            return "call: unknown body" if operations is None else f"call: {' '.join(sorted(operations)) or 'none'}"
        return instruction.opcode.modifiers[0] if instruction.opcode.modifiers else "tcgen05"

    return describe


PASSES = (
    Pass(
        "tcgen05_scan",
        "which instructions use tensor memory, and the tcgen05 operations each function reaches",
        _scan,
        requires=("call_graph",),
        printer=_describe_scan,
    ),
)
