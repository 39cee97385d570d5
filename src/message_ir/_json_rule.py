"""The JSON rule every entry point checks, for Python values.

A JSON value is `str`, `int`, finite `float`, `bool`, `None`, an array of JSON values or an
object with `str` keys and JSON values, nested at most `MAX_DEPTH` levels (the outermost
container is level 1). Strings must be encodable as UTF-8 (no lone surrogates).

`check_json_tree` is the single implementation of that rule for Python values. It walks
iteratively with an explicit stack (so no `RecursionError` however deep the input), checks
the exact type of every value before touching it (so no caller code runs: subclasses of
builtins are refused, never iterated or hashed), and tracks the containers on the current
path by `id()` to tell a circular reference from a shared one. It serves the constructors,
which ask for a plain copy to freeze, the validator, which asks for the check alone, and
`frozen_json_object`. `type_name` names a value's type in messages without reading it.
"""

from __future__ import annotations

import math
import re
from typing import Final, NamedTuple

import msgspec

from message_ir._frozen_values import FrozenJsonObject
from message_ir._limits import MAX_DEPTH
from message_ir._paths import PathSegment
from message_ir._untyped import exact_dict_items, exact_sequence_items, int_digit_limit, more_digits_than


class JsonProblem(NamedTuple):
    """The first thing wrong in a JSON tree: where (relative to its root) and what."""

    segments: tuple[PathSegment, ...]
    message: str


LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")
"""Finds a lone surrogate: a `str` holding one cannot be encoded as UTF-8."""


SAFE_INT_BITS: Final = 12_000
"""An `int` of at most this many bits has fewer than 3,700 digits: within any digit limit
Python sets by default (4,300), so only longer ones need the exact check."""


def int_problem(value: int) -> str | None:
    """What is wrong with an exact `int` as a JSON number, if anything.

    msgspec encodes and decodes integers of any size, up to Python's limit on the digits of
    an `int` converted to or from text (`sys.get_int_max_str_digits()`, 4,300 by default):
    beyond it, it can do neither. So that limit is the rule, in the constructors, the
    validator and the decoder alike.
    """
    if value.bit_length() <= SAFE_INT_BITS:
        return None
    limit = int_digit_limit()
    if limit == 0 or not more_digits_than(value, limit):
        return None
    return f"Expected an integer of at most {limit} digits"


def str_problem(value: str) -> str | None:
    """What is wrong with an exact `str` as JSON text, if anything (a lone surrogate)."""
    if value.isascii() or LONE_SURROGATE.search(value) is None:
        return None
    return "Expected a `str` encodable as UTF-8, got one with a lone surrogate"


_TYPE_NAMES: list[tuple[type, str]] = [
    (str, "str"), (int, "int"), (float, "float"), (bool, "bool"), (type(None), "NoneType"), (list, "list"),
    (tuple, "tuple"), (dict, "dict"), (set, "set"), (frozenset, "frozenset"), (bytes, "bytes"),
    (bytearray, "bytearray"), (memoryview, "memoryview"), (complex, "complex"), (object, "object"),
    (msgspec.Raw, "msgspec.Raw"), (FrozenJsonObject, "FrozenJsonObject"),
]  # fmt: skip
_BUILTINS: Final = 14  # the builtin types of the table, `object` excluded, for naming subclasses
"""Types named in error messages; the package's own types are added by `register_type_name`."""


def type_name(value: object) -> str:
    """A name for the exact type of `value`, from a fixed table of the package's own and the
    builtin types; `object` for any other type (a subclass, a caller's class).

    Nothing of the type is read or called: a metaclass can make `__name__` a property that
    runs the caller's code, and `__hash__` or `__eq__` too, so the table is scanned by
    identity.
    """
    kind = type(value)
    for known, name in _TYPE_NAMES:
        if known is kind:
            return name
    for known, name in _TYPE_NAMES[:_BUILTINS]:
        if issubclass(kind, known):  # `type`'s own check of the real MRO: no caller code runs
            return f"{name} subclass"
    return "object"


def register_type_name(kind: type, name: str) -> None:
    """Name one of the package's own types in error messages."""
    _TYPE_NAMES.append((kind, name))


class _Frame(NamedTuple):
    items: list[tuple[object, object]]  # (key or index, value), listed once when pushed
    position: list[int]  # a one-element cell: the next item to look at
    output: dict[str, object] | list[object] | None
    segment: PathSegment  # the key or index that led here from the parent
    container_id: int
    is_object: bool


def _frame(container: object, segment: PathSegment, copy: bool) -> _Frame | None:
    """A frame for an exact JSON container, or `None` when `container` is not one.

    Only exact builtins and the package's own view are listed: nothing the caller wrote runs.
    """
    items: list[tuple[object, object]]
    output: dict[str, object] | list[object] | None
    if type(container) is FrozenJsonObject:
        frozen = exact_dict_items(container._items)  # a tampered object's mapping may be anything
        if frozen is None:
            return None
        items = frozen
        output = {} if copy else None
        is_object = True
    elif (dict_items := exact_dict_items(container)) is not None:
        items = dict_items
        output = {} if copy else None
        is_object = True
    elif (elements := exact_sequence_items(container)) is not None:
        items = [(index, element) for index, element in enumerate(elements)]
        output = [] if copy else None
        is_object = False
    else:
        return None
    return _Frame(items, [0], output, segment, id(container), is_object)


def check_json_tree(root: object, *, copy: bool) -> tuple[JsonProblem | None, dict[str, object] | list[object] | None]:
    """Check `root`, which should be a `dict`, `list`, `tuple` or `FrozenJsonObject`.

    Returns `(problem, None)` for the first problem in depth-first order, or `(None, copy)`
    where `copy` is a plain `dict`/`list` deep copy when `copy` is true and `None` otherwise.
    """
    isfinite = math.isfinite
    first = _frame(root, "", copy)
    if first is None:
        return JsonProblem((), f"Expected a JSON array or object, got `{type_name(root)}`"), None
    stack = [first]
    active = {first.container_id}

    def problem(segment: PathSegment | None, message: str) -> tuple[JsonProblem, None]:
        segments = tuple(frame.segment for frame in stack[1:])
        return JsonProblem(segments if segment is None else (*segments, segment), message), None

    while stack:
        frame = stack[-1]
        position = frame.position[0]
        if position == len(frame.items):
            stack.pop()
            active.discard(frame.container_id)
            continue
        frame.position[0] = position + 1
        key, value = frame.items[position]
        segment: PathSegment
        if type(key) is str:
            key_problem = str_problem(key)
            if key_problem is not None:
                return problem(None, f"Object key: {key_problem}")
            segment = key
        elif frame.is_object:
            return problem(None, f"Expected object keys of type `str`, got `{type_name(key)}`")
        else:
            segment = position  # arrays are listed as (index, element) pairs
        if type(value) is str:
            value_problem = str_problem(value)
            if value_problem is not None:
                return problem(segment, value_problem)
        elif type(value) is float:
            if not isfinite(value):
                return problem(segment, f"Expected a finite number, got `{value!r}`")
        elif type(value) is int:
            number_problem = int_problem(value)
            if number_problem is not None:
                return problem(segment, number_problem)
        elif type(value) is bool or value is None:
            pass
        else:
            child = None if id(value) in active else _frame(value, segment, copy)
            if child is None:
                if id(value) in active:
                    return problem(segment, "Circular reference: a container holds itself")
                return problem(segment, f"Expected a JSON value, got `{type_name(value)}`")
            if len(stack) >= MAX_DEPTH:
                return problem(segment, f"Nesting deeper than {MAX_DEPTH} levels")
            stack.append(child)
            active.add(child.container_id)
            value = child.output
        output = frame.output
        if type(output) is dict:
            output[str(segment)] = value  # object frames have str segments, checked above
        elif type(output) is list:
            output.append(value)
    return None, first.output
