"""`ptxlint.records.record` keeps the dataclass semantics every record class relies on: equality
and hashing over the compared fields, immutability, defaults and factories, `__post_init__`,
ordering, `replace`, pickling and copying (slots or not), a class body's own methods."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from dataclasses import field

import pytest

from ptxlint.records import record


@record(slots=True)
class Slotted:
    name: str
    count: int = 0
    tags: tuple[str, ...] = ()
    cache: dict[str, int] = field(default_factory=dict, compare=False, repr=False)


@record
class Plain:
    name: str
    count: int = 0


@record(order=True)
class Ordered:
    first: int
    second: str = ""


@record
class Checked:
    value: int
    double: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        object.__setattr__(self, "double", 2 * self.value)


@record
class OwnEquality:
    value: int

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OwnEquality) and other.value % 10 == self.value % 10

    def __hash__(self) -> int:
        return self.value % 10


@record(frozen=False)
class Mutable:
    items: list[int] = field(default_factory=list)


@pytest.mark.parametrize("cls", [Slotted, Plain])
def test_equality_hash_and_repr_follow_the_compared_fields(cls: type) -> None:
    first, second = cls("a", 1), cls("a", 1)
    assert first == second and hash(first) == hash(second)
    assert first != cls("a", 2) and first != ("a", 1)
    assert repr(first).startswith(f"{cls.__qualname__}(name='a', count=1")


def test_fields_left_out_of_comparison_and_repr() -> None:
    first, second = Slotted("a", cache={"x": 1}), Slotted("a")
    assert first == second and hash(first) == hash(second)
    assert "cache" not in repr(first)
    assert Slotted("a").cache is not Slotted("a").cache  # a fresh default per instance


@pytest.mark.parametrize("instance", [Slotted("a"), Plain("a")])
def test_frozen(instance: object) -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        instance.name = "b"  # type: ignore[attr-defined]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del instance.name  # type: ignore[attr-defined]


@pytest.mark.parametrize("instance", [Slotted("a", 2, ("t",), {"k": 3}), Plain("a", 2)])
def test_replace_pickle_and_copy(instance: object) -> None:
    assert dataclasses.replace(instance, count=5).count == 5  # type: ignore[type-var, attr-defined]
    assert pickle.loads(pickle.dumps(instance)) == instance
    assert copy.deepcopy(instance) == instance and copy.copy(instance) == instance
    assert [f.name for f in dataclasses.fields(instance)][:2] == ["name", "count"]  # type: ignore[arg-type]


def test_keyword_arguments_and_match_args() -> None:
    assert Slotted(count=3, name="b") == Slotted("b", 3)
    assert Slotted.__match_args__ == ("name", "count", "tags", "cache")
    with pytest.raises(TypeError):
        Slotted()  # type: ignore[call-arg]


def test_order_post_init_and_a_body_s_own_methods() -> None:
    assert sorted([Ordered(2), Ordered(1, "b"), Ordered(1, "a")]) == [Ordered(1, "a"), Ordered(1, "b"), Ordered(2)]
    assert Checked(4).double == 8 and Checked(4) == Checked(4)
    assert OwnEquality(3) == OwnEquality(13) and hash(OwnEquality(3)) == 3


def test_mutable_records_are_unhashable() -> None:
    items = Mutable()
    items.items = [1]
    assert items == Mutable([1])
    with pytest.raises(TypeError):
        hash(items)


@record(frozen=False, slots=True, weakref_slot=True)
class Referenced:
    name: str


def test_weakref_slot_lets_a_slots_record_be_weakly_referenced() -> None:
    import weakref

    with pytest.raises(TypeError):
        weakref.ref(Slotted("a"))
    target = Referenced("a")
    reference = weakref.ref(target)
    assert reference() is target
    del target
    assert reference() is None
