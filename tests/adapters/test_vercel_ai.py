"""`vercel_ai`: the AI SDK's prompts recorded in a real trace, every output type, the v4 form,
and UIMessages (the form `useChat` keeps), built here from the SDK's own part types."""

from __future__ import annotations

import json

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from message_ir import AssistantMessage, OpaqueBlock, ToolCall, ToolResultMessage, repair_transcript
from message_ir.adapters import convert, detect, openai_chat, vercel_ai
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


UI_MESSAGES: list[dict[str, object]] = [
    {"id": "s1", "role": "system", "parts": [{"type": "text", "text": "Be brief."}]},
    {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "Paris?"}, {"type": "data-ui", "data": 1}]},
    {
        "id": "a1",
        "role": "assistant",
        "metadata": {"model": "gpt-5"},
        "parts": [
            {"type": "step-start"},
            {"type": "reasoning", "text": "Two tools.", "state": "done"},
            {
                "type": "tool-weather",
                "toolCallId": "c1",
                "state": "output-available",
                "input": {"city": "Paris"},
                "output": {"celsius": 21},
            },
            {"type": "dynamic-tool", "toolName": "clock", "toolCallId": "c2", "state": "output-error",
             "input": {"tz": "CET"}, "errorText": "No clock."},
            {"type": "tool-search", "toolCallId": "c3", "state": "input-streaming", "input": {"q": "par"}},
            {"type": "step-start"},
            {"type": "text", "text": "21 degrees.", "state": "done"},
            {"type": "tool-delete", "toolCallId": "c4", "state": "output-denied", "input": {"path": "/"},
             "approval": {"id": "p1", "approved": False, "reason": "Too risky."}},
            {"type": "tool-web", "toolCallId": "c5", "state": "output-available", "input": {}, "output": "done",
             "providerExecuted": True},
            {"type": "tool-book", "toolCallId": "c6", "state": "approval-requested", "input": {"table": 2},
             "approval": {"id": "p2"}},
        ],
    },
]  # fmt: skip


def test_ui_messages_load_as_the_sdk_sends_them_and_write_back_exactly() -> None:
    conversation = vercel_ai.load(json.dumps(UI_MESSAGES))
    assert vercel_ai.dump(conversation) == UI_MESSAGES
    assert [str(note) for note in conversation.notes] == [
        "SOURCE_FORM: Read as Vercel AI SDK UIMessages (`parts`) - at `$`"
    ]
    assert [entry.text for entry in conversation.instructions] == ["Be brief."]
    shown = [
        (type(message).__name__, message.content if type(message) is not AssistantMessage else
         [block.name if type(block) is ToolCall else block.kind if type(block) is OpaqueBlock else "text"
          for block in message.content])
        for message in conversation.messages
    ]  # fmt: skip
    assert shown == [
        ("UserMessage", "Paris?"),
        ("AssistantMessage", ["step-start", "reasoning", "weather", "clock", "tool-search"]),
        ("ToolResultMessage", '{"celsius":21}'),
        ("ToolResultMessage", "No clock."),
        ("AssistantMessage", ["step-start", "text", "delete", "tool-web", "book"]),
        ("ToolResultMessage", "Too risky."),
    ]
    assert [message.is_error for message in conversation.messages if type(message) is ToolResultMessage] == [
        False,
        True,
        True,
    ]
    assert detect(json.dumps(UI_MESSAGES)) == "vercel_ai"
    assert [str(diagnostic) for diagnostic in vercel_ai.check(UI_MESSAGES)] == [
        "MISSING_TOOL_RESULT: Tool call 'c6' has no result after it - at `$[2].parts[9]`"
    ]


def test_a_result_repair_adds_goes_into_its_tool_part() -> None:
    conversation = vercel_ai.load(UI_MESSAGES)
    fixed = repair_transcript(conversation.messages).messages
    written = vercel_ai.dump(msgspec.structs.replace(conversation, messages=fixed))
    assert type(written) is list
    parts = written[2]["parts"]
    assert parts[9] == {
        "type": "tool-book",
        "toolCallId": "c6",
        "state": "output-error",
        "input": {"table": 2},
        "approval": {"id": "p2"},
        "errorText": "Tool call was interrupted before it returned a result.",
    }
    assert parts[:9] == UI_MESSAGES[2]["parts"][:9]  # type: ignore[index]  # a list: the test's own data
    assert vercel_ai.check(written) == ()


def test_an_edited_or_dropped_result_rewrites_its_tool_part() -> None:
    conversation = vercel_ai.load(UI_MESSAGES)
    messages = list(conversation.messages)
    messages[2] = msgspec.structs.replace(messages[2], content="22")  # the weather result
    del messages[3]  # the clock's error
    written = vercel_ai.dump(msgspec.structs.replace(conversation, messages=tuple(messages)))
    assert type(written) is list
    weather, clock = written[2]["parts"][2:4]
    assert weather == {
        "type": "tool-weather",
        "toolCallId": "c1",
        "state": "output-available",
        "input": {"city": "Paris"},
        "output": "22",
    }
    assert clock == {"type": "dynamic-tool", "toolName": "clock", "toolCallId": "c2", "state": "input-available",
                     "input": {"tz": "CET"}}  # fmt: skip


@pytest.mark.parametrize(
    ("part", "problem"),
    [
        ({"type": "tool-x", "toolCallId": "c", "state": "done", "input": {}}, "BAD_FORMAT: Expected a tool part's"
         " `state` (input-streaming, input-available, approval-requested, approval-responded, output-available,"
         " output-error, output-denied), got 'done' - at `$[0].parts[0].state`"),
        ({"type": "tool-x", "state": "input-available", "input": {}},
         "BAD_FORMAT: Expected a non-empty `str` - at `$[0].parts[0].toolCallId`"),
        ({"type": "dynamic-tool", "toolCallId": "c", "state": "input-available", "input": {}},
         "BAD_FORMAT: Expected a tool's name - at `$[0].parts[0].toolName`"),
        ({"text": "no type"}, "BAD_FORMAT: Expected a part with a `type` - at `$[0].parts[0]`"),
        ({"type": "text", "text": 3}, "BAD_FORMAT: Expected `str`, got `int` - at `$[0].parts[0].text`"),
    ],
)  # fmt: skip
def test_a_ui_part_that_is_not_one_is_a_problem_at_its_path(part: dict[str, object], problem: str) -> None:
    ui = [{"id": "a", "role": "assistant", "parts": [part]}]
    assert [str(diagnostic) for diagnostic in vercel_ai.check(ui)] == [problem]


def test_a_tool_part_whose_input_did_not_parse_keeps_its_raw_input() -> None:
    part = {"type": "tool-x", "toolCallId": "c", "state": "output-error", "rawInput": "{ci", "errorText": "Bad input."}
    ui = [{"id": "a", "role": "assistant", "parts": [part]}]
    assert vercel_ai.dump(vercel_ai.load(ui)) == ui
    assert [diagnostic.code for diagnostic in vercel_ai.check(ui)] == ["BAD_TOOL_ARGUMENTS"]


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


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)
_STATES = st.sampled_from(
    [
        "input-streaming",
        "input-available",
        "approval-requested",
        "approval-responded",
        "output-available",
        "output-error",
        "output-denied",
    ]
)


@st.composite
def _tool_part(draw: st.DrawFn) -> dict[str, object]:
    part: dict[str, object] = (
        {"type": "dynamic-tool", "toolName": draw(st.sampled_from(["a", "b"]))}
        if draw(st.booleans())
        else {"type": draw(st.sampled_from(["tool-a", "tool-b"]))}
    )
    part["toolCallId"] = draw(st.sampled_from(["c1", "c2", "c3", "c1~2"]))
    part["state"] = draw(_STATES)
    part["input"] = draw(st.dictionaries(st.text(max_size=3), _JSON, max_size=2) | _JSON)
    if draw(st.booleans()):
        part["output"] = draw(_JSON)
    if draw(st.booleans()):
        part["errorText"] = draw(st.text(max_size=5))
    if draw(st.booleans()):
        part["approval"] = {"id": "p", "approved": draw(st.booleans()), "reason": draw(st.text(max_size=3))}
    if draw(st.booleans()):
        part["providerExecuted"] = draw(st.booleans())
    return part


_PARTS = st.lists(
    st.one_of(
        st.builds(lambda text: {"type": "text", "text": text}, st.text(max_size=5)),
        st.builds(lambda text: {"type": "text", "text": text, "state": "done"}, st.text(max_size=5)),
        st.just({"type": "step-start"}),
        st.builds(lambda text: {"type": "reasoning", "text": text}, st.text(max_size=5)),
        st.builds(lambda data: {"type": "data-x", "data": data}, _JSON),
        _tool_part(),
    ),
    max_size=6,
)
_UI = st.lists(
    st.builds(
        lambda number, role, parts: {"id": f"m{number}", "role": role, "parts": parts},
        st.integers(0, 9),
        st.sampled_from(["system", "user", "assistant"]),
        _PARTS,
    ),
    min_size=1,
    max_size=4,
)


@settings(max_examples=300, deadline=None)
@given(_UI)
def test_any_ui_messages_write_back_exactly_and_check_never_raises(ui: list[dict[str, object]]) -> None:
    conversation = vercel_ai.load(ui)  # every generated part is one the SDK writes
    assert vercel_ai.dump(conversation) == ui
    assert msgspec.json.decode(vercel_ai.dumps(conversation)) == ui
    vercel_ai.check(ui)


def test_an_approval_the_user_denied_is_an_error_result_and_one_granted_awaits_its_output() -> None:
    approval = {"type": "tool-rm", "toolCallId": "c", "state": "approval-responded", "input": {}}
    denied = {**approval, "approval": {"id": "p", "approved": False, "reason": "No."}}
    granted = {**approval, "toolCallId": "d", "approval": {"id": "q", "approved": True}}
    ui = [{"id": "a", "role": "assistant", "parts": [denied, granted]}]
    conversation = vercel_ai.load(ui)
    results = [message for message in conversation.messages if type(message) is ToolResultMessage]
    assert [(message.tool_call_id, message.content, message.is_error) for message in results] == [("c", "No.", True)]
    assert [str(diagnostic) for diagnostic in vercel_ai.check(ui)] == [
        "MISSING_TOOL_RESULT: Tool call 'd' has no result after it - at `$[0].parts[1]`"
    ]
    assert vercel_ai.dump(conversation) == ui


V4_UI = [
    {"id": "u", "role": "user", "content": "Weather in Lyon and Paris?"},
    {
        "id": "a",
        "role": "assistant",
        "content": "",
        "toolInvocations": [
            {"state": "result", "step": 0, "toolCallId": "c1", "toolName": "weather", "args": {"city": "Lyon"},
             "result": {"celsius": 18}},
            {"state": "call", "step": 0, "toolCallId": "c2", "toolName": "weather", "args": {"city": "Paris"}},
        ],
    },
]  # fmt: skip


def test_v4_tool_invocations_are_calls_with_their_results() -> None:
    """AI SDK 4's UI messages: `content` text beside `toolInvocations` (`partial-call`,
    `call`, `result`); the SDK sends none without its result."""
    conversation = vercel_ai.load(V4_UI)
    assert vercel_ai.dump(conversation) == V4_UI
    assert [note.message for note in conversation.notes] == ["Read as Vercel AI SDK the v4 form (`args` / `result`)"]
    assistant, result = conversation.messages[1:]
    assert type(assistant) is AssistantMessage
    assert [(block.id, block.arguments.thaw()) for block in assistant.content if type(block) is ToolCall] == [
        ("c1", {"city": "Lyon"}),
        ("c2", {"city": "Paris"}),
    ]
    assert (type(result), result.content) == (ToolResultMessage, '{"celsius":18}')
    assert [str(diagnostic) for diagnostic in vercel_ai.check(V4_UI)] == [
        "MISSING_TOOL_RESULT: Tool call 'c2' has no result after it - at `$[1].toolInvocations[1]`"
    ]
    fixed = repair_transcript(conversation.messages).messages
    written = vercel_ai.dump(msgspec.structs.replace(conversation, messages=fixed))
    assert type(written) is list
    assert written[1]["toolInvocations"][1] == {
        "state": "result",
        "step": 0,
        "toolCallId": "c2",
        "toolName": "weather",
        "args": {"city": "Paris"},
        "result": "Tool call was interrupted before it returned a result.",
    }
    assert vercel_ai.check(written) == ()


def test_a_v4_invocation_that_is_not_one_is_a_problem() -> None:
    record = {"id": "a", "role": "assistant", "content": "", "toolInvocations": [{"state": "done"}]}
    assert [str(diagnostic) for diagnostic in vercel_ai.check([record])] == [
        "BAD_FORMAT: Expected a tool invocation with a `state` (partial-call, call, result)"
        " - at `$[0].toolInvocations[0]`"
    ]


def test_ui_parts_that_are_no_list_and_a_ui_role_that_is_none() -> None:
    assert [str(diagnostic) for diagnostic in vercel_ai.check([{"id": "a", "role": "assistant", "parts": 3}])] == [
        "BAD_FORMAT: Expected a list of parts, got `int` - at `$[0].parts`"
    ]
    assert [str(diagnostic) for diagnostic in vercel_ai.check([{"id": "a", "role": "tool", "parts": []}])] == [
        "BAD_FORMAT: Invalid role 'tool'; expected one of system, user, assistant - at `$[0].role`"
    ]
