"""Modules that load when first used. The rules name the analysis helpers and ISA tables they use
at the top of their files, as modules; a run whose module has nothing for a rule to look at (an
empty module, a clean small file) never pays for loading them, which is most of what a
pre-commit hook's run costs (`benchmarks/bench_startup.py`)."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType


def lazy_module(name: str) -> ModuleType:
    """The module ``name``; its code runs when one of its attributes is first read (at once if
    something imported it already)."""
    loaded = sys.modules.get(name)
    if loaded is not None:
        return loaded
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(name)
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module
