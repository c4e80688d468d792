"""What a lint leaves behind is freed by reference counting alone. The driver pauses the cyclic
collector while it analyses a file; a pass result that refers back to its context, or a solved
analysis that keeps a callable closing over the object that holds it, puts the file's whole IR and
every pass result in a cycle that only a full collection frees (half a second per large file)."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from ptxlint import ir
from ptxlint.lint import LintSettings, lint_path
from ptxlint.rules import ALL_RULES

FIXTURES = sorted((Path(__file__).parent.parent / "fixtures").rglob("*.ptx"))


@pytest.mark.parametrize("path", FIXTURES, ids=lambda path: str(path.relative_to(path.parent.parent)))
def test_lint_leaves_no_cycle_through_the_ir(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PTXLINT_CACHE_DIR", str(tmp_path))
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        lint_path(str(path), LintSettings(rules=tuple(ALL_RULES)))
        gc.collect()
        kept = [item for item in gc.garbage if isinstance(item, (ir.Instruction, ir.Function, ir.Module))]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if enabled:
            gc.enable()
    assert not kept, f"{len(kept)} IR objects were freed only by the cyclic collector"
