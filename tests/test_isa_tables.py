"""Unit tests for the pure target/family logic the ISA tables rest on."""

from __future__ import annotations

import pytest

from ptxlint.isa.gating import gate_failures
from ptxlint.isa.targets import architecture_of, minimum_version_for, parse_target, supports


@pytest.mark.parametrize(
    ("availability", "target", "expected"),
    [
        ("sm_90", "sm_90a", True),  # onion layers include every suffix
        ("sm_90", "sm_120f", True),
        ("sm_90", "sm_89", False),
        ("sm_100f", "sm_100a", True),  # an f feature is on the family's a and f targets …
        ("sm_100f", "sm_103f", True),  # … and on its later members
        ("sm_100f", "sm_103", False),  # but not on the plain target
        ("sm_100f", "sm_110f", False),  # another family
        ("sm_101f", "sm_110a", True),  # sm_101 was renamed sm_110: same family
        ("sm_103f", "sm_100a", False),  # earlier members do not inherit
        ("sm_100a", "sm_100a", True),
        ("sm_100a", "sm_103a", False),  # a features are exact
    ],
)
def test_supports(availability: str, target: str, expected: bool) -> None:
    parsed = parse_target(target)
    assert parsed is not None
    assert supports(availability, parsed) is expected


def test_compute_is_a_synonym_and_options_are_not_targets() -> None:
    assert parse_target("compute_90a") == parse_target("sm_90a")
    assert parse_target("debug") is None
    assert architecture_of(("sm_80", "texmode_independent", "sm_90")) == parse_target("sm_90")


def test_target_versions() -> None:
    assert minimum_version_for(parse_target("sm_100f")) == (8, 8)
    assert minimum_version_for(parse_target("sm_110a")) == (9, 0)


def test_most_specific_instruction_row_wins() -> None:
    sm_100a = parse_target("sm_100a")
    assert gate_failures("tcgen05", ("ld", "sync", "aligned", "32x32b", "x2", "b32"), sm_100a, (8, 6)) == ()
    [failure] = gate_failures("tcgen05", ("ld", "red", "sync", "aligned", "32x32b", "x2", "min", "u32"), sm_100a, (8, 8))
    assert failure.gate.feature == "tcgen05.ld.red" and failure.is_target_failure


def test_qualifier_rows_point_at_their_qualifier() -> None:
    [failure] = gate_failures("tcgen05", ("mma", "cta_group::1", "kind::i8"), parse_target("sm_100f"), (8, 8))
    assert failure.qualifier_index == 2 and failure.is_target_failure
