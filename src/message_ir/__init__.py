"""message-ir: one normalized, immutable, validated shape for agent transcripts."""

from importlib.metadata import PackageNotFoundError as _PackageNotFoundError
from importlib.metadata import version as _version

from message_ir._codec import decode_transcript, encode_transcript
from message_ir._constructors import (
    BlockInput,
    OpaqueBlockInput,
    TextBlockInput,
    ToolCallInput,
    assistant_message,
    frozen_json_object,
    opaque_block,
    text_block,
    text_from_assistant,
    tool_call,
    tool_result_message,
    user_message,
)
from message_ir._diagnostics import Diagnostic, DiagnosticCode, TranscriptError
from message_ir._errors import ConstructionError
from message_ir._frozen_values import FrozenJsonObject, JsonData, JsonInput, JsonValue
from message_ir._guards import (
    is_assistant_message_json,
    is_json_value,
    is_message_json,
    is_opaque_block_json,
    is_text_block_json,
    is_tool_call_json,
    is_tool_result_message_json,
    is_transcript_json,
    is_user_message_json,
)
from message_ir._jsonl import decode_jsonl, encode_jsonl, iter_jsonl_diagnostics, validate_jsonl
from message_ir._limits import MAX_DEPTH
from message_ir._model import (
    AssistantBlock,
    AssistantBlockJson,
    AssistantMessage,
    AssistantMessageJson,
    Message,
    MessageJson,
    OpaqueBlock,
    OpaqueBlockJson,
    TextBlock,
    TextBlockJson,
    ToolCall,
    ToolCallJson,
    ToolResultMessage,
    ToolResultMessageJson,
    UserMessage,
    UserMessageJson,
)
from message_ir._repair import Fix, FixAction, Repair, repair_transcript
from message_ir._validate import validate_transcript

__version__: str
"""The installed distribution's version (from its metadata)."""
try:
    __version__ = _version("message-ir")
except _PackageNotFoundError:  # pragma: no cover - imported from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = [
    "MAX_DEPTH",
    "AssistantBlock",
    "AssistantBlockJson",
    "AssistantMessage",
    "AssistantMessageJson",
    "BlockInput",
    "ConstructionError",
    "Diagnostic",
    "DiagnosticCode",
    "Fix",
    "FixAction",
    "FrozenJsonObject",
    "JsonData",
    "JsonInput",
    "JsonValue",
    "Message",
    "MessageJson",
    "OpaqueBlock",
    "OpaqueBlockInput",
    "OpaqueBlockJson",
    "Repair",
    "TextBlock",
    "TextBlockInput",
    "TextBlockJson",
    "ToolCall",
    "ToolCallInput",
    "ToolCallJson",
    "ToolResultMessage",
    "ToolResultMessageJson",
    "TranscriptError",
    "UserMessage",
    "UserMessageJson",
    "__version__",
    "assistant_message",
    "decode_jsonl",
    "decode_transcript",
    "encode_jsonl",
    "encode_transcript",
    "frozen_json_object",
    "is_assistant_message_json",
    "is_json_value",
    "is_message_json",
    "is_opaque_block_json",
    "is_text_block_json",
    "is_tool_call_json",
    "is_tool_result_message_json",
    "is_transcript_json",
    "is_user_message_json",
    "iter_jsonl_diagnostics",
    "opaque_block",
    "repair_transcript",
    "text_block",
    "text_from_assistant",
    "tool_call",
    "tool_result_message",
    "user_message",
    "validate_jsonl",
    "validate_transcript",
]
