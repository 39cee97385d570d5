"""OpenAI Responses and the session-log adapters on hand-made edge cases: every shape they
read writes back exactly, every shape they refuse says where, and `check` never raises."""

from __future__ import annotations

import json
from types import ModuleType

import pytest

from message_ir import AssistantMessage, ToolCall, ToolResultMessage, UserMessage, repair_transcript
from message_ir.adapters import FormatError, claude_code, codex, convert, gemini_cli, openai_chat, openai_responses, pi

RESPONSES_ITEMS: list[object] = [
    {"role": "developer", "content": "Be brief."},
    {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": "hi"}, {"type": "input_image", "image_url": "x"}],
    },
    {"type": "reasoning", "id": "rs_1", "summary": []},
    {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "a", "annotations": []}, {"type": "output_text", "text": "b"}],
    },
    {"type": "function_call", "name": "f", "arguments": '{ "x": 1 }', "call_id": "c1", "id": "fc_1"},
    {"type": "custom_tool_call", "name": "patch", "input": "*** Begin", "call_id": "c2"},
    {"type": "web_search_call", "id": "ws_1", "status": "completed"},
    {"type": "function_call_output", "call_id": "c1", "output": [{"type": "input_text", "text": "ok"}]},
    {"type": "custom_tool_call_output", "call_id": "c2", "output": "done"},
    {"type": "function_call", "name": "g", "arguments": "{not json", "call_id": "c3"},
    {"type": "function_call_output", "call_id": "c3", "output": "x"},
]


def _same(left: object, right: object) -> bool:
    return json.dumps(left) == json.dumps(right)


def test_responses_items_of_every_kind_write_back_exactly() -> None:
    conversation = openai_responses.load(RESPONSES_ITEMS)
    assert _same(openai_responses.dump(conversation), RESPONSES_ITEMS)
    assert [type(message).__name__ for message in conversation.messages] == [
        "UserMessage",
        "AssistantMessage",
        "ToolResultMessage",
        "ToolResultMessage",
        "AssistantMessage",
        "ToolResultMessage",
    ]
    assert conversation.instructions[0].role == "developer"
    first = conversation.messages[1]
    assert type(first) is AssistantMessage
    assert [type(block).__name__ for block in first.content] == [
        "OpaqueBlock",
        "TextBlock",
        "ToolCall",
        "ToolCall",
        "OpaqueBlock",
    ]
    custom = first.content[3]
    assert type(custom) is ToolCall
    assert custom.arguments == {"input": "*** Begin"}
    assert [(d.code, d.message_index, d.path) for d in openai_responses.check(RESPONSES_ITEMS)] == [
        ("BAD_TOOL_ARGUMENTS", 9, "$[9].arguments")
    ]
    assert openai_responses.check(json.dumps(RESPONSES_ITEMS)) == openai_responses.check(RESPONSES_ITEMS)


def test_a_request_body_with_instructions_and_a_string_input_writes_back() -> None:
    body = {"model": "gpt-5", "instructions": "Be brief.", "input": "hello"}
    conversation = openai_responses.load(body)
    assert conversation.messages[0] == UserMessage(
        id="m0", content="hello", meta_json=conversation.messages[0].meta_json
    )
    assert _same(openai_responses.dump(conversation), body)
    assert openai_responses.check(body) == ()


def test_responses_rules() -> None:
    long_id = "c" * 65
    items = [
        {"role": "user", "content": "x"},
        {"type": "function_call", "name": "f", "arguments": "{}", "call_id": long_id},
        {"type": "function_call_output", "call_id": long_id, "output": "y"},
        {"type": "reasoning", "id": "rs_2", "summary": []},
    ]
    assert [(d.code, d.message_index, d.path, d.message) for d in openai_responses.check(items)] == [
        (
            "BAD_TOOL_CALL_ID_FORMAT",
            1,
            "$[1].call_id",
            "Tool call ID is 65 characters long; the Responses API accepts a `call_id` of at most 64",
        ),
        (
            "REASONING_ITEM_MISPLACED",
            3,
            "$[3]",
            "A reasoning item must be followed by an output item of its turn (a message or a call)",
        ),
    ]


@pytest.mark.parametrize(
    ("item", "path", "message"),
    [
        (1, "$[0]", "Expected an item object, got `int`"),
        (
            {"role": "tool", "content": "x"},
            "$[0].role",
            "Invalid role 'tool'; expected one of user, assistant, system, developer",
        ),
        ({"type": ""}, "$[0].type", "Expected an item `type`"),
        ({"role": "user", "content": 3}, "$[0].content", "Expected `str` or a list of content parts, got `int`"),
        ({"role": "user", "content": [{}]}, "$[0].content[0]", "Expected a content part with a `type`"),
        (
            {"role": "user", "content": [{"type": "input_text", "text": 1}]},
            "$[0].content[0].text",
            "Expected `str`, got `int`",
        ),
        ({"type": "function_call", "name": "f", "arguments": "{}"}, "$[0].call_id", "Expected a non-empty `str`"),
        ({"type": "function_call", "call_id": "c", "arguments": "{}"}, "$[0].name", "Expected a non-empty `str`"),
        (
            {"type": "function_call", "call_id": "c", "name": "f", "arguments": {}},
            "$[0].arguments",
            "Expected `str`, got `object`",
        ),
        (
            {"type": "custom_tool_call", "call_id": "c", "name": "f", "input": 1},
            "$[0].input",
            "Expected `str`, got `int`",
        ),
        ({"type": "function_call_output", "output": "x"}, "$[0].call_id", "Expected a non-empty `str`"),
        (
            {"type": "function_call_output", "call_id": "c", "output": 1},
            "$[0].output",
            "Expected `str` or a list of content parts, got `int`",
        ),
    ],
)
def test_responses_refuses_what_is_not_an_item_and_says_where(item: object, path: str, message: str) -> None:
    with pytest.raises(FormatError) as raised:
        openai_responses.load([item])
    assert [(d.code, d.path, d.message) for d in raised.value.diagnostics] == [("BAD_FORMAT", path, message)]
    assert [d.code for d in openai_responses.check([item])] == ["BAD_FORMAT"]


def test_responses_refuses_bad_instructions_and_other_containers() -> None:
    with pytest.raises(FormatError) as raised:
        openai_responses.load({"instructions": 3, "input": []})
    assert [(d.message_index, d.path) for d in raised.value.diagnostics] == [(None, "$.instructions")]
    with pytest.raises(FormatError):
        openai_responses.load(3)


PI_LINES: list[object] = [
    {"type": "session", "id": "s", "timestamp": "t0"},
    {"type": "message", "timestamp": "t1", "message": {"role": "user", "content": "plain", "timestamp": 1}},
    {
        "type": "message",
        "timestamp": "t2",
        "message": {
            "role": "user",
            "content": [{"type": "text", "text": "a"}, {"type": "image", "data": "b64", "mimeType": "image/png"}],
            "timestamp": 2,
        },
    },
    {
        "type": "message",
        "timestamp": "t3",
        "message": {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "hm"},
                {"type": "text", "text": "x", "textSignature": "s"},
                {"type": "toolCall", "id": "t1", "name": "read", "arguments": "oops"},
            ],
            "stopReason": "toolUse",
            "timestamp": 3,
        },
    },
    {
        "type": "message",
        "timestamp": "t4",
        "message": {
            "role": "toolResult",
            "toolCallId": "t1",
            "content": [{"type": "text", "text": "r"}],
            "details": {"n": 1},
            "isError": False,
            "timestamp": 4,
        },
    },
    {
        "type": "message",
        "timestamp": "t5",
        "message": {"role": "bashExecution", "command": "ls", "output": "", "timestamp": 5},
    },
    {"type": "model_change", "timestamp": "t6", "modelId": "m"},
]


def test_pi_lines_of_every_kind_write_back_exactly() -> None:
    text = "".join(json.dumps(line) + "\n" for line in PI_LINES)
    for source in (PI_LINES, tuple(PI_LINES), text, text.encode()):
        conversation = pi.load(source)
        assert _same(pi.dump(conversation), PI_LINES)
    conversation = pi.load(PI_LINES)
    assert [type(message).__name__ for message in conversation.messages] == [
        "UserMessage",
        "UserMessage",
        "AssistantMessage",
        "ToolResultMessage",
    ]
    result = conversation.messages[3]
    assert type(result) is ToolResultMessage
    assert result.tool_name == "read"  # taken from its call; never written back
    assert [(d.code, d.message_index, d.path) for d in pi.check(PI_LINES)] == [
        ("BAD_TOOL_ARGUMENTS", 3, "$[3].message.content[2].arguments")
    ]


@pytest.mark.parametrize(
    ("message", "path", "problem"),
    [
        (
            {"role": "user", "content": 1},
            "$[0].message.content",
            "Expected `str` or a list of content parts, got `int`",
        ),
        ({"role": "user", "content": [1]}, "$[0].message.content[0]", "Expected a content part with a `type`"),
        ({"role": "user", "content": [{"type": "text"}]}, "$[0].message.content[0].text", "Expected `str`, got `null`"),
        ({"role": "assistant", "content": "x"}, "$[0].message.content", "Expected a list of content blocks, got `str`"),
        ({"role": "assistant", "content": [{}]}, "$[0].message.content[0]", "Expected a content block with a `type`"),
        (
            {"role": "assistant", "content": [{"type": "toolCall", "name": "f"}]},
            "$[0].message.content[0].id",
            "Expected a non-empty `str`",
        ),
        (
            {"role": "assistant", "content": [{"type": "toolCall", "id": "c"}]},
            "$[0].message.content[0].name",
            "Expected a non-empty `str`",
        ),
        ({"role": "toolResult", "content": []}, "$[0].message.toolCallId", "Expected a non-empty `str`"),
        (
            {"role": "toolResult", "toolCallId": "c", "toolName": "", "content": []},
            "$[0].message.toolName",
            "Expected a non-empty `str`",
        ),
        (
            {"role": "toolResult", "toolCallId": "c", "isError": 1, "content": []},
            "$[0].message.isError",
            "Expected `bool`, got `int`",
        ),
    ],
)
def test_pi_refuses_what_is_not_a_pi_message_and_says_where(message: object, path: str, problem: str) -> None:
    line = {"type": "message", "message": message}
    with pytest.raises(FormatError) as raised:
        pi.load([line])
    assert [(d.code, d.message_index, d.path, d.message) for d in raised.value.diagnostics] == [
        ("BAD_FORMAT", 0, path, problem)
    ]


@pytest.mark.parametrize("module", [claude_code, codex, pi])
def test_a_log_with_an_empty_or_broken_line_is_refused_line_by_line(module: ModuleType) -> None:
    with pytest.raises(FormatError) as raised:
        module.load(b'{"type": "x"}\n\n{"type": \n')
    assert [(d.code, d.message_index, d.path) for d in raised.value.diagnostics] == [
        ("BAD_FORMAT", 1, "$[1]"),
        ("INVALID_JSON", 2, "$[2]"),
    ]
    assert raised.value.diagnostics[0].message == "Expected a JSON value, got an empty line"
    with pytest.raises(FormatError) as not_lines:
        module.load({"type": "x"})
    assert [d.message for d in not_lines.value.diagnostics] == [
        "Expected JSON Lines text, or a list of the lines' values"
    ]
    assert [d.code for d in module.check(3)] == ["BAD_FORMAT"]
    assert module.load("").messages == ()
    assert module.dumps(module.load("")) == b""


@pytest.mark.parametrize("module", [claude_code, pi])
def test_a_line_broken_after_a_field_of_an_unusual_type_is_invalid_json(module: ModuleType) -> None:
    """The first pass of a tree log decodes each line's head with a typed decoder, which can
    stop at a field of an unusual type before it reaches the line's syntax error (found by the
    render tests' damaged-file property): the line is `INVALID_JSON`, never an exception."""
    text = b'{"type": "x"}\n{"type":{"type": "x", "uuid": "u"}\n'
    with pytest.raises(FormatError) as raised:
        module.load(text)
    assert [(d.code, d.message_index, d.path) for d in raised.value.diagnostics] == [("INVALID_JSON", 1, "$[1]")]
    assert [d.code for d in module.check(text)] == ["INVALID_JSON"]


def test_claude_code_refuses_a_message_line_without_a_message() -> None:
    with pytest.raises(FormatError) as raised:
        claude_code.load([{"type": "user", "message": "hi"}])
    assert [(d.path, d.message) for d in raised.value.diagnostics] == [
        ("$[0].message", "Expected a message object, got `str`")
    ]


@pytest.mark.parametrize("target", ["claude_code", "codex", "pi", "gemini_cli"])
def test_a_conversation_converted_into_a_log_is_written_as_new_lines(target: str) -> None:
    source = openai_chat.load(
        [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "ok"},
            {"role": "assistant", "content": "done"},
        ]
    )
    converted = convert(source, target)
    module = {"claude_code": claude_code, "codex": codex, "pi": pi, "gemini_cli": gemini_cli}[target]
    written = module.dumps(converted)
    assert module.check(written) == ()
    again = module.load(written)
    assert [type(message) for message in again.messages] == [type(message) for message in converted.messages]
    codes = [note.code for note in converted.notes]
    assert ("DROPPED_INSTRUCTION" in codes) == (target != "codex")
    if target == "codex":
        assert again.instructions[0].text == "Be brief."


@pytest.mark.parametrize("linked", [False, True])
def test_a_result_repair_puts_inside_a_claude_code_line_is_a_new_line_before_it(linked: bool) -> None:
    """A user line holding a result and then text: the result repair inserts for the same turn
    goes before the text in the IR; it is written as its own line before that line (after the
    call's line), and the line itself is written back as it was (but for its `parentUuid` in a
    tree, which now names the new line)."""
    lines: list[dict[str, object]] = [
        {
            "parentUuid": None,
            "sessionId": "s",
            "type": "user",
            "uuid": "u0",
            "message": {"role": "user", "content": "hi"},
        },
        {
            "parentUuid": "u0" if linked else None,
            "sessionId": "s",
            "type": "assistant",
            "uuid": "u1",
            "message": {
                "id": "msg_1",
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "toolu_a", "name": "Read", "input": {}},
                    {"type": "tool_use", "id": "toolu_b", "name": "Read", "input": {}},
                ],
            },
        },
        {
            "parentUuid": "u1" if linked else None,
            "sessionId": "s",
            "type": "user",
            "uuid": "u2",
            "message": {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_a", "content": "r"},
                    {"type": "text", "text": "a"},
                    {"type": "text", "text": "b"},
                ],
            },
        },
    ]
    conversation = claude_code.load(lines)
    repaired = repair_transcript(conversation.messages)
    assert [fix.action for fix in repaired.fixes] == ["inserted_result"]
    assert [getattr(message, "tool_call_id", None) for message in repaired.messages[2:]] == ["toolu_a", "toolu_b", None]
    written = claude_code.dump(conversation.replace(messages=repaired.messages))
    assert type(written) is list
    assert len(written) == 4
    new = written[2]
    assert type(new) is dict
    assert new["message"] == {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_b",
                "content": "Tool call was interrupted before it returned a result.",
                "is_error": True,
            }
        ],
    }
    assert new["parentUuid"] == ("u1" if linked else None)
    assert _same(written[:2], lines[:2])
    assert _same(written[3], {**lines[2], "parentUuid": new["uuid"]} if linked else lines[2])
    assert claude_code.check(written) == ()
    back = claude_code.load(written).messages
    assert [(type(message), getattr(message, "tool_call_id", None)) for message in back[2:]] == [
        (ToolResultMessage, "toolu_b"),
        (ToolResultMessage, "toolu_a"),
        (UserMessage, None),
    ]
