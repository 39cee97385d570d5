"""The JSON Schema of the wire format, generated from the Structs by msgspec."""

from __future__ import annotations

from typing import cast

import msgspec

from message_ir._limits import MAX_DEPTH
from message_ir._model import Message


def transcript_schema() -> dict[str, object]:
    """A JSON Schema (draft 2020-12) for a transcript: an array of messages.

    msgspec generates it from the Structs (tags, camelCase names, required fields,
    `minLength` for IDs, no additional properties). The tool-call `arguments`, which the
    Struct keeps as raw JSON text, are described here as an object. What a schema cannot
    say (finite numbers only, nesting at most `MAX_DEPTH` levels, tool-call linkage) is
    noted in the descriptions; `validate_transcript` checks all of it.
    """
    schema = cast("dict[str, object]", msgspec.json.schema(list[Message]))
    definitions = cast("dict[str, dict[str, object]]", schema["$defs"])
    for name, definition in definitions.items():
        definition["description"] = _DESCRIPTIONS[name]
    call_properties = cast("dict[str, object]", definitions["ToolCall"]["properties"])
    call_properties["arguments"] = {
        "type": "object",
        "description": f"The tool's arguments: any JSON object nested at most {MAX_DEPTH} levels.",
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "message-ir transcript",
        "description": (
            "An ordered array of messages. Beyond this schema: every tool call ID is unique, "
            "every call has exactly one later tool result naming the same tool, and every "
            "result answers an earlier call."
        ),
        **schema,
    }


_DESCRIPTIONS = {
    "UserMessage": "A message from the user.",
    "AssistantMessage": "A message from the assistant: text and tool-call blocks, in order.",
    "TextBlock": "Text written by the assistant.",
    "ToolCall": "A call of a tool by the assistant; `id` is unique in the transcript.",
    "ToolResultMessage": "The result of the tool call whose ID is `toolCallId`.",
}
