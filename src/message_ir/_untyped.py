"""The boundary where values of type `Any` are turned into typed ones.

The package is checked by mypy with `disallow_any_expr`; this module is exempt (see
`[tool.mypy.overrides]` in pyproject.toml; the adapters' own JSON and schema boundaries are
the only other exemptions) because what it wraps has `Any` in its signature and nothing can
be done about it at the call site:

- narrowing `object` with `type(x) is dict` (or `list`, `tuple`) gives `dict[Any, Any]`;
  the helpers here list the items of an *exact* builtin once, as `object`s;
- msgspec's untyped `decode` returns `Any` and its `encode` takes `Any`;
- `json.loads` returns `Any`; `object.__dict__` is `dict[str, Any]`;
- `typing.get_args` returns `tuple[Any, ...]`;
- typeshed types `sys.stdin`, `sys.stdout` and `sys.stderr` as `TextIO | Any`;
- `msgspec.inspect`, which the JSON Schema reads, has no precise types; `sys`'s digit limit
  is looked up by name (older Pythons lack it).

Each function is small, runs no caller code, and returns `object` or a precise type.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import BinaryIO, Final, NamedTuple, TextIO

import msgspec

_decode: Final = msgspec.json.Decoder().decode
_encode: Final = msgspec.json.Encoder().encode
# `str.isascii` called as a function: compiled code calls a method by name through a generic
# lookup (about four times the cost of calling it directly, callgrind).
_isascii: Final = str.isascii


def exact_dict_items(value: object) -> list[tuple[object, object]] | None:
    """The items of an exact `dict`, listed once; `None` for anything else (subclasses too)."""
    if type(value) is dict:
        return list(value.items())
    return None


def str_keyed_dict(value: object) -> dict[str, object] | None:
    """`value` itself if it is an exact `dict` whose keys are all exact `str`s, else `None`.

    The keys are compared by type identity while the exact dict is iterated (the dict's own
    C iterator): no caller `__hash__`, `__eq__` or `__iter__` runs. A plain loop: for the
    small dicts of tool arguments and blocks, it takes well under half the time of an
    `all(map(...))` over the keys (whose iterators cost more to set up than the loop).
    """
    if type(value) is not dict:
        return None
    for key in value:
        if type(key) is not str:
            return None
    return value


def plain_str_keyed_dict(value: object, lone_surrogate_in: Callable[[str], object]) -> dict[str, object] | None:
    """`value` itself if it is an exact `dict` whose keys are all exact `str`s in which
    `lone_surrogate_in` finds nothing (asked only of a key that is not ASCII), else `None`.

    `str_keyed_dict` and the key rule of a JSON object in one pass over the keys: joining the
    keys to check them at once costs several times more than this loop in the compiled build
    (the join lists the dict first), and no less in the pure one.
    """
    if type(value) is not dict:
        return None
    for key in value:
        if type(key) is not str or not (_isascii(key) or lone_surrogate_in(key) is None):
            return None
    return value


def exact_sequence_items(value: object) -> list[object] | None:
    """The elements of an exact `list` or `tuple`, listed once; `None` for anything else."""
    if type(value) is list or type(value) is tuple:
        return list(value)
    return None


def decode_json(data: bytes | memoryview | str) -> object:
    """msgspec's untyped decode (raises `msgspec.DecodeError`)."""
    return _decode(data)


def encode_json(value: object) -> bytes:
    """msgspec's encode of a value of builtins (or Structs)."""
    return _encode(value)


def loads(text: str) -> object:
    """`json.loads` (raises `ValueError`, `RecursionError`)."""
    return json.loads(text)


def loads_tracking_tags(text: str, tags: tuple[str, ...]) -> tuple[object, dict[int, str]]:
    """`json.loads`, and by `id()` the objects in it where a key of `tags` appears twice with
    different values, with that key (the value kept is the last, as `json.loads` keeps it)."""
    repeated: dict[int, str] = {}

    def hook(pairs: list[tuple[str, object]]) -> dict[str, object]:
        record: dict[str, object] = {}
        for key, value in pairs:
            if key in tags and key in record:
                kept = record[key]
                if type(kept) is not type(value) or kept != value:  # plain JSON values: no caller code
                    repeated[id(record)] = key
            record[key] = value
        return record

    return json.loads(text, object_pairs_hook=hook), repeated


def force_setattr(struct: msgspec.Struct, name: str, value: object) -> None:
    """Set a field of a frozen Struct that the package has just made itself."""
    msgspec.structs.force_setattr(struct, name, value)


def instance_dict(instance: object) -> dict[str, object]:
    """The `__dict__` of an instance whose class has one (`ToolCall`, with `dict=True`)."""
    namespace: dict[str, object] = instance.__dict__
    return namespace


def literal_strings(alias: object) -> frozenset[str]:
    """The values of a `Literal` type of strings."""
    from typing import get_args

    return frozenset(value for value in get_args(alias) if type(value) is str)


class FieldKind(NamedTuple):
    """What msgspec says of a Struct field's type, as far as the JSON Schema needs it."""

    name: str  # "str", "bool", "raw", "blocks" (a tuple of Structs) or "other"
    min_length: int | None


def struct_field_kinds(struct: type[msgspec.Struct]) -> dict[str, FieldKind]:
    """The kind of each field of `struct`, by attribute name (`msgspec.inspect` is untyped)."""
    import msgspec.inspect

    info = msgspec.inspect.type_info(struct)
    assert isinstance(info, msgspec.inspect.StructType)
    kinds: dict[str, FieldKind] = {}
    for field in info.fields:
        kind = field.type
        if isinstance(kind, msgspec.inspect.StrType):
            kinds[field.name] = FieldKind("str", kind.min_length)
        elif isinstance(kind, msgspec.inspect.BoolType):
            kinds[field.name] = FieldKind("bool", None)
        elif isinstance(kind, msgspec.inspect.RawType):
            kinds[field.name] = FieldKind("raw", None)
        elif isinstance(kind, msgspec.inspect.VarTupleType):
            kinds[field.name] = FieldKind("blocks", None)
        else:
            kinds[field.name] = FieldKind("other", None)
    return kinds


def int_digit_limit() -> int:
    """Python's limit on the digits of an `int` converted to or from text (0: none)."""
    get_limit = getattr(sys, "get_int_max_str_digits", None)  # absent from Pythons without the limit
    if get_limit is None:
        return 0
    limit = get_limit()
    return limit if type(limit) is int else 0


def more_digits_than(value: int, limit: int) -> bool:
    """Whether `value` has more than `limit` decimal digits (typeshed types `int ** int` as `Any`)."""
    bound: int = 10**limit
    return abs(value) >= bound


def standard_streams() -> tuple[BinaryIO | None, TextIO | None, TextIO | None]:
    """Standard input (as bytes), output and error, each `None` when closed; typeshed types
    them `TextIO | Any`."""
    stdin = sys.stdin
    return (None if stdin is None else stdin.buffer), sys.stdout, sys.stderr
