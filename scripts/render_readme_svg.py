"""Regenerate docs/example-output.svg: ptxlint's real terminal output on the example kernel,
rendered by rich as an SVG for the README.

    python scripts/render_readme_svg.py

The picture is the `full` format exactly as a terminal shows it (colours included), for the
command the README's quick start runs; the timing is left out so that reruns do not churn it.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

from rich.console import Console

from ptxlint.config import ConfigResolver
from ptxlint.lint import LintSettings, lint_path
from ptxlint.render import Report, full

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = "examples/divergent_tcgen05.ptx"
OUTPUT = ROOT / "docs" / "example-output.svg"


def main() -> None:
    os.chdir(ROOT)
    config = ConfigResolver().for_path(EXAMPLE)
    settings = LintSettings(rules=config.rules_for(EXAMPLE), options=config.options, severity=config.severity)
    report = Report((lint_path(EXAMPLE, settings),))
    console = Console(
        file=io.StringIO(), record=True, force_terminal=True, color_system="truecolor", width=100,
        highlight=False, soft_wrap=True, emoji=False, markup=False,
    )
    full.render(report, console)
    OUTPUT.write_text(console.export_svg(title=f"ptxlint {EXAMPLE}"), encoding="utf-8")
    print(f"wrote {OUTPUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
