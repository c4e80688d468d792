"""The integer comparisons of `setp` and `set`, as data: one table every analysis reads.

PTX spells an order relation two ways: `lt`/`le`/`gt`/`ge` compare as the instruction's type
says (signed for `.s*`, unsigned for `.u*`/`.b*`), while `lo`/`ls`/`hi`/`hs` always compare
unsigned (PTX ISA, "Comparison and Selection Instructions: setp", integer comparison operators).
Every analysis that reads a comparison asks this module what it means: its order, whether it is
unsigned whatever the type, its negation and its mirror (operands swapped), and its value on two
integers.
"""

from __future__ import annotations
from ptxlint.records import record



@record(slots=True)
class Relation:
    """One comparison operator as written. ``order`` is its canonical name (`eq`, `ne`, `lt`,
    `le`, `gt`, `ge`); ``unsigned`` is true for `lo`/`ls`/`hi`/`hs`, which compare unsigned
    whatever the instruction's type."""

    name: str
    order: str
    unsigned: bool


RELATIONS: dict[str, Relation] = {
    relation.name: relation
    for relation in (
        Relation("eq", "eq", False), Relation("ne", "ne", False),
        Relation("lt", "lt", False), Relation("le", "le", False),
        Relation("gt", "gt", False), Relation("ge", "ge", False),
        Relation("lo", "lt", True), Relation("ls", "le", True),
        Relation("hi", "gt", True), Relation("hs", "ge", True),
    )
}

#: The order that holds exactly when ``order`` does not (`!(a < b)` is `a >= b`).
NEGATED: dict[str, str] = {"eq": "ne", "ne": "eq", "lt": "ge", "ge": "lt", "le": "gt", "gt": "le"}

#: The order with its operands swapped (`5 < x` is `x > 5`).
MIRRORED: dict[str, str] = {"eq": "eq", "ne": "ne", "lt": "gt", "gt": "lt", "le": "ge", "ge": "le"}

#: Each order as strict less-than or equality: (`lt` or `eq`, swap the operands, holds when that
#: is true). `a >= b` is `!(a < b)`; `a > b` is `b < a`.
AS_LESS_THAN: dict[str, tuple[str, bool, bool]] = {
    "eq": ("eq", False, True), "ne": ("eq", False, False),
    "lt": ("lt", False, True), "ge": ("lt", False, False),
    "gt": ("lt", True, True), "le": ("lt", True, False),
}


def relation_of(modifiers: tuple[str, ...]) -> Relation | None:
    """The integer comparison among an instruction's modifiers, or None."""
    for modifier in modifiers:
        relation = RELATIONS.get(modifier)
        if relation is not None:
            return relation
    return None


def holds(order: str, left: int, right: int) -> bool:
    """Whether ``left order right`` holds, for two integers already read with the right
    signedness."""
    if order == "eq":
        return left == right
    if order == "ne":
        return left != right
    if order == "lt":
        return left < right
    if order == "le":
        return left <= right
    if order == "gt":
        return left > right
    if order == "ge":
        return left >= right
    raise ValueError(f"not an order: {order}")
