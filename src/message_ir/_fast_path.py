"""Fast paths: a yes-or-maybe answer for valid transcripts, and an optimistic snapshot copy.

`validate_transcript` asks this first. It walks the transcript once with the same rules as
the shape and linkage passes, but records nothing: it answers true only when it is sure the
full passes would find nothing, and false (a maybe) at the first doubt, after which the full
passes run and explain. So it may be strict where the full passes are lenient, never the
reverse; the property suite checks that the two agree. `encode_transcript`, `encode_jsonl`
and `repair_transcript` ask it too, without linkage (`require_shape`).

`copy_json_object` is the constructors' counterpart: the same rule for tool arguments, but
building the snapshot copy as it checks (each container listed once, copied from that
listing), giving up at the first doubt so that `check_json_tree` can say what is wrong. It
is a second walker rather than the first with a flag because the validator's walk must not
pay for copies, and the constructors' must copy exactly what it checked.

Its safety rules are the guard's: exact type checks before use; a `dict`'s keys are
confirmed to be exact `str`s (`map(type, ...)` compared by identity: a loop in C that runs
no caller code) before any lookup in it, so no caller `__hash__` or `__eq__` can run; nested
arguments are walked by recursion bounded by `MAX_DEPTH`, which also ends a cycle.

Typing: this module narrows `object` with `type(x) is dict` (or `list`, `tuple`), which mypy
types as `dict[Any, Any]`. Wrapping each test in a typed helper (as the full passes do)
costs a function call per value on the hottest loop of the package, so this module, like
`_untyped`, is exempt from `disallow_any_expr` (pyproject.toml says so); every other strict
check applies, and every function takes and returns precise types.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Collection, Iterable
from itertools import repeat
from operator import itemgetter
from typing import Final

import msgspec

from message_ir._json_values import LONE_SURROGATE, SAFE_INT_BITS, FrozenJsonObject, arguments_text
from message_ir._limits import MAX_DEPTH
from message_ir._model import (
    CHECKED_KEY,
    AssistantMessage,
    OpaqueBlock,
    TextBlock,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from message_ir._untyped import exact_dict_items
from message_ir._wire import BLOCKS, MESSAGES, META

_surrogate_in: Final = LONE_SURROGATE.search
_isfinite: Final = math.isfinite
_is: Final = operator.is_
_first: Final = itemgetter(0)
_second: Final = itemgetter(1)
_Raw: Final = msgspec.Raw
# The number of keys of each record without `meta` (from the wire table): with every required
# key present, no other can be; one more key must be a valid `meta`.
_USER_KEYS: Final = MESSAGES["user"].required_keys
_ASSISTANT_KEYS: Final = MESSAGES["assistant"].required_keys
_RESULT_KEYS: Final = MESSAGES["toolResult"].required_keys
_TEXT_KEYS: Final = BLOCKS["text"].required_keys
_CALL_KEYS: Final = BLOCKS["toolCall"].required_keys
_OPAQUE_KEYS: Final = BLOCKS["opaque"].required_keys


def _keys_fit(record: dict[str, object], required: int) -> bool:
    """Whether a record whose required keys are present has no other key but a valid `meta`."""
    count = len(record)
    if count == required:
        return True
    return count == required + 1 and _json_object(record.get(META))


def _json_object(value: object) -> bool:
    """A JSON object in the JSON form: an exact `dict` (or `FrozenJsonObject`) of JSON values."""
    if type(value) is dict:
        return _plain_keys(value) and _json_members(value.values(), 1)
    return type(value) is FrozenJsonObject and _frozen_members(value, 1)


def _frozen_members(value: FrozenJsonObject, level: int) -> bool:
    """`_json_members` for the package's frozen object, whose internal mapping is checked too
    (`object.__setattr__` can replace it with anything)."""
    items = exact_dict_items(value._items)
    if items is None:
        return False
    return _plain_keys(list(map(_first, items))) and _json_members(list(map(_second, items)), level)


def _raw_object(raw: object, optional: bool) -> bool:
    """A JSON object kept as text in a struct: a `msgspec.Raw` (empty only where `optional`)."""
    if type(raw) is not msgspec.Raw:
        return False
    if not raw:
        return optional
    return arguments_text(raw, syntax_checked=False)[0] is not None


def _str_keys(keys: Collection[object]) -> bool:
    """Whether every key is an exact `str` (a dict iterates its keys)."""
    return all(map(_is, map(type, keys), repeat(str)))


def _plain_keys(keys: Collection[object]) -> bool:
    """Exact `str` keys with no lone surrogate (all keys joined: one C pass)."""
    if not _str_keys(keys):
        return False
    joined = "".join(keys)  # type: ignore[arg-type]  # every key is an exact str, checked above
    return joined.isascii() or _surrogate_in(joined) is None


def _json_members(values: Iterable[object], level: int) -> bool:
    """Whether every value, held by a container at nesting `level`, is a JSON value within
    `MAX_DEPTH`. Scalars are checked inline; containers recurse, at most `MAX_DEPTH` deep."""
    for value in values:
        kind = type(value)
        if kind is str:
            if not value.isascii() and _surrogate_in(value) is not None:  # type: ignore[attr-defined, call-overload]  # exact str
                return False
        elif kind is int:
            if value.bit_length() > SAFE_INT_BITS:  # type: ignore[attr-defined]  # exact int; long: look closer
                return False
        elif kind is bool or value is None:
            continue
        elif kind is float:
            if not _isfinite(value):  # type: ignore[arg-type]  # exact float
                return False
        elif level >= MAX_DEPTH:
            return False
        elif kind is dict:
            if not _plain_keys(value) or not _json_members(value.values(), level + 1):  # type: ignore[arg-type, attr-defined]  # exact dict
                return False
        elif kind is list or kind is tuple:
            if not _json_members(list(value), level + 1):  # type: ignore[call-overload]  # exact list or tuple
                return False
        elif kind is FrozenJsonObject:
            # The package's own view: checked when it was made, but its depth counts from here.
            if not _frozen_members(value, level + 1):  # type: ignore[arg-type]  # exact type
                return False
        else:
            return False
    return True


def _text(value: object) -> bool:
    return type(value) is str and (value.isascii() or _surrogate_in(value) is None)


def _identifier(value: object) -> bool:
    return type(value) is str and value != "" and (value.isascii() or _surrogate_in(value) is None)


def transcript_is_valid(value: object, *, check_linkage: bool = True) -> bool:
    """True only if `validate_transcript(value)` is surely `()`; false means: look closer.

    With `check_linkage=False`, true only if it surely has no shape diagnostic.
    """
    if type(value) is not list and type(value) is not tuple:
        return False
    pending: dict[str, str] = {}
    seen: set[str] = set()
    for message in list(value):
        kind = type(message)
        if kind is dict:
            if not _str_keys(message):
                return False
            role = message.get("role")
            if type(role) is not str or not _identifier(message.get("id")):
                return False
            if role == "user":
                if not _text(message.get("content")) or (
                    len(message) != _USER_KEYS and not _keys_fit(message, _USER_KEYS)
                ):
                    return False
            elif role == "assistant":
                if not _json_blocks(message.get("content"), pending, seen, check_linkage) or not _keys_fit(
                    message, _ASSISTANT_KEYS
                ):
                    return False
            elif role == "toolResult":
                call_id = message.get("toolCallId")
                tool_name = message.get("toolName")
                if (
                    (len(message) != _RESULT_KEYS and not _keys_fit(message, _RESULT_KEYS))
                    or not _identifier(call_id)
                    or not _identifier(tool_name)
                    or not _text(message.get("content"))
                    or type(message.get("isError")) is not bool
                    or (pending.pop(call_id, None) != tool_name and check_linkage)
                ):
                    return False
            else:
                return False
        elif kind is ToolResultMessage:
            # Struct fields are checked inline: a call per field would be most of the cost.
            message_id, call_id, tool_name = message.id, message.tool_call_id, message.tool_name
            content = message.content
            if (
                type(message_id) is not str
                or type(call_id) is not str
                or type(tool_name) is not str
                or type(content) is not str
                or type(message.is_error) is not bool
                or not message_id
                or not call_id
                or not tool_name
                or (type(meta := message.meta_json) is not _Raw or (meta and not _raw_object(meta, optional=True)))
                or (pending.pop(call_id, None) != tool_name and check_linkage)
            ):
                return False
            if not (content.isascii() and message_id.isascii() and call_id.isascii() and tool_name.isascii()) and (
                _surrogate_in(message_id + call_id + tool_name + content) is not None
            ):
                return False
        elif kind is AssistantMessage:
            if (
                not _identifier(message.id)
                or (type(meta := message.meta_json) is not _Raw or (meta and not _raw_object(meta, optional=True)))
                or not _struct_blocks(message.content, pending, seen, check_linkage)
            ):
                return False
        elif kind is UserMessage:
            message_id, content = message.id, message.content
            if type(message_id) is not str or type(content) is not str or not message_id:
                return False
            if type(meta := message.meta_json) is not _Raw or (meta and not _raw_object(meta, optional=True)):
                return False
            if not (content.isascii() and message_id.isascii()) and _surrogate_in(message_id + content) is not None:
                return False
        else:
            return False
    return not check_linkage or not pending


def _json_blocks(content: object, pending: dict[str, str], seen: set[str], check_linkage: bool) -> bool:
    if type(content) is not list and type(content) is not tuple:
        return False
    for block in list(content):
        if type(block) is not dict or not _str_keys(block):
            return False
        block_type = block.get("type")
        if type(block_type) is not str:
            return False
        if block_type == "text":
            if not _text(block.get("text")) or (len(block) != _TEXT_KEYS and not _keys_fit(block, _TEXT_KEYS)):
                return False
            continue
        if block_type == "opaque":
            if (
                not _identifier(block.get("format"))
                or not _identifier(block.get("kind"))
                or not _json_object(block.get("data"))
                or (len(block) != _OPAQUE_KEYS and not _keys_fit(block, _OPAQUE_KEYS))
            ):
                return False
            continue
        if block_type != "toolCall" or (len(block) != _CALL_KEYS and not _keys_fit(block, _CALL_KEYS)):
            return False
        call_id, name, arguments = block.get("id"), block.get("name"), block.get("arguments")
        if type(call_id) is not str or type(name) is not str:
            return False
        if not _identifier(call_id) or not _identifier(name) or (call_id in seen and check_linkage):
            return False
        if type(arguments) is dict:
            if not _plain_keys(arguments) or not _json_members(arguments.values(), 1):
                return False
        elif type(arguments) is not FrozenJsonObject or not _frozen_members(arguments, 1):
            return False
        seen.add(call_id)
        pending[call_id] = name
    return True


def _struct_blocks(content: object, pending: dict[str, str], seen: set[str], check_linkage: bool) -> bool:
    if type(content) is not tuple:
        return False
    for block in content:
        kind = type(block)
        if kind is TextBlock:
            if not _text(block.text) or (
                type(meta := block.meta_json) is not _Raw or (meta and not _raw_object(meta, optional=True))
            ):
                return False
            continue
        if kind is OpaqueBlock:
            if (
                not _identifier(block.format)
                or not _identifier(block.kind)
                or not _raw_object(block.data_json, optional=False)
                or (type(meta := block.meta_json) is not _Raw or (meta and not _raw_object(meta, optional=True)))
            ):
                return False
            continue
        if kind is not ToolCall:
            return False
        if type(meta := block.meta_json) is not _Raw or (meta and not _raw_object(meta, optional=True)):
            return False
        call_id, name, raw = block.id, block.name, block.arguments_json
        if type(call_id) is not str or type(name) is not str or not call_id or not name:
            return False
        if not (call_id.isascii() and name.isascii()) and _surrogate_in(call_id + name) is not None:
            return False
        if call_id in seen and check_linkage:
            return False
        if block.__dict__.get(CHECKED_KEY) is not raw and (  # not marked as made by the package
            type(raw) is not msgspec.Raw or arguments_text(raw, syntax_checked=False)[0] is None
        ):
            return False
        seen.add(call_id)
        pending[call_id] = name
    return True


def copy_json_object(value: object) -> dict[str, object] | None:
    """A plain deep copy of tool arguments (a `dict` or `FrozenJsonObject`) if they surely
    satisfy the JSON rule, else `None`, after which `check_json_tree` finds the problem.

    Every container is listed once (`list(...)` of an exact builtin, a single C call), its
    members are checked in that listing and copied from it, so what is checked is what is
    kept, whatever else happens meanwhile.
    """
    if type(value) is FrozenJsonObject:
        items = exact_dict_items(value._items)
        return None if items is None else _copy_object(items, 1)
    if type(value) is dict:
        return _copy_object(list(value.items()), 1)
    return None


_REFUSED: Final = object()


def _copied(value: object, level: int) -> object:
    """A member of a container at `level`, copied if it is a container, or `_REFUSED`."""
    kind = type(value)
    if kind is str:
        return value if value.isascii() or _surrogate_in(value) is None else _REFUSED  # type: ignore[attr-defined, call-overload]  # exact str
    if kind is int:
        return value if value.bit_length() <= SAFE_INT_BITS else _REFUSED  # type: ignore[attr-defined]  # exact int
    if kind is bool or value is None:
        return value
    if kind is float:
        return value if _isfinite(value) else _REFUSED  # type: ignore[arg-type]  # exact float
    copy: dict[str, object] | list[object] | None
    if level >= MAX_DEPTH:
        return _REFUSED
    if kind is dict:
        copy = _copy_object(list(value.items()), level + 1)  # type: ignore[attr-defined]  # exact dict
    elif kind is list or kind is tuple:
        copy = _copy_array(list(value), level + 1)  # type: ignore[call-overload]  # exact list or tuple
    elif kind is FrozenJsonObject:
        items = exact_dict_items(value._items)  # type: ignore[attr-defined]  # exact type
        copy = None if items is None else _copy_object(items, level + 1)
    else:
        return _REFUSED
    return _REFUSED if copy is None else copy


def _copy_object(items: list[tuple[object, object]], level: int) -> dict[str, object] | None:
    if not _plain_keys(list(map(_first, items))):
        return None
    copy = {key: _copied(value, level) for key, value in items}
    return None if any(map(_is, copy.values(), repeat(_REFUSED))) else copy  # type: ignore[return-value]  # keys are exact str


def _copy_array(elements: list[object], level: int) -> list[object] | None:
    copy = [_copied(value, level) for value in elements]
    return None if any(map(_is, copy, repeat(_REFUSED))) else copy
