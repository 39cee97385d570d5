"""The constructors (spec §3): the snapshot boundary between caller data and the IR.

Each constructor checks the exact type of a value before it uses it, reads every field
once, copies what it keeps and freezes the copy. Nothing the caller wrote runs here: a
subclass of a builtin is refused by its type before it is iterated, hashed or compared.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, NoReturn, TypeAlias

import msgspec
from typing_extensions import TypedDict

from message_ir._errors import ConstructionError
from message_ir._fast_path import copy_json_object
from message_ir._field_rules import (
    bool_problem,
    identifier_problem,
    missing_field,
    text_problem,
    unknown_field,
)
from message_ir._json_values import (
    FrozenJsonObject,
    JsonInput,
    arguments_text,
    check_json_tree,
    type_name,
)
from message_ir._model import (
    AssistantBlock,
    AssistantMessage,
    TextBlock,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    checked_tool_call,
    is_marked_checked,
)
from message_ir._paths import PathSegment, join_path
from message_ir._untyped import encode_json, exact_dict_items, exact_sequence_items


class TextBlockInput(TypedDict):
    """A text block as `assistant_message` takes it."""

    type: Literal["text"]
    text: str


class ToolCallInput(TypedDict):
    """A tool call as `assistant_message` takes it."""

    type: Literal["toolCall"]
    id: str
    name: str
    arguments: Mapping[str, JsonInput]


BlockInput: TypeAlias = TextBlockInput | ToolCallInput | TextBlock | ToolCall
"""What `assistant_message` takes as one block."""


def _fail(function: str, segments: Sequence[PathSegment], problem: str) -> NoReturn:
    raise ConstructionError(function, join_path("$", segments), problem)


def _check(function: str, segments: Sequence[PathSegment], problem: str | None) -> None:
    if problem is not None:
        _fail(function, segments, problem)


def user_message(*, id: str, content: str) -> UserMessage:
    """A user message. Raises `ConstructionError` (a `TypeError`) on bad input."""
    _check("user_message", ("id",), identifier_problem(id))
    _check("user_message", ("content",), text_problem(content))
    return UserMessage(id=id, content=content)


def tool_result_message(
    *, id: str, tool_call_id: str, tool_name: str, content: str, is_error: bool = False
) -> ToolResultMessage:
    """The result of the tool call `tool_call_id`. Raises `ConstructionError` on bad input."""
    function = "tool_result_message"
    _check(function, ("id",), identifier_problem(id))
    _check(function, ("toolCallId",), identifier_problem(tool_call_id))
    _check(function, ("toolName",), identifier_problem(tool_name))
    _check(function, ("content",), text_problem(content))
    _check(function, ("isError",), bool_problem(is_error))
    return ToolResultMessage(id=id, tool_call_id=tool_call_id, tool_name=tool_name, content=content, is_error=is_error)


def text_block(*, text: str) -> TextBlock:
    """A text block. Raises `ConstructionError` on bad input."""
    _check("text_block", ("text",), text_problem(text))
    return TextBlock(text=text)


def tool_call(*, id: str, name: str, arguments: Mapping[str, JsonInput]) -> ToolCall:
    """A tool call with a snapshot of `arguments`. Raises `ConstructionError` on bad input."""
    return _tool_call("tool_call", (), id, name, arguments)


def assistant_message(*, id: str, content: Sequence[BlockInput]) -> AssistantMessage:
    """An assistant message with its blocks in the order given.

    Each block is a JSON-shaped dict (`{"type": "text", "text": ...}` or
    `{"type": "toolCall", "id": ..., "name": ..., "arguments": {...}}`) or an existing
    `TextBlock` / `ToolCall`. Raises `ConstructionError` (a `TypeError`) on bad input.
    """
    function = "assistant_message"
    _check(function, ("id",), identifier_problem(id))
    elements = exact_sequence_items(content)
    if elements is None:
        _fail(function, ("content",), f"Expected `list` or `tuple` of blocks, got `{type_name(content)}`")
    blocks = [_block(function, index, block) for index, block in enumerate(elements)]
    return AssistantMessage(id=id, content=tuple(blocks))


def _block(function: str, index: int, block: object) -> AssistantBlock:
    where: tuple[PathSegment, ...] = ("content", index)
    if type(block) is TextBlock:
        _check(function, (*where, "text"), text_problem(block.text))
        return block
    if type(block) is ToolCall:
        return _existing_tool_call(function, where, block)
    items = exact_dict_items(block)
    if items is None:
        _fail(function, where, f"Expected a block (`dict`, `TextBlock` or `ToolCall`), got `{type_name(block)}`")
    fields: dict[str, object] = {}
    for key, value in items:
        if type(key) is not str or key not in ("type", "text", "id", "name", "arguments"):
            _fail(function, where, unknown_field(key))
        fields[key] = value
    if "type" not in fields:
        _fail(function, where, missing_field("type"))
    block_type = fields.pop("type")
    if type(block_type) is str and block_type == "text":
        for key in fields:
            if key != "text":
                _fail(function, where, unknown_field(key))
        if "text" not in fields:
            _fail(function, where, missing_field("text"))
        text = fields["text"]
        _check(function, (*where, "text"), text_problem(text))
        assert type(text) is str  # checked just above
        return TextBlock(text=text)
    if type(block_type) is str and block_type == "toolCall":
        if "text" in fields:
            _fail(function, where, unknown_field("text"))
        for name in ("id", "name", "arguments"):
            if name not in fields:
                _fail(function, where, missing_field(name))
        return _tool_call(function, where, fields["id"], fields["name"], fields["arguments"])
    if type(block_type) is not str:
        _fail(function, (*where, "type"), f"Expected `str`, got `{type_name(block_type)}`")
    _fail(function, (*where, "type"), f"Invalid block type {block_type!r}; expected `text` or `toolCall`")


def _tool_call(function: str, where: tuple[PathSegment, ...], id: object, name: object, arguments: object) -> ToolCall:
    _check(function, (*where, "id"), identifier_problem(id))
    _check(function, (*where, "name"), identifier_problem(name))
    assert type(id) is str  # checked just above
    assert type(name) is str
    if type(arguments) is not dict and type(arguments) is not FrozenJsonObject:
        _fail(function, (*where, "arguments"), f"Expected `dict`, got `{type_name(arguments)}`")
    copy: dict[str, object] | list[object] | None = copy_json_object(arguments)
    if copy is None:  # not surely fine: the careful walk says what is wrong, or copies
        problem, copy = check_json_tree(arguments, copy=True)
        if problem is not None:
            _fail(function, (*where, "arguments", *problem.segments), problem.message)
    return checked_tool_call(id, name, msgspec.Raw(encode_json(copy)))


def _existing_tool_call(function: str, where: tuple[PathSegment, ...], call: ToolCall) -> ToolCall:
    call_id, name, arguments_json = call.id, call.name, call.arguments_json
    _check(function, (*where, "id"), identifier_problem(call_id))
    _check(function, (*where, "name"), identifier_problem(name))
    if is_marked_checked(call):
        return call
    if type(arguments_json) is not msgspec.Raw:
        _fail(function, (*where, "arguments"), f"Expected `msgspec.Raw`, got `{type_name(arguments_json)}`")
    canonical, problem = arguments_text(arguments_json, syntax_checked=False)
    if canonical is None:
        _fail(function, (*where, "arguments"), problem or "Invalid arguments")
    assert type(call_id) is str  # checked above
    assert type(name) is str
    return checked_tool_call(call_id, name, msgspec.Raw(canonical))


def text_from_assistant(message: AssistantMessage) -> str:
    """The text blocks of `message` concatenated in order; tool calls are never rendered."""
    return "".join([block.text for block in message.content if type(block) is TextBlock])
