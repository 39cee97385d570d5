"""Mistral chat `messages`: in and out of the IR, losslessly, with Mistral's rules.

Mistral's chat completions take OpenAI Chat's shape (`system` / `user` / `assistant` / `tool`
records, an assistant's `tool_calls`, `tool` records answering them by `tool_call_id`), read
and written as `openai_chat` does them; a call's `arguments` may be JSON text or the object
itself (Mistral takes both), and is written back in the form it was read. `load` takes the
bare list or a request body `{"messages": [...], ...}`.

Rules (`check`), each one Mistral answers with a 400:

- a call ID is exactly nine letters or digits (`BAD_TOOL_CALL_ID_FORMAT`; Mistral: "Tool
  call id was call_1 but must be a-z, A-Z, 0-9, with a length of 9.");
- a call's results are the `tool` messages right after it (`RESULT_NOT_ADJACENT`);
- no `user` message right after a `tool` message (`USER_AFTER_TOOL`; Mistral: "Unexpected
  role 'user' after role 'tool'"): an assistant message must come between them.

`convert` into Mistral rewrites IDs to nine letters and digits (collision-free) and puts an
assistant message saying `BRIDGE_TEXT` between a tool result and a user message right after
it, each with a note. Nothing in a Mistral body tells it from OpenAI Chat: `detect` never
answers `mistral`; name it (`--from mistral`).
"""

from __future__ import annotations

from typing import Final

import message_ir as ir
from message_ir.adapters import _chat, _checks
from message_ir.adapters._chat import Dialect
from message_ir.adapters._conversation import Conversation
from message_ir.adapters._format import Format, Recognize
from message_ir.adapters._functions import format_functions, provider_words
from message_ir.adapters._ids import ALNUM, IdRule
from message_ir.adapters._json import as_object
from message_ir.adapters._load_state import LoadState, Origins
from message_ir.adapters._tools import ToolDeclaration, ToolReader, function

NAME: Final = "mistral"
ID_RULE: Final = IdRule(9, ALNUM, "Mistral accepts exactly 9 letters or digits (a-z, A-Z, 0-9)", 9)
"""The tool-call IDs its provider accepts."""
BRIDGE_TEXT: Final = "Tool results received."
"""What the assistant message `convert` puts between a tool result and a user message says."""


def _declared_tool(tool: dict[str, object], path: str) -> list[ToolDeclaration]:
    """One item of a body's `tools`: `{"type": "function", "function": {...}}`."""
    return [function(as_object(tool.get("function")), path + ".function", "parameters")]


_TOOLS: Final = ToolReader(_declared_tool, ".function.name", ".function.arguments")
_DIALECT: Final = Dialect(NAME, text_arguments=True, optional_ids=False, tools=_TOOLS, object_arguments_too=True)


def _read(source: object, avoid: frozenset[str], trusted: bool) -> LoadState:
    return _chat.read(_DIALECT, source, avoid, trusted)


def _dump(conversation: Conversation) -> object:
    return _chat.write(_DIALECT, conversation)


def _rules(conversation: Conversation, origins: Origins) -> list[ir.Diagnostic]:
    """Mistral's rules beyond the IR's: the ID rule, results right after their call, and an
    assistant message between a tool result and a user message."""
    found = _checks.id_rule_problems(origins, ID_RULE)
    found.extend(_checks.adjacency(conversation, origins, merge_turns=False))
    previous: ir.Message | None = None
    for item in origins.items:
        if item.message_index is None:  # an instruction is not the assistant turn Mistral needs
            continue
        message = conversation.messages[item.message_index]
        if type(message) is ir.UserMessage and type(previous) is ir.ToolResultMessage:
            found.append(
                ir.Diagnostic(
                    "USER_AFTER_TOOL",
                    item.source_index,
                    item.path,
                    "A user message right after a tool message; Mistral needs an assistant message between them",
                )
            )
        previous = message
    return found


_WORDS: Final = provider_words(
    "Mistral chat `messages` (a list, or a request body): OpenAI Chat's shape, Mistral's rules",
    "Mistral chat data",
    "Mistral would answer with a 400",
    "messages",
)
_FUNCTIONS: Final = format_functions(NAME, _read, _dump, _rules, _WORDS, json_lines=False)


FORMAT: Final = Format(
    _FUNCTIONS,
    id_rule=ID_RULE,
    recognize=Recognize(),
    raw_arguments="arguments",
    arguments_as_text=True,
    tools=_TOOLS,
    bridge_text=BRIDGE_TEXT,
)
"""The declaration of the format (`message_ir.adapters.FORMATS` lists it)."""

load, dump, dumps, check = _FUNCTIONS.unpacked()

__all__ = ["BRIDGE_TEXT", "FORMAT", "ID_RULE", "NAME", "check", "dump", "dumps", "load"]
