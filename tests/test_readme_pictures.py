"""The README's terminal pictures are ptxlint's real, current output: each is rendered again from
its example (the `.cu` one compiled with nvcc from the test dependencies) and must be the file in
docs/ byte for byte. After a change to the output, `python scripts/render_readme_svg.py`."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_SPEC = importlib.util.spec_from_file_location("render_readme_svg", ROOT / "scripts" / "render_readme_svg.py")
assert _SPEC is not None and _SPEC.loader is not None
pictures = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(pictures)


@pytest.mark.parametrize("example", sorted(pictures.PICTURES))
def test_picture_is_current(example: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    output = pictures.PICTURES[example]
    assert pictures.picture(example) == output.read_text(encoding="utf-8"), (
        f"{output.relative_to(ROOT)} is stale: run `python scripts/render_readme_svg.py`"
    )


def test_cu_picture_shows_only_cu_lines() -> None:
    """The `.cu` picture tells the finding at `.cu` lines, the deciding branch among them."""
    svg = pictures.PICTURES["examples/tmem_alloc_divergent.cu"].read_text(encoding="utf-8")
    text = svg.replace("&#160;", " ")
    assert "tmem_alloc_divergent.cu:17:9" in text
    assert "if&#160;(threadIdx.x&#160;&lt;&#160;16)" in svg or "if (threadIdx.x &lt; 16)" in text
    assert "[sm_100a]:" not in text
