"""Traversals shared by the graphs ptxlint builds (the control-flow graph, the call graph)."""

from __future__ import annotations

from typing import Callable, Hashable, Iterable, TypeVar

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
