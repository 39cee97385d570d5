"""`vercel_ai`: the AI SDK's prompts recorded in a real trace, every output type, the v4 form,
and UI messages refused."""

from __future__ import annotations

import json

import msgspec
import pytest

from message_ir import ToolResultMessage
from message_ir.adapters import FormatError, convert, openai_chat, vercel_ai
from tests.adapters.real import real_files
from tests.adapters.test_contract import ai_sdk_prompts

(TRACE,) = real_files("vercel-ai", "sideseat_ai-sdk-6_otlp-traces_lines4-7.jsonl")


def test_every_recorded_prompt_loads_and_writes_back_exactly() -> None:
    prompts = ai_sdk_prompts(TRACE)
    assert len(prompts) == 11
    for messages in prompts:
        conversation = vercel_ai.load(json.dumps(messages))
        assert vercel_ai.dump(conversation) == messages
        assert [str(note) for note in conversation.notes] == [
            "SOURCE_FORM: Read as Vercel AI SDK ModelMessage (v5 or later: `input` / `output`) - at `$`"
        ]
        assert vercel_ai.check(messages) == ()


def _result(output: dict[str, object]) -> list[object]:
    return [
        {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "t1", "toolName": "f", "input": {}}]},
        {"role": "tool", "content": [{"type": "tool-result", "toolCallId": "t1", "toolName": "f", "output": output}]},
    ]


@pytest.mark.parametrize(
    ("output", "text", "is_error"),
    [
        ({"type": "text", "value": "ok"}, "ok", False),
        ({"type": "json", "value": {"a": [1, 2]}}, '{"a":[1,2]}', False),
        ({"type": "error-text", "value": "boom"}, "boom", True),
        ({"type": "error-json", "value": {"code": 7}}, '{"code":7}', True),
        ({"type": "content", "value": [{"type": "text", "text": "a"}, {"type": "media", "data": "x"}]}, "a", False),
        ({"type": "execution-denied", "reason": "no"}, "no", True),
    ],
)
def test_each_output_type_says_its_text_and_comes_back_as_it_was(
    output: dict[str, object], text: str, is_error: bool
) -> None:
    messages = _result(output)
    conversation = vercel_ai.load(messages)
    result = conversation.messages[1]
    assert type(result) is ToolResultMessage
    assert (result.content, result.is_error) == (text, is_error)
    assert vercel_ai.dump(conversation) == messages
    changed = conversation.replace(messages=(conversation.messages[0], msgspec.structs.replace(result, content="new")))
    written = vercel_ai.dump(changed)
    assert type(written) is list
    assert written[1]["content"][0]["output"] == {"type": "error-text" if is_error else "text", "value": "new"}


def test_the_v4_form_is_read_written_back_and_said() -> None:
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "c", "toolName": "f", "args": {"x": 1}}]},
        {
            "role": "tool",
            "content": [
                {"type": "tool-result", "toolCallId": "c", "toolName": "f", "result": {"y": 2}, "isError": True}
            ],
        },
    ]
    conversation = vercel_ai.load(messages)
    result = conversation.messages[1]
    assert type(result) is ToolResultMessage
    assert (result.content, result.is_error) == ('{"y":2}', True)
    assert [str(note) for note in conversation.notes] == [
        "SOURCE_FORM: Read as Vercel AI SDK the v4 form (`args` / `result`) - at `$`"
    ]
    assert vercel_ai.dump(conversation) == messages


def test_a_call_without_its_result_is_what_the_sdk_throws_on() -> None:
    assert [str(diagnostic) for diagnostic in vercel_ai.check(_result({"type": "text", "value": "ok"})[:1])] == [
        "MISSING_TOOL_RESULT: Tool call 't1' has no result after it - at `$[0].content[0]`"
    ]


def test_ui_messages_are_refused_by_name() -> None:
    ui = [{"id": "m1", "role": "user", "parts": [{"type": "text", "text": "hi"}]}]
    with pytest.raises(FormatError) as raised:
        vercel_ai.load(ui)
    assert [str(diagnostic) for diagnostic in raised.value.diagnostics] == [
        "BAD_FORMAT: Expected ModelMessages (`content`), got UIMessages (`parts`): the SDK's"
        " `convertToModelMessages` turns them into ModelMessages - at `$[0]`"
    ]


def test_a_body_with_system_and_a_conversion_from_openai_chat() -> None:
    body = {"system": "Be brief.", "messages": [{"role": "user", "content": "hi"}]}
    conversation = vercel_ai.load(body)
    assert [entry.text for entry in conversation.instructions] == ["Be brief."]
    assert vercel_ai.dump(conversation) == body
    chat = openai_chat.load(
        [
            {"role": "system", "content": "Be brief."},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a":1}'}}],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "done"},
        ]
    )
    written = vercel_ai.dump(convert(chat, "vercel_ai"))
    assert written == {
        "messages": [
            {"role": "system", "content": "Be brief."},
            {
                "role": "assistant",
                "content": [{"type": "tool-call", "toolCallId": "c1", "toolName": "f", "input": {"a": 1}}],
            },
            {
                "role": "tool",
                "content": [
                    {
                        "type": "tool-result",
                        "toolCallId": "c1",
                        "toolName": "f",
                        "output": {"type": "text", "value": "done"},
                    }
                ],
            },
        ]
    }
    assert vercel_ai.check(written) == ()
