"""The fast path of `check-dataset` for chat-shaped lines (OpenAI Chat fine-tuning records,
Hugging Face chat rows): is this line surely clean? (`_fast_line` says what a fast path is.)

It takes the plain shape only: a body `{"messages": [...], "tools": [...]}` (or the list of
messages alone, as `check` takes it), string contents, calls with an `id` whose results are
the `tool` messages right after them, tools read as the careful path reads them. Anything
else (a list content, a call without an ID, legacy `functions`, ...) goes to the careful
path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import msgspec

from message_ir.adapters import _fast_line
from message_ir.adapters._ids import IdRule
from message_ir.adapters._tools import ToolReader

_USER_ROLES: Final = ("system", "developer", "user")
_NULL: Final = msgspec.Raw(b"null")


class _TextFunction(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    name: str
    arguments: str  # OpenAI Chat: JSON text


class _ObjectFunction(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    name: str
    arguments: msgspec.Raw  # chat templates: the object itself


class _TextCall(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    id: str
    function: _TextFunction
    type: str  # OpenAI Chat requires it


class _ObjectCall(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    id: str
    function: _ObjectFunction
    type: str = "function"  # chat templates: optional


class _Message(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    role: str
    content: str | None = None
    tool_call_id: str | None = None
    name: str | None = None
    weight: int | None = None  # OpenAI fine-tuning: whether to train on an assistant message


class _TextMessage(_Message, forbid_unknown_fields=True, gc=False):
    tool_calls: list[_TextCall] | None = None


class _ObjectMessage(_Message, forbid_unknown_fields=True, gc=False):
    tool_calls: list[_ObjectCall] | None = None


class _TextRecord(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    messages: list[_TextMessage]
    tools: msgspec.Raw = _NULL  # decoded once per distinct text (lines repeat their tools)
    parallel_tool_calls: bool | None = None


class _ObjectRecord(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    messages: list[_ObjectMessage]
    tools: msgspec.Raw = _NULL
    parallel_tool_calls: bool | None = None


_text_record: Final = msgspec.json.Decoder(_TextRecord | list[_TextMessage]).decode
_object_record: Final = msgspec.json.Decoder(_ObjectRecord | list[_ObjectMessage]).decode


def chat_fast_path(tools: ToolReader, rule: IdRule, *, text_arguments: bool) -> Callable[[bytes], bool]:
    """The fast path of a chat-shaped format: its calls' `arguments` are JSON text
    (`text_arguments`) or the object itself, its IDs follow `rule`, and `tools` reads its
    declarations."""
    decode: Callable[[bytes], _TextRecord | _ObjectRecord | list[_TextMessage] | list[_ObjectMessage]] = (
        _text_record if text_arguments else _object_record
    )

    def is_clean(line: bytes) -> bool:
        """Whether the careful path would find nothing wrong with this line, when it can
        tell quickly; `False` means "ask the careful path"."""
        try:
            record = decode(line)
        except _fast_line.REFUSED:
            return False
        if isinstance(record, list):  # the messages alone (as `check` takes them): no tools declared
            messages: list[_TextMessage] | list[_ObjectMessage] = record
            linkage = _fast_line.linkage(tools, _NULL, rule)
        else:
            messages = record.messages
            linkage = _fast_line.linkage(tools, record.tools, rule)
        if linkage is None:
            return False
        for message in messages:
            role = message.role
            if role == "tool":
                if message.tool_call_id is None or message.content is None:
                    return False
                if not linkage.result(message.tool_call_id, message.name):
                    return False
            elif role in _USER_ROLES:
                if (
                    not linkage.message()
                    or message.content is None
                    or message.tool_calls is not None
                    or message.tool_call_id is not None
                ):
                    return False
            elif role == "assistant":
                if not linkage.assistant() or message.tool_call_id is not None:
                    return False
                calls = message.tool_calls
                if not calls:
                    if message.content is None:
                        return False
                    continue
                for call in calls:
                    function = call.function
                    arguments = function.arguments
                    given = arguments if isinstance(arguments, str) else bytes(arguments)
                    if call.type != "function" or not linkage.call(call.id, function.name, given):
                        return False
            else:
                return False
        return linkage.end()

    return is_clean
