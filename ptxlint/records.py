"""Frozen records: dataclass declarations that cost next to nothing to define.

``dataclasses.dataclass(frozen=True)`` compiles six methods from generated source for every class
it decorates, about 0.4 ms a class. ptxlint declares over a hundred such classes (the IR, the
diagnostics, every analysis's facts), so a run spent about 30 ms of its start-up and 50 ms of a
small file's whole run compiling them: more than reading the file.

:func:`record` declares the same class through ``dataclasses`` — the fields, ``field()`` options,
``dataclasses.fields``/``replace`` and ``__match_args__`` are the standard ones — but with the
comparison, hashing, ``repr`` and immutability written once here as functions over the class's
field tuple, and ``__init__`` compiled the first time the class is constructed: a class this run
never builds costs only its declaration. The semantics are the dataclass ones: equality between
instances of one class field by field (``compare=False`` fields left out), hashing over the compared
fields, assignment raising ``dataclasses.FrozenInstanceError``, and a method the class body defines
itself kept.
"""

from __future__ import annotations

import dataclasses
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Callable, TypeVar

if TYPE_CHECKING:
    from typing_extensions import dataclass_transform
else:  # only type checkers read it, and `typing` has it only from Python 3.11

    def dataclass_transform(**_options: object) -> Callable[[Any], Any]:
        return lambda decorator: decorator


Class = TypeVar("Class", bound=type)


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field, dataclasses.Field))
def record(
    cls: Class | None = None, /, *, frozen: bool = True, slots: bool = False, init: bool = True, repr: bool = True, order: bool = False,
    weakref_slot: bool = False,
) -> Any:
    """``dataclasses.dataclass(frozen=True, …)`` without the compilation at definition time.
    ``frozen=False`` gives a mutable record (unhashable, as a dataclass with ``eq`` is);
    ``weakref_slot`` lets a slots record be the target of a weak reference."""

    def declare(cls: Class) -> Class:
        own = set(cls.__dict__)  # what the body defines: kept, as a dataclass keeps it
        explicit_hash = "__hash__" in own and not (cls.__dict__["__hash__"] is None and "__eq__" in own)
        if not cls.__doc__:  # else dataclasses writes one from inspect.signature: a tokenizer regex compiled at start-up
            cls.__doc__ = f"{cls.__name__}({', '.join(cls.__dict__.get('__annotations__', ()))})"
        cls = dataclasses.dataclass(cls, init=False, repr=False, eq=False, slots=slots, weakref_slot=weakref_slot)  # fields, slots, match args
        fields = dataclasses.fields(cls)
        compared = _getter(tuple(field.name for field in fields if field.compare))
        hashed = _getter(tuple(field.name for field in fields if (field.compare if field.hash is None else field.hash)))
        methods: dict[str, Any] = {}
        if init:
            methods["__init__"] = _compile_on_first_call(cls, fields, frozen)
        if repr:
            methods["__repr__"] = _repr([field.name for field in fields if field.repr])
        methods["__eq__"] = _equality(compared)
        if order:
            methods.update(_ordering(compared))
        if not explicit_hash:
            methods["__hash__"] = _hash(hashed) if frozen else None
        if frozen:
            methods.update(_immutability(cls, frozenset(field.name for field in fields)))
            if slots:  # pickling and copying set slots through __setattr__, which now refuses
                methods.update(_slot_state(tuple(field.name for field in fields)))
        for name, method in methods.items():
            if name not in own or name == "__hash__" and not explicit_hash:
                if method is not None:
                    method.__qualname__ = f"{cls.__qualname__}.{name}"
                setattr(cls, name, method)
        return cls

    return declare if cls is None else declare(cls)


def _getter(names: tuple[str, ...]) -> Callable[[Any], Any]:
    """The compared values of an instance, as one object `==` and `hash` can take."""
    if not names:
        return lambda instance: ()
    return attrgetter(*names)


def _equality(compared: Callable[[Any], Any]) -> Callable[[Any, Any], Any]:
    def __eq__(self: Any, other: Any) -> Any:  # noqa: N807
        if other.__class__ is self.__class__:
            return self is other or compared(self) == compared(other)
        return NotImplemented

    return __eq__


def _hash(hashed: Callable[[Any], Any]) -> Callable[[Any], int]:
    def __hash__(self: Any) -> int:  # noqa: N807
        return hash(hashed(self))

    return __hash__


def _ordering(compared: Callable[[Any], Any]) -> dict[str, Callable[[Any, Any], Any]]:
    def comparison(name: str, test: Callable[[Any, Any], bool]) -> Callable[[Any, Any], Any]:
        def compare(self: Any, other: Any) -> Any:
            if other.__class__ is self.__class__:
                return test(compared(self), compared(other))
            return NotImplemented

        compare.__name__ = name
        return compare

    return {
        "__lt__": comparison("__lt__", lambda first, second: first < second),
        "__le__": comparison("__le__", lambda first, second: first <= second),
        "__gt__": comparison("__gt__", lambda first, second: first > second),
        "__ge__": comparison("__ge__", lambda first, second: first >= second),
    }


def _repr(names: list[str]) -> Callable[[Any], str]:
    def __repr__(self: Any) -> str:  # noqa: N807
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{self.__class__.__qualname__}({shown})"

    return __repr__


def _immutability(cls: type, names: frozenset[str]) -> dict[str, Callable[..., None]]:
    def __setattr__(self: Any, name: str, value: Any) -> None:  # noqa: N807
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:  # noqa: N807
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    return {"__setattr__": __setattr__, "__delattr__": __delattr__}


def _slot_state(names: tuple[str, ...]) -> dict[str, Callable[..., Any]]:
    def __getstate__(self: Any) -> list[Any]:  # noqa: N807
        return [getattr(self, name) for name in names]

    def __setstate__(self: Any, state: list[Any]) -> None:  # noqa: N807
        for name, value in zip(names, state):
            object.__setattr__(self, name, value)

    return {"__getstate__": __getstate__, "__setstate__": __setstate__}


def _compile_on_first_call(cls: type, fields: tuple[dataclasses.Field[Any], ...], frozen: bool) -> Callable[..., None]:
    """An ``__init__`` that, called once, compiles the real one (as fast as a dataclass's),
    installs it on the class and runs it."""

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:  # noqa: N807
        compiled = _compiled_init(cls, fields, frozen)
        type.__setattr__(cls, "__init__", compiled)
        compiled(self, *args, **kwargs)

    return __init__


_NO_VALUE = object()  # the default of a parameter whose field has a default factory


def _compiled_init(cls: type, fields: tuple[dataclasses.Field[Any], ...], frozen: bool) -> Callable[..., None]:
    """The dataclass ``__init__`` of ``fields``: positional parameters in field order (keyword-only
    ones after ``*``), defaults and default factories, ``__post_init__`` called when defined."""
    namespace: dict[str, Any] = {"__set": object.__setattr__, "__no_value": _NO_VALUE}
    positional: list[str] = []
    keyword: list[str] = []
    body: list[str] = []
    for field in fields:
        value = field.name
        if field.default is not dataclasses.MISSING:
            namespace[f"__default_{field.name}"] = field.default
            parameter = f"{field.name}=__default_{field.name}"
        elif field.default_factory is not dataclasses.MISSING:
            namespace[f"__factory_{field.name}"] = field.default_factory
            parameter = f"{field.name}=__no_value"
            value = f"__factory_{field.name}() if {field.name} is __no_value else {field.name}"
        else:
            parameter = field.name
        if not field.init:
            if field.default is not dataclasses.MISSING:
                value = f"__default_{field.name}"
            elif field.default_factory is not dataclasses.MISSING:
                value = f"__factory_{field.name}()"
            else:
                continue
        elif field.kw_only:
            keyword.append(parameter)
        else:
            positional.append(parameter)
        body.append(f"__set(self, {field.name!r}, {value})" if frozen else f"self.{field.name} = {value}")
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    parameters = ", ".join(["self", *positional, *(["*", *keyword] if keyword else [])])
    source = f"def __init__({parameters}):\n" + "".join(f"    {line}\n" for line in body or ["pass"])
    exec(source, namespace)  # noqa: S102  # the dataclass way: a parameter list is code
    compiled: Callable[..., None] = namespace["__init__"]
    compiled.__qualname__ = f"{cls.__qualname__}.__init__"
    return compiled
