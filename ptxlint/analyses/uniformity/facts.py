"""What the uniformity analysis tells the rules: per instruction, the divergence it runs under,
the exits other threads may have taken before it, the uniformity of what it writes and of the
operands a collective needs uniform; per function, the call sites that reach collectives."""

from __future__ import annotations

from dataclasses import field
from typing import Iterator

from ptxlint import cfg as cfg_module
from ptxlint import ir
from ptxlint.analyses.threads.tid_fields import Level
from ptxlint.analyses.uniformity.lattice import Divergence, Value
from ptxlint.isa.aligned import Collective
from ptxlint.records import record


@record(slots=True)
class InstructionFacts:
    """What the analysis knows at one instruction."""

    execution: Divergence | None  # the worst guard or enclosing branch, None when CTA-uniform
    exits: tuple[Divergence, ...]  # exits other threads may have taken before it
    # The join of what it writes: None when it writes no register, or when nothing the rules
    # read depends on it (the analysis then skips computing it; see ``static.py``).
    defined: Value | None
    operands: dict[int, Value]  # operands that must be uniform (by position), before it runs
    # Of a membermask instruction: per warp, the lanes that may execute it (its own guard
    # included), a lane outside which never does, and the lanes the warp has (a block of 16
    # threads has half a warp); None where the thread sets are not known.
    lanes: tuple[int, ...] | None = None
    warp_lanes: tuple[int, ...] | None = None

    @property
    def execution_level(self) -> Level:
        return Level.CTA if self.execution is None else self.execution.level


@record(slots=True)
class CalledCollective:
    """A collective a function reaches, directly or through calls, with no divergence of its own
    on the way: what a call site must provide."""

    function: str
    index: int
    instruction: ir.Instruction
    requirement: Collective


@record
class FunctionUniformity:
    """The uniformity facts of one analysed function, by instruction index."""

    function: ir.Function
    cfg: cfg_module.ControlFlowGraph
    facts: dict[int, InstructionFacts]
    collectives: dict[int, Collective]
    called: dict[int, tuple[CalledCollective, ...]]  # call sites reaching collectives
    converged: bool


@record
class ModuleUniformity:
    """The uniformity facts of every analysed function, by name."""

    functions: dict[str, FunctionUniformity] = field(default_factory=dict)


def iter_function_facts(result: ModuleUniformity) -> Iterator[FunctionUniformity]:
    """Analysed functions in a stable order (by position in the file)."""
    return iter(sorted(result.functions.values(), key=lambda analysed: analysed.function.span.start))
