"""What rules see: the module plus analyses computed on demand and cached, so that a rule set
that needs no uniformity never pays for it (pyflakes' and Go's analysis passes work the same way:
results flow from analyses to the rules that ask for them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, TypeVar

from ptxlint.analysis_limits import DEFAULT_MAX_ANALYSIS_STEPS, UNLIMITED, Budget, BudgetExceeded, current_budget
from ptxlint.cfg import ControlFlowGraph
from ptxlint.cfg import build as build_cfg
from ptxlint.ir import Function, Module
from ptxlint.timings import Timings, measured, stage_name

T = TypeVar("T")


# The analysis budget lives in ptxlint/analysis_limits.py; these are the names the rest of ptxlint
# imports from here. `Deadline` is the name `ModuleContext.deadline` is annotated with.
Deadline = Budget


@dataclass(frozen=True)
class Options:
    """Analysis options a user can configure (see the configuration docs)."""

    # Without `.reqntid`/`.maxntid`, assume the block is one-dimensional (y = z = 1). This is what
    # makes `%tid.x >> 5` a warp index; say false for kernels launched with 2-D or 3-D blocks.
    assume_1d_block: bool = True
    # Analysis steps per file (ptxlint/analysis_limits.py: a block entered or an instruction
    # transferred by the dataflow solver) before the remaining rules are skipped and the file is
    # reported as partially analysed (0: unlimited). Deterministic; `--max-analysis-steps`.
    max_analysis_steps: int = DEFAULT_MAX_ANALYSIS_STEPS
    # Seconds of wall-clock analysis per file, the same way (0: off, the default: findings would
    # depend on the machine's load). `--time-budget` overrides it.
    time_budget: float = 0.0


@dataclass
class ModuleContext:
    """The module being linted and the analyses computed on it so far."""

    module: Module
    options: Options = field(default_factory=Options)
    deadline: Deadline = UNLIMITED
    timings: Timings | None = None  # CPU time per analysis, when asked for (`--timings`)
    _cache: dict[Any, Any] = field(default_factory=dict, repr=False)

    def cached(self, key: Any, compute: Callable[[], T]) -> T:
        """Compute ``compute()`` once per key for this module."""
        try:
            return self._cache[key]
        except KeyError:
            pass
        with measured(self.timings, stage_name(key)):
            value = self._cache[key] = compute()
        return value

    def function_analysis(self, function: Function, analysis: Callable[..., T]) -> T:
        """Run ``analysis(self, function)`` once per function and analysis."""
        return self.cached((analysis, id(function)), lambda: analysis(self, function))

    def control_flow_graph(self, function: Function) -> ControlFlowGraph:
        """The function's CFG, built once for every analysis that needs it."""
        return self.cached((ControlFlowGraph, id(function)), lambda: build_cfg(function))
