"""The Gemini adapters: `gemini` (API `contents`) on made-up data and properties, and
`gemini_cli` (chat recordings) on the real recordings of `../shared/real/gemini/` (read in
place, never copied) and on edits of them."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from message_ir import (
    AssistantMessage,
    Diagnostic,
    Message,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    repair_transcript,
    validate_transcript,
)
from message_ir.adapters import (
    FormatError,
    anthropic,
    convert,
    detect,
    gemini,
    gemini_cli,
    openai_chat,
    openai_responses,
)
from tests.adapters.real import ids, openai_chat_messages, real_files
from tests.adapters.test_adapters import LINKAGE, _ids, _json, _text, openai_transcripts
from tests.adapters.test_cli_formats import run
from tests.support import assert_saves_in_the_ir

RECORDINGS = real_files("gemini", "*.json")
OPENAI = real_files("openai-chat", "*.json")

WEATHER: dict[str, object] = {
    "systemInstruction": {"parts": [{"text": "Be brief."}]},
    "contents": [
        {"role": "user", "parts": [{"text": "Weather in Paris and Rome?"}]},
        {
            "role": "model",
            "parts": [
                {"text": "Checking.", "thoughtSignature": "c2ln"},
                {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}},
                {"functionCall": {"name": "get_weather", "args": {"city": "Rome"}}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"name": "get_weather", "response": {"output": "sunny"}}},
                {"functionResponse": {"name": "get_weather", "response": {"temperature": 3}}},
            ],
        },
        {"role": "model", "parts": [{"text": "Weighing both.", "thought": True}, {"text": "Sunny; 3 degrees."}]},
    ],
    "generationConfig": {"temperature": 0},
}


def _shape(message: Message) -> tuple[object, ...]:
    """What a message says, without its ID and `meta`."""
    if type(message) is AssistantMessage:
        return (
            "assistant",
            [(block.type, getattr(block, "id", None), getattr(block, "text", None)) for block in message.content],
        )
    if type(message) is ToolResultMessage:
        return ("result", message.tool_call_id, message.tool_name, message.content, message.is_error)
    assert type(message) is UserMessage
    return ("user", message.content)


def _same(left: object, right: object) -> bool:
    """Equal as JSON values, key order included."""
    return json.dumps(left) == json.dumps(right)


# --- gemini ---------------------------------------------------------------------------------


def test_calls_without_ids_are_paired_by_order_and_name_and_never_written_back() -> None:
    conversation = gemini.load(WEATHER)
    results = [message for message in conversation.messages if type(message) is ToolResultMessage]
    assert [(result.tool_call_id, result.content, result.is_error) for result in results] == [
        ("gemini_call_1_1", "sunny", False),
        ("gemini_call_1_2", '{"temperature":3}', False),
    ]
    assert [(note.code, note.message_index, note.path, note.message) for note in conversation.notes] == [
        (
            "MADE_UP_CALL_ID",
            1,
            "$.contents[1].parts[1].functionCall",
            "The call has no `id`; the IR calls it 'gemini_call_1_1' (never written back)",
        ),
        (
            "MADE_UP_CALL_ID",
            1,
            "$.contents[1].parts[2].functionCall",
            "The call has no `id`; the IR calls it 'gemini_call_1_2' (never written back)",
        ),
    ]
    assert conversation.instructions[0].text == "Be brief."
    assert _same(json.loads(gemini.dumps(conversation)), WEATHER)
    assert gemini.check(WEATHER) == ()
    assert detect(WEATHER) == "gemini"
    assert detect(WEATHER["contents"]) == "gemini"


def test_responses_pair_with_the_earliest_waiting_call_of_their_name() -> None:
    source: list[object] = [
        {"role": "user", "parts": [{"text": "go"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "a"}}, {"functionCall": {"name": "b"}}]},
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"name": "b", "response": {"output": "B"}}},
                {"functionResponse": {"name": "a", "response": {"error": "A failed"}}},
            ],
        },
    ]
    conversation = gemini.load(source)
    results = [message for message in conversation.messages if type(message) is ToolResultMessage]
    assert [(result.tool_call_id, result.tool_name, result.is_error) for result in results] == [
        ("gemini_call_1_1", "b", False),
        ("gemini_call_1_0", "a", True),
    ]
    assert gemini.check(source) == ()
    assert _same(gemini.dump(conversation), source)


def test_gemini_rules_count_and_adjacency() -> None:
    contents = copy.deepcopy(WEATHER["contents"])
    assert type(contents) is list
    del contents[2]["parts"][1]  # one response for two calls
    assert gemini.check(contents) == (
        Diagnostic("MISSING_TOOL_RESULT", 1, "$[1].parts[2]", "Tool call 'gemini_call_1_2' has no result after it"),
        Diagnostic(
            "RESULT_COUNT_MISMATCH",
            2,
            "$[2]",
            "The turn after 2 function call(s) holds 1 function response(s); Gemini needs as many",
        ),
    )
    late: list[object] = [
        {"role": "model", "parts": [{"functionCall": {"id": "c1", "name": "f", "args": {}}}]},
        {"role": "user", "parts": [{"text": "wait"}]},
        {"role": "model", "parts": [{"text": "ok"}]},
        {"role": "user", "parts": [{"functionResponse": {"id": "c1", "name": "f", "response": {"output": "x"}}}]},
    ]
    assert gemini.check(late) == (
        Diagnostic(
            "RESULT_COUNT_MISMATCH",
            1,
            "$[1]",
            "The turn after 1 function call(s) holds 0 function response(s); Gemini needs as many",
        ),
        Diagnostic(
            "RESULT_NOT_ADJACENT", 3, "$[3].parts[0]", "The result for 'c1' is not in the turn right after its call"
        ),
    )


def test_snake_case_a_string_system_instruction_and_odd_parts_write_back() -> None:
    body: dict[str, object] = {
        "contents": [
            {
                "parts": [
                    {"text": "look"},
                    {"inline_data": {"mime_type": "image/png", "data": "AAAA"}},
                    {"text": "at this"},
                ]
            },
            {
                "role": "model",
                "parts": [
                    {"function_call": {"args": "not an object", "name": "view", "id": "v1"}, "thought_signature": "x"},
                    {"executable_code": {"code": "print(1)", "language": "PYTHON"}},
                ],
            },
            {
                "role": "function",
                "parts": [{"function_response": {"id": "v1", "name": "view"}}, {"text": "and?"}],
            },
            {"role": "user", "parts": []},
        ],
        "system_instruction": "Be brief.",
    }
    conversation = gemini.load(body)
    assert type(conversation.messages[0]) is UserMessage
    assert conversation.messages[0].content == "look\nat this"
    assert [note.code for note in conversation.notes] == ["ARGUMENTS_NOT_AN_OBJECT"]
    assert _same(gemini.dump(conversation), body)
    assert gemini.check(body) == (
        Diagnostic(
            "BAD_TOOL_ARGUMENTS",
            1,
            "$.contents[1].parts[0].function_call.args",
            "Expected a JSON object as the arguments text",
        ),
    )


def test_an_orphan_response_without_an_id_is_reported_under_one_of_its_own() -> None:
    source = [{"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {"output": "x"}}}]}]
    assert gemini.check(source) == (
        Diagnostic(
            "ORPHAN_TOOL_RESULT",
            0,
            "$[0].parts[0]",
            "Tool result answers 'gemini_response_0_0', but no tool call has that ID",
        ),
    )
    assert _same(gemini.dump(gemini.load(source)), source)


@pytest.mark.parametrize(
    ("source", "path", "message"),
    [
        ([{"role": "assistant", "parts": []}], "$[0].role", "Invalid role 'assistant'; expected one of user, model"),
        ([{"role": "user", "parts": "hi"}], "$[0].parts", "Expected a list of parts, got `str`"),
        ([{"role": "user", "parts": [7]}], "$[0].parts[0]", "Expected a part object, got `int`"),
        ([{"role": "user", "parts": [{"text": 7}]}], "$[0].parts[0].text", "Expected `str`, got `int`"),
        (
            [{"role": "model", "parts": [{"functionCall": {"args": {}}}]}],
            "$[0].parts[0].functionCall.name",
            "Expected a non-empty `str`",
        ),
        (
            [{"role": "model", "parts": [{"functionCall": {"name": "f", "id": ""}}]}],
            "$[0].parts[0].functionCall.id",
            "Expected a non-empty `str`",
        ),
        (
            [{"role": "model", "parts": [{"functionCall": []}]}],
            "$[0].parts[0].functionCall",
            "Expected an object, got `array`",
        ),
        (
            [{"parts": [{"functionResponse": {"name": "f", "response": "x"}}]}],
            "$[0].parts[0].functionResponse.response",
            "Expected an object, got `str`",
        ),
        (
            [{"parts": [{"functionResponse": {"response": {}}}]}],
            "$[0].parts[0].functionResponse.name",
            "Expected a non-empty `str`",
        ),
        ([{"parts": [{"functionResponse": 1}]}], "$[0].parts[0].functionResponse", "Expected an object, got `int`"),
        (["x"], "$[0]", "Expected a content object, got `str`"),
        (
            {"contents": [], "systemInstruction": 3},
            "$.systemInstruction",
            "Expected `str` or a content object, got `int`",
        ),
    ],
)
def test_gemini_refuses_what_is_not_gemini_and_says_where(source: object, path: str, message: str) -> None:
    with pytest.raises(FormatError) as raised:
        gemini.load(source)
    assert [(found.path, found.message) for found in raised.value.diagnostics] == [(path, message)]


@pytest.mark.parametrize("path", OPENAI, ids=ids(OPENAI))
def test_openai_chat_converts_to_gemini_and_gemini_cli(path: Path) -> None:
    conversation = openai_chat.load(openai_chat_messages(path))
    if validate_transcript(conversation.messages):
        pytest.skip("reuses call IDs: linkage not valid in the IR")
    as_gemini = convert(conversation, "gemini")
    assert gemini.check(gemini.dumps(as_gemini)) == ()
    again = gemini.load(gemini.dumps(as_gemini)).messages
    assert [_shape(message) for message in again] == [_shape(message) for message in as_gemini.messages]
    as_recording = convert(conversation, "gemini_cli")
    written = gemini_cli.dumps(as_recording)
    assert gemini_cli.check(written) == ()
    calls = sum(type(block) is ToolCall for message in as_gemini.messages for block in getattr(message, "content", ()))
    assert calls == sum(
        len(message.get("tool_calls") or []) for message in openai_chat_messages(path) if type(message) is dict
    )


# --- gemini_cli on the real recordings -------------------------------------------------------


@pytest.mark.parametrize("path", RECORDINGS, ids=ids(RECORDINGS))
def test_a_real_recording_loads_writes_back_exactly_and_checks_clean(path: Path) -> None:
    data = path.read_bytes()
    conversation = gemini_cli.load(data)
    assert _same(json.loads(gemini_cli.dumps(conversation)), json.loads(data))
    assert gemini_cli.check(data) == ()
    assert detect(data) == "gemini_cli"
    source = json.loads(data)
    calls = [call for record in source["messages"] for call in record.get("toolCalls", [])]
    results = [message for message in conversation.messages if type(message) is ToolResultMessage]
    assert [result.tool_call_id for result in results] == [call["id"] for call in calls]
    responses = [call["result"][0]["functionResponse"]["response"] for call in calls]
    # gemini-cli writes a failed call's text as `error`, any other as `output`
    assert [(result.content, result.is_error) for result in results] == [
        (response["error"], True) if "error" in response else (response["output"], False) for response in responses
    ]
    for target, module in (("gemini", gemini), ("anthropic", anthropic), ("openai_responses", openai_responses)):
        assert module.check(module.dumps(convert(conversation, target))) == ()


def test_a_recording_with_a_lost_result_is_diagnosed_and_repaired_into_the_call() -> None:
    source = json.loads(RECORDINGS[0].read_bytes())
    source["messages"][3]["toolCalls"][0]["result"] = None
    source["messages"][3]["toolCalls"][0]["status"] = "executing"
    source["messages"].insert(2, {"id": "i1", "timestamp": "t", "type": "info", "content": "Request cancelled."})
    call_id = source["messages"][4]["toolCalls"][0]["id"]
    assert gemini_cli.check(source) == (
        Diagnostic(
            "MISSING_TOOL_RESULT", 4, "$.messages[4].toolCalls[0]", f"Tool call {call_id!r} has no result after it"
        ),
    )
    conversation = gemini_cli.load(source)
    repaired = conversation.replace(messages=repair_transcript(conversation.messages).messages)
    written = json.loads(gemini_cli.dumps(repaired))
    assert gemini_cli.check(written) == ()
    assert [index for index, record in enumerate(written["messages"]) if record != source["messages"][index]] == [4]
    call = written["messages"][4]["toolCalls"][0]
    assert call["result"] == [
        {
            "functionResponse": {
                "id": call_id,
                "name": "list_directory",
                "response": {"error": "Tool call was interrupted before it returned a result."},
            }
        }
    ]
    assert call["status"] == "error"
    assert list(call) == list(source["messages"][4]["toolCalls"][0])


def test_recording_records_of_every_kind_write_back_exactly() -> None:
    recording: dict[str, object] = {
        "sessionId": "s",
        "messages": [
            {"type": "user", "content": [{"text": "see"}, {"inlineData": {"mimeType": "image/png", "data": "AA"}}]},
            {"type": "gemini", "content": [{"text": "hm", "thought": True}, {"text": "Looking."}], "toolCalls": []},
            {
                "type": "gemini",
                "content": "",
                "toolCalls": [
                    {"id": "a", "name": "f", "args": "oops", "result": "plain text", "status": "success"},
                    {"id": "b", "name": "g", "result": {"text": "a part"}},
                    {
                        "id": "c",
                        "name": "h",
                        "args": {},
                        "result": [
                            {"functionResponse": {"id": "c", "name": "h", "response": {"x": 1}}},
                            {"text": "more"},
                        ],
                    },
                ],
            },
            {"type": "warning", "content": "kept as it is"},
            {
                "type": "user",
                "content": [{"functionResponse": {"id": "a", "name": "f", "response": {"output": "late"}}}],
            },
        ],
    }
    conversation = gemini_cli.load(recording)
    assert [type(message).__name__ for message in conversation.messages] == [
        "UserMessage",
        "AssistantMessage",
        "AssistantMessage",
        "ToolResultMessage",
        "ToolResultMessage",
        "ToolResultMessage",
        "ToolResultMessage",
    ]
    assert [message.content for message in conversation.messages if type(message) is ToolResultMessage] == [
        "plain text",
        "a part",
        '{"x":1}',
        "late",
    ]
    assert _same(gemini_cli.dump(conversation), recording)
    assert [diagnostic.code for diagnostic in gemini_cli.check(recording)] == [
        "BAD_TOOL_ARGUMENTS",
        "DUPLICATE_TOOL_RESULT",
    ]
    assert detect(recording) == "gemini_cli"


@pytest.mark.parametrize(
    ("source", "path", "message"),
    [
        ({"messages": 3}, "$", "Expected a list of messages, or an object with a `messages` list"),
        (
            {"messages": [{"type": "gemini", "toolCalls": {}}]},
            "$.messages[0].toolCalls",
            "Expected a list, got `object`",
        ),
        (
            {"messages": [{"type": "gemini", "toolCalls": [1]}]},
            "$.messages[0].toolCalls[0]",
            "Expected a tool call object, got `int`",
        ),
        (
            {"messages": [{"type": "gemini", "toolCalls": [{"name": "f"}]}]},
            "$.messages[0].toolCalls[0].id",
            "Expected a non-empty `str`",
        ),
        (
            {"messages": [{"type": "gemini", "toolCalls": [{"id": "a"}]}]},
            "$.messages[0].toolCalls[0].name",
            "Expected a non-empty `str`",
        ),
        (
            {"messages": [{"type": "gemini", "toolCalls": [{"id": "a", "name": "f", "result": 1}]}]},
            "$.messages[0].toolCalls[0].result",
            "Expected a list of parts, a part or a `str`, got `int`",
        ),
        (
            {"messages": [{"type": "user", "content": 1}]},
            "$.messages[0].content",
            "Expected a list of parts, got `int`",
        ),
    ],
)
def test_gemini_cli_refuses_what_is_not_a_recording_and_says_where(source: object, path: str, message: str) -> None:
    with pytest.raises(FormatError) as raised:
        gemini_cli.load(source)
    assert [(found.path, found.message) for found in raised.value.diagnostics] == [(path, message)]


# --- properties -------------------------------------------------------------------------------


@st.composite
def gemini_contents(draw: st.DrawFn) -> list[object]:
    contents: list[object] = []
    names = st.sampled_from(["f", "g"])
    for _ in range(draw(st.integers(0, 5))):
        role = draw(st.sampled_from(["user", "model", None]))
        parts: list[object] = []
        for _ in range(draw(st.integers(0, 3))):
            kind = draw(
                st.sampled_from(
                    ["text", "call", "thought", "data"] if role == "model" else ["text", "response", "data"]
                )
            )
            part: dict[str, object]
            if kind == "text":
                part = {"text": draw(_text)}
            elif kind == "thought":
                part = {"text": draw(_text), "thought": True}
            elif kind == "data":
                part = {"inlineData": {"mimeType": "image/png", "data": draw(_text)}}
            elif kind == "call":
                call: dict[str, object] = {"name": draw(names), "args": draw(st.dictionaries(_text, _json, max_size=2))}
                if draw(st.booleans()):
                    call["id"] = draw(_ids)
                part = {"functionCall": _reshaped(draw, call)}
            else:
                response: dict[str, object] = {
                    "name": draw(names),
                    "response": draw(
                        st.one_of(
                            _text.map(lambda text: {"output": text}),
                            _text.map(lambda text: {"error": text}),
                            st.dictionaries(_text, _json, max_size=2),
                        )
                    ),
                }
                if draw(st.booleans()):
                    response["id"] = draw(_ids)
                part = {"functionResponse": response}
            if draw(st.booleans()):
                part["thoughtSignature"] = draw(_text)
            parts.append(part)
        content: dict[str, object] = {"parts": parts}
        if role is not None:
            content = {"role": role, "parts": parts}
        contents.append(_reshaped(draw, content))
    return contents


def _reshaped(draw: st.DrawFn, record: dict[str, object]) -> dict[str, object]:
    """`record` as it was, or with its keys in another order, or with a field no reader knows."""
    how = draw(st.sampled_from(["as is", "reordered", "extra"]))
    if how == "reordered":
        return {key: record[key] for key in draw(st.permutations(list(record)))}
    if how == "extra":
        return {**record, "x_unknown": draw(_json)}
    return record


@given(gemini_contents())
def test_gemini_load_then_dump_is_the_identity(contents: list[object]) -> None:
    conversation = gemini.load(contents)
    assert all(diagnostic.code in LINKAGE for diagnostic in validate_transcript(conversation.messages))
    assert _same(json.loads(gemini.dumps(conversation)), contents)
    assert_saves_in_the_ir(conversation.messages)
    body = {"systemInstruction": {"role": "system", "parts": [{"text": "s"}]}, "contents": contents, "tools": []}
    assert _same(json.loads(gemini.dumps(gemini.load(json.dumps(body)))), body)


@given(st.one_of(gemini_contents(), _json, st.binary(max_size=30)))
def test_gemini_check_never_raises(source: object) -> None:
    assert type(gemini.check(source)) is tuple
    assert type(gemini_cli.check(source)) is tuple


@given(gemini_contents())
def test_gemini_converts_to_targets_that_accept_it(contents: list[object]) -> None:
    conversation = gemini.load(contents)
    if validate_transcript(conversation.messages):
        return
    for target, module in (("anthropic", anthropic), ("openai_chat", openai_chat), ("gemini_cli", gemini_cli)):
        assert module.check(module.dumps(convert(conversation, target))) == ()


@given(openai_transcripts())
def test_openai_chat_converts_to_gemini_when_linkage_is_valid(messages: list[object]) -> None:
    conversation = openai_chat.load(messages)
    if validate_transcript(conversation.messages):
        return
    converted = convert(conversation, "gemini")
    assert gemini.check(gemini.dumps(converted)) == ()
    assert type(gemini_cli.check(gemini_cli.dumps(convert(conversation, "gemini_cli")))) is tuple


def test_converting_a_recording_drops_arguments_that_are_not_an_object() -> None:
    recording = {"messages": [{"type": "gemini", "content": "", "toolCalls": [{"id": "a", "name": "f", "args": "x"}]}]}
    assert [diagnostic.code for diagnostic in gemini_cli.check(recording)] == [
        "MISSING_TOOL_RESULT",
        "BAD_TOOL_ARGUMENTS",
    ]
    converted = convert(gemini_cli.load(recording), "gemini_cli")
    assert [note.code for note in converted.notes] == ["DROPPED_BAD_ARGUMENTS"]
    assert gemini_cli.dump(converted) == {
        "messages": [{"type": "gemini", "content": "", "toolCalls": [{"id": "a", "name": "f", "args": {}}]}]
    }


def test_the_command_line_detects_validates_and_repairs_a_recording(tmp_path: Path) -> None:
    source = json.loads(RECORDINGS[1].read_bytes())
    call = source["messages"][3]["toolCalls"][0]
    del call["result"]
    path = tmp_path / "session.json"
    path.write_text(json.dumps(source, indent=2))
    completed = run("validate", str(path))
    assert completed.returncode == 1
    assert completed.stdout == (
        f"{path}:3: MISSING_TOOL_RESULT Tool call {call['id']!r} has no result after it"
        " (at $.messages[3].toolCalls[0])\n"
    )
    completed = run("repair", "--from", "gemini-cli", str(path), "-o", str(path))
    assert completed.returncode == 0
    assert run("validate", str(path)).stdout == f"{path}: valid\n"
    repaired = json.loads(path.read_text())
    assert repaired["messages"][3]["toolCalls"][0]["result"][0]["functionResponse"]["response"] == {
        "error": "Tool call was interrupted before it returned a result."
    }
    assert [record for index, record in enumerate(repaired["messages"]) if index != 3] == [
        record for index, record in enumerate(source["messages"]) if index != 3
    ]


def test_a_gemini_result_converted_to_a_recording_goes_into_its_call() -> None:
    contents = [
        {"role": "model", "parts": [{"text": ""}, {"functionCall": {"name": "g", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "g", "response": {"output": ""}}}]},
    ]
    written = gemini_cli.dump(convert(gemini.load(contents), "gemini_cli"))
    assert gemini_cli.check(written) == ()
    assert type(written) is dict
    [record] = written["messages"]
    assert record["toolCalls"][0]["result"] == [
        {"functionResponse": {"id": "gemini_call_0_1", "name": "g", "response": {"output": ""}}}
    ]
