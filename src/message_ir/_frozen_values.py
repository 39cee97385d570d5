"""Frozen JSON values: what a message holds of arbitrary JSON (arguments, `data`, `meta`).

Arrays are tuples and objects are `FrozenJsonObject`s, read-only views that compare and hash
by value; `freeze_decoded` freezes what msgspec decoded from text already checked, and
`thaw` gives back plain `dict`s and `list`s. The rule a value must follow to be frozen is
`_json_rule`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TypeAlias, Union, cast, final

import msgspec

from message_ir._untyped import exact_dict_items, exact_sequence_items

JsonValue: TypeAlias = Union[str, int, float, bool, tuple["JsonValue", ...], "FrozenJsonObject", None]
"""A JSON value as it is held inside a message: arrays are tuples, objects are read-only."""

JsonData: TypeAlias = str | int | float | bool | list["JsonData"] | dict[str, "JsonData"] | None
"""A JSON value as `json.loads` returns it."""

JsonInput: TypeAlias = str | int | float | bool | Sequence["JsonInput"] | Mapping[str, "JsonInput"] | None
"""What the constructors take as a JSON value.

Statically any `Sequence` or `Mapping`; at run time only exact `list`, `tuple` and `dict`
(and the package's own `FrozenJsonObject`) are accepted: a subclass could run its own code while being read.
"""


@final
class FrozenJsonObject(Mapping[str, JsonValue]):
    """A read-only JSON object: the `arguments` of a tool call, and every object inside them.

    It is a `Mapping` (not a `dict` subclass), so `obj[key] = value`, `del obj[key]` and
    every other mutation raise `TypeError`. It keeps key order, compares equal to another
    `FrozenJsonObject` or a `dict` with the same items, and hashes by value. Instances come
    from the package only.
    """

    __slots__ = ("_items",)
    _items: dict[str, JsonValue]

    def __init__(self) -> None:
        raise TypeError("FrozenJsonObject cannot be created directly; build a message instead")

    @classmethod
    def _wrap(cls, items: dict[str, JsonValue]) -> FrozenJsonObject:
        """Take ownership of `items`, whose values must already be frozen."""
        instance = object.__new__(cls)
        object.__setattr__(instance, "_items", items)
        return instance

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"FrozenJsonObject is immutable; cannot set {name!r}")

    def __getitem__(self, key: str) -> JsonValue:
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __eq__(self, other: object) -> bool:
        if type(other) is FrozenJsonObject:
            return self._items == other._items
        items = exact_dict_items(other)
        if items is not None:
            return self._items == dict(items)
        return NotImplemented

    def __hash__(self) -> int:
        # Equality ignores key order (as `dict`'s does), so the hash must too.
        return hash(frozenset(self._items.items()))

    def __repr__(self) -> str:
        return f"FrozenJsonObject({self._items!r})"

    def __reduce__(self) -> tuple[object, tuple[dict[str, JsonValue]]]:
        """Copies and pickles are rebuilt from the items (already frozen) by `_unpickle`."""
        return (_unpickle, (dict(self._items),))

    def thaw(self) -> dict[str, JsonData]:
        """A fresh, mutable deep copy with `dict`s and `list`s, as `json.loads` would give."""
        return _thawed(self._items)

    def to_json(self) -> bytes:
        """Its compact JSON text, in its key order: what `msgspec.json.encode(obj.thaw())`
        gives, written from the frozen values themselves (no copy is made)."""
        return _encode_frozen(self._items)


def _frozen_items(value: object) -> dict[str, JsonValue]:
    """The encoder's hook for what msgspec does not write itself: a nested `FrozenJsonObject`
    is written from its items (read directly: no method of it is called)."""
    if type(value) is FrozenJsonObject:
        return value._items
    # Frozen values are of exact types: anything else was put in a frozen object's items in place.
    raise TypeError("A FrozenJsonObject holds a value that is no frozen JSON value (was it changed in place?)")


_encode_frozen: Callable[[dict[str, JsonValue]], bytes] = msgspec.json.Encoder(enc_hook=_frozen_items).encode


def _thawed(items: dict[str, JsonValue]) -> dict[str, JsonData]:
    """A `FrozenJsonObject`'s items thawed (see `thaw`)."""
    # A scalar is taken inline (a call per value was most of the cost); frozen values are
    # of exact types (`_is_frozen`), so `type(...) is` tells them.
    return {
        key: value
        if type(value) is str or type(value) is int or type(value) is float or type(value) is bool or value is None
        else _thaw(value)
        for key, value in items.items()
    }


def _unpickle(items: dict[str, JsonValue]) -> FrozenJsonObject:
    """A `FrozenJsonObject` from the items `__reduce__` gave (frozen values, checked again)."""
    for key, value in items.items():
        if type(key) is not str or not _is_frozen(value):
            raise TypeError("FrozenJsonObject: cannot rebuild from items that are not frozen JSON values")
    return FrozenJsonObject._wrap(dict(items))


def _is_frozen(value: object) -> bool:
    kind = type(value)
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return True
    if type(value) is FrozenJsonObject:
        return True
    if type(value) is tuple:
        return all(_is_frozen(item) for item in value)
    return False


def _thaw(value: JsonValue) -> JsonData:
    """A mutable deep copy of a frozen array or object (whose depth is bounded by `MAX_DEPTH`):
    exact type checks only, and a nested object's items read directly (no method of it is
    called)."""
    if type(value) is tuple:
        return [
            item
            if type(item) is str or type(item) is int or type(item) is float or type(item) is bool or item is None
            else _thaw(item)
            for item in value
        ]
    if type(value) is FrozenJsonObject:
        return _thawed(value._items)
    # The callers take scalars inline: anything else was put in a frozen object's items in place.
    raise TypeError("A FrozenJsonObject holds a value that is no frozen JSON value (was it changed in place?)")


def frozen_from_copy(items: dict[str, object]) -> FrozenJsonObject:
    """Take ownership of `items`, a fresh copy whose values are frozen JSON values already
    (`_fast_path.frozen_json_copy` checks each value as it copies, and freezes containers)."""
    return FrozenJsonObject._wrap(cast("dict[str, JsonValue]", items))


def freeze_decoded(value: object) -> JsonValue:
    """Freeze what msgspec decoded from checked JSON text: lists to tuples, dicts to views.

    The input is trusted (it came out of `msgspec.json.decode` of text that
    `arguments_text` accepted), so its depth is at most `MAX_DEPTH`.
    """
    if type(value) is str or type(value) is int or type(value) is float or type(value) is bool or value is None:
        return value
    items = exact_dict_items(value)
    if items is not None:
        return FrozenJsonObject._wrap({str(key): freeze_decoded(item) for key, item in items})
    return tuple([freeze_decoded(item) for item in exact_sequence_items(value) or ()])
