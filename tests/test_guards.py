"""The TypeIs guards agree with validate_transcript."""

from __future__ import annotations

import json

import pytest

from message_ir import (
    MAX_DEPTH,
    is_assistant_message_json,
    is_json_value,
    is_message_json,
    is_text_block_json,
    is_tool_call_json,
    is_tool_result_message_json,
    is_transcript_json,
    is_user_message_json,
    user_message,
    validate_transcript,
)

USER = {"role": "user", "id": "u", "content": "x"}
CALL = {"type": "toolCall", "id": "c", "name": "read", "arguments": {"a": [1]}}
TEXT = {"type": "text", "text": "t"}
ASSISTANT = {"role": "assistant", "id": "a", "content": [TEXT, CALL]}
RESULT = {"role": "toolResult", "id": "r", "toolCallId": "c", "toolName": "read", "content": "", "isError": False}

TRANSCRIPTS: list[object] = [
    [],
    [USER],
    [USER, ASSISTANT, RESULT],
    [USER, ASSISTANT],
    [RESULT],
    [USER, {**USER, "id": ""}],
    [USER, 5],
    (USER,),
    [user_message(id="u", content="x")],
    "[]",
    None,
]


@pytest.mark.parametrize("transcript", TRANSCRIPTS)
def test_is_transcript_json_agrees_with_the_validator(transcript: object) -> None:
    is_json_form = type(transcript) is list and all(type(m) is dict for m in transcript)
    assert is_transcript_json(transcript) == (is_json_form and validate_transcript(transcript) == ())


@pytest.mark.parametrize(
    "message",
    [USER, ASSISTANT, RESULT, {**USER, "id": 1}, {**RESULT, "isError": 0}, {**ASSISTANT, "content": [5]}, 5, []],
)
def test_message_guards_agree_with_the_shape_pass(message: object) -> None:
    shape_ok = type(message) is dict and not [
        d for d in validate_transcript([message]) if d.code not in {"MISSING_TOOL_RESULT", "ORPHAN_TOOL_RESULT"}
    ]
    assert is_message_json(message) == shape_ok
    role = message.get("role") if type(message) is dict else None
    assert is_user_message_json(message) == (shape_ok and role == "user")
    assert is_assistant_message_json(message) == (shape_ok and role == "assistant")
    assert is_tool_result_message_json(message) == (shape_ok and role == "toolResult")


@pytest.mark.parametrize("block", [TEXT, CALL, {**CALL, "arguments": []}, {**TEXT, "text": None}, {"type": "x"}, 1])
def test_block_guards_agree_with_the_validator(block: object) -> None:
    message = {"role": "assistant", "id": "a", "content": [block]}
    codes = {d.code for d in validate_transcript([message])} - {"MISSING_TOOL_RESULT"}
    block_type = block.get("type") if type(block) is dict else None
    assert is_text_block_json(block) == (not codes and block_type == "text")
    assert is_tool_call_json(block) == (not codes and block_type == "toolCall")


def test_is_json_value_uses_the_same_rule_and_depth() -> None:
    deep: object = {}
    for _ in range(MAX_DEPTH - 1):
        deep = [deep]
    assert is_json_value(deep)
    assert not is_json_value([deep])
    assert is_json_value(json.loads('{"a": [1, 2.5, "x", null, true]}'))
    assert is_json_value("text")
    assert is_json_value(None)
    assert not is_json_value(float("nan"))
    assert not is_json_value({1: 2})
    assert not is_json_value({1, 2})
