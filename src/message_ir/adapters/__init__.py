"""Adapters: provider and session formats in and out of the IR, losslessly.

One module per format, each with `load`, `dump`, `dumps` and `check`; this package adds what
they share: `Conversation`, `Instruction`, `Note`, `FormatError`, `convert` and `detect`.
Built on the public core only; no provider SDK is imported or needed.
"""

from message_ir.adapters import anthropic, claude_code, codex, gemini, gemini_cli, openai_chat, openai_responses, pi
from message_ir.adapters._conversation import Conversation, FormatError, Instruction, Note, NoteCode
from message_ir.adapters._convert import FORMATS, convert, detect
from message_ir.adapters._tools import ToolDeclaration, check_tool_calls, tool_declaration

__all__ = [
    "FORMATS",
    "Conversation",
    "FormatError",
    "Instruction",
    "Note",
    "NoteCode",
    "ToolDeclaration",
    "anthropic",
    "check_tool_calls",
    "claude_code",
    "codex",
    "convert",
    "detect",
    "gemini",
    "gemini_cli",
    "openai_chat",
    "openai_responses",
    "pi",
    "tool_declaration",
]
