"""The adapters at the edges of their formats: every refusal, and the rarer shapes, round trip."""

from __future__ import annotations

import json
from types import ModuleType

import pytest

from message_ir import Diagnostic, validate_transcript
from message_ir.adapters import (
    FormatError,
    _checks,
    anthropic,
    claude_code,
    convert,
    gemini,
    gemini_cli,
    openai_chat,
    openai_responses,
    pi,
)


def refused(adapter: object, source: object) -> tuple[Diagnostic, ...]:
    load = openai_chat.load if adapter is openai_chat else anthropic.load
    with pytest.raises(FormatError) as caught:
        load(source)
    return caught.value.diagnostics


def one(index: int | None, path: str, message: str) -> tuple[Diagnostic, ...]:
    return (Diagnostic("BAD_FORMAT", index, path, message),)


CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}


@pytest.mark.parametrize(
    ("record", "path", "message"),
    [
        (5, "$[0]", "Expected a message object, got `int`"),
        (
            {"role": 5},
            "$[0].role",
            "Expected `role` to be a string, got `int`; expected one of system, developer, user, assistant, tool",
        ),
        ({"content": "hi"}, "$[0]", "Missing `role`; expected one of system, developer, user, assistant, tool"),
        ({"role": "bot"}, "$[0].role", "Invalid role 'bot'; expected one of system, developer, user, assistant, tool"),
        ({"role": "user", "content": [5]}, "$[0].content[0]", "Expected a content part with a `type`"),
        (
            {"role": "user", "content": [{"type": "text", "text": 5}]},
            "$[0].content[0].text",
            "Expected `str`, got `int`",
        ),
        ({"role": "assistant", "content": 5}, "$[0].content", "Expected `str`, `null` or a list of parts, got `int`"),
        ({"role": "assistant", "content": [{"text": "x"}]}, "$[0].content[0]", "Expected a content part with a `type`"),
        (
            {"role": "assistant", "content": None, "tool_calls": 5},
            "$[0].tool_calls",
            "Expected a list of tool calls, got `int`",
        ),
        (
            {"role": "assistant", "content": None, "tool_calls": [5]},
            "$[0].tool_calls[0]",
            "Expected a tool call object, got `int`",
        ),
        (
            {"role": "assistant", "tool_calls": [{**CALL, "id": ""}]},
            "$[0].tool_calls[0].id",
            "Expected a non-empty `str`",
        ),
        (
            {"role": "assistant", "tool_calls": [{**CALL, "type": "custom"}]},
            "$[0].tool_calls[0]",
            "Expected a function tool call (`type` `function` with a `function` object)",
        ),
        (
            {"role": "assistant", "tool_calls": [{**CALL, "function": {"name": "", "arguments": "{}"}}]},
            "$[0].tool_calls[0].function.name",
            "Expected a non-empty `str`",
        ),
        (
            {"role": "assistant", "tool_calls": [{**CALL, "function": {"name": "f", "arguments": {}}}]},
            "$[0].tool_calls[0].function.arguments",
            "Expected `str`, got `object`",
        ),
        (
            {"role": "tool", "tool_call_id": "c", "content": 5},
            "$[0].content",
            "Expected `str` or a list of content parts, got `int`",
        ),
        (
            {"role": "user", "content": float("nan")},
            "$[0]",
            "Not a JSON value by the IR's rule (exact builtins, finite numbers, UTF-8, depth)",
        ),
    ],
)
def test_openai_chat_refusals(record: object, path: str, message: str) -> None:
    assert refused(openai_chat, [record]) == one(0, path, message)


@pytest.mark.parametrize(
    ("record", "path", "message"),
    [
        (5, "$[0]", "Expected a message object, got `int`"),
        ({"role": "user", "content": 5}, "$[0].content", "Expected `str` or a list of content blocks, got `int`"),
        ({"role": "user", "content": [{"type": ""}]}, "$[0].content[0]", "Expected a content block with a `type`"),
        (
            {"role": "user", "content": [{"type": "text", "text": 1}]},
            "$[0].content[0].text",
            "Expected `str`, got `int`",
        ),
        (
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": ""}]},
            "$[0].content[0].tool_use_id",
            "Expected a non-empty `str`",
        ),
        (
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "is_error": 1}]},
            "$[0].content[0].is_error",
            "Expected `bool`, got `int`",
        ),
        (
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": [{"type": 1}]}]},
            "$[0].content[0].content[0]",
            "Expected a content block with a `type`",
        ),
        (
            {"role": "assistant", "content": [{"type": "tool_use", "id": "", "name": "n", "input": {}}]},
            "$[0].content[0].id",
            "Expected a non-empty `str`",
        ),
        (
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "", "input": {}}]},
            "$[0].content[0].name",
            "Expected a non-empty `str`",
        ),
        ({"role": "assistant", "content": 5}, "$[0].content", "Expected `str` or a list of content blocks, got `int`"),
    ],
)
def test_anthropic_refusals(record: object, path: str, message: str) -> None:
    assert refused(anthropic, [record]) == one(0, path, message)


def test_a_bad_system_block_is_reported_outside_the_messages() -> None:
    assert refused(anthropic, {"system": [{"type": "text", "text": 1}], "messages": []}) == one(
        None, "$.system[0].text", "Expected `str`, got `int`"
    )


def test_a_body_without_messages_is_refused() -> None:
    expected = one(None, "$", "Expected a list of messages, or an object with a `messages` list")
    assert refused(anthropic, {"system": "x"}) == expected
    assert refused(anthropic, b'{"system": 1, "messages": []}') == one(
        None, "$.system", "Expected `str` or a list of content blocks, got `int`"
    )


RARE_OPENAI = [
    {"role": "developer", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], "name": "x"},
    {"role": "user", "content": [{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": "u"}}]},
    {
        "role": "assistant",
        "content": [{"type": "text", "text": "t", "annotations": []}, {"type": "refusal", "refusal": "no"}],
    },
    {"role": "assistant", "content": "", "tool_calls": []},
    {"role": "assistant", "tool_calls": None, "content": None},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": ' {"a" : 1} '}}],
    },
    {"role": "tool", "tool_call_id": "c", "content": [{"type": "text", "text": "ok"}], "name": "f"},
    {"role": "tool", "tool_call_id": "gone", "content": "?"},
]


def test_rare_openai_shapes_round_trip() -> None:
    conversation = openai_chat.load(RARE_OPENAI)
    assert openai_chat.dump(conversation) == RARE_OPENAI
    assert [note.code for note in conversation.notes] == ["PLACEHOLDER_TOOL_NAME"]
    assert json.loads(openai_chat.dumps(conversation)) == RARE_OPENAI
    codes = [d.code for d in openai_chat.check(RARE_OPENAI)]
    assert codes == ["ORPHAN_TOOL_RESULT"]


RARE_ANTHROPIC = {
    "system": [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}],
    "messages": [
        {"role": "user", "content": []},
        {
            "role": "user",
            "content": [{"type": "image", "source": {"type": "url", "url": "u"}}, {"type": "text", "text": "what?"}],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "redacted_thinking", "data": "x"},
                {"type": "tool_use", "id": "t1", "name": "f", "input": [1]},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t1"},
                {"type": "tool_result", "tool_use_id": "t1", "content": "again"},
            ],
        },
    ],
}


def test_rare_anthropic_shapes_round_trip() -> None:
    conversation = anthropic.load(RARE_ANTHROPIC)
    assert anthropic.dump(conversation) == RARE_ANTHROPIC
    assert [note.code for note in conversation.notes] == ["ARGUMENTS_NOT_AN_OBJECT"]
    assert [d.code for d in anthropic.check(RARE_ANTHROPIC)] == ["BAD_TOOL_ARGUMENTS", "DUPLICATE_TOOL_RESULT"]
    converted = convert(conversation, to="openai_chat")
    assert "DROPPED_OPAQUE_BLOCK" in [note.code for note in converted.notes]
    assert validate_transcript(converted.messages) != ()  # the repeated result stays a linkage problem


def test_edited_messages_are_written_from_the_ir() -> None:
    from message_ir import tool_result_message, user_message

    conversation = anthropic.load(RARE_ANTHROPIC)
    messages = list(conversation.messages)
    messages[2] = user_message(id=messages[2].id, content="edited")
    messages.append(tool_result_message(id="r", tool_call_id="t1", tool_name="f", content="late", is_error=True))
    written = anthropic.dump(conversation.replace(messages=messages))
    assert type(written) is dict
    rendered = written["messages"]
    assert type(rendered) is list
    assert rendered[1]["content"][-1] == {"type": "text", "text": "edited"}
    assert rendered[-1]["content"][-1] == {
        "type": "tool_result",
        "tool_use_id": "t1",
        "content": "late",
        "is_error": True,
    }


def test_convert_within_a_format_writes_arguments_that_were_no_object_as_an_object() -> None:
    messages = [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{**CALL, "function": {"name": "f", "arguments": "{trunc"}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    ]
    converted = convert(openai_chat.load(messages), to="openai_chat")
    assert [note.code for note in converted.notes] == ["DROPPED_BAD_ARGUMENTS"]
    written = openai_chat.dump(converted)
    assert type(written) is dict
    assert written["messages"][0]["tool_calls"][0]["function"]["arguments"] == "{}"
    assert openai_chat.check(written) == ()
    spaced: list[object] = [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{**CALL, "function": {"name": "f", "arguments": '{ "a": 1 }'}}],
        },
        messages[1],
    ]
    kept = convert(openai_chat.load(spaced), to="openai_chat")
    assert kept.notes == ()
    assert openai_chat.dump(kept)["messages"][0]["tool_calls"][0]["function"]["arguments"] == '{ "a": 1 }'  # type: ignore[index]


def test_a_renamed_reused_id_never_takes_one_the_source_uses_later() -> None:
    def turn(call_id: str) -> list[object]:
        call = {"id": call_id, "type": "function", "function": {"name": "f", "arguments": "{}"}}
        return [
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": call_id, "content": "ok"},
        ]

    messages = [*turn("a"), *turn("a"), *turn("a~2")]
    conversation = openai_chat.load(messages)
    ids = [m.content[0].id for m in conversation.messages if m.role == "assistant"]  # type: ignore[union-attr]
    assert ids == ["a", "a~3", "a~2"]
    assert validate_transcript(conversation.messages) == ()
    assert openai_chat.dump(conversation) == messages


@pytest.mark.parametrize(
    ("module", "record", "path", "message"),
    [
        (anthropic, {"role": None, "content": "hi"}, "$[0].role", "Expected `role` to be a string, got `null`"),
        (anthropic, {"content": "hi"}, "$[0]", "Missing `role`"),
        (gemini, {"role": 7, "parts": [{"text": "hi"}]}, "$[0].role", "Expected `role` to be a string, got `int`"),
        (openai_responses, {"type": "message", "role": "bot", "content": "x"}, "$[0].role", "Invalid role 'bot'"),
    ],
)
def test_a_bad_role_is_said_in_one_style_in_every_format(
    module: ModuleType, record: object, path: str, message: str
) -> None:
    expected = {
        anthropic: "user, assistant",
        gemini: "user, model",
        openai_responses: "user, assistant, system, developer",
    }
    assert module.check([record]) == one(0, path, f"{message}; expected one of {expected[module]}")


def test_an_unexpected_error_in_check_is_named_and_called_a_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(source: object) -> object:
        raise KeyError("x")

    monkeypatch.setattr(_checks, "validate_transcript", broken)  # something inside `check` fails
    assert anthropic.check([{"role": "user", "content": "hi"}]) == (
        Diagnostic(
            "UNREADABLE_VALUE", None, "$", "Could not be read (KeyError): a bug in message-ir, please report it"
        ),
    )


def test_a_gemini_role_that_is_null_is_written_back_as_null() -> None:
    contents = [{"role": None, "parts": [{"text": "hi"}]}, {"parts": [{"text": "x"}]}]
    assert json.loads(gemini.dumps(gemini.load(contents))) == contents


# --- absent stays absent, and what was written stays as it was (found by the mutation fuzz) ------


def _same(module: ModuleType, source: object) -> None:
    assert json.dumps(module.dump(module.load(source))) == json.dumps(source)


def test_an_openai_assistant_message_without_content_is_written_without_it() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    _same(openai_chat, [{"role": "user", "content": "hi"}, {"role": "assistant", "tool_calls": [call]}])


def test_a_tool_use_without_input_is_written_without_it() -> None:
    _same(anthropic, [{"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "f"}]}])
    message = {"id": "m", "role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "f"}]}
    _same(claude_code, [{"type": "assistant", "uuid": "a", "message": message}])


def test_a_pi_call_without_arguments_and_a_result_without_is_error_or_with_a_null_name() -> None:
    call = {"type": "toolCall", "id": "c1", "name": "f"}
    result: dict[str, object] = {"role": "toolResult", "toolCallId": "c1", "toolName": None, "content": []}
    _same(
        pi,
        [
            {"type": "message", "message": {"role": "assistant", "content": [call]}},
            {"type": "message", "message": result},
        ],
    )


def test_responses_text_parts_keep_their_kind_whatever_the_role() -> None:
    _same(openai_responses, [{"type": "message", "role": "user", "content": [{"type": "output_text", "text": "x"}]}])


def test_gemini_cli_records_keep_their_keys_their_order_and_their_absences() -> None:
    response = {"name": "f", "response": {"output": "ok"}, "id": "c1"}  # not gemini-cli's own order
    recording = {
        "sessionId": "s",
        "messages": [
            {"id": "1", "type": "user", "content": "hi", "toolCalls": []},  # a user record's toolCalls is extra
            {
                "id": "2",
                "type": "gemini",
                "toolCalls": [{"id": "c1", "name": "f", "args": {}, "result": [{"functionResponse": response}]}],
            },  # no `content`
        ],
    }
    _same(gemini_cli, recording)
