"""Print ptxlint's agreement with ptxas on the generated ISA cases, per family.

    python scripts/isa_agreement.py [--mismatches FILE]

The cases are those of tests/test_isa_agreement.py (tests/isa_cases.py, tests/isa_forms.py);
ptxas verdicts come from the same cache, so a warm run takes seconds.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_isa_agreement import measure  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mismatches", type=Path, help="write every unexplained mismatch to this file")
    arguments = parser.parse_args()
    _, mismatches, report = measure()
    print(report)
    false_alarms = sum("ptxas accepts" in line for line in mismatches)
    print(f"unexplained mismatches: {len(mismatches)} (false alarms: {false_alarms})")
    if arguments.mismatches:
        arguments.mismatches.write_text("\n".join(mismatches) + "\n")


if __name__ == "__main__":
    main()
