"""What the uniformity analysis of one function starts from, fixed for one round of the
interprocedural iteration: the function, its graph, its launch shape, what its callers and
callees said in this round (parameter and return values, which callees may exit), the
collectives it runs, what it prepared once (``StaticFacts``), and the space of thread sets its
paths are told in. One immutable value the objects of the analysis read; none of them owns it."""

from __future__ import annotations

from typing import Mapping

from ptxlint import cfg as cfg_module
from ptxlint import ir
from ptxlint.analyses.threads.tid_fields import LaneModel
from ptxlint.analyses.threads.lane_sets import ThreadSpace
from ptxlint.analyses.registers import Liveness
from ptxlint.analyses.uniformity.lattice import Argument, Value
from ptxlint.analyses.uniformity.static import StaticFacts
from ptxlint.isa.aligned import Collective
from ptxlint.records import record


@record(slots=True)
class FunctionInputs:
    """The inputs of the analysis of one function."""

    function: ir.Function
    cfg: cfg_module.ControlFlowGraph
    lanes: LaneModel
    # The join of the callers' arguments by position; None: not all callers are known.
    parameters: tuple[Argument, ...] | None
    returns: Mapping[str, Value]  # by callee: the join of what it returns
    exiting: frozenset[str]  # callees that may end the calling thread
    collectives: dict[int, Collective]
    static: StaticFacts
    # Which threads reach each block is told in this space; None when `%tid.x / 32` is not known
    # to be the warp rank (then no path facts are kept).
    space: ThreadSpace | None
    # The liveness that lets a state drop dead registers; None keeps them all.
    liveness: Liveness | None


def function_inputs(
    function: ir.Function,
    graph: cfg_module.ControlFlowGraph,
    lanes: LaneModel,
    parameters: tuple[Argument, ...] | None,
    returns: Mapping[str, Value],
    exiting: frozenset[str],
    collectives: dict[int, Collective],
    static: StaticFacts,
    thread_spaces: dict[int, ThreadSpace] | None = None,
    keep_dead_registers: bool = False,
) -> FunctionInputs:
    """The inputs of ``function``'s analysis. ``thread_spaces`` shares one space per block size
    across a module (its tables depend on nothing else); ``keep_dead_registers`` never drops a
    register no later instruction reads from the states (slower, and the same facts: what tests
    compare against)."""
    bound = lanes.x_bound
    space = None
    if lanes.warp_bits_ok and bound is not None and bound <= 1024:
        spaces = thread_spaces if thread_spaces is not None else {}
        space = spaces.get(bound) or spaces.setdefault(bound, ThreadSpace(bound))
    liveness = None if keep_dead_registers else static.liveness
    return FunctionInputs(function, graph, lanes, parameters, returns, exiting, collectives, static, space, liveness)
