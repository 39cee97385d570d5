"""Hugging Face chat rows (`{"messages": [...], "tools": [...]}`, as chat templates and TRL
take them): in and out of the IR, losslessly.

The messages have OpenAI Chat's shape (`role`, `content`, an assistant's `tool_calls`, `tool`
messages), with the differences chat templates make: a call's `function.arguments` is the
JSON *object* itself, and a call's `id` and `type` are optional. A call without an `id` gets
one made up (`hf_chat_call_<message>_<n>`, with a `MADE_UP_CALL_ID` note, never written back),
and a `tool` message without `tool_call_id` answers the earliest unanswered call of its
`name` (of any name when it has none): pairing by order, as templates do. `tools` is a list
of function declarations (`{"type": "function", "function": {...}}`, or the function itself)
or JSON text holding one, as datasets often store it.

Arguments given as JSON text load (the text kept, written back as it was) and are
`BAD_TOOL_ARGUMENTS` in `check`: a chat template encodes them again, and the model learns a
string. `load` takes the bare list of messages or the row; `dump` gives back the same form.
"""

from __future__ import annotations

from typing import Final

import message_ir as ir
from message_ir.adapters import _chat, _checks, _tools
from message_ir.adapters._chat import Dialect
from message_ir.adapters._conversation import Conversation
from message_ir.adapters._fast_dataset_line import chat_fast_path
from message_ir.adapters._format import Format, Recognize
from message_ir.adapters._functions import format_functions, provider_words
from message_ir.adapters._ids import any_id
from message_ir.adapters._json import as_array, as_object
from message_ir.adapters._load_state import LoadState, Origins
from message_ir.adapters._tools import ToolDeclaration, ToolReader

NAME: Final = "hf_chat"


def _declared_tool(tool: dict[str, object], path: str) -> list[ToolDeclaration]:
    """One item of a row's `tools`: `{"type": "function", "function": {...}}` or the function."""
    if "function" in tool:
        return [_tools.function(as_object(tool.get("function")), path + ".function", "parameters")]
    return [_tools.function(tool, path, "parameters")]


_TOOLS: Final = ToolReader(_declared_tool, ".function.name", ".function.arguments", text=True)
_DIALECT: Final = Dialect(NAME, text_arguments=False, optional_ids=True, tools=_TOOLS)


def _read(source: object, avoid: frozenset[str], trusted: bool) -> LoadState:
    return _chat.read(_DIALECT, source, avoid, trusted)


def _dump(conversation: Conversation) -> object:
    return _chat.write(_DIALECT, conversation)


def _rules(conversation: Conversation, origins: Origins) -> list[ir.Diagnostic]:
    """A chat template's rule beyond the IR's: a call's results come right after it."""
    return _checks.adjacency(conversation, origins, merge_turns=False)


def _recognizes_record(record: dict[str, object]) -> bool:
    """A `tool` message without `tool_call_id`, or a call without an `id` or with an object
    as its arguments: only chat-template rows have them."""
    if record.get("role") == "tool":
        return "tool_call_id" not in record and "tool_call_ids" not in record and "parts" not in record
    for item in as_array(record.get("tool_calls")) or ():
        call = as_object(item)
        function = None if call is None else as_object(call.get("function"))
        if call is not None and (
            "id" not in call or (function is not None and type(function.get("arguments")) is dict)
        ):
            return True
    return False


_WORDS: Final = provider_words(
    "Hugging Face chat rows (`messages` and `tools`, as chat templates and TRL take them)",
    "a Hugging Face chat row",
    "a chat template or a trainer would trip on",
    "messages",
)
_ID_RULE: Final = any_id("Hugging Face chat rows take any ID, or none")
_FAST: Final = chat_fast_path(_TOOLS, _ID_RULE, text_arguments=False)
_FUNCTIONS: Final = format_functions(NAME, _read, _dump, _rules, _WORDS, json_lines=False, fast=_FAST)
FORMAT: Final = Format(
    _FUNCTIONS,
    id_rule=_ID_RULE,
    recognize=Recognize(record=_recognizes_record),
    raw_arguments="arguments",
    tools=_TOOLS,
    dataset_line=True,
    messages_key="messages",
    fast_path=_FAST,
)
"""The declaration of the format (`message_ir.adapters.FORMATS` lists it)."""

load, dump, dumps, check = _FUNCTIONS.unpacked()

__all__ = ["FORMAT", "NAME", "check", "dump", "dumps", "load"]
