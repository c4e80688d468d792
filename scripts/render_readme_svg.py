"""Regenerate the README's pictures: ptxlint's real terminal output, rendered by rich as SVG.

    python scripts/render_readme_svg.py

- docs/example-output.svg: `ptxlint examples/divergent_tcgen05.ptx`
- docs/example-cu-output.svg: `ptxlint examples/tmem_alloc_divergent.cu` (compiled with nvcc,
  which the test extra installs)

Each picture is the `full` format exactly as a terminal shows it (colours included), for the
command the README runs; the timing is left out so that reruns do not churn them.
"""

from __future__ import annotations

import dataclasses
import io
import os
from pathlib import Path

from rich.console import Console

from ptxlint.config import ConfigResolver
from ptxlint.diagnostics import FileResult
from ptxlint.frontends import CompileOptions, modules_of, needs_front_end
from ptxlint.lint import LintSettings, lint_path
from ptxlint.render import Report, full

ROOT = Path(__file__).resolve().parent.parent
PICTURES = {
    "examples/divergent_tcgen05.ptx": ROOT / "docs" / "example-output.svg",
    "examples/tmem_alloc_divergent.cu": ROOT / "docs" / "example-cu-output.svg",
}


def lint(example: str) -> list[FileResult]:
    config = ConfigResolver().for_path(example)
    settings = LintSettings(rules=config.rules_for(example), options=config.options, severity=config.severity)
    if not needs_front_end(example):
        return [lint_path(example, settings)]
    modules = modules_of(example, CompileOptions(config.cuda_arch))
    return [dataclasses.replace(lint_path(module.source, settings), map_to_source=module.map_to_source) for module in modules]


def picture(example: str) -> str:
    """The SVG of ``example``'s output, run from the repository root (as the README does)."""
    console = Console(
        file=io.StringIO(), record=True, force_terminal=True, color_system="truecolor", width=110,
        highlight=False, soft_wrap=True, emoji=False, markup=False,
    )
    full.render(Report(tuple(lint(example))), console)
    return console.export_svg(title=f"ptxlint {example}")


def main() -> None:
    os.chdir(ROOT)
    for example, output in PICTURES.items():
        output.write_text(picture(example), encoding="utf-8")
        print(f"wrote {output.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
