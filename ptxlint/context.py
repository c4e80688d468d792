"""What rules see: the module plus analyses computed on demand and cached, so that a rule set
that needs no uniformity never pays for it (pyflakes' and Go's analysis passes work the same way:
results flow from analyses to the rules that ask for them)."""

from __future__ import annotations

import contextlib
from dataclasses import field
from typing import Any, Callable, Iterator, Protocol

from ptxlint.analysis_limits import DEFAULT_MAX_ANALYSIS_STEPS, UNLIMITED, Budget, BudgetExceeded, current_budget
from ptxlint.ir import Function, Module
from ptxlint.passes import UndeclaredPass, load
from ptxlint.records import record
from ptxlint.timings import Timings, measured

# The analysis budget lives in ptxlint/analysis_limits.py; these are the names the rest of ptxlint
# imports from here. `Deadline` is the name `ModuleContext.deadline` is annotated with.
Deadline = Budget


@record
class Options:
    """Analysis options a user can configure (see the configuration docs)."""

    # Without `.reqntid`/`.maxntid`, assume the block is one-dimensional (y = z = 1). This is what
    # makes `%tid.x >> 5` a warp index; say false for kernels launched with 2-D or 3-D blocks.
    assume_1d_block: bool = True
    # Analysis steps per file (ptxlint/analysis_limits.py: a block entered or an instruction
    # transferred by the dataflow solver) before the solver stops: the rules that need it do not
    # finish and the file is reported as partially analysed (0: unlimited). Deterministic;
    # `--max-analysis-steps`.
    max_analysis_steps: int = DEFAULT_MAX_ANALYSIS_STEPS
    # Seconds of wall-clock analysis per file, the same way (0: off, the default: findings would
    # depend on the machine's load). `--time-budget` overrides it.
    time_budget: float = 0.0


@record(frozen=False)
class ModuleContext:
    """The module being linted and the pass results computed on it so far.

    ``result(name, function)`` runs a declared pass (``ptxlint/passes.py``) once per module, or
    once per function, and caches it. While a rule or a pass runs it is the *requester*: asking
    for a pass it does not list in its ``requires`` raises :class:`~ptxlint.passes.UndeclaredPass`,
    so the declarations stay true."""

    module: Module
    options: Options = field(default_factory=Options)
    deadline: Deadline = UNLIMITED
    timings: Timings | None = None  # CPU time per pass, when asked for (`--timings`)
    # Sparse passes record facts for every instruction instead of only those their users read
    # (`ptxlint dump`, fact annotations).
    record_every_fact: bool = False
    _cache: dict[Any, Any] = field(default_factory=dict, repr=False)
    _requesters: list[Requester] = field(default_factory=list, repr=False)

    def result(self, name: str, function: Function | None = None) -> Any:
        """The result of pass ``name`` on the module, or on ``function`` for a per-function pass."""
        key = name if function is None else (name, id(function))
        try:
            return self._cache[key]
        except KeyError:
            pass
        if self._requesters and name not in self._requesters[-1].requires:
            requester = self._requesters[-1]
            raise UndeclaredPass(f"{_label(requester)} asks for pass `{name}` but does not require it")
        with measured(self.timings, name):  # a pass's first use also imports its module: its cost
            declared = load(name)
            if declared.per_function != (function is not None):
                kind = "per function" if declared.per_function else "per module"
                raise TypeError(f"pass `{name}` runs {kind}")
            with self.running(declared):
                value = declared.run(self) if function is None else declared.run(self, function)
        self._cache[key] = value
        return value

    def forget(self, names: frozenset[str]) -> None:
        """Drop the results of the passes ``names`` (for the module and every function): no
        later requester needs them (see :func:`ptxlint.passes.released_after`)."""
        if names:
            for key in [key for key in self._cache if (key if type(key) is str else key[0]) in names]:
                del self._cache[key]

    @contextlib.contextmanager
    def running(self, requester: Requester) -> Iterator[None]:
        """Make ``requester`` (a rule or a pass) the one whose ``requires`` govern what is asked."""
        self._requesters.append(requester)
        try:
            yield
        finally:
            self._requesters.pop()


class Requester(Protocol):
    """A rule or a pass: anything that asks the context for passes."""

    @property
    def requires(self) -> tuple[str, ...]: ...


def _label(requester: Requester) -> str:
    code = getattr(requester, "code", None)
    return f"rule {code}" if code else f"pass `{getattr(requester, 'name', requester)}`"
