"""Record every finding ptxlint makes on the fixtures, the fuzz seeds and the regression corpus, or
compare two such records.

A refactor or a speed-up must not change what ptxlint reports; this is how that is shown:

    python scripts/snapshot_findings.py write before.tsv       # at the old commit
    python scripts/snapshot_findings.py write after.tsv        # at the new one
    python scripts/snapshot_findings.py compare before.tsv after.tsv

Every rule runs (`ALL`, the ones off by default too), with no time budget. A line of the record
is `file, code, line, column, message, related lines`, tab-separated and sorted; corpus files are
named relative to the corpus cache, so records from different machines compare. Corpus files are
the ones the cache's manifest lists (`scripts/build_corpus.py` builds them; `--tier full` for
all).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ptxlint.context import Options  # noqa: E402 - after the path set-up above
from ptxlint.lint import LintSettings, lint_path  # noqa: E402
from ptxlint.rules import ALL_RULES  # noqa: E402

SETTINGS = LintSettings(rules=tuple(ALL_RULES), options=Options(max_analysis_steps=0, time_budget=0))


def corpus_directory() -> Path:
    return Path(os.environ.get("PTXLINT_CORPUS_DIR", Path.home() / ".cache" / "ptxlint" / "corpus"))


def inputs(include_corpus: bool, extra: list[Path]) -> list[tuple[str, Path]]:
    """(name in the record, path) for every file to lint, largest first so a pool stays busy.
    ``extra`` folders add every ``.ptx`` under them, named by their path (kernels built
    elsewhere, the third-party corpus)."""
    named = [(str(path.relative_to(ROOT)), path) for path in sorted(ROOT.glob("fixtures/**/*.ptx"))]
    named += [(str(path.relative_to(ROOT)), path) for path in sorted(ROOT.glob("tests/fuzz_seeds/**/*.ptx"))]
    manifest = corpus_directory() / "manifest.json"
    if include_corpus and manifest.exists():
        for job in json.loads(manifest.read_text())["jobs"].values():
            if job.get("error"):
                continue
            for produced in job["files"]:
                named.append(("corpus/" + produced["path"], corpus_directory() / produced["path"]))
    for folder in extra:
        named += [(str(path), path) for path in sorted(folder.rglob("*.ptx"))]
    return sorted(named, key=lambda item: -item[1].stat().st_size)


def findings_of(item: tuple[str, Path]) -> list[str]:
    name, path = item
    result = lint_path(str(path), SETTINGS)
    if result.error:
        return [f"{name}\tERROR\t0\t0\t{result.error}\t"]
    lines = []
    for diagnostic in result.diagnostics:
        related = ",".join(str(label.span.line) for label in diagnostic.labels)
        message = diagnostic.message.replace("\t", " ").replace("\n", " ")
        lines.append(f"{name}\t{diagnostic.code}\t{diagnostic.span.line}\t{diagnostic.span.column}\t{message}\t{related}")
    return lines


def write(output: Path, jobs: int, include_corpus: bool, extra: list[Path]) -> int:
    items = inputs(include_corpus, extra)
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        lines = sorted(line for found in pool.map(findings_of, items) for line in found)
    output.write_text("".join(line + "\n" for line in lines))
    print(f"{len(lines)} findings in {len(items)} files -> {output}")
    return 0


def compare(before: Path, after: Path) -> int:
    old = before.read_text().splitlines()
    new = after.read_text().splitlines()
    gone = sorted(set(old) - set(new))
    added = sorted(set(new) - set(old))
    for line in gone:
        print(f"- {line}")
    for line in added:
        print(f"+ {line}")
    print(f"{len(old)} findings before, {len(new)} after: {len(gone)} gone, {len(added)} new")
    return 1 if gone or added else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    writing = commands.add_parser("write", help="lint everything and write the record")
    writing.add_argument("output", type=Path)
    writing.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    writing.add_argument("--no-corpus", action="store_true", help="fixtures and fuzz seeds only")
    writing.add_argument("--also", type=Path, action="append", default=[], metavar="DIR",
                         help="lint every .ptx under DIR too (repeatable)")
    comparing = commands.add_parser("compare", help="print what differs between two records")
    comparing.add_argument("before", type=Path)
    comparing.add_argument("after", type=Path)
    arguments = parser.parse_args()
    if arguments.command == "write":
        return write(arguments.output, arguments.jobs, not arguments.no_corpus, arguments.also)
    return compare(arguments.before, arguments.after)


if __name__ == "__main__":
    sys.exit(main())
