"""Control-flow graphs: basic blocks of one function, their edges, reverse post-order, dominators
and post-dominators.

A block is a maximal run of instructions entered only at its first and left only after its last.
Blocks start at function entry, at every label and after every branch or exit. A guarded
instruction that is not a branch does not end a block: predication is data, not control, and the
uniformity analysis treats the guard where it matters.

The graph has one virtual exit node (index ``len(blocks)``) that every `ret` and `exit` leads to,
and that falling off the end of the body reaches, so post-dominators are defined for every block
that can leave the function. A block that ends the grid (`trap`, or a call that never returns
such as `__assertfail`, see `ends_grid`) has no successor at all: no thread goes on from it, so it
neither reaches the exit nor keeps a branch before it from reconverging. Other blocks that cannot
reach the exit (an endless loop) have no immediate post-dominator; analyses treat the influence of
a branch there as extending to the end.

Every traversal is iterative: a hundred thousand labels must not exhaust the Python stack.
"""

from __future__ import annotations

from functools import cached_property
from typing import Callable, Iterable, Sequence

from ptxlint import ir
from ptxlint.callgraph import callee_name
from ptxlint.graphs import closure
from ptxlint.records import record

# Opcode bases after which control does not fall through to the next instruction (when unguarded).
_EXITS = frozenset({"ret", "exit", "trap"})
_BRANCHES = frozenset({"bra", "brx"})
# The bases after which a new block starts: branches, exits, and calls (those that never return).
_BLOCK_ENDING_BASES = _BRANCHES | _EXITS | {"call"}

# Functions of the CUDA runtime that never return to their caller. A failed device `assert`
# calls `__assertfail`, which reports the failure and traps; nvcc lays out the code after the
# call as if it returned (it falls through into whatever block follows), so without this the
# failing thread would seem to go on to the next barrier or tensor-memory operation.
NO_RETURN_FUNCTIONS = frozenset({"__assertfail"})


def ends_grid(instruction: ir.Instruction) -> bool:
    """Whether the instruction, when executed, ends the whole grid: `trap`, or a call that never
    returns."""
    base = instruction.opcode.base
    return base == "trap" or (base == "call" and callee_name(instruction) in NO_RETURN_FUNCTIONS)


def leaves_function(instruction: ir.Instruction) -> bool:
    """Whether control never falls through past the instruction when it executes."""
    return instruction.opcode.base in _EXITS or ends_grid(instruction)


@record(slots=True)
class Block:
    """A basic block: a range of instruction indices and its edges."""

    index: int
    start: int  # first instruction (index into Function.instructions)
    end: int  # one past the last instruction; start == end for an empty block at a final label
    successors: tuple[int, ...]
    predecessors: tuple[int, ...]

    @property
    def instruction_indices(self) -> range:
        return range(self.start, self.end)


@record(slots=True)
class NaturalLoops:
    """The natural loops of a graph: each header's body; whether every retreating edge closes
    one (``reducible``) and whether the search found them all (``complete``)."""

    bodies: dict[int, frozenset[int]]
    reducible: bool
    complete: bool


class ControlFlowGraph:
    """The CFG of one function. Build it with :func:`build`."""

    def __init__(self, function: ir.Function, blocks: tuple[Block, ...], block_of: tuple[int, ...]) -> None:
        self.function = function
        self.blocks = blocks
        self.exit = len(blocks)
        self._block_of = block_of

    def block_of(self, instruction_index: int) -> int:
        """The block holding an instruction."""
        return self._block_of[instruction_index]

    def successors(self, node: int) -> tuple[int, ...]:
        return () if node == self.exit else self.blocks[node].successors

    def predecessors(self, node: int) -> tuple[int, ...]:
        if node == self.exit:
            return self._exit_predecessors
        return self.blocks[node].predecessors

    @cached_property
    def _exit_predecessors(self) -> tuple[int, ...]:
        return tuple(block.index for block in self.blocks if self.exit in block.successors)

    @cached_property
    def reverse_post_order(self) -> tuple[int, ...]:
        """Blocks reachable from the entry, each before its successors except along back edges.
        The search takes a branch's fall-through before its target, so the order follows the
        text where it can: otherwise, in irreducible code, a block entered by a branch over it
        comes after everything below it, and the solver revisits all that once per such block."""
        if not self.blocks:
            return ()
        return tuple(_post_order(0, lambda node: self.successors(node)[::-1], self.exit)[::-1])

    @cached_property
    def rpo_number(self) -> dict[int, int]:
        return {block: number for number, block in enumerate(self.reverse_post_order)}

    @cached_property
    def immediate_dominators(self) -> dict[int, int]:
        """Immediate dominator of each reachable block; the entry maps to itself."""
        if not self.blocks:
            return {}
        return _immediate_dominators(0, self.successors, self.predecessors, skip=self.exit)

    @cached_property
    def immediate_post_dominators(self) -> dict[int, int]:
        """Immediate post-dominator of each node that reaches the exit; the exit maps to itself.
        Blocks from which the exit cannot be reached are absent."""
        return _immediate_dominators(self.exit, self.predecessors, self.successors)

    def post_dominator_without(self, start: int, removed: frozenset[tuple[int, int]]) -> int | None:
        """The immediate post-dominator of ``start`` in the part of the graph reachable from it
        once the ``removed`` edges are taken out, where every block left without a successor is
        an end (None when the paths from ``start`` do not meet again before ending; blocks that
        never end, an endless loop, constrain nothing). Lengauer and Tarjan on the reversed
        part, below a virtual end joining the real ones."""
        successors: dict[int, tuple[int, ...]] = {}
        predecessors: dict[int, list[int]] = {start: []}
        pending = [start]
        while pending:
            node = pending.pop()
            kept = successors[node] = tuple(
                successor for successor in self.successors(node) if (node, successor) not in removed
            )
            for successor in kept:
                if successor not in predecessors:
                    predecessors[successor] = []
                    pending.append(successor)
                predecessors[successor].append(node)
        ends = tuple(node for node, kept in successors.items() if not kept)
        end = -1  # the virtual end: block numbers are never negative
        idom = _immediate_dominators(
            end,
            lambda node: ends if node == end else predecessors[node],
            lambda node: successors[node] or (end,),
        )
        found = idom.get(start)
        return None if found is None or found == end else found

    def dominates(self, dominator: int, node: int) -> bool:
        return _is_ancestor(self._dominator_intervals, dominator, node)

    def post_dominates(self, post_dominator: int, node: int) -> bool:
        return _is_ancestor(self._post_dominator_intervals, post_dominator, node)

    @cached_property
    def _dominator_intervals(self) -> dict[int, tuple[int, int]]:
        return _tree_intervals(self.immediate_dominators)

    @cached_property
    def _post_dominator_intervals(self) -> dict[int, tuple[int, int]]:
        return _tree_intervals(self.immediate_post_dominators)

    @cached_property
    def back_edges(self) -> frozenset[tuple[int, int]]:
        """Edges (source, target) that go to a block not after the source in reverse post-order:
        the edges that close loops (including irreducible ones)."""
        number = self.rpo_number
        return frozenset(
            (block, successor)
            for block in self.reverse_post_order
            for successor in self.successors(block)
            if successor != self.exit and number.get(successor, -1) <= number[block]
        )

    @cached_property
    def natural_loops(self) -> NaturalLoops:
        """The natural loop of each header (every block that reaches one of its back edges
        without passing the header; a header's loops are one loop), for the back edges whose
        target dominates their source. The search stops after visiting twenty times as many
        blocks as the function has (deeply nested loops): the loop it was in and those after it
        are left out, and ``complete`` says so."""
        latches: dict[int, list[int]] = {}
        reducible = True
        for source, header in self.back_edges:
            if self.dominates(header, source):
                latches.setdefault(header, []).append(source)
            else:
                reducible = False
        budget = 20 * len(self.blocks) + 64
        bodies: dict[int, frozenset[int]] = {}
        for header, sources in latches.items():
            body = {header}
            pending = [source for source in sources if source != header]
            while pending and budget > 0:
                node = pending.pop()
                budget -= 1
                if node not in body:
                    body.add(node)
                    pending.extend(self.predecessors(node))
            if budget <= 0:
                return NaturalLoops(bodies, reducible, False)
            bodies[header] = frozenset(body)
        return NaturalLoops(bodies, reducible, True)

    @cached_property
    def sole_exit_loops(self) -> dict[tuple[int, int], int]:
        """The loops that can be left only one way, as {exit edge: loop header}: a natural loop
        (:attr:`natural_loops`) qualifies when exactly one edge leaves it and none goes to the
        function's end. Every thread that enters such a loop leaves it by that edge, or never
        leaves: the spin loops around `mbarrier.try_wait` are the common case."""
        found: dict[tuple[int, int], int] = {}
        for header, body in self.natural_loops.bodies.items():
            leaving = [(node, successor) for node in body for successor in self.successors(node) if successor not in body]
            if len(leaving) == 1 and leaving[0][1] != self.exit:
                found[leaving[0]] = header
        return found

    def on_cycle(self, node: int) -> bool:
        """Whether some cycle may pass ``node`` (False only where none can: in a reducible graph,
        outside every natural loop)."""
        loops = self._innermost_loops
        return loops is None or node in loops

    def cuts_every_cycle(self, cut: int, node: int) -> bool:
        """Whether every cycle through ``node`` passes block ``cut`` (vacuously true when no
        cycle passes ``node``); False where that is not certain. Certain when ``cut`` is
        ``node``; otherwise only in a reducible graph, where ``cut`` dominates ``node`` and lies
        in the innermost loop around it: every cycle passes the header of the smallest loop
        holding it, and from that header reaches ``node`` only through ``cut``."""
        if cut == node:
            return True
        loops = self._innermost_loops
        if loops is None:
            return False
        body = loops.get(node)
        if body is None:
            return True
        numbers = self.rpo_number
        return cut in body and cut in numbers and node in numbers and self.dominates(cut, node)

    @cached_property
    def _innermost_loops(self) -> dict[int, frozenset[int]] | None:
        """Per block inside a natural loop, the body of the innermost one; None when the graph is
        irreducible (a retreating edge whose target does not dominate its source) or its loops
        nest deeper than :attr:`natural_loops` searches."""
        loops = self.natural_loops
        if not (loops.reducible and loops.complete):
            return None
        innermost: dict[int, frozenset[int]] = {}
        # Natural loops of distinct headers nest or are disjoint: the smaller body, written
        # last, is the inner one.
        for body in sorted(loops.bodies.values(), key=len, reverse=True):
            for block in body:
                innermost[block] = body
        return innermost

    def reaching(self, targets: Iterable[int]) -> frozenset[int]:
        """The blocks from which some block of ``targets`` can be reached (``targets`` included)."""
        return closure(targets, self.predecessors)

    def influence_region(self, branch_block: int) -> frozenset[int]:
        """Blocks reachable from a branch before its immediate post-dominator is reached: the
        blocks whose execution depends on which way the branch went."""
        stop = self.immediate_post_dominators.get(branch_block)
        region: set[int] = set()
        pending = [successor for successor in self.successors(branch_block) if successor != stop]
        while pending:
            node = pending.pop()
            if node in region or node == self.exit or node == stop:
                continue
            region.add(node)
            pending.extend(self.successors(node))
        return frozenset(region)

    def regions_holding(self, branch_blocks: Sequence[int]) -> dict[int, int]:
        """Per block reachable from the entry, the branches of ``branch_blocks`` (bit ``i`` for
        the ``i``-th) whose :meth:`influence_region` holds it: every region at once, as a
        may-analysis over bit sets run to its fixed point in reverse post-order (a loop carries a
        branch round to its header; a branch's bit ends where its paths meet again)."""
        bits = {block: 1 << number for number, block in enumerate(branch_blocks)}
        meeting = self.immediate_post_dominators
        ending: dict[int, int] = {}
        for block, bit in bits.items():
            stop = meeting.get(block)
            if stop is not None:
                ending[stop] = ending.get(stop, 0) | bit
        holding: dict[int, int] = {}
        changed = True
        while changed:
            changed = False
            for block in self.reverse_post_order:
                inside = 0
                for predecessor in self.predecessors(block):
                    inside |= holding.get(predecessor, 0) | bits.get(predecessor, 0)
                inside &= ~ending.get(block, 0)
                if holding.get(block) != inside:
                    holding[block] = inside
                    changed = True
        return holding


def build(function: ir.Function) -> ControlFlowGraph:
    """Split a function body into blocks and connect them."""
    instructions = function.instructions
    count = len(instructions)
    leaders = {0} if count else set()
    for label in function.labels:
        leaders.add(label.index)
    for index, instruction in enumerate(instructions):
        base = instruction.opcode.base
        # Only these bases can end a block (a call only when it never returns): most
        # instructions are told apart by one set lookup.
        if base in _BLOCK_ENDING_BASES and (base != "call" or ends_grid(instruction)):
            leaders.add(index + 1)
    # A label at the very end of the body gets an empty block, so branches to it have a target.
    has_final_label = any(label.index == count for label in function.labels)
    starts = sorted(leader for leader in leaders if leader < count or (leader == count and has_final_label))
    if count == 0 and not starts:
        return ControlFlowGraph(function, (), ())
    block_index_at = {start: number for number, start in enumerate(starts)}
    exit_node = len(starts)
    block_of = [0] * count
    successors: list[tuple[int, ...]] = []
    for number, start in enumerate(starts):
        end = starts[number + 1] if number + 1 < len(starts) else count
        block_of[start:end] = [number] * (end - start)
        fallthrough = number + 1 if number + 1 < len(starts) else exit_node
        if end == start:  # empty final block
            successors.append((exit_node,))
            continue
        successors.append(_successors_of(function, instructions[end - 1], fallthrough, exit_node, block_index_at))
    predecessors: list[dict[int, None]] = [{} for _ in starts]  # ordered sets: a loop head may have thousands
    for number, targets in enumerate(successors):
        for target in targets:
            if target != exit_node:
                predecessors[target][number] = None
    blocks = tuple(
        Block(
            index=number,
            start=start,
            end=starts[number + 1] if number + 1 < len(starts) else count,
            successors=successors[number],
            predecessors=tuple(predecessors[number]),
        )
        for number, start in enumerate(starts)
    )
    return ControlFlowGraph(function, blocks, tuple(block_of))


def _successors_of(
    function: ir.Function,
    last: ir.Instruction,
    fallthrough: int,
    exit_node: int,
    block_index_at: dict[int, int],
) -> tuple[int, ...]:
    guarded = last.guard is not None
    if ends_grid(last):
        # Nothing runs after it, not even the function's end: a path into it never reaches a
        # later barrier or exit, so it does not stop the branches before it from reconverging.
        return (fallthrough,) if guarded else ()
    if leaves_function(last):
        return (exit_node, fallthrough) if guarded else (exit_node,)
    if last.opcode.base not in _BRANCHES:
        return (fallthrough,)
    targets = _branch_targets(function, last, block_index_at)
    if targets is None:  # a target we cannot resolve: assume it may go anywhere it could
        targets = tuple(sorted(set(block_index_at.values())))
    if guarded and fallthrough not in targets:
        targets = targets + (fallthrough,)
    return _unique(targets)


def _branch_targets(
    function: ir.Function, branch: ir.Instruction, block_index_at: dict[int, int]
) -> tuple[int, ...] | None:
    names: tuple[str, ...]
    if branch.opcode.base == "bra":
        operand = branch.operands[0] if branch.operands else None
        if not isinstance(operand, ir.Symbol):
            return None
        names = (operand.name,)
    else:  # brx.idx index, tlist
        operand = branch.operands[1] if len(branch.operands) > 1 else None
        if not isinstance(operand, ir.Symbol):
            return None
        targets = function.resolve_branch_targets(operand.name, branch.scope)
        if targets is None:
            return None
        names = targets.targets
    blocks = []
    for name in names:
        label = function.resolve_label(name, branch.scope)
        if label is None or label.index not in block_index_at:
            return None
        blocks.append(block_index_at[label.index])
    return tuple(blocks)


def _unique(items: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(dict.fromkeys(items))


def _post_order(root: int, successors: Callable[[int], Iterable[int]], skip: int | None) -> list[int]:
    """Iterative depth-first post-order from ``root`` (``skip`` is never entered)."""
    order: list[int] = []
    visited = {root}
    stack = [(root, iter(successors(root)))]
    while stack:
        node, children = stack[-1]
        for child in children:
            if child not in visited and child != skip:
                visited.add(child)
                stack.append((child, iter(successors(child))))
                break
        else:
            stack.pop()
            order.append(node)
    return order


def _immediate_dominators(
    root: int, successors: Callable[[int], Sequence[int]], predecessors: Callable[[int], Sequence[int]], skip: int | None = None
) -> dict[int, int]:
    """Lengauer and Tarjan's algorithm, the simple version with path compression (O(E log V)),
    without recursion: Cooper, Harvey and Kennedy's iterative one is quadratic on deep trees (a
    chain of 100,000 nested loops). Nodes are the ones reachable from ``root`` through
    ``successors`` (never entering ``skip``); the root maps to itself."""
    vertex: list[int] = []  # depth-first number → node
    number: dict[int, int] = {}
    parent: list[int] = []
    stack = [(root, -1)]
    while stack:
        node, from_number = stack.pop()
        if node in number:
            continue
        number[node] = len(vertex)
        vertex.append(node)
        parent.append(from_number)
        here = number[node]
        stack.extend((child, here) for child in reversed(successors(node)) if child not in number and child != skip)
    count = len(vertex)
    semi = list(range(count))
    idom = [0] * count
    ancestor = [-1] * count  # the forest of processed nodes, compressed as it is searched
    label = list(range(count))
    bucket: list[list[int]] = [[] for _ in range(count)]

    def evaluate(node: int) -> int:
        """The node of least semi-dominator on the forest path above ``node``."""
        if ancestor[node] == -1:
            return node
        path = []
        while ancestor[ancestor[node]] != -1:
            path.append(node)
            node = ancestor[node]
        for below in reversed(path):
            above = ancestor[below]
            if semi[label[above]] < semi[label[below]]:
                label[below] = label[above]
            ancestor[below] = ancestor[above]
        return label[path[0]] if path else label[node]

    for current in range(count - 1, 0, -1):
        for predecessor in predecessors(vertex[current]):
            known = number.get(predecessor)
            if known is not None:
                candidate = semi[evaluate(known)]
                if candidate < semi[current]:
                    semi[current] = candidate
        bucket[semi[current]].append(current)
        above = parent[current]
        ancestor[current] = above
        for waiting in bucket[above]:
            lowest = evaluate(waiting)
            idom[waiting] = lowest if semi[lowest] < semi[waiting] else above
        bucket[above] = []
    for current in range(1, count):
        if idom[current] != semi[current]:
            idom[current] = idom[idom[current]]
    return {vertex[index]: vertex[idom[index]] for index in range(count)}


def _tree_intervals(idom: dict[int, int]) -> dict[int, tuple[int, int]]:
    """Pre-order entry and exit numbers of each node of the tree ``idom`` describes (a root maps
    to itself): ``a`` is an ancestor of ``b`` exactly when ``a``'s interval contains ``b``'s, an
    O(1) test however deep the tree (a chain of 100,000 nested loops)."""
    children: dict[int, list[int]] = {}
    roots = []
    for node, parent in idom.items():
        if parent == node:
            roots.append(node)
        else:
            children.setdefault(parent, []).append(node)
    intervals: dict[int, tuple[int, int]] = {}
    counter = 0
    for root in sorted(roots):
        stack = [(root, False)]
        entered: dict[int, int] = {}
        while stack:
            node, leaving = stack.pop()
            if leaving:
                intervals[node] = (entered[node], counter)
                counter += 1
                continue
            entered[node] = counter
            counter += 1
            stack.append((node, True))
            stack.extend((child, False) for child in reversed(children.get(node, ())))
    return intervals


def _is_ancestor(intervals: dict[int, tuple[int, int]], ancestor: int, node: int) -> bool:
    outer = intervals.get(ancestor)
    inner = intervals.get(node)
    return outer is not None and inner is not None and outer[0] <= inner[0] and inner[1] <= outer[1]
