"""message-ir: one normalized, immutable, validated shape for agent transcripts."""

from message_ir._codec import decode_transcript, encode_transcript
from message_ir._constructors import (
    BlockInput,
    TextBlockInput,
    ToolCallInput,
    assistant_message,
    text_block,
    text_from_assistant,
    tool_call,
    tool_result_message,
    user_message,
)
from message_ir._diagnostics import Diagnostic, DiagnosticCode, TranscriptError
from message_ir._errors import ConstructionError
from message_ir._json_values import FrozenJsonObject, JsonData, JsonInput, JsonValue
from message_ir._jsonl import decode_jsonl, encode_jsonl, validate_jsonl
from message_ir._limits import MAX_DEPTH
from message_ir._model import (
    AssistantBlock,
    AssistantBlockJson,
    AssistantMessage,
    AssistantMessageJson,
    Message,
    MessageJson,
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
    "assistant_message",
    "decode_jsonl",
    "decode_transcript",
    "encode_jsonl",
    "encode_transcript",
    "repair_transcript",
    "text_block",
    "text_from_assistant",
    "tool_call",
    "tool_result_message",
    "user_message",
    "validate_jsonl",
    "validate_transcript",
]
