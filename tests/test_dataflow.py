"""Unit tests for the worklist solver with two small lattices: "may have been written"
(union, joins at merges and around loops) and an edge refinement."""

from __future__ import annotations

from ptxlint import cfg
from ptxlint.dataflow import instruction_states, solve_forward
from ptxlint.ir import Instruction, Register

from test_cfg import DIAMOND, LOOP, function_of


class WrittenRegisters:
    """State: the registers some path has written (a powerset lattice ordered by inclusion)."""

    def bottom(self) -> frozenset[str]:
        return frozenset()

    def entry(self) -> frozenset[str]:
        return frozenset()

    def join(self, first: frozenset[str], second: frozenset[str]) -> frozenset[str]:
        return first | second

    def transfer(self, index: int, instruction: Instruction, state: frozenset[str]) -> frozenset[str]:
        written = {operand.name for operand in instruction.destinations if isinstance(operand, Register)}
        return state | written


class TakenEdges(WrittenRegisters):
    """Adds the edge it came along, to check that refine sees every edge."""

    def refine(self, source: int, target: int, state: frozenset[str]) -> frozenset[str]:
        return state | {f"edge{source}->{target}"}


def test_join_at_merge() -> None:
    graph = cfg.build(function_of(DIAMOND))
    solution = solve_forward(graph, WrittenRegisters())
    assert solution.converged
    assert solution.block_entry[3] == frozenset({"%p1", "%r2"})


def test_loop_reaches_fixed_point() -> None:
    graph = cfg.build(function_of(LOOP))
    solution = solve_forward(graph, WrittenRegisters())
    assert solution.block_entry[1] == frozenset({"%r1", "%p1"})


def test_refine_sees_each_edge() -> None:
    graph = cfg.build(function_of(DIAMOND))
    solution = solve_forward(graph, TakenEdges())
    assert "edge0->2" in solution.block_entry[2] and "edge0->1" not in solution.block_entry[2]
    assert {"edge1->3", "edge2->3"} <= solution.block_entry[3]


def test_instruction_states_pair_before_and_after() -> None:
    graph = cfg.build(function_of(DIAMOND))
    analysis = WrittenRegisters()
    solution = solve_forward(graph, analysis)
    states = list(instruction_states(solution, analysis, 0))
    assert states[0][2] == frozenset() and states[0][3] == frozenset({"%p1"})


def test_solving_within_the_blocks_that_reach_a_block_gives_their_states() -> None:
    graph = cfg.build(function_of(DIAMOND))
    whole = solve_forward(graph, TakenEdges())
    within = graph.reaching([1])  # the entry and one arm: nothing outside leads back in
    part = solve_forward(graph, TakenEdges(), within=within)
    assert set(part.block_entry) == within
    assert all(part.block_entry[block] == whole.block_entry[block] for block in within)
    assert solve_forward(graph, TakenEdges(), within=frozenset({3})).block_entry == {}  # entry outside
