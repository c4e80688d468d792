"""Traversals shared by the graphs ptxlint builds (the control-flow graph, the call graph)."""

from __future__ import annotations

from typing import Callable, Hashable, Iterable, Iterator, TypeVar

Node = TypeVar("Node", bound=Hashable)


def closure(starts: Iterable[Node], neighbours: Callable[[Node], Iterable[Node]]) -> frozenset[Node]:
    """``starts`` and every node reachable from them through ``neighbours``, in one traversal for
    all of them (one per start is quadratic on a long chain)."""
    found = set(starts)
    pending = list(found)
    while pending:
        for neighbour in neighbours(pending.pop()):
            if neighbour not in found:
                found.add(neighbour)
                pending.append(neighbour)
    return frozenset(found)


def strongly_connected_components(nodes: Iterable[Node], neighbours: Callable[[Node], Iterable[Node]]) -> list[tuple[Node, ...]]:
    """The strongly connected components of the nodes reachable from ``nodes``, each closed
    only after every component it reaches (Tarjan's algorithm, iteratively: no recursion limit
    on a long chain). A component's members are listed in the order they were popped."""
    index_of: dict[Node, int] = {}
    low: dict[Node, int] = {}
    on_stack: set[Node] = set()
    stack: list[Node] = []
    components: list[tuple[Node, ...]] = []
    counter = 0
    for root in nodes:
        if root in index_of:
            continue
        index_of[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        work: list[tuple[Node, Iterator[Node]]] = [(root, iter(neighbours(root)))]
        while work:
            node, pending = work[-1]
            advanced = False
            for neighbour in pending:
                if neighbour not in index_of:
                    index_of[neighbour] = low[neighbour] = counter
                    counter += 1
                    stack.append(neighbour)
                    on_stack.add(neighbour)
                    work.append((neighbour, iter(neighbours(neighbour))))
                    advanced = True
                    break
                if neighbour in on_stack:
                    low[node] = min(low[node], index_of[neighbour])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] != index_of[node]:
                continue
            members = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                members.append(member)
                if member == node:
                    break
            components.append(tuple(members))
    return components


def reachable_marks(nodes: Iterable[Node], neighbours: Callable[[Node], Iterable[Node]], marks: dict[Node, int]) -> dict[Node, int]:
    """For every node, the union (bitwise or) of the ``marks`` of the nodes reachable from it
    through ``neighbours``, itself included. One pass for all nodes, linear in the graph's size
    (times the width of the marks): the members of a strongly connected component share one
    union, and a component's union is complete when it is closed, since every component it
    reaches was closed before it. Asking :func:`closure` once per node instead is quadratic on a
    long chain of blocks."""
    union: dict[Node, int] = {}
    for members in strongly_connected_components(nodes, neighbours):
        total = 0
        for member in members:
            total |= marks.get(member, 0)
            for neighbour in neighbours(member):
                total |= union.get(neighbour, 0)
        for member in members:
            union[member] = total
    return union
