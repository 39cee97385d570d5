"""The adapters' contract on made-up data: IDs, errors, conversion, and properties."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from message_ir import (
    AssistantMessage,
    Diagnostic,
    Message,
    ToolCall,
    ToolResultMessage,
    assistant_message,
    tool_result_message,
    user_message,
    validate_transcript,
)
from message_ir.adapters import Conversation, FormatError, anthropic, convert, detect, openai_chat
from message_ir.adapters._ids import rewrite_ids
from tests.support import assert_saves_in_the_ir

# --- IDs ------------------------------------------------------------------------------------


def test_ids_that_only_differ_in_forbidden_characters_stay_distinct() -> None:
    long_a, long_b = "call_" + "a" * 85 + "1", "call_" + "a" * 85 + "2"
    source = ["call.1", "call_1", "call 1", long_a, long_b]
    new = rewrite_ids(source, anthropic.FORMAT.id_rule, {})
    assert new["call_1"] == "call_1"
    assert len(set(new.values())) == len(source)
    assert all(anthropic.FORMAT.id_rule.problem(value) is None for value in new.values())
    assert rewrite_ids(source, anthropic.FORMAT.id_rule, {}) == new  # deterministic


def test_a_rewritten_id_never_takes_one_the_source_uses() -> None:
    first = rewrite_ids(["call.1"], anthropic.FORMAT.id_rule, {})["call.1"]
    new = rewrite_ids(["call.1", first], anthropic.FORMAT.id_rule, {})
    assert new[first] == first
    assert new["call.1"] != first


def conversation_with_call(call_id: str) -> list[Message]:
    return [
        user_message(id="u", content="hi"),
        assistant_message(id="a", content=[{"type": "toolCall", "id": call_id, "name": "read", "arguments": {}}]),
        tool_result_message(id="r", tool_call_id=call_id, tool_name="read", content="ok"),
    ]


def first_call(conversation: Conversation, index: int) -> ToolCall:
    message = conversation.messages[index]
    assert type(message) is AssistantMessage
    call = message.content[0]
    assert type(call) is ToolCall
    return call


def test_convert_rewrites_ids_and_converting_back_restores_them() -> None:
    to_anthropic = convert(openai_chat.load(openai_chat.dump(conversation_with_call("call.1"))), to="anthropic")
    assert first_call(to_anthropic, 1).id != "call.1"
    assert [note.code for note in to_anthropic.notes if note.code.endswith("CALL_ID")] == ["REWROTE_CALL_ID"]
    assert anthropic.check(anthropic.dump(to_anthropic)) == ()
    back = convert(to_anthropic, to="openai_chat")
    assert first_call(back, 1).id == "call.1"
    result = back.messages[2]
    assert type(result) is ToolResultMessage
    assert result.tool_call_id == "call.1"
    assert [note.code for note in back.notes] == ["RESTORED_CALL_ID", "RETYPED_ARGUMENTS"]
    assert str(back.notes[1]) == (
        "RETYPED_ARGUMENTS: Arguments of 'read' are written as JSON text (anthropic holds the other form)"
        " - at `$[1].content[0].arguments`"
    )


def test_plain_ir_messages_dump_as_a_request_body() -> None:
    messages = conversation_with_call("call_1")
    assert anthropic.dump(messages) == {
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "call_1", "name": "read", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": "ok"}]},
        ]
    }
    assert openai_chat.dump(messages) == {
        "messages": [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "read", "arguments": "{}"}}],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "ok"},
        ]
    }


def test_system_messages_become_instructions_and_go_back_in_place() -> None:
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "hi"},
        {"role": "developer", "content": [{"type": "text", "text": "Use tools."}]},
        {"role": "assistant", "content": "hello"},
    ]
    conversation = openai_chat.load(messages)
    assert [(entry.role, entry.text, entry.path) for entry in conversation.instructions] == [
        ("system", "Be brief.", "$[0]"),
        ("developer", "Use tools.", "$[2]"),
    ]
    assert openai_chat.dump(conversation) == messages
    converted = convert(conversation, to="anthropic")
    assert anthropic.dump(converted) == {
        "system": "Be brief.\n\nUse tools.",
        "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}],
    }
    assert [note.code for note in converted.notes] == ["MERGED_INSTRUCTIONS"]


# --- arguments that are not a JSON object -----------------------------------------------------


@pytest.mark.parametrize("text", ["{not json", "null", "[1]", '"x"'])
def test_arguments_that_are_not_an_object_load_and_write_back(text: str) -> None:
    messages = [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": text}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    ]
    conversation = openai_chat.load(messages)
    assert first_call(conversation, 0).arguments == {}
    assert [note.code for note in conversation.notes] == ["ARGUMENTS_NOT_AN_OBJECT"]
    assert openai_chat.dump(conversation) == messages
    assert openai_chat.check(messages) == (
        Diagnostic(
            "BAD_TOOL_ARGUMENTS",
            0,
            "$[0].tool_calls[0].function.arguments",
            "Expected a JSON object as the arguments text",
        ),
    )


def test_arguments_keep_the_exact_string_sent() -> None:
    text = '{"b": 1.50, "a": "\\u00e9"}'
    messages = [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": text}}],
        }
    ]
    conversation = openai_chat.load(messages)
    assert first_call(conversation, 0).arguments == {"b": 1.5, "a": "é"}
    assert openai_chat.dump(conversation) == messages


# --- what is not the format -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (b"{", Diagnostic("INVALID_JSON", None, "$", "Invalid JSON: Input data was truncated")),
        (42, Diagnostic("BAD_FORMAT", None, "$", "Expected a list of messages, or an object with a `messages` list")),
        (
            [{"role": "function", "content": "x"}],
            Diagnostic(
                "BAD_FORMAT",
                0,
                "$[0].role",
                "Invalid role 'function'; expected one of system, developer, user, assistant, tool",
            ),
        ),
        (
            {"messages": [{"role": "tool", "content": "x"}]},
            Diagnostic("BAD_FORMAT", 0, "$.messages[0].tool_call_id", "Expected a non-empty `str`"),
        ),
        (
            [{"role": "user", "content": 5}],
            Diagnostic("BAD_FORMAT", 0, "$[0].content", "Expected `str` or a list of content parts, got `int`"),
        ),
    ],
)
def test_load_refuses_what_is_not_openai_chat(source: object, expected: Diagnostic) -> None:
    with pytest.raises(FormatError) as caught:
        openai_chat.load(source)
    assert caught.value.diagnostics == (expected,)
    assert openai_chat.check(source) == (expected,)


def test_load_refuses_a_system_role_in_anthropic_messages() -> None:
    with pytest.raises(FormatError) as caught:
        anthropic.load([{"role": "system", "content": "x"}])
    assert caught.value.diagnostics == (
        Diagnostic("BAD_FORMAT", 0, "$[0].role", "Invalid role 'system'; expected one of user, assistant"),
    )


def test_detect() -> None:
    assert detect(b'[{"role": "user", "content": "hi"}]') == "openai_chat"
    assert detect({"system": "x", "messages": []}) == "anthropic"
    assert detect([{"id": "u", "role": "user", "content": "hi"}]) is None  # the IR's own
    assert detect(b"not json") is None
    assert detect(7) is None


# --- properties -----------------------------------------------------------------------------

_ids = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), min_size=1, max_size=50)
_text = st.text(st.characters(codec="utf-8"), max_size=20)
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | _text,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(_text, children, max_size=3),
    max_leaves=8,
)


LINKAGE = {
    "MISSING_TOOL_RESULT",
    "ORPHAN_TOOL_RESULT",
    "TOOL_NAME_MISMATCH",
    "DUPLICATE_TOOL_RESULT",
    "TOOL_RESULT_BEFORE_CALL",
    "DUPLICATE_TOOL_CALL_ID",
}
"""Load never refuses broken linkage: these are the only diagnostics its messages may have."""


@st.composite
def openai_transcripts(draw: st.DrawFn) -> list[object]:
    messages: list[object] = []
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.sampled_from(["system", "user", "assistant", "tool"]))
        extra = draw(st.dictionaries(st.sampled_from(["name", "x_extra", "weight"]), _json, max_size=2))
        if kind == "assistant":
            calls: list[object] = [
                {
                    "id": draw(_ids),
                    "type": "function",
                    "function": {
                        "name": draw(_ids),
                        "arguments": draw(
                            st.one_of(st.just("{}"), _text, st.dictionaries(_text, _json, max_size=3).map(json.dumps))
                        ),
                    },
                }
                for _ in range(draw(st.integers(0, 2)))
            ]
            record: dict[str, object] = {"content": draw(st.none() | _text), "role": "assistant"}
            keep_empty: bool = draw(st.booleans())
            if calls or keep_empty:
                record["tool_calls"] = calls
        elif kind == "tool":
            record = {"role": "tool", "tool_call_id": draw(_ids), "content": draw(_text)}
        else:
            record = {
                "role": kind,
                "content": draw(
                    _text | st.lists(st.fixed_dictionaries({"type": st.just("text"), "text": _text}), max_size=2)
                ),
            }
        record.update(extra)
        if draw(st.booleans()):
            record = dict(reversed(list(record.items())))
        messages.append(record)
    return messages


@given(openai_transcripts())
def test_openai_chat_load_then_dump_is_the_identity(messages: list[object]) -> None:
    conversation = openai_chat.load(messages)
    assert all(diagnostic.code in LINKAGE for diagnostic in validate_transcript(conversation.messages))
    assert json.dumps(json.loads(openai_chat.dumps(conversation))) == json.dumps(messages)
    assert_saves_in_the_ir(conversation.messages)


@given(st.one_of(openai_transcripts(), _json, st.binary(max_size=30)))
def test_check_never_raises(source: object) -> None:
    for adapter in (openai_chat, anthropic):
        found = adapter.check(source)
        assert type(found) is tuple


@given(openai_transcripts())
def test_convert_output_passes_the_target_check_when_linkage_is_valid(messages: list[object]) -> None:
    conversation = openai_chat.load(messages)
    if validate_transcript(conversation.messages):
        return
    assert anthropic.check(anthropic.dump(convert(conversation, to="anthropic"))) == ()
    assert openai_chat.check(openai_chat.dump(convert(conversation, to="openai_chat"))) == ()


@st.composite
def anthropic_blocks(draw: st.DrawFn, role: str) -> list[object]:
    blocks: list[object] = []
    for _ in range(draw(st.integers(0, 4))):
        if role == "assistant":
            kind = draw(st.sampled_from(["text", "tool_use", "thinking"]))
        else:
            kind = draw(st.sampled_from(["text", "tool_result", "image"]))
        block: dict[str, object]
        if kind == "text":
            block = {"type": "text", "text": draw(_text)}
        elif kind == "tool_use":
            block = {
                "type": "tool_use",
                "id": draw(_ids),
                "name": draw(_ids),
                "input": draw(st.dictionaries(_text, _json, max_size=3)),
            }
        elif kind == "thinking":
            block = {"type": "thinking", "thinking": draw(_text), "signature": draw(_text)}
        elif kind == "image":
            block = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": draw(_text)}}
        else:
            block = {"type": "tool_result", "tool_use_id": draw(_ids)}
            content: object = draw(
                _text | st.lists(st.fixed_dictionaries({"type": st.just("text"), "text": _text}), max_size=2)
            )
            if draw(st.booleans()):
                block["content"] = content
            is_error: bool = draw(st.booleans())
            if draw(st.booleans()):
                block["is_error"] = is_error
        block.update(
            draw(st.dictionaries(st.sampled_from(["cache_control", "caller", "citations"]), _json, max_size=1))
        )
        if draw(st.booleans()):
            block = dict(reversed(list(block.items())))
        blocks.append(block)
    return blocks


@st.composite
def anthropic_transcripts(draw: st.DrawFn) -> list[object]:
    messages: list[object] = []
    for _ in range(draw(st.integers(0, 5))):
        role = draw(st.sampled_from(["user", "assistant"]))
        content: object = draw(_text | anthropic_blocks(role))
        record: dict[str, object] = {"role": role, "content": content}
        record.update(draw(st.dictionaries(st.sampled_from(["id", "model", "usage"]), _json, max_size=2)))
        if draw(st.booleans()):
            record = dict(reversed(list(record.items())))
        messages.append(record)
    return messages


@given(anthropic_transcripts())
def test_anthropic_load_then_dump_is_the_identity(messages: list[object]) -> None:
    conversation = anthropic.load(messages)
    assert all(diagnostic.code in LINKAGE for diagnostic in validate_transcript(conversation.messages))
    assert json.dumps(json.loads(anthropic.dumps(conversation))) == json.dumps(messages)
    assert_saves_in_the_ir(conversation.messages)
    body = {"model": "m", "system": "s", "messages": messages}
    assert json.dumps(json.loads(anthropic.dumps(anthropic.load(json.dumps(body))))) == json.dumps(body)


@given(anthropic_transcripts())
def test_anthropic_check_never_raises_and_convert_passes_the_target_check(messages: list[object]) -> None:
    assert type(anthropic.check(messages)) is tuple
    conversation = anthropic.load(messages)
    if validate_transcript(conversation.messages):
        return
    assert openai_chat.check(openai_chat.dump(convert(conversation, to="openai_chat"))) == ()
    assert anthropic.check(anthropic.dump(convert(conversation, to="anthropic"))) == ()


def test_two_calls_of_one_message_sharing_an_id_are_a_duplicate_not_a_reuse() -> None:
    messages: list[object] = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}},
                {"id": "c1", "type": "function", "function": {"name": "g", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "a"},
        {"role": "tool", "tool_call_id": "c1", "content": "b"},
    ]
    conversation = openai_chat.load(messages)
    assert conversation.notes == ()
    assert [diagnostic.code for diagnostic in openai_chat.check(messages)] == ["DUPLICATE_TOOL_CALL_ID"]
    assert openai_chat.dump(conversation) == messages


def test_a_body_field_nested_too_deeply_is_a_format_problem_not_an_unreadable_value() -> None:
    deep = "[" * 70 + "]" * 70
    body = ('{"messages": [{"role": "user", "content": "x"}], "metadata": ' + deep + "}").encode()
    assert openai_chat.check(body) == (Diagnostic("BAD_FORMAT", None, "$", "Nesting deeper than 64 levels"),)
