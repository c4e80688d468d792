"""The call graph of a module: who calls whom, from which instruction, and which functions are
recursive (strongly connected components, found iteratively)."""

from __future__ import annotations

from functools import cached_property
from typing import Callable, Container, Iterable, Mapping, TypeVar

from ptxlint import ir
from ptxlint.graphs import closure, strongly_connected_components
from ptxlint.records import record

T = TypeVar("T")


@record(slots=True)
class CallSite:
    """A ``call`` instruction: who calls whom (None for an indirect call) and where."""

    caller: str
    callee: str | None  # None for an indirect call through a register
    instruction_index: int
    instruction: ir.Instruction


def callee_name(instruction: ir.Instruction) -> str | None:
    """The function a direct `call` names, or None (indirect call or not a call)."""
    if instruction.opcode.base != "call":
        return None
    for operand in instruction.operands:
        if isinstance(operand, ir.ArgumentList):
            continue
        return operand.name if isinstance(operand, ir.Symbol) else None
    return None


def call_arguments(instruction: ir.Instruction) -> tuple[ir.Operand, ...]:
    """What a `call` passes: the elements of its argument list (the first list among its
    sources; `()` without one)."""
    for operand in instruction.sources:
        if type(operand) is ir.ArgumentList:
            return operand.elements
    return ()


def call_results(instruction: ir.Instruction) -> tuple[ir.Operand, ...]:
    """What a `call` writes: the elements of its return list."""
    found: list[ir.Operand] = []
    for operand in instruction.destinations:
        found.extend(operand.elements if type(operand) is ir.ArgumentList else (operand,))
    return tuple(found)


def parameter_store(instruction: ir.Instruction) -> tuple[str, int] | None:
    """The `.param` variable a `st.param` writes (an argument or a return value of a call
    sequence) and the byte offset in it; None for any other instruction."""
    if instruction.opcode.base != "st" or not instruction.opcode.has("param") or not instruction.operands:
        return None
    target = instruction.operands[0]
    if type(target) is not ir.Address or type(target.base) is not ir.Symbol:
        return None
    return target.base.name, target.offset


class CallGraph:
    def __init__(self, module: ir.Module) -> None:
        self.module = module
        self.functions = {function.name: function for function in module.functions if function.has_body}
        sites: dict[str, list[CallSite]] = {name: [] for name in self.functions}
        for function in self.functions.values():
            for index, instruction in enumerate(function.instructions):
                if instruction.opcode.base == "call":
                    sites[function.name].append(
                        CallSite(function.name, callee_name(instruction), index, instruction)
                    )
        self.call_sites: dict[str, tuple[CallSite, ...]] = {name: tuple(found) for name, found in sites.items()}

    def sites_in(self, function: ir.Function) -> tuple[CallSite, ...]:
        """The calls ``function`` makes. A module that defines a name twice (which ptxas rejects,
        but a file being edited has) is graphed with its last definition: the other one has no
        sites here, rather than that one's instruction indices."""
        if self.functions.get(function.name) is not function:
            return ()
        return self.call_sites.get(function.name, ())

    def callees(self, name: str) -> tuple[str, ...]:
        """Functions with a body that ``name`` calls directly, in call order, without repeats."""
        return self._callees.get(name, ())

    @cached_property
    def _callees(self) -> dict[str, tuple[str, ...]]:
        functions = self.functions
        return {
            name: tuple(dict.fromkeys(site.callee for site in sites if site.callee in functions))
            for name, sites in self.call_sites.items()
        }

    @cached_property
    def callers(self) -> dict[str, tuple[CallSite, ...]]:
        found: dict[str, list[CallSite]] = {name: [] for name in self.functions}
        for sites in self.call_sites.values():
            for site in sites:
                if site.callee in found:
                    found[site.callee].append(site)
        return {name: tuple(sites) for name, sites in found.items()}

    def reachable_from(self, root: str) -> tuple[str, ...]:
        """``root`` and everything it calls transitively, in depth-first call order."""
        order: list[str] = []
        seen = {root}
        stack = [root]
        while stack:
            name = stack.pop()
            order.append(name)
            for callee in reversed(self.callees(name)):
                if callee not in seen:
                    seen.add(callee)
                    stack.append(callee)
        return tuple(order)

    def first_callers(self, root: str) -> dict[str, str]:
        """For each function ``root`` reaches through calls (not ``root`` itself): the function
        that calls it first, breadth first in call order, so that following first callers back
        to ``root`` gives a shortest call chain."""
        caller_of: dict[str, str] = {}
        frontier = [root]
        seen = {root}
        while frontier:
            following = []
            for name in frontier:
                for callee in self.callees(name):
                    if callee not in seen:
                        seen.add(callee)
                        caller_of[callee] = name
                        following.append(callee)
            frontier = following
        return caller_of

    def post_order(self, root: str, seen: set[str], within: Container[str] | None = None) -> list[str]:
        """The functions ``root`` reaches through calls (only through ``within``, when given)
        that are not in ``seen``, each after the functions it calls; recursion is broken where
        it closes, deterministically. Adds them to ``seen``, so that successive roots share it."""
        order: list[str] = []
        seen.add(root)
        stack = [(root, iter(self.callees(root)))]
        while stack:
            name, children = stack[-1]
            for child in children:
                if child not in seen and (within is None or child in within):
                    seen.add(child)
                    stack.append((child, iter(self.callees(child))))
                    break
            else:
                stack.pop()
                order.append(name)
        return order

    def reachable_from_any(self, roots: Iterable[str]) -> frozenset[str]:
        """Everything some root calls transitively, roots included."""
        return closure((root for root in roots if root in self.functions), self.callees)

    def reaching(self, targets: Iterable[str]) -> frozenset[str]:
        """Functions that can reach (are or call, transitively) one of ``targets``."""
        callers = self.callers
        return closure(
            (target for target in targets if target in self.functions),
            lambda name: (site.caller for site in callers.get(name, ())),
        )

    def transitive(self, own: Mapping[str, T], combine: Callable[[Iterable[T]], T]) -> dict[str, T]:
        """For each function, ``combine`` of ``own`` over itself and everything it calls
        transitively, computed once per strongly connected component, callees first: linear in
        the graph (times the cost of ``combine``), where a union over :meth:`reachable_from` per
        function is quadratic on a call chain. ``combine`` must be associative, commutative and
        idempotent (a set union, a max)."""
        result: dict[str, T] = {}
        for component in self.components:
            members = set(component)
            below = [result[callee] for name in component for callee in self.callees(name) if callee not in members]
            value = combine([*(own[name] for name in component), *below])
            for name in component:
                result[name] = value
        return result

    @cached_property
    def recursive(self) -> frozenset[str]:
        """Functions that can call themselves, directly or through others."""
        result: set[str] = set()
        for component in self.components:
            if len(component) > 1 or component[0] in self.callees(component[0]):
                result.update(component)
        return frozenset(result)

    @cached_property
    def components(self) -> tuple[tuple[str, ...], ...]:
        """The strongly connected components, callees before callers."""
        return tuple(strongly_connected_components(self.functions, self.callees))
