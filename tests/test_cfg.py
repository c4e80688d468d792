"""Unit tests for the pure graph algorithms: blocks, reverse post-order, dominators,
post-dominators, influence regions, and the call graph."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from ptxlint import cfg
from ptxlint.callgraph import CallGraph
from ptxlint.graphs import closure, reachable_marks
from ptxlint.lower import lower
from ptxlint.source import SourceFile

HEADER = ".version 9.0\n.target sm_90a\n.address_size 64\n"


def function_of(body: str, name: str = "k"):
    text = HEADER + f".visible .entry {name}()\n{{\n.reg .pred %p<4>;\n.reg .b32 %r<8>;\n{body}\n}}\n"
    module = lower(SourceFile.from_bytes("t.ptx", text.encode()))
    assert not module.syntax_errors, module.syntax_errors
    return module.functions[0]


DIAMOND = """
	setp.eq.u32 %p1, %r1, 0;
	@%p1 bra ELSE;
	add.u32 %r2, %r1, 1;
	bra.uni JOIN;
ELSE:
	add.u32 %r2, %r1, 2;
JOIN:
	ret;
"""


def test_diamond_blocks_and_edges() -> None:
    graph = cfg.build(function_of(DIAMOND))
    assert [(block.start, block.end) for block in graph.blocks] == [(0, 2), (2, 4), (4, 5), (5, 6)]
    assert graph.blocks[0].successors == (2, 1)
    assert graph.blocks[1].successors == (3,)
    assert graph.blocks[3].successors == (graph.exit,)
    assert graph.reverse_post_order[0] == 0 and graph.reverse_post_order[-1] == 3


def test_diamond_dominators_and_post_dominators() -> None:
    graph = cfg.build(function_of(DIAMOND))
    assert graph.immediate_dominators == {0: 0, 1: 0, 2: 0, 3: 0}
    post = graph.immediate_post_dominators
    assert post[0] == 3 and post[1] == 3 and post[2] == 3 and post[3] == graph.exit
    assert graph.dominates(0, 3) and not graph.dominates(1, 3)
    assert graph.post_dominates(3, 0) and not graph.post_dominates(1, 0)
    assert graph.influence_region(0) == frozenset({1, 2})


LOOP = """
	mov.u32 %r1, 0;
LOOP:
	add.u32 %r1, %r1, 1;
	setp.lt.u32 %p1, %r1, 10;
	@%p1 bra LOOP;
	ret;
"""


def test_loop_back_edge_and_influence() -> None:
    graph = cfg.build(function_of(LOOP))
    assert graph.back_edges == frozenset({(1, 1)})
    assert graph.immediate_dominators[2] == 1
    assert graph.influence_region(1) == frozenset({1})


def _random_body(rng: random.Random, size: int) -> str:
    """A body of ``size`` labelled blocks, each ending in a conditional or plain branch to a
    random block, a fall-through or a `ret`: loops, joins and early returns at random."""
    lines = []
    for block in range(size):
        lines.append(f"L{block}:\n\tadd.u32 %r1, %r1, {block};")
        choice = rng.random()
        if choice < 0.5:
            lines.append(f"\t@%p1 bra L{rng.randrange(size)};")
        elif choice < 0.7:
            lines.append(f"\tbra.uni L{rng.randrange(size)};")
        elif choice < 0.8:
            lines.append("\tret;")
    lines.append("\tret;")
    return "\n".join(lines)


@pytest.mark.parametrize("seed", range(40))
def test_regions_holding_agrees_with_each_influence_region(seed: int) -> None:
    """`regions_holding` (every region at once, over bit sets) against `influence_region` (a
    search per branch) on random graphs."""
    rng = random.Random(seed)
    graph = cfg.build(function_of(_random_body(rng, rng.randrange(2, 14))))
    reachable = graph.reverse_post_order
    branches = [block for block in reachable if len(graph.successors(block)) > 1]
    holding = graph.regions_holding(branches)
    for position, branch in enumerate(branches):
        region = graph.influence_region(branch)
        for block in reachable:
            assert bool(holding[block] >> position & 1) == (block in region), (branch, block)


def _cycle_avoiding(graph: cfg.ControlFlowGraph, node: int, cut: int) -> bool:
    """Whether ``node`` reaches itself without passing ``cut`` (a search per question)."""
    seen: set[int] = set()
    pending = [successor for successor in graph.successors(node) if successor != cut]
    while pending:
        block = pending.pop()
        if block == node:
            return True
        if block in seen or block == graph.exit:
            continue
        seen.add(block)
        pending.extend(successor for successor in graph.successors(block) if successor != cut)
    return False


def test_cycle_questions_agree_with_a_search() -> None:
    """`cuts_every_cycle` never claims a cut that some cycle avoids, and in a reducible graph
    it answers exactly for a dominating cut; `on_cycle` never misses a cycle (checked by a
    search per pair on random graphs)."""
    claimed = exact = 0
    for seed in range(60):
        rng = random.Random(seed)
        graph = cfg.build(function_of(_random_body(rng, rng.randrange(2, 12))))
        reducible = graph._innermost_loops is not None
        reachable = graph.reverse_post_order
        for node in reachable:
            for cut in reachable:
                if cut == node:
                    assert graph.on_cycle(node) or not _cycle_avoiding(graph, node, graph.exit), (seed, node)
                answer = graph.cuts_every_cycle(cut, node)
                truth = cut == node or not _cycle_avoiding(graph, node, cut)
                if answer:
                    assert truth, (seed, cut, node)
                    claimed += cut != node
                if reducible and graph.dominates(cut, node):
                    assert answer == truth, (seed, cut, node)
                    exact += 1
    assert claimed > 100 and exact > 100  # the random graphs exercise both claims


def test_endless_loop_has_no_post_dominator() -> None:
    graph = cfg.build(function_of("SPIN:\n\tbra.uni SPIN;"))
    assert 0 not in graph.immediate_post_dominators


def test_branch_to_final_label_gets_an_empty_block() -> None:
    graph = cfg.build(function_of("\t@%p1 bra END;\n\tadd.u32 %r1, %r1, 1;\nEND:"))
    assert graph.blocks[-1].start == graph.blocks[-1].end == 2
    assert graph.blocks[0].successors == (2, 1)


def test_scoped_labels_resolve_to_the_innermost_definition() -> None:
    body = "{\nDONE:\n\t@%p1 bra DONE;\n}\n{\nDONE:\n\t@%p2 bra DONE;\n}"
    graph = cfg.build(function_of(body))
    assert graph.blocks[0].successors[0] == 0
    assert graph.blocks[1].successors[0] == 1


def test_brx_idx_goes_to_every_listed_target() -> None:
    body = "\tts: .branchtargets A, B;\n\tbrx.idx %r1, ts;\nA:\n\tret;\nB:\n\texit;"
    graph = cfg.build(function_of(body))
    assert graph.blocks[0].successors == (1, 2)


def test_irreducible_graph_dominators() -> None:
    body = """
	@%p1 bra B;
A:
	@%p2 bra B;
	bra.uni END;
B:
	@%p3 bra A;
END:
	ret;
"""
    graph = cfg.build(function_of(body))
    idom = graph.immediate_dominators
    assert idom[1] == 0 and idom[3] == 0  # neither A nor B dominates the other
    assert len(graph.back_edges) == 1


TRAP_IN_ONE_ARM = """
	setp.eq.u32 %p1, %r1, 0;
	@%p1 bra OTHER;
	setp.eq.u32 %p2, %r2, 0;
	@%p2 bra JOIN;
	trap;
OTHER:
	add.u32 %r3, %r1, 1;
JOIN:
	bar.sync 0;
	ret;
"""


def test_trap_ends_the_path_and_keeps_the_join_a_post_dominator() -> None:
    graph = cfg.build(function_of(TRAP_IN_ONE_ARM))
    trap_block = graph.block_of(4)
    assert graph.blocks[trap_block].successors == ()
    join = graph.block_of(6)
    assert graph.immediate_post_dominators[0] == join


def test_a_failed_assert_never_returns() -> None:
    body = """
	setp.eq.u32 %p1, %r1, 0;
	@%p1 bra OK;
	call.uni __assertfail, ();
OK:
	ret;
"""
    text = HEADER + ".extern .func __assertfail();\n.visible .entry k()\n{\n.reg .pred %p<4>;\n.reg .b32 %r<8>;\n" + body + "\n}\n"
    function = lower(SourceFile.from_bytes("t.ptx", text.encode())).functions[-1]
    graph = cfg.build(function)
    assert graph.blocks[graph.block_of(2)].successors == ()


SPIN_THEN_LOOP = """
WAIT:
	setp.eq.u32 %p1, %r1, 0;
	@%p1 bra WAIT;
	mov.u32 %r2, 0;
OUTER:
	add.u32 %r2, %r2, 1;
	setp.eq.u32 %p2, %r3, 0;
	@%p2 bra EARLY;
	setp.lt.u32 %p3, %r2, 4;
	@%p3 bra OUTER;
EARLY:
	ret;
"""


def test_loops_with_one_way_out() -> None:
    graph = cfg.build(function_of(SPIN_THEN_LOOP))
    spin, after_spin = graph.block_of(0), graph.block_of(2)
    # The spin loop is left one way; the second loop two ways (the early exit and the count).
    assert graph.sole_exit_loops == {(spin, after_spin): spin}


def test_call_graph_recursion_and_reach() -> None:
    text = HEADER + """
.func leaf() { ret; }
.func even() { call.uni odd; ret; }
.func odd() { call.uni even; call.uni leaf; ret; }
.visible .entry k() { call.uni odd; ret; }
"""
    module = lower(SourceFile.from_bytes("t.ptx", text.encode()))
    graph = CallGraph(module)
    assert graph.recursive == frozenset({"even", "odd"})
    assert graph.reachable_from("k") == ("k", "odd", "even", "leaf")
    assert [site.caller for site in graph.callers["leaf"]] == ["odd"]


def test_first_callers_give_the_shortest_call_chains() -> None:
    text = HEADER + """
.func d() { ret; }
.func c() { call.uni d; ret; }
.func a() { call.uni c; ret; }
.func b() { call.uni c; call.uni d; ret; }
.visible .entry k() { call.uni a; call.uni b; ret; }
"""
    graph = CallGraph(lower(SourceFile.from_bytes("t.ptx", text.encode())))
    # Depth first, `d` is reached through k → a → c → d; breadth first through k → b → d.
    assert graph.first_callers("k") == {"a": "k", "b": "k", "c": "a", "d": "b"}
    assert graph.first_callers("d") == {}


def _dominance_by_definition(nodes, root, predecessors) -> dict[int, set[int]]:
    """Dom(n) = {n} ∪ ⋂ Dom(p) over the predecessors p reachable from the root: the textbook
    fixed point, quadratic but obviously right."""
    reachable = set(nodes)
    dominators = {node: set(reachable) for node in reachable}
    dominators[root] = {root}
    changed = True
    while changed:
        changed = False
        for node in reachable - {root}:
            incoming = [dominators[p] for p in predecessors(node) if p in reachable]
            new = set.intersection(*incoming) | {node} if incoming else {node}
            if new != dominators[node]:
                dominators[node], changed = new, True
    return dominators


@pytest.mark.parametrize("path", sorted((Path(__file__).resolve().parent.parent / "fixtures").rglob("*.ptx")), ids=lambda p: p.name)
def test_dominance_agrees_with_the_definition(path: Path) -> None:
    module = lower(SourceFile.from_bytes(str(path), path.read_bytes()))
    for function in module.functions:
        graph = cfg.build(function)
        forward = _dominance_by_definition(graph.reverse_post_order, 0, graph.predecessors) if graph.blocks else {}
        backward_nodes = {graph.exit}
        frontier = [graph.exit]
        while frontier:
            for predecessor in graph.predecessors(frontier.pop()):
                if predecessor not in backward_nodes:
                    backward_nodes.add(predecessor)
                    frontier.append(predecessor)
        backward = _dominance_by_definition(backward_nodes, graph.exit, graph.successors)
        nodes = range(len(graph.blocks) + 1)
        for a in nodes:
            for b in nodes:
                assert graph.dominates(a, b) == (b in forward and a in forward[b]), (function.name, a, b)
                assert graph.post_dominates(a, b) == (b in backward and a in backward[b]), (function.name, a, b)


def _post_dominator_without_by_definition(graph, start, removed):
    """PDom(n) = {n} ∪ ⋂ PDom(s) over n's kept successors ({n} where none is left), on the part
    reachable from ``start``: the textbook fixed point; the immediate one is the candidate every
    other candidate post-dominates."""
    reachable, successors = [start], {}
    for node in reachable:
        successors[node] = [s for s in graph.successors(node) if (node, s) not in removed]
        reachable.extend(s for s in successors[node] if s not in successors and s not in reachable)
    everything = set(reachable)
    post = {node: ({node} if not successors[node] else set(everything)) for node in reachable}
    changed = True
    while changed:
        changed = False
        for node in reversed(reachable):
            if successors[node]:
                new = set.intersection(*(post[s] for s in successors[node])) | {node}
                if new != post[node]:
                    post[node], changed = new, True
    candidates = post[start] - {start}
    return next((c for c in candidates if len(post[c]) == len(candidates)), None)


@pytest.mark.parametrize("path", sorted((Path(__file__).resolve().parent.parent / "fixtures").rglob("*.ptx")), ids=lambda p: p.name)
def test_post_dominator_without_agrees_with_the_definition(path: Path) -> None:
    """From every block, with no edge removed and with each single out-edge of a branch removed
    (what branch correlation asks)."""
    module = lower(SourceFile.from_bytes(str(path), path.read_bytes()))
    for function in module.functions:
        graph = cfg.build(function)
        edges = [(node, s) for node in graph.reverse_post_order for s in graph.successors(node) if len(graph.successors(node)) > 1]
        for start in graph.reverse_post_order:
            for removed in [frozenset(), *(frozenset({edge}) for edge in edges[:6])]:
                expected = _post_dominator_without_by_definition(graph, start, removed)
                assert graph.post_dominator_without(start, removed) == expected, (function.name, start, removed)


def test_reaching_is_backward_reachability() -> None:
    graph = cfg.build(function_of(DIAMOND))
    assert graph.reaching([1]) == frozenset({0, 1})
    assert graph.reaching([3]) == frozenset({0, 1, 2, 3})
    loop = cfg.build(function_of(LOOP))
    assert loop.reaching([1]) == frozenset({0, 1})  # the loop block reaches itself
    assert loop.reaching([]) == frozenset()


def test_reachable_marks_is_the_union_over_each_closure() -> None:
    """`reachable_marks` (one pass over the components) against `closure` per node, on random
    graphs with cycles, self-loops and unreachable parts."""
    for seed in range(200):
        rng = random.Random(seed)
        size = rng.randint(1, 40)
        edges = {node: [rng.randrange(size) for _ in range(rng.randint(0, 3))] for node in range(size)}
        marks = {node: rng.getrandbits(6) for node in range(size) if rng.random() < 0.5}
        found = reachable_marks(range(size), edges.__getitem__, marks)
        for node in range(size):
            expected = 0
            for reached in closure([node], edges.__getitem__):
                expected |= marks.get(reached, 0)
            assert found[node] == expected, (seed, node)


def test_reachable_marks_on_a_long_chain_is_linear() -> None:
    """A chain of 200,000 nodes, each marked: the first reaches every mark (no recursion limit,
    no per-node traversal)."""
    size = 200_000
    found = reachable_marks(range(size), lambda node: (node + 1,) if node + 1 < size else (), {size - 1: 1, 0: 2})
    assert found[0] == 3 and found[size - 1] == 1 and found[1] == 1
