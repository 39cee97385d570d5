"""Fast paths: a yes-or-maybe answer for valid transcripts, and an optimistic snapshot copy.

`validate_transcript` asks this first. It walks the transcript once with the same rules as
the shape and linkage passes, but records nothing: it answers true only when it is sure the
full passes would find nothing, and false (a maybe) at the first doubt, after which the full
passes run and explain. So it may be strict where the full passes are lenient, never the
reverse; the property suite checks that the two agree. `encode_transcript`, `encode_jsonl`
and `repair_transcript` ask it too, without linkage (`require_shape`).

`copy_json_object` is the constructors' counterpart: the same rule for tool arguments, but
building the snapshot copy as it checks, giving up at the first doubt so that
`check_json_tree` can say what is wrong. It is a second walker rather than the first with a
flag because the validator's walk must not pay for copies, and the constructors' must copy
exactly what it checked. `frozen_json_copy` is the same walker asked to make the copy's
containers read-only as it goes (`frozen_json_object`: one walk, not a copy then a freeze).

Its safety rules are the guard's: exact type checks on each value itself before use; a
`dict` is used only once `_untyped.str_keyed_dict` (or `plain_str_keyed_dict`) has confirmed
it is an exact `dict` whose keys are exact `str`s (compared by type identity), so no caller
`__hash__` or `__eq__` can run (the copy lists an exact `dict`'s items first and checks each
key's type before it hashes it into the copy); nested values are walked by recursion bounded
by `MAX_DEPTH`, which also ends a cycle.

Typing: every value is narrowed where it is used (`type(value) is str` on the value, not on
a cached `type(value)`), and containers are listed through the typed helpers of `_untyped`
(one call per container, not per value), so this module has no `Any` and no `type: ignore`,
and mypyc can compile it (see README: the compiled build).
"""

from __future__ import annotations

import math
from typing import Final

import msgspec

from message_ir._argument_text import is_arguments_text
from message_ir._frozen_values import FrozenJsonObject, frozen_from_copy
from message_ir._json_rule import LONE_SURROGATE, SAFE_INT_BITS
from message_ir._limits import MAX_DEPTH
from message_ir._model import (
    CHECKED_KEY,
    NO_META,
    AssistantMessage,
    OpaqueBlock,
    TextBlock,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from message_ir._untyped import (
    exact_dict_items,
    exact_sequence_items,
    instance_dict,
    plain_str_keyed_dict,
    str_keyed_dict,
)
from message_ir._wire import BLOCKS, MESSAGES, META

_surrogate_in: Final = LONE_SURROGATE.search
_isfinite: Final = math.isfinite
_isascii: Final = str.isascii  # called as a function: compiled code looks a method up by name
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
    if type(value) is FrozenJsonObject:
        return _frozen_members(value, 1)
    record = plain_str_keyed_dict(value, _surrogate_in)
    return record is not None and _json_members(list(record.values()), 1)


def _frozen_members(value: FrozenJsonObject, level: int) -> bool:
    """`_json_members` for the package's frozen object, whose internal mapping is checked too
    (`object.__setattr__` can replace it with anything)."""
    record = plain_str_keyed_dict(_field(value, "_items"), _surrogate_in)
    return record is not None and _json_members(list(record.values()), level)


def _raw_object(raw: object, optional: bool) -> bool:
    """A JSON object kept as text in a struct: a `msgspec.Raw` (empty only where `optional`)."""
    if type(raw) is not msgspec.Raw:
        return False
    if not raw:
        return optional
    return is_arguments_text(raw)


def _json_members(values: list[object], level: int) -> bool:
    """Whether every value, held by a container at nesting `level`, is a JSON value within
    `MAX_DEPTH`. Scalars are checked inline; containers recurse, at most `MAX_DEPTH` deep."""
    for value in values:
        if type(value) is str:
            if not _isascii(value) and _surrogate_in(value) is not None:
                return False
        elif type(value) is int:
            if value.bit_length() > SAFE_INT_BITS:  # long: the careful pass looks closer
                return False
        elif type(value) is bool or value is None:
            continue
        elif type(value) is float:
            if not _isfinite(value):
                return False
        elif level >= MAX_DEPTH:
            return False
        elif type(value) is FrozenJsonObject:
            # The package's own view: checked when it was made, but its depth counts from here.
            if not _frozen_members(value, level + 1):
                return False
        else:
            record = plain_str_keyed_dict(value, _surrogate_in)
            if record is not None:
                if not _json_members(list(record.values()), level + 1):
                    return False
                continue
            items = exact_sequence_items(value)
            if items is None or not _json_members(items, level + 1):
                return False
    return True


def _text(value: object) -> bool:
    return type(value) is str and (_isascii(value) or _surrogate_in(value) is None)


def _identifier(value: object) -> bool:
    return type(value) is str and value != "" and (_isascii(value) or _surrogate_in(value) is None)


def transcript_is_valid(value: object, *, check_linkage: bool = True) -> bool:
    """True only if `validate_transcript(value)` is surely `()`; false means: look closer.

    With `check_linkage=False`, true only if it surely has no shape diagnostic.
    """
    try:
        return _transcript_is_valid(value, check_linkage)
    except TypeError:
        # The compiled build checks a struct field's annotation when it reads it; a struct
        # made unchecked (a field of another type) ends up here: look closer.
        return False


def _transcript_is_valid(value: object, check_linkage: bool) -> bool:
    messages = exact_sequence_items(value)
    if messages is None:
        return False
    pending: dict[str, str] = {}
    seen: set[str] = set()
    for message in messages:
        if type(message) is ToolResultMessage:
            # Struct fields are checked inline: a call per field would be most of the cost.
            # Each field as what the struct holds, whatever its annotation says (a struct can be
            # made unchecked; compiled code would otherwise check the annotation on reading).
            message_id, call_id, tool_name, content = (
                message.id,
                message.tool_call_id,
                message.tool_name,
                message.content,
            )
            is_error: object = message.is_error
            if (
                type(message_id) is not str
                or type(call_id) is not str
                or type(tool_name) is not str
                or type(content) is not str
                or type(is_error) is not bool
                or not message_id
                or not call_id
                or not tool_name
            ):
                return False
            meta: object = message.meta_json  # inline, as below: a call per field is most of the cost
            if (not (meta is NO_META or (type(meta) is _Raw and meta and _raw_object(meta, optional=True)))) or (
                check_linkage and pending.pop(call_id, None) != tool_name
            ):
                return False
            if not (_isascii(content) and _isascii(message_id) and _isascii(call_id) and _isascii(tool_name)) and (
                _surrogate_in(message_id + call_id + tool_name + content) is not None
            ):
                return False
        elif type(message) is AssistantMessage:
            assistant_id: object = message.id
            assistant_meta: object = message.meta_json
            blocks: object = message.content
            if (
                type(assistant_id) is not str
                or not assistant_id
                or not (_isascii(assistant_id) or _surrogate_in(assistant_id) is None)
                or not (
                    assistant_meta is NO_META
                    or (type(assistant_meta) is _Raw and assistant_meta and _raw_object(assistant_meta, optional=True))
                )
                or type(blocks) is not tuple
                or not _struct_blocks(list(blocks), pending, seen, check_linkage)
            ):
                return False
        elif type(message) is UserMessage:
            user_id, text = message.id, message.content
            if type(user_id) is not str or type(text) is not str or not user_id:
                return False
            user_meta: object = message.meta_json
            if not (
                user_meta is NO_META
                or (type(user_meta) is _Raw and user_meta and _raw_object(user_meta, optional=True))
            ):
                return False
            if not (_isascii(text) and _isascii(user_id)) and _surrogate_in(user_id + text) is not None:
                return False
        else:
            record = str_keyed_dict(message)
            if record is None or not _json_message(record, pending, seen, check_linkage):
                return False
    return not check_linkage or not pending


def _field(holder: object, name: str) -> object:
    """An attribute of one of the package's own structs or objects as what it holds, whatever
    its annotation says: read untyped, so that compiled code does not check the annotation on
    reading (a struct can be made unchecked, a frozen object tampered with)."""
    value: object = getattr(holder, name)
    return value


def _meta_ok(meta: object) -> bool:
    """A struct's `meta` text: `NO_META` (the one empty `msgspec.Raw` the encoder omits), or a
    `msgspec.Raw` holding a JSON object."""
    return meta is NO_META or (type(meta) is _Raw and bool(meta) and _raw_object(meta, optional=True))


def _json_message(message: dict[str, object], pending: dict[str, str], seen: set[str], check_linkage: bool) -> bool:
    role = message.get("role")
    if type(role) is not str or not _identifier(message.get("id")):
        return False
    if role == "user":
        return _text(message.get("content")) and (len(message) == _USER_KEYS or _keys_fit(message, _USER_KEYS))
    if role == "assistant":
        return _json_blocks(message.get("content"), pending, seen, check_linkage) and _keys_fit(
            message, _ASSISTANT_KEYS
        )
    if role == "toolResult":
        call_id = message.get("toolCallId")
        tool_name = message.get("toolName")
        return not (
            (len(message) != _RESULT_KEYS and not _keys_fit(message, _RESULT_KEYS))
            or type(call_id) is not str
            or not _identifier(call_id)
            or not _identifier(tool_name)
            or not _text(message.get("content"))
            or type(message.get("isError")) is not bool
            or (pending.pop(call_id, None) != tool_name and check_linkage)
        )
    return False


def _json_blocks(content: object, pending: dict[str, str], seen: set[str], check_linkage: bool) -> bool:
    blocks = exact_sequence_items(content)
    if blocks is None:
        return False
    for item in blocks:
        block = str_keyed_dict(item)
        if block is None:
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
        call_id, name = block.get("id"), block.get("name")
        if type(call_id) is not str or type(name) is not str:
            return False
        if not _identifier(call_id) or not _identifier(name) or (call_id in seen and check_linkage):
            return False
        if not _json_object(block.get("arguments")):
            return False
        seen.add(call_id)
        pending[call_id] = name
    return True


def _struct_blocks(blocks: list[object], pending: dict[str, str], seen: set[str], check_linkage: bool) -> bool:
    """An assistant message's blocks (listed from its exact `tuple`), checked as `_meta_ok` and
    `_text` check, inline: a call per field would be most of the cost."""
    for block in blocks:
        if type(block) is TextBlock:
            text: object = block.text
            text_meta: object = block.meta_json
            if (
                type(text) is not str
                or not (_isascii(text) or _surrogate_in(text) is None)
                or not (
                    text_meta is NO_META
                    or (type(text_meta) is _Raw and text_meta and _raw_object(text_meta, optional=True))
                )
            ):
                return False
            continue
        if type(block) is OpaqueBlock:
            if (
                not _identifier(block.format)
                or not _identifier(block.kind)
                or not _raw_object(block.data_json, optional=False)
                or not _meta_ok(block.meta_json)
            ):
                return False
            continue
        if type(block) is not ToolCall:
            return False
        call_meta: object = block.meta_json
        if not (
            call_meta is NO_META or (type(call_meta) is _Raw and call_meta and _raw_object(call_meta, optional=True))
        ):
            return False
        call_id, name = block.id, block.name
        raw: object = block.arguments_json
        if type(call_id) is not str or type(name) is not str or not call_id or not name:
            return False
        if not (_isascii(call_id) and _isascii(name)) and _surrogate_in(call_id + name) is not None:
            return False
        if type(raw) is not msgspec.Raw or (  # the type first: an unmarked call's mark is `None`
            instance_dict(block).get(CHECKED_KEY) is not raw and not is_arguments_text(raw)  # not made by the package
        ):
            return False
        if check_linkage:
            if call_id in seen:
                return False
            seen.add(call_id)
            pending[call_id] = name
    return True


def copy_json_object(value: object) -> dict[str, object] | None:
    """A plain deep copy of tool arguments (a `dict` or `FrozenJsonObject`) if they surely
    satisfy the JSON rule, else `None`, after which `check_json_tree` finds the problem.

    Every container is listed once (`list(...)` of an exact builtin, a single C call), its
    keys and members are checked in that listing and copied from it, so what is checked is
    what is kept, whatever else happens meanwhile.
    """
    items = exact_dict_items(_field(value, "_items") if type(value) is FrozenJsonObject else value)
    return None if items is None else _copy_object(items, 1, False)


def frozen_json_copy(value: object) -> FrozenJsonObject | None:
    """`copy_json_object`, the copy made read-only as it is made (objects as `FrozenJsonObject`,
    arrays as tuples): what freezing the plain copy gives, in one walk instead of two."""
    items = exact_dict_items(_field(value, "_items") if type(value) is FrozenJsonObject else value)
    copy = None if items is None else _copy_object(items, 1, True)
    return None if copy is None else frozen_from_copy(copy)


def _container_copy(value: object, level: int, frozen: bool) -> object:
    """The copy of a member of a container at `level` that is not a JSON scalar: an object or
    an array within `MAX_DEPTH` (read-only when `frozen`), else `None`."""
    if level >= MAX_DEPTH:
        return None
    items = exact_dict_items(_field(value, "_items") if type(value) is FrozenJsonObject else value)
    if items is not None:
        copy = _copy_object(items, level + 1, frozen)
        return frozen_from_copy(copy) if frozen and copy is not None else copy
    elements = exact_sequence_items(value)
    if elements is None:
        return None
    copied = _copy_array(elements, level + 1, frozen)
    return tuple(copied) if frozen and copied is not None else copied


# The two loops below check the scalars inline (a call per member would be most of the cost),
# and each key's type before the key is hashed into the copy.


def _copy_object(items: list[tuple[object, object]], level: int, frozen: bool) -> dict[str, object] | None:
    """The copy of a JSON object's listed items at `level`: each key an exact `str` without a
    lone surrogate, each value a JSON value (its containers read-only when `frozen`)."""
    copy: dict[str, object] = {}
    for key, value in items:
        if type(key) is not str or (not _isascii(key) and _surrogate_in(key) is not None):
            return None
        if type(value) is str:
            if not _isascii(value) and _surrogate_in(value) is not None:
                return None
            copy[key] = value
        elif type(value) is int:
            if value.bit_length() > SAFE_INT_BITS:
                return None
            copy[key] = value
        elif type(value) is bool or value is None:
            copy[key] = value
        elif type(value) is float:
            if not _isfinite(value):
                return None
            copy[key] = value
        else:
            member = _container_copy(value, level, frozen)
            if member is None:
                return None
            copy[key] = member
    return copy


def _copy_array(elements: list[object], level: int, frozen: bool) -> list[object] | None:
    """The copy of a JSON array's listed elements at `level` (its containers read-only when `frozen`)."""
    copy: list[object] = []
    for value in elements:
        if type(value) is str:
            if not _isascii(value) and _surrogate_in(value) is not None:
                return None
            copy.append(value)
        elif type(value) is int:
            if value.bit_length() > SAFE_INT_BITS:
                return None
            copy.append(value)
        elif type(value) is bool or value is None:
            copy.append(value)
        elif type(value) is float:
            if not _isfinite(value):
                return None
            copy.append(value)
        else:
            member = _container_copy(value, level, frozen)
            if member is None:
                return None
            copy.append(member)
    return copy
