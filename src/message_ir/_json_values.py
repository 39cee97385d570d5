"""JSON values: the frozen object view, and the one rule every entry point checks.

A JSON value is `str`, `int`, finite `float`, `bool`, `None`, an array of JSON values or an
object with `str` keys and JSON values, nested at most `MAX_DEPTH` levels (the outermost
container is level 1). Strings must be encodable as UTF-8 (no lone surrogates).

`check_json_tree` is the single implementation of that rule for Python values. It walks
iteratively with an explicit stack (so no `RecursionError` however deep the input), checks
the exact type of every value before touching it (so no caller code runs: subclasses of
builtins are refused, never iterated or hashed), and tracks the containers on the current
path by `id()` to tell a circular reference from a shared one. It serves the constructors,
which ask for a plain copy to freeze, and the validator, which asks for the check alone.

`arguments_text` is the same rule for the JSON text of tool arguments, which a `ToolCall`
keeps. msgspec refuses NaN, infinities (`Number out of range`), bad UTF-8 and lone surrogates
when it decodes; what is checked on the bytes first is the depth (before anything recurses)
and, for text msgspec has only skipped over while decoding a transcript, the few things a
skip does not check, so that the common case needs no second parse.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Final, NamedTuple, TypeAlias, Union, final

import msgspec

from message_ir._errors import ConstructionError
from message_ir._limits import MAX_DEPTH
from message_ir._paths import PathSegment, join_path
from message_ir._untyped import (
    decode_json,
    encode_json,
    exact_dict_items,
    exact_sequence_items,
    int_digit_limit,
    more_digits_than,
)

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
        return {key: _thaw(value) for key, value in self._items.items()}


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
    """A mutable deep copy of a frozen value (whose depth is bounded by `MAX_DEPTH`)."""
    if type(value) is FrozenJsonObject:
        return value.thaw()
    if type(value) is tuple:
        return [_thaw(item) for item in value]
    assert not isinstance(value, (tuple, FrozenJsonObject))  # narrowed: a scalar
    return value


def frozen_json_object(value: Mapping[str, JsonInput]) -> FrozenJsonObject:
    """A read-only deep snapshot of a JSON object (a `dict`, or a `FrozenJsonObject` as it is).

    The value is checked by the JSON rule (the one the constructors apply to tool arguments):
    anything else raises `ConstructionError`, a `TypeError`, naming the path.
    """
    if type(value) is FrozenJsonObject:
        return value
    if type(value) is not dict:
        raise ConstructionError("frozen_json_object", "$", f"Expected `dict`, got `{type_name(value)}`")
    problem, _ = check_json_tree(value, copy=False)
    if problem is not None:
        raise ConstructionError("frozen_json_object", join_path("$", problem.segments), problem.message)
    frozen = freeze_decoded(value)
    assert type(frozen) is FrozenJsonObject  # an exact dict freezes to one
    return frozen


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


_STRING_TOKEN: Final = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_INNERMOST: Final = re.compile(rb"\[\]|\{\}")
_NOT_BRACKET: Final = bytes(byte for byte in range(256) if byte not in b"[]{}")
_NOT_BRACKET_OR_NUL: Final = bytes(byte for byte in range(256) if byte not in b"[]{}\x00")


def depth_exceeds(text: bytes, limit: int = MAX_DEPTH) -> bool:
    """Whether JSON `text` nests deeper than `limit`, found without recursion.

    Few brackets in all means shallow; otherwise strings are removed, everything but
    brackets is deleted, and one level of innermost empty containers is peeled per round.
    """
    if text.count(b"[") + text.count(b"{") <= limit:
        return False
    brackets = _STRING_TOKEN.sub(b"", text).translate(None, _NOT_BRACKET)
    for _ in range(limit):
        brackets = _INNERMOST.sub(b"", brackets)
        if not brackets:
            return False
    return True


def _shape_byte(byte: int) -> int:
    if byte in b"0123456789":
        return ord("d")
    if byte in b"eE":
        return ord("e")
    if byte in b"[{":
        return ord("(")
    return ord(" ")


_SHAPE: Final = bytes(_shape_byte(byte) for byte in range(256))
_LONG_DIGITS: Final = b"d" * 300


def quick_arguments_check(text: bytes) -> bool:
    """Whether JSON text that msgspec has parsed is surely acceptable as tool arguments.

    One translation of the bytes answers the questions a parse by skipping leaves open:
    an object (`{` first); at most `MAX_DEPTH` containers in all, so surely not too deep;
    no digit followed by an exponent and no 300 digits in a row, so no number that could
    overflow to infinity (strings count too: a false answer is only a maybe); and valid
    UTF-8. When it answers false, `arguments_text` decides.
    """
    shape = text.translate(_SHAPE)
    return (
        text.startswith(b"{")
        and shape.count(b"(") <= MAX_DEPTH
        and b"de" not in shape
        and (len(shape) < 300 or _LONG_DIGITS not in shape)
        and (text.isascii() or _is_utf8(text))
    )


def quick_arguments_check_all(texts: list[bytes]) -> bool:
    """`quick_arguments_check` for many texts at once, in a few passes over their concatenation.

    Joined by NUL (which valid JSON text never holds), the texts are all objects when every
    NUL is followed by `{`; one translation finds risky numbers; and each text holds at most
    `MAX_DEPTH` containers when its share of the brackets is at most twice that (brackets
    inside strings count too, so they can only turn the answer into a false maybe). False
    means: check the texts one by one.
    """
    if not texts:
        return True
    joined = b"\x00".join(texts)
    if not joined.startswith(b"{") or joined.count(b"\x00{") != len(texts) - 1:
        return False
    shape = joined.translate(_SHAPE)
    if b"de" in shape or _LONG_DIGITS in shape or not (joined.isascii() or _is_utf8(joined)):
        return False
    brackets = joined.translate(None, _NOT_BRACKET_OR_NUL)
    return max(map(len, brackets.split(b"\x00"))) <= 2 * MAX_DEPTH


def compact_all(texts: list[bytes]) -> None:
    """Remove insignificant whitespace from JSON texts, in place (one C pass when none has any)."""
    if not texts:
        return
    array = b"[" + b",".join(texts) + b"]"
    if msgspec.json.format(array, indent=-1) == array:
        return
    for index, text in enumerate(texts):
        texts[index] = msgspec.json.format(text, indent=-1)


def arguments_text(raw: bytes | memoryview | msgspec.Raw, *, syntax_checked: bool) -> tuple[bytes | None, str | None]:
    """`(text to keep, None)` for JSON text holding acceptable tool arguments, else `(None, problem)`.

    With `syntax_checked` (msgspec has already parsed the text, as the decoder's `Raw` skip
    does, refusing bad syntax, bad escapes and lone surrogates), the common case is decided
    on the bytes: an object (`{` first), not too deep, valid UTF-8, and no number that could
    overflow to infinity. The text is then kept as it is. Anything uncertain, and any text
    msgspec has not parsed, is decoded in full and its canonical encoding kept instead.
    """
    text = bytes(raw)
    if syntax_checked and quick_arguments_check(text):
        return text, None
    if depth_exceeds(text):
        return None, f"Nesting deeper than {MAX_DEPTH} levels"
    try:
        value = decode_json(text)
    except (msgspec.DecodeError, RecursionError) as error:  # ValidationError is a DecodeError
        return None, f"Invalid JSON: {str(error).split(' - at `')[0]}"  # msgspec's own path is not ours
    if type(value) is not dict:
        return None, f"Expected `dict`, got `{type_name(value)}`"
    return encode_json(value), None


def _is_utf8(text: bytes) -> bool:
    try:
        text.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def canonical_json(text: bytes | msgspec.Raw) -> bytes:
    """msgspec's compact encoding of JSON text (the text itself if it cannot be decoded)."""
    try:
        return encode_json(decode_json(text))
    except (msgspec.DecodeError, RecursionError):
        return bytes(text)
