"""Unit tests of the uniformity lattice's aggregate arguments: a struct passed by value keeps
each field's value through joins, and a read sees the fields it covers."""

from __future__ import annotations

from ptxlint.analyses.threads.tid_fields import Level
from ptxlint.analyses.uniformity.lattice import UNIFORM, Fields, Value, argument_value, join_arguments

VARYING = Value(Level.THREAD)
WARP = Value(Level.WARP)


def test_a_read_sees_the_field_it_names() -> None:
    pair = Fields(((0, VARYING), (4, UNIFORM)))
    assert pair.read(0, 4) is VARYING
    assert pair.read(4, 4) is UNIFORM


def test_a_read_of_several_fields_or_of_no_field_start_joins_them() -> None:
    pair = Fields(((0, WARP), (4, UNIFORM)))
    assert pair.read(0, 8) == WARP  # `ld.param.v2.b32` of both
    assert pair.read(2, 4) == WARP  # no field starts there: any of them
    assert pair.read(4, None) == WARP  # size unknown
    assert argument_value(pair) == WARP


def test_joining_call_sites_joins_field_by_field() -> None:
    first = Fields(((0, VARYING), (4, UNIFORM)))
    second = Fields(((0, UNIFORM), (4, UNIFORM), (8, WARP)))
    joined = join_arguments(first, second)
    assert joined == Fields(((0, VARYING), (4, UNIFORM), (8, WARP)))


def test_a_whole_value_joins_into_every_field() -> None:
    joined = join_arguments(Fields(((0, UNIFORM), (4, UNIFORM))), WARP)
    assert joined == Fields(((0, WARP), (4, WARP)))
    assert join_arguments(UNIFORM, WARP) == WARP
