"""Unit tests for register liveness (:func:`ptxlint.analyses.registers.live_in`) over scoped
keys: the bit-mask worklist must agree, on every function of every fixture, with the definition
followed literally (a register is live at a block's entry when some path from there reads it
before an unguarded write), and a guarded write must not end a register's life."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptxlint import cfg
from ptxlint.analyses.registers import Registers, live_in
from ptxlint.lower import lower
from ptxlint.source import SourceFile

from test_cfg import function_of

ROOT = Path(__file__).resolve().parent.parent


def _live_by_definition(graph: cfg.ControlFlowGraph, names: Registers, register: str, block: int) -> bool:
    """Search forward, instruction by instruction, for a read of ``register`` before an
    unguarded write of it."""
    reads, writes = set(names.readers.get(register, ())), set(names.writers.get(register, ()))
    instructions = graph.function.instructions
    seen: set[int] = set()
    pending = [block]
    while pending:
        current = pending.pop()
        if current in seen or current == graph.exit:
            continue
        seen.add(current)
        for index in graph.blocks[current].instruction_indices:
            if index in reads:
                return True
            if index in writes and instructions[index].guard is None:
                break
        else:
            pending.extend(graph.successors(current))
    return False


@pytest.mark.parametrize("path", sorted((ROOT / "fixtures").rglob("*.ptx")), ids=lambda path: path.name)
def test_liveness_agrees_with_the_definition(path: Path) -> None:
    module = lower(SourceFile.from_bytes(str(path), path.read_bytes()))
    for function in module.functions:
        graph = cfg.build(function)
        names = Registers(function)
        registers = sorted(names.readers.keys() | names.writers.keys())
        liveness = live_in(graph, names, registers)
        for block in graph.reverse_post_order:
            expected = {register for register in registers if _live_by_definition(graph, names, register, block)}
            assert liveness.names(block) == expected, (function.name, block)


def test_guarded_write_keeps_the_old_value_live() -> None:
    function = function_of(
        "\tmov.u32 %r1, 1;\n\tbra.uni NEXT;\nNEXT:\n\t@%p1 mov.u32 %r1, 2;\n\tadd.u32 %r2, %r1, 1;\n\tret;"
    )
    graph = cfg.build(function)
    liveness = live_in(graph, Registers(function), ["%r1", "%r2"])
    assert liveness.names(graph.block_of(2)) == {"%r1"}  # the guard may be false: `add` reads the 1
    assert liveness.names(0) == frozenset()  # written before anything reads it
