"""The constructors: the snapshot boundary between caller data and the IR.

Each constructor checks the exact type of a value before it uses it, reads every field
once, copies what it keeps and freezes the copy. Nothing the caller wrote runs here: a
subclass of a builtin is refused by its type before it is iterated, hashed or compared.
Every constructor takes an optional `meta` (a JSON object, snapshotted like tool arguments).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, NoReturn, TypeAlias

import msgspec
from typing_extensions import NotRequired, TypedDict

from message_ir._argument_text import arguments_text
from message_ir._errors import ConstructionError
from message_ir._fast_path import copy_json_object, frozen_json_copy
from message_ir._field_rules import (
    bool_problem,
    identifier_problem,
    missing_field,
    text_problem,
    unknown_field,
)
from message_ir._frozen_values import FrozenJsonObject, JsonInput, freeze_decoded
from message_ir._json_rule import check_json_tree, type_name
from message_ir._model import (
    NO_META,
    AssistantBlock,
    AssistantMessage,
    OpaqueBlock,
    TextBlock,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    checked_tool_call,
    is_marked_checked,
)
from message_ir._paths import PathSegment, join_path
from message_ir._untyped import encode_json, exact_dict_items, exact_sequence_items
from message_ir._wire import BLOCK_NAMES, BLOCKS, META


class TextBlockInput(TypedDict):
    """A text block as `assistant_message` takes it."""

    type: Literal["text"]
    text: str
    meta: NotRequired[Mapping[str, JsonInput]]


class ToolCallInput(TypedDict):
    """A tool call as `assistant_message` takes it."""

    type: Literal["toolCall"]
    id: str
    name: str
    arguments: Mapping[str, JsonInput]
    meta: NotRequired[Mapping[str, JsonInput]]


class OpaqueBlockInput(TypedDict):
    """An opaque block as `assistant_message` takes it."""

    type: Literal["opaque"]
    format: str
    kind: str
    data: Mapping[str, JsonInput]
    meta: NotRequired[Mapping[str, JsonInput]]


BlockInput: TypeAlias = TextBlockInput | ToolCallInput | OpaqueBlockInput | TextBlock | ToolCall | OpaqueBlock
"""What `assistant_message` takes as one block."""


def _fail(function: str, segments: Sequence[PathSegment], problem: str) -> NoReturn:
    raise ConstructionError(function, join_path("$", segments), problem)


def _check(function: str, segments: Sequence[PathSegment], problem: str | None) -> None:
    if problem is not None:
        _fail(function, segments, problem)


def user_message(*, id: str, content: str, meta: Mapping[str, JsonInput] | None = None) -> UserMessage:
    """A user message. Raises `ConstructionError` (a `TypeError`) on bad input."""
    function = "user_message"
    _check(function, ("id",), identifier_problem(id))
    _check(function, ("content",), text_problem(content))
    return UserMessage(id=id, content=content, meta_json=_meta(function, (), meta))


def tool_result_message(
    *,
    id: str,
    tool_call_id: str,
    tool_name: str,
    content: str,
    is_error: bool = False,
    meta: Mapping[str, JsonInput] | None = None,
) -> ToolResultMessage:
    """The result of the tool call `tool_call_id`. Raises `ConstructionError` on bad input."""
    function = "tool_result_message"
    _check(function, ("id",), identifier_problem(id))
    _check(function, ("toolCallId",), identifier_problem(tool_call_id))
    _check(function, ("toolName",), identifier_problem(tool_name))
    _check(function, ("content",), text_problem(content))
    _check(function, ("isError",), bool_problem(is_error))
    return ToolResultMessage(
        id=id,
        tool_call_id=tool_call_id,
        tool_name=tool_name,
        content=content,
        is_error=is_error,
        meta_json=_meta(function, (), meta),
    )


def text_block(*, text: str, meta: Mapping[str, JsonInput] | None = None) -> TextBlock:
    """A text block. Raises `ConstructionError` on bad input."""
    _check("text_block", ("text",), text_problem(text))
    return TextBlock(text=text, meta_json=_meta("text_block", (), meta))


def tool_call(
    *, id: str, name: str, arguments: Mapping[str, JsonInput], meta: Mapping[str, JsonInput] | None = None
) -> ToolCall:
    """A tool call with a snapshot of `arguments`. Raises `ConstructionError` on bad input."""
    return _tool_call("tool_call", (), id, name, arguments, _meta("tool_call", (), meta))


def opaque_block(
    *, format: str, kind: str, data: Mapping[str, JsonInput], meta: Mapping[str, JsonInput] | None = None
) -> OpaqueBlock:
    """An opaque block: `data` kept in place for the `format` that wrote it. Raises `ConstructionError`."""
    return _opaque_block("opaque_block", (), format, kind, data, _meta("opaque_block", (), meta))


def assistant_message(
    *, id: str, content: Sequence[BlockInput], meta: Mapping[str, JsonInput] | None = None
) -> AssistantMessage:
    """An assistant message with its blocks in the order given.

    Each block is a JSON-shaped dict (`{"type": "text", "text": ...}`,
    `{"type": "toolCall", "id": ..., "name": ..., "arguments": {...}}` or
    `{"type": "opaque", "format": ..., "kind": ..., "data": {...}}`, each with an optional
    `meta`) or an existing `TextBlock` / `ToolCall` / `OpaqueBlock`. Raises
    `ConstructionError` (a `TypeError`) on bad input.
    """
    function = "assistant_message"
    _check(function, ("id",), identifier_problem(id))
    elements = exact_sequence_items(content)
    if elements is None:
        _fail(function, ("content",), f"Expected `list` or `tuple` of blocks, got `{type_name(content)}`")
    blocks = [_block(function, index, block) for index, block in enumerate(elements)]
    return AssistantMessage(id=id, content=tuple(blocks), meta_json=_meta(function, (), meta))


def _block(function: str, index: int, block: object) -> AssistantBlock:
    where: tuple[PathSegment, ...] = ("content", index)
    if type(block) is TextBlock:
        _check(function, (*where, "text"), text_problem(block.text))
        _existing_meta(function, where, block.meta_json)
        return block
    if type(block) is ToolCall:
        return _existing_tool_call(function, where, block)
    if type(block) is OpaqueBlock:
        return _existing_opaque_block(function, where, block)
    items = exact_dict_items(block)
    if items is None:
        _fail(
            function,
            where,
            f"Expected a block (`dict`, `TextBlock`, `ToolCall` or `OpaqueBlock`), got `{type_name(block)}`",
        )
    fields: dict[str, object] = {}
    for key, value in items:
        if type(key) is not str:
            _fail(function, where, unknown_field(key))
        fields[key] = value
    if "type" not in fields:
        _fail(function, where, missing_field("type"))
    block_type = fields["type"]
    if type(block_type) is not str:
        _fail(function, (*where, "type"), f"Expected `str`, got `{type_name(block_type)}`")
    record = BLOCKS.get(block_type)
    if record is None:
        _fail(function, (*where, "type"), f"Invalid type {block_type!r}; expected one of {BLOCK_NAMES}")
    for key in fields:
        if key not in record.keys:
            _fail(function, (*where, key), unknown_field(key))
    for field in record.fields:
        if field.required and field.wire_name not in fields:
            _fail(function, where, missing_field(field.wire_name))
    meta = _meta(function, where, fields.get(META))
    if block_type == "text":
        text = fields["text"]
        _check(function, (*where, "text"), text_problem(text))
        assert type(text) is str  # checked just above
        return TextBlock(text=text, meta_json=meta)
    if block_type == "opaque":
        return _opaque_block(function, where, fields["format"], fields["kind"], fields["data"], meta)
    return _tool_call(function, where, fields["id"], fields["name"], fields["arguments"], meta)


def _json_copy(function: str, where: tuple[PathSegment, ...], value: object) -> dict[str, object] | list[object]:
    """A plain deep copy of a JSON object (a `dict` or `FrozenJsonObject`, one inside becoming
    a plain dict), checked by the JSON rule as it is made; the careful walk only on doubt."""
    if type(value) is not dict and type(value) is not FrozenJsonObject:
        _fail(function, where, f"Expected `dict`, got `{type_name(value)}`")
    copy: dict[str, object] | list[object] | None = copy_json_object(value)
    if copy is None:  # not surely fine: the careful walk says what is wrong, or copies
        problem, copy = check_json_tree(value, copy=True)
        if problem is not None:
            _fail(function, (*where, *problem.segments), problem.message)
    assert copy is not None  # the careful walk copies what it accepts
    return copy


def _json_object(function: str, where: tuple[PathSegment, ...], value: object) -> msgspec.Raw:
    """A snapshot of a JSON object (a `dict` or `FrozenJsonObject`) as compact JSON text."""
    return msgspec.Raw(encode_json(_json_copy(function, where, value)))


def _meta(function: str, where: tuple[PathSegment, ...], meta: object) -> msgspec.Raw:
    """The snapshot of an optional `meta` argument (`None`: no meta)."""
    if meta is None:
        return NO_META
    return _json_object(function, (*where, META), meta)


def _tool_call(
    function: str, where: tuple[PathSegment, ...], id: object, name: object, arguments: object, meta: msgspec.Raw
) -> ToolCall:
    if type(id) is not str or not id or not id.isascii():  # else surely an identifier
        _check(function, (*where, "id"), identifier_problem(id))
    if type(name) is not str or not name or not name.isascii():
        _check(function, (*where, "name"), identifier_problem(name))
    assert type(id) is str  # checked just above
    assert type(name) is str
    return checked_tool_call(id, name, _json_object(function, (*where, "arguments"), arguments), meta)


def _opaque_block(
    function: str, where: tuple[PathSegment, ...], format: object, kind: object, data: object, meta: msgspec.Raw
) -> OpaqueBlock:
    _check(function, (*where, "format"), identifier_problem(format))
    _check(function, (*where, "kind"), identifier_problem(kind))
    assert type(format) is str  # checked just above
    assert type(kind) is str
    return OpaqueBlock(
        format=format, kind=kind, data_json=_json_object(function, (*where, "data"), data), meta_json=meta
    )


def _existing_text(function: str, where: tuple[PathSegment, ...], raw: object, *, optional: bool) -> msgspec.Raw:
    """The JSON object text of a struct built elsewhere (perhaps directly), checked and canonical."""
    if type(raw) is not msgspec.Raw:
        _fail(function, where, f"Expected `msgspec.Raw`, got `{type_name(raw)}`")
    if optional and not raw:
        return raw
    canonical, problem = arguments_text(raw, syntax_checked=False)
    if canonical is None:
        _fail(function, where, problem or "Invalid JSON object")
    return raw if canonical == bytes(raw) else msgspec.Raw(canonical)


def _existing_meta(function: str, where: tuple[PathSegment, ...], meta_json: object) -> msgspec.Raw:
    return _existing_text(function, (*where, META), meta_json, optional=True)


def _existing_tool_call(function: str, where: tuple[PathSegment, ...], call: ToolCall) -> ToolCall:
    call_id, name, arguments_json, meta_json = call.id, call.name, call.arguments_json, call.meta_json
    _check(function, (*where, "id"), identifier_problem(call_id))
    _check(function, (*where, "name"), identifier_problem(name))
    meta = _existing_meta(function, where, meta_json)
    if is_marked_checked(call) and meta is meta_json:
        return call
    arguments = _existing_text(function, (*where, "arguments"), arguments_json, optional=False)
    assert type(call_id) is str  # checked above
    assert type(name) is str
    return checked_tool_call(call_id, name, arguments, meta)


def _existing_opaque_block(function: str, where: tuple[PathSegment, ...], block: OpaqueBlock) -> OpaqueBlock:
    format, kind, data_json, meta_json = block.format, block.kind, block.data_json, block.meta_json
    _check(function, (*where, "format"), identifier_problem(format))
    _check(function, (*where, "kind"), identifier_problem(kind))
    data = _existing_text(function, (*where, "data"), data_json, optional=False)
    meta = _existing_meta(function, where, meta_json)
    if data is data_json and meta is meta_json:
        return block
    assert type(format) is str  # checked above
    assert type(kind) is str
    return OpaqueBlock(format=format, kind=kind, data_json=data, meta_json=meta)


def frozen_json_object(value: Mapping[str, JsonInput]) -> FrozenJsonObject:
    """A read-only deep snapshot of a JSON object (a `dict`, or a `FrozenJsonObject` as it is).

    The value is checked by the JSON rule (the one the constructors apply to tool arguments):
    anything else raises `ConstructionError`, a `TypeError`, naming the path.
    """
    if type(value) is FrozenJsonObject:
        return value
    made = frozen_json_copy(value)  # checked and frozen in one walk
    if made is not None:
        return made
    frozen = freeze_decoded(_json_copy("frozen_json_object", (), value))  # the careful walk says what is wrong
    assert type(frozen) is FrozenJsonObject  # a dict freezes to one
    return frozen


def text_from_assistant(message: AssistantMessage) -> str:
    """The text blocks of `message` concatenated in order; tool calls are never rendered."""
    return "".join([block.text for block in message.content if type(block) is TextBlock])
