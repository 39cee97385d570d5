"""Adapters: provider and session formats in and out of the IR, losslessly.

One module per format (`message_ir.adapters.openai_chat`, ...), each with `load`, `dump`,
`dumps`, `check` and its declaration `FORMAT`; `FORMATS` lists every declaration. This
package adds what they share: `Conversation`, `Instruction`, `Note`, `FormatError`,
`convert` and `detect`. Built on the public core only; no provider SDK is imported or needed.
"""

from message_ir.adapters._conversation import Conversation, FormatError, Instruction, Note, NoteCode
from message_ir.adapters._convert import convert
from message_ir.adapters._detect import detect
from message_ir.adapters._format import Format, Recognize
from message_ir.adapters._ids import IdRule
from message_ir.adapters._log_file import LogFile
from message_ir.adapters._mcp import tool_result_from_mcp
from message_ir.adapters._registry import FORMATS, FormatName
from message_ir.adapters._segments import Segment
from message_ir.adapters._tools import ToolDeclaration, ToolReader, check_tool_calls, tool_declaration
from message_ir.adapters._tree import Branch
from message_ir.adapters._tree_functions import Trees
from message_ir.adapters._usage import Call

__all__ = [
    "FORMATS",
    "Branch",
    "Call",
    "Conversation",
    "Format",
    "FormatError",
    "FormatName",
    "IdRule",
    "Instruction",
    "LogFile",
    "Note",
    "NoteCode",
    "Recognize",
    "Segment",
    "ToolDeclaration",
    "ToolReader",
    "Trees",
    "check_tool_calls",
    "convert",
    "detect",
    "tool_declaration",
    "tool_result_from_mcp",
]
