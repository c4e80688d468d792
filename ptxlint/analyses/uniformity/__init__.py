"""Uniformity: over which threads each value is equal, and with which threads each instruction
runs — the facts the convergence rules (PTX101–PTX105) need.

Model (after LLVM's UniformityAnalysis, on PTX registers instead of SSA values):

- **Values.** Each register has a :class:`Value`: a :class:`~ptxlint.analyses.threads.tid_fields.Level`
  (CTA-uniform ⊑ warpgroup-uniform ⊑ warp-uniform ⊑ thread-varying), optionally an exact
  `%tid.x` bit field (so `%tid.x >> 5` is seen to be warp-uniform), and the :class:`Origin` that
  made it non-uniform (for diagnostic labels). Sources are special registers, atomics, loads from
  varying addresses, per-lane results of matrix instructions, `elect.sync`'s predicate; the
  warp-level primitives (`vote`, `redux`, `match.all`, a broadcasting `shfl.sync.idx`) produce
  warp-uniform values.
- **Control.** A conditional branch whose condition is not CTA-uniform makes every block in its
  influence region (reachable from it before its immediate post-dominator) run with part of the
  threads: the state carries the set of such branches, entered on the branch's out-edges and left
  at its post-dominator. A branch splits the threads that run it as much as the data of its
  condition varies (they all computed it; the control they ran under is already in the state).
  When the branch can split threads only if a CTA-uniform comparison in its `and`/`or`/`not`
  condition holds, edges guarded by a contradicting comparison of the same register are
  infeasible meanwhile: the entry is left on them and at the post-dominator of the graph without
  them (``threads/conditions.py``). An instruction runs at the level of the worst enclosing
  branch and its own guard; at warp level, a proven split of a warpgroup (an exact `%tid.x` set
  taking some of its warps) ranks above an unproven one (``Divergence.proven``). Values it writes take that level (sync dependence; a loop with a divergent exit
  covers its whole body, so values carried out of it are divergent — temporal divergence).
- **Paths.** The state also carries which threads reach each point
  (``ptxlint/analyses/threads/lane_sets.py``): branches on exact `%tid.x` sets narrow it, so a
  block that the paths through lane-splitting branches reach with whole warps (nvcc's jump-threaded
  `if (tid == 0) … if (warp == 0) alloc`) runs at warp level, and a register written under such
  control is lowered back along an edge taken by whole warps. A branch on thread-varying data
  leaves an unknown part of each warp on either side; where its paths meet (``entering``) every
  thread that took it is back, and a loop with one way out is left by every thread that entered
  it, so an elected producer lane does not blur the consumer warps after it.
- **Exits.** A branch that sends part of the threads to an `exit` (or a kernel `ret`), or a
  guarded exit, leaves an exit mark on the paths the other threads take: collectives after it
  run without the exited threads. Branches into `trap` (or a failed `assert`) are ignored: it
  ends the whole grid.
- **Calls.** `.func` parameters are the join over every call site's arguments, computed
  callers-first and iterated with return values to a fixed point; externally visible, recursive
  or address-taken functions get thread-varying parameters.

Everything runs on the one forward solver of ``ptxlint/dataflow.py``. Registers written once
(almost all registers in compiler output) live in a side table instead of the per-instruction
state, which keeps the state small; the solver revisits the blocks that read a side-table
entry whose value grew after they read it (loops), and only those.

Only functions that contain a collective, or call one that does, are analysed (cheap check
first), and in them only the instructions a collective, an exit, a call or a branch that
matters depends on, through the registers they read (``static.py``, a sparse analysis like
LLVM's on def-use chains; a branch matters when its influence region holds such an instruction
or it sends threads to an exit); a context that records every fact (``ptxlint dump uniformity``) analyses
everything.

The package, one question per module:

- ``lattice.py``: values, divergences, states and their joins;
- ``thread_index.py``: exact `%tid.x` forms through arithmetic and comparisons;
- ``registers.py``: register keys by declaring scope, CTA-invariant registers (value numbering);
- ``branches.py``: branches with their reconvergence points and dead-end successors;
- ``static.py``: instruction kinds, the sparse slice, what a function prepares once;
- ``inputs.py``: what the analysis of one function starts from, one immutable value;
- ``analysis.py``: the pass over one function, what the solver calls (lattice operations and
  transfer), composed of objects that each own their state (as LLVM's UniformityInfo composes
  its implementation over a sync-dependence analysis) and ask each other through methods:
  ``data.py`` (data dependence: the values of operands, and the side table of registers
  written once), ``results.py`` (what an instruction computes from its operands), ``sync.py``
  (sync dependence: which enclosing divergent branches still split the threads along an edge),
  ``control.py`` (control divergence: the control an instruction runs under, the threads on
  each edge, exits), ``calls.py`` (what parameters bring in and call sites and `.param`
  variables hand on), ``recorder.py`` (the facts recorded);
- ``driver.py``: the interprocedural fixed point; ``facts.py``: what rules read;
  ``printer.py``: what ``ptxlint dump uniformity`` prints.
"""

from ptxlint.analyses.uniformity.driver import analyze_module, direct_collectives
from ptxlint.analyses.uniformity.facts import (
    CalledCollective,
    FunctionUniformity,
    InstructionFacts,
    ModuleUniformity,
    iter_function_facts,
)
from ptxlint.analyses.uniformity.lattice import Divergence, Origin, Value
from ptxlint.analyses.uniformity.printer import describe_facts

__all__ = [
    "CalledCollective",
    "Divergence",
    "FunctionUniformity",
    "InstructionFacts",
    "ModuleUniformity",
    "Origin",
    "Value",
    "analyze_module",
    "describe_facts",
    "direct_collectives",
    "iter_function_facts",
]
