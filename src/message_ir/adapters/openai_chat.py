"""OpenAI Chat Completions `messages`: in and out of the IR, losslessly, with OpenAI's rules.

`load` takes JSON text or the parsed value: the bare `messages` list, or a request body
`{"messages": [...], ...}`; `dump` gives back the same form. How each record maps:

- `system` / `developer` messages become `Conversation.instructions`, put back in place;
- `user` → `UserMessage` (text parts joined by a newline; the parts kept in `meta`);
- `assistant` → `AssistantMessage`: its text (`content`) first, then its `tool_calls` as
  `ToolCall`s (content parts other than text become `OpaqueBlock`s in place);
- `tool` → `ToolResultMessage` answering `tool_call_id` (SWE-agent's one-element
  `tool_call_ids` is read too); without a `name`, the tool name is the call's.

`arguments` is a JSON *string* on the wire: the IR holds the object, and `meta` keeps the
string when it is not msgspec's compact encoding of that object. A string that is not a JSON
object loads as `{}` with the string kept, a `Note`, and `BAD_TOOL_ARGUMENTS` from `check`.
A call ID used again in a later turn (pairing is by adjacency there) is renamed on load with
a `Note` and restored by `dump`. Message IDs are made up from positions (`m0`, `m1`, ...).
"""

from __future__ import annotations

from typing import Final

import message_ir as ir
from message_ir.adapters import _chat, _checks, _load_state, _tools
from message_ir.adapters._chat import Dialect
from message_ir.adapters._conversation import Conversation
from message_ir.adapters._fast_dataset_line import chat_fast_path
from message_ir.adapters._format import Format, Recognize
from message_ir.adapters._functions import format_functions, provider_words
from message_ir.adapters._ids import ANY, IdRule
from message_ir.adapters._json import as_array, as_object
from message_ir.adapters._load_state import LoadState, Origins
from message_ir.adapters._tools import ToolDeclaration, ToolReader

NAME: Final = "openai_chat"
ID_RULE: Final = IdRule(40, ANY, "OpenAI Chat accepts at most 40")
"""The tool-call IDs its provider accepts."""


def _declared_tool(tool: dict[str, object], path: str) -> list[ToolDeclaration]:
    """One item of a body's `tools`: a function, or a custom tool (free input)."""
    if tool.get("type") == "function" or "function" in tool:
        return [_tools.function(as_object(tool.get("function")), path + ".function", "parameters")]
    custom = as_object(tool.get("custom"))
    return [_tools.named(custom, path + ".custom")] if custom is not None else []


_TOOLS: Final = ToolReader(_declared_tool, ".function.name", ".function.arguments", functions=True)
_DIALECT: Final = Dialect(NAME, text_arguments=True, optional_ids=False, tools=_TOOLS)


def _read(source: object, avoid: frozenset[str], trusted: bool) -> LoadState:
    return _chat.read(_DIALECT, source, avoid, trusted)


def _dump(conversation: Conversation) -> object:
    return _chat.write(_DIALECT, conversation)


# --- provider rules -----------------------------------------------------------------------


def _provider_rules(conversation: Conversation, origins: Origins) -> list[ir.Diagnostic]:
    """OpenAI's rules beyond the IR's: results right after their call, and the ID length."""
    found = _checks.id_rule_problems(origins, ID_RULE)
    found.extend(_checks.adjacency(conversation, origins, merge_turns=False))
    return found


def _recognizes_record(record: dict[str, object]) -> bool:
    """A `developer` message, a result answering a `tool_call_id`, or calls that all have an
    `id` and JSON text as their arguments (chat-template rows have none of these)."""
    if record.get("role") == "developer" or "tool_call_id" in record or "tool_call_ids" in record:
        return True
    calls = as_array(record.get("tool_calls"))
    return bool(calls) and all(_written_by_openai(item) for item in calls or ())


def _written_by_openai(item: object) -> bool:
    call = as_object(item)
    function = None if call is None else as_object(call.get("function"))
    return call is not None and "id" in call and function is not None and type(function.get("arguments")) is str


_WORDS: Final = provider_words(
    "OpenAI Chat Completions `messages` (a list, or a request body)",
    "OpenAI Chat data",
    "OpenAI would answer with a 400",
    "messages",
)
_TRAINER_RECORD_KEYS: Final = ("messages", "tools", "functions", "parallel_tool_calls")
_TRAINER_MESSAGE_KEYS: Final = ("role", "content", "name", "tool_calls", "tool_call_id", "function_call", "weight")


def _fine_tuning_keys(source: object) -> list[ir.Diagnostic]:
    """Keys of a training example (a dataset line) that OpenAI's fine-tuning does not take:
    the record's, and each message's (`weight` it takes: whether to learn from a message)."""
    value = _load_state.parsed(NAME, source) if type(source) is bytes or type(source) is str else source
    record = as_object(value)
    if record is None:
        return []  # a bare list of messages: no record keys to judge
    found = [
        ir.Diagnostic("UNKNOWN_KEY", None, f"$.{key}", f"`{key}` is not a key OpenAI fine-tuning takes in a record")
        for key in record
        if key not in _TRAINER_RECORD_KEYS
    ]
    for index, message in enumerate(as_array(record.get("messages")) or []):
        found.extend(
            ir.Diagnostic(
                "UNKNOWN_KEY",
                index,
                f"$.messages[{index}].{key}",
                f"`{key}` is not a key OpenAI fine-tuning takes in a message",
            )
            for key in as_object(message) or {}
            if key not in _TRAINER_MESSAGE_KEYS
        )
    return found


_FAST: Final = chat_fast_path(_TOOLS, ID_RULE, text_arguments=True)
_FUNCTIONS: Final = format_functions(
    NAME, _read, _dump, _provider_rules, _WORDS, json_lines=False, trainer=_fine_tuning_keys, fast=_FAST
)


FORMAT: Final = Format(
    _FUNCTIONS,
    id_rule=ID_RULE,
    recognize=Recognize(
        record=_recognizes_record, block_types=frozenset({"image_url", "input_audio", "refusal", "file"}), fallback=True
    ),
    raw_arguments="arguments",
    arguments_as_text=True,
    tools=_TOOLS,
    dataset_line=True,
    messages_key="messages",
    fast_path=_FAST,
)
"""The declaration of the format (`message_ir.adapters.FORMATS` lists it)."""

load, dump, dumps, check = _FUNCTIONS.unpacked()

__all__ = ["FORMAT", "NAME", "check", "dump", "dumps", "load"]
