"""The searches behind PTX202's questions to the `tcgen05_pending` pass, over the CFG and the
per-edge facts the pass hands them (no solver state): which hand-offs an access reaches first,
whether a CTA barrier publishes nothing before the thread's wait, and which dealloc a thread
reaches from a hand-off before its wait. The classification of
hand-offs is :mod:`ptxlint.isa.hand_offs`."""

from __future__ import annotations

import bisect
from typing import Callable

from ptxlint.analyses.tcgen05.scan import called_operations
from ptxlint.cfg import ControlFlowGraph
from ptxlint.ir import Function, Instruction
from ptxlint.isa.barriers import is_cta_barrier
from ptxlint.isa.hand_offs import CONFLICTING, HAND_OFF_BASES, hand_off
from ptxlint.isa.tcgen05 import operation

# Instructions the barrier search visits at most, from one barrier; past it the barrier is
# taken to hand the access over.
_SEARCH_BUDGET = 20_000


def hand_offs_in(function: Function) -> tuple[int, ...]:
    """The indices of ``function``'s hand-offs, in order."""
    in_kernel = function.is_kernel
    return tuple(
        index
        for index, instruction in enumerate(function.instructions)
        if instruction.opcode.base in HAND_OFF_BASES
        and hand_off(instruction.opcode.base, instruction.opcode.modifiers, in_kernel) is not None
    )


class FirstHandOffs:
    """Which hand-offs an access can reach through no other hand-off. Later hand-offs repeat the
    first one's finding (a stream of atomics after a barrier), so only the first along a path
    counts. Per access, one forward search over the blocks it stays in flight through, along the
    edges ``in_flight_on(source, target)`` says carry it; kept per access."""

    def __init__(
        self, cfg: ControlFlowGraph, hand_offs: tuple[int, ...], in_flight_on: Callable[[int, int], frozenset[int]]
    ) -> None:
        self._cfg = cfg
        self._hand_offs = hand_offs  # sorted
        self._in_flight_on = in_flight_on
        self._reached: dict[int, frozenset[int]] = {}

    def first(self, access: int, index: int) -> bool:
        """Whether the hand-off at ``index`` is the first one the access issued at ``access``
        reaches on some path."""
        graph = self._cfg
        block = graph.block_of(index)
        issued_before = graph.block_of(access) == block and access < index
        since = access + 1 if issued_before else graph.blocks[block].start
        if self._any_hand_off(since, index):
            return False
        return issued_before or block in self._reached_blocks(access)

    def _reached_blocks(self, access: int) -> frozenset[int]:
        """Blocks entered with the access in flight and no hand-off since it was issued."""
        known = self._reached.get(access)
        if known is not None:
            return known
        graph = self._cfg
        blocks = graph.blocks
        origin = graph.block_of(access)
        reached: set[int] = set()
        frontier = [] if self._any_hand_off(access + 1, blocks[origin].end) else [origin]
        while frontier:
            block = frontier.pop()
            for successor in graph.successors(block):
                if successor == graph.exit or successor in reached or access not in self._in_flight_on(block, successor):
                    continue
                reached.add(successor)
                node = blocks[successor]
                if not self._any_hand_off(node.start, node.end):
                    frontier.append(successor)
        known = self._reached[access] = frozenset(reached)
        return known

    def _any_hand_off(self, start: int, stop: int) -> bool:
        """Whether some hand-off lies in [start, stop)."""
        position = bisect.bisect_left(self._hand_offs, start)
        return position < len(self._hand_offs) and self._hand_offs[position] < stop


def _tensor_memory_operations(instruction: Instruction, summaries: dict[str, frozenset[str]]) -> frozenset[str] | None:
    """The tensor-memory operations a `tcgen05` instruction or a call performs: the instruction's
    own (a guarded wait may not happen, so it counts for none), or what the callee's summary
    lists; None for a call whose body is unknown, which the searches take as waiting."""
    opcode = instruction.opcode
    if opcode.base == "call":
        return called_operations(instruction, summaries)
    performed = operation(opcode.base, opcode.modifiers)
    if performed is None or (performed.startswith("wait::") and instruction.guard is not None):
        return frozenset()
    return frozenset({performed})


def settles_before_next_barrier(
    cfg: ControlFlowGraph, function: Function, summaries: dict[str, frozenset[str]], barrier: int, kind: str
) -> bool:
    """Whether, on every path from the CTA barrier at ``barrier``, the thread waits for its
    pending accesses of ``kind`` (`ld` or `st`) and then passes another CTA barrier before any
    instruction that conflicts with such an access, frees tensor memory or hands anything over:
    then no thread can act on what the barrier published before the access completes, and the
    later barrier is the real hand-off."""
    instructions = function.instructions
    in_kernel = function.is_kernel
    conflicting = CONFLICTING[kind]
    wait = f"wait::{kind}"
    budget = _SEARCH_BUDGET
    seen: set[tuple[int, bool]] = set()
    work = [(barrier + 1, False)]
    while work:
        position, waited = work.pop()
        block = cfg.block_of(position) if position < len(instructions) else None
        if block is None:
            return False  # the end of the body with nothing after
        end = cfg.blocks[block].end
        while position < end:
            budget -= 1
            if budget < 0:
                return False
            instruction = instructions[position]
            opcode = instruction.opcode
            if opcode.base == "call" or opcode.base == "tcgen05":
                operations = _tensor_memory_operations(instruction, summaries)
                if operations is None or wait in operations:
                    waited = True
                elif operations & conflicting or (opcode.base == "tcgen05" and "commit" in operations):
                    return False
            elif is_cta_barrier(opcode.base, opcode.modifiers):
                if waited:
                    break  # the next hand-off comes after the wait
            elif hand_off(opcode.base, opcode.modifiers, in_kernel):
                return False
            position += 1
        else:
            for successor in cfg.successors(block):
                if successor == cfg.exit:
                    return False
                state = (cfg.blocks[successor].start, waited)
                if state not in seen:
                    seen.add(state)
                    work.append(state)
    return True


def free_before_wait(
    cfg: ControlFlowGraph,
    function: Function,
    summaries: dict[str, frozenset[str]],
    carries: Callable[[int, int], bool],
    hand_off: int,
    kind: str,
) -> int | None:
    """The first `tcgen05.dealloc` (or call that deallocates) found on a path from the hand-off
    at ``hand_off`` on which the thread has not yet waited for its accesses of ``kind``, along
    the edges ``carries(source, target)`` says keep the access pending; None if every path waits
    first (a call whose body is unknown is assumed to wait)."""
    instructions = function.instructions
    wait = f"wait::{kind}"
    budget = _SEARCH_BUDGET
    seen: set[int] = set()
    work = [(hand_off + 1, cfg.block_of(hand_off))]
    while work:
        position, block = work.pop()
        end = cfg.blocks[block].end
        waited = False
        while position < end:
            budget -= 1
            if budget < 0:
                return None
            instruction = instructions[position]
            if instruction.opcode.base == "call" or instruction.opcode.base == "tcgen05":
                operations = _tensor_memory_operations(instruction, summaries)
                if operations is None or wait in operations:
                    waited = True
                    break
                if "dealloc" in operations:
                    return position
            position += 1
        if waited:
            continue
        for successor in cfg.successors(block):
            if successor != cfg.exit and successor not in seen and carries(block, successor):
                seen.add(successor)
                work.append((cfg.blocks[successor].start, successor))
    return None
