"""Print ptxlint's agreement with ptxas on the generated ISA cases, per family.

    python scripts/isa_agreement.py [--tables] [--mismatches FILE]

The cases are those of tests/test_isa_agreement.py: ptxlint's own grammar varied
(tests/isa_cases.py, tests/isa_forms.py), or with --tables the cases written from the manual's
syntax tables (tests/isa_tables.py). ptxas verdicts come from the same cache, so a warm run takes
seconds.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import isa_tables  # noqa: E402
from test_isa_agreement import measure  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mismatches", type=Path, help="write every unexplained mismatch to this file")
    parser.add_argument("--tables", action="store_true", help="the cases written from the manual's syntax tables")
    arguments = parser.parse_args()
    if arguments.tables:
        _, mismatches, report = measure(isa_tables.all_cases(), "ISA agreement on the manual's tables")
    else:
        _, mismatches, report = measure()
    print(report)
    false_alarms = sum("ptxas accepts" in line for line in mismatches)
    print(f"unexplained mismatches: {len(mismatches)} (false alarms: {false_alarms})")
    if arguments.mismatches:
        arguments.mismatches.write_text("\n".join(mismatches) + "\n")


if __name__ == "__main__":
    main()
