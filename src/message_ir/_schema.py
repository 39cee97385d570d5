"""The JSON Schema of the wire format, generated from the wire table."""

from __future__ import annotations

from typing import Final

from message_ir._limits import MAX_DEPTH
from message_ir._untyped import FieldKind, struct_field_kinds
from message_ir._wire import BLOCKS, MESSAGES, WireRecord

_DESCRIPTIONS: Final = {
    "UserMessage": "A message from the user.",
    "AssistantMessage": "A message from the assistant: text, tool-call and opaque blocks, in order.",
    "ToolResultMessage": "The result of the tool call whose ID is `toolCallId`.",
    "TextBlock": "Text written by the assistant.",
    "ToolCall": "A call of a tool by the assistant; `id` is unique in the transcript.",
    "OpaqueBlock": "Assistant content kept in place but not interpreted: `format` names its source.",
}
_OBJECTS: Final = {
    "arguments": f"The tool's arguments: any JSON object nested at most {MAX_DEPTH} levels.",
    "data": "The content, as its format has it: a JSON object.",
    "meta": "Optional: what an adapter keeps to write its format back; a JSON object.",
}


def transcript_schema() -> dict[str, object]:
    """A JSON Schema (draft 2020-12) for a transcript: an array of messages.

    Every record comes from the wire table (tags, camelCase names, required fields,
    `minLength` for IDs and names, no additional properties). The fields the Structs keep
    as JSON text (`arguments`, `data`, `meta`) are described as objects. What a schema
    cannot say (finite numbers only, nesting at most `MAX_DEPTH` levels, tool-call linkage)
    is noted in the descriptions; `validate_transcript` checks all of it.
    """
    definitions = {record.struct.__name__: _record_schema(record) for record in [*MESSAGES.values(), *BLOCKS.values()]}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "message-ir transcript",
        "description": (
            "An ordered array of messages. Beyond this schema: every tool call ID is unique, "
            "every call has exactly one later tool result naming the same tool, and every "
            "result answers an earlier call."
        ),
        "type": "array",
        "items": _union(MESSAGES, "role"),
        "$defs": definitions,
    }


def _union(records: dict[str, WireRecord], tag_field: str) -> dict[str, object]:
    references = {tag: f"#/$defs/{record.struct.__name__}" for tag, record in records.items()}
    return {
        "anyOf": [{"$ref": reference} for reference in references.values()],
        "discriminator": {"propertyName": tag_field, "mapping": references},
    }


def _record_schema(record: WireRecord) -> dict[str, object]:
    properties: dict[str, object] = {record.tag_field: {"enum": [record.tag]}}
    required = [record.tag_field]
    types = struct_field_kinds(record.struct)
    for field in record.fields:
        properties[field.wire_name] = _field_schema(field.wire_name, types[field.attribute])
        if field.required:
            required.append(field.wire_name)
    name = record.struct.__name__
    return {
        "title": name,
        "description": _DESCRIPTIONS[name],
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def _field_schema(wire_name: str, kind: FieldKind) -> dict[str, object]:
    if kind.name == "str":
        schema: dict[str, object] = {"type": "string"}
        if kind.min_length is not None:
            schema["minLength"] = kind.min_length
        return schema
    if kind.name == "bool":
        return {"type": "boolean"}
    if kind.name == "raw":
        return {"type": "object", "description": _OBJECTS[wire_name]}
    if kind.name == "blocks":
        return {"type": "array", "items": _union(BLOCKS, "type")}
    raise TypeError(f"no JSON Schema for the wire field {wire_name!r}")  # a new kind of field: add it here
