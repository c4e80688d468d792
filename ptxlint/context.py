"""What rules see: the module plus analyses computed on demand and cached, so that a rule set
that needs no uniformity never pays for it (pyflakes' and Go's analysis passes work the same way:
results flow from analyses to the rules that ask for them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, TypeVar

from ptxlint.ir import Function, Module

T = TypeVar("T")


@dataclass(frozen=True)
class Options:
    """Analysis options a user can configure (see the configuration docs)."""

    # Without `.reqntid`/`.maxntid`, assume the block is one-dimensional (y = z = 1). This is what
    # makes `%tid.x >> 5` a warp index; say false for kernels launched with 2-D or 3-D blocks.
    assume_1d_block: bool = True


@dataclass
class ModuleContext:
    module: Module
    options: Options = field(default_factory=Options)
    _cache: dict[Any, Any] = field(default_factory=dict, repr=False)

    def cached(self, key: Any, compute: Callable[[], T]) -> T:
        """Compute ``compute()`` once per key for this module."""
        try:
            return self._cache[key]
        except KeyError:
            value = self._cache[key] = compute()
            return value

    def function_analysis(self, function: Function, analysis: Callable[..., T]) -> T:
        """Run ``analysis(self, function)`` once per function and analysis."""
        return self.cached((analysis, id(function)), lambda: analysis(self, function))
