"""Helpers shared by the test modules."""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator
from typing import NoReturn, ParamSpec, Protocol, TypeVar, cast

from message_ir import Message, decode_jsonl, decode_transcript, encode_jsonl, encode_transcript

P = ParamSpec("P")
R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)


class Loose(Protocol[R_co]):
    """A callable that takes any arguments, as far as the type checker knows."""

    def __call__(self, *args: object, **kwargs: object) -> R_co: ...


def loose(function: Callable[P, R]) -> Loose[R]:
    """`function` with its parameter types erased, to call it with deliberately wrong values.

    The type checker would rightly refuse those calls; the tests make them on purpose, to
    see what happens at run time, where nothing stops a caller.
    """
    return cast("Loose[R]", function)


class Color(enum.IntEnum):
    """An `int` subclass: refused wherever a JSON value is expected."""

    RED = 1


class StrSub(str):
    """A `str` subclass with nothing overridden: refused for its type alone."""

    __slots__ = ()


class DictSub(dict[str, object]):
    """A `dict` subclass with nothing overridden: refused for its type alone."""


class ListSub(list[object]):
    """A `list` subclass with nothing overridden: refused for its type alone."""


class Explosive:
    """Every hook raises: code that touches it before checking its type fails loudly."""

    def __getattribute__(self, name: str) -> object:
        raise RuntimeError(name)

    def __getattr__(self, name: str) -> object:
        raise RuntimeError(name)

    def __len__(self) -> int:
        raise RuntimeError("len")

    def __iter__(self) -> Iterator[object]:
        raise RuntimeError("iter")

    def __getitem__(self, key: object) -> object:
        raise RuntimeError("getitem")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("eq")

    def __hash__(self) -> int:
        raise RuntimeError("hash")


class Trap(type):
    """A metaclass whose every hook interrupts: naming, hashing or comparing the type must never happen."""

    @property
    def __name__(cls) -> str:  # type: ignore[override]  # a property, to run code when read
        raise KeyboardInterrupt

    def __hash__(cls) -> int:
        raise KeyboardInterrupt

    def __eq__(cls, other: object) -> bool:
        raise KeyboardInterrupt


class Hostile(metaclass=Trap):
    """A value whose type cannot be named, hashed or compared without running its code."""


class TrapStr(str):
    """A `str` subclass whose hash and equality fail the test if they ever run."""

    __slots__ = ()

    def __hash__(self) -> int:
        raise AssertionError("hashed")

    def __eq__(self, other: object) -> bool:
        raise AssertionError("compared")


class SneakyKey(str):
    """Hashes like a `str`, so it can sit in a dict, but must never be compared."""

    __slots__ = ()

    def __hash__(self) -> int:
        return str.__hash__(self)

    def __eq__(self, other: object) -> bool:
        raise AssertionError("compared")


class TrapDict(dict[str, object]):
    """A `dict` subclass whose every way of being read fails the test if it ever runs."""

    def __getitem__(self, key: str) -> object:
        raise AssertionError("getitem")

    def __iter__(self) -> Iterator[str]:
        raise AssertionError("iterated")

    def __len__(self) -> int:
        raise AssertionError("len")

    def items(self) -> NoReturn:
        raise AssertionError("items")

    def values(self) -> NoReturn:
        raise AssertionError("values")

    def keys(self) -> NoReturn:
        raise AssertionError("keys")


class TrapList(list[object]):
    """A `list` subclass whose length and iteration fail the test if they ever run."""

    def __len__(self) -> int:
        raise AssertionError("len")

    def __iter__(self) -> Iterator[object]:
        raise AssertionError("iterated")


class Liar:
    """Claims to be a dict."""

    @property  # type: ignore[misc]  # overriding __class__ with a property is the lie under test
    def __class__(self) -> type:
        return dict


def assert_saves_in_the_ir(messages: tuple[Message, ...]) -> None:
    """Messages an adapter loaded save in the IR's own JSON and JSON Lines, and read back equal
    (`encode_*` of loaded messages once wrote `"meta":}`, which no reader takes)."""
    assert decode_transcript(encode_transcript(messages), check_linkage=False) == messages
    assert decode_jsonl(encode_jsonl(messages), check_linkage=False) == messages


def json_objects(value: object) -> list[dict[str, object]]:
    """The JSON objects in `value`, itself first, at any depth."""
    found: list[dict[str, object]] = []
    if type(value) is dict:
        found.append(value)
        for inner in value.values():
            found.extend(json_objects(inner))
    elif type(value) is list:
        for inner in value:
            found.extend(json_objects(inner))
    return found
