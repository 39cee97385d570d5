"""The typing baseline: correct uses of the public API that every checker must accept with no
ignore at all. Checked by mypy and basedpyright, never run; each `assert_type` pins a type.
The misuse cases are in `misuse_mypy.py` and `misuse_pyright.py`.
"""

from __future__ import annotations

from typing import Literal

from typing_extensions import assert_type

from message_ir import (
    MAX_DEPTH,
    AssistantBlock,
    AssistantMessage,
    AssistantMessageJson,
    BlockInput,
    ConstructionError,
    Diagnostic,
    DiagnosticCode,
    Fix,
    FixAction,
    FrozenJsonObject,
    JsonData,
    JsonInput,
    JsonValue,
    Message,
    MessageJson,
    OpaqueBlock,
    Repair,
    TextBlock,
    TextBlockInput,
    TextBlockJson,
    ToolCall,
    ToolCallInput,
    ToolResultMessage,
    ToolResultMessageJson,
    TranscriptError,
    UserMessage,
    UserMessageJson,
    assistant_message,
    decode_jsonl,
    decode_transcript,
    encode_jsonl,
    encode_transcript,
    is_assistant_message_json,
    is_json_value,
    is_message_json,
    is_text_block_json,
    is_tool_call_json,
    is_tool_result_message_json,
    is_transcript_json,
    is_user_message_json,
    repair_transcript,
    text_block,
    text_from_assistant,
    tool_call,
    tool_result_message,
    user_message,
    validate_jsonl,
    validate_transcript,
)

user = user_message(id="u", content="hi")
assistant = assistant_message(
    id="a",
    content=[
        {"type": "text", "text": "x"},
        {"type": "toolCall", "id": "c", "name": "read", "arguments": {"path": "p", "n": [1, {"k": None}]}},
    ],
)
result = tool_result_message(id="r", tool_call_id="c", tool_name="read", content="ok")
call = tool_call(id="c2", name="read", arguments={"a": 1})

assert_type(user, UserMessage)
assert_type(assistant, AssistantMessage)
assert_type(result, ToolResultMessage)
assert_type(call, ToolCall)
assert_type(text_block(text="t"), TextBlock)
assert_type(text_from_assistant(assistant), str)
assert_type(validate_transcript([user]), tuple[Diagnostic, ...])
assert_type(validate_jsonl([b"{}"]), tuple[Diagnostic, ...])
assert_type(encode_transcript([user, assistant, result]), bytes)
assert_type(encode_jsonl((user,)), bytes)
assert_type(decode_transcript(b"[]"), tuple[Message, ...])
assert_type(decode_transcript("[]", check_linkage=False), tuple[Message, ...])
assert_type(decode_jsonl(b""), tuple[Message, ...])
assert_type(repair_transcript([user]), Repair)
assert_type(repair_transcript([user]).fixes, tuple[Fix, ...])
assert_type(repair_transcript([user]).fixes[0].action, FixAction)
assert_type(call.arguments, FrozenJsonObject)
assert_type(call.arguments["a"], JsonValue)
assert_type(user.role, Literal["user"])
assert_type(call.type, Literal["toolCall"])
assert_type(validate_transcript(None)[0].code, DiagnosticCode)
assert_type(validate_transcript(None)[0].message_index, int | None)


def describe(message: Message) -> str:
    """Narrowing a `Message` by its `role` attribute."""
    if message.role == "toolResult":
        assert_type(message, ToolResultMessage)
        return message.tool_call_id
    if message.role == "assistant":
        assert_type(message, AssistantMessage)
        return text_from_assistant(message)
    assert_type(message, UserMessage)
    return message.content


def describe_by_match(message: Message) -> str:
    """Narrowing by class pattern."""
    match message:
        case UserMessage(content=content):
            return content
        case AssistantMessage():
            return str(len(message.content))
        case ToolResultMessage(is_error=is_error):
            return str(is_error)


def block_name(block: AssistantBlock) -> str:
    """Narrowing a block by `isinstance` and by `type`."""
    if isinstance(block, ToolCall):
        return block.name
    if block.type == "opaque":
        assert_type(block, OpaqueBlock)
        return block.kind
    assert_type(block, TextBlock)
    assert_type(block.type, Literal["text"])
    return block.text


def json_role(parsed: object) -> str:
    """Narrowing parsed JSON with the guards, then by the `TypedDict` discriminant."""
    if is_message_json(parsed):
        assert_type(parsed, MessageJson)
        if parsed["role"] == "toolResult":
            return parsed["toolCallId"]
        if parsed["role"] == "assistant":
            return str(len(parsed["content"]))
        return parsed["content"]
    if is_transcript_json(parsed):
        return str(len(parsed))
    if is_tool_call_json(parsed):
        return parsed["name"]
    return ""


def caught(data: bytes) -> tuple[Diagnostic, ...]:
    try:
        decode_transcript(data)
    except TranscriptError as error:
        assert_type(error.diagnostics, tuple[Diagnostic, ...])
        return error.diagnostics
    return ()


def narrow_more(parsed: object) -> str:
    """The remaining guards narrow to their TypedDicts (or to what the constructors take)."""
    if is_user_message_json(parsed):
        assert_type(parsed, UserMessageJson)
        return parsed["content"]
    if is_assistant_message_json(parsed):
        assert_type(parsed, AssistantMessageJson)
        return parsed["content"][0]["type"]
    if is_tool_result_message_json(parsed):
        assert_type(parsed, ToolResultMessageJson)
        return str(parsed["isError"])
    if is_text_block_json(parsed):
        assert_type(parsed, TextBlockJson)
        return parsed["text"]
    if is_json_value(parsed):
        assert_type(parsed, JsonInput)
    return ""


def construction_error() -> str:
    try:
        user_message(id="", content="x")
    except ConstructionError as error:
        assert_type(error.path, str)
        return error.problem
    return ""


typed_block: BlockInput = {"type": "text", "text": "x"}
typed_call: ToolCallInput = {"type": "toolCall", "id": "c", "name": "n", "arguments": {"k": [1, None]}}
typed_text: TextBlockInput = {"type": "text", "text": "t"}
assert_type(MAX_DEPTH, Literal[64])
assert_type(call.arguments.thaw(), dict[str, JsonData])
assert_type(call.arguments.to_json(), bytes)
assert_type(call.canonical_arguments(), bytes)
