"""`otel_genai`: the GenAI conventions' messages as real emitters wrote them (Langfuse exports
of pydantic-ai and Microsoft Agent Framework runs, an OpenInference fixture), the
conformance diagnostics, and the kin formats refused by name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from message_ir import ToolResultMessage
from message_ir.adapters import FormatError, convert, detect, openai_chat, otel_genai
from tests.adapters.real import real_files

FOLDER = "otel-genai"


def langfuse_messages(path: Path) -> list[list[object]]:
    """The `input` and `output` of every generation of a Langfuse trace export, parsed, that
    hold GenAI conventions' messages (`parts`)."""
    found: list[list[object]] = []
    for observation in json.loads(path.read_bytes())["observations"]:
        if observation.get("type") != "GENERATION":
            continue
        for key in ("input", "output"):
            value = observation.get(key)
            messages = json.loads(value) if type(value) is str else value
            if type(messages) is list and messages and "parts" in messages[0]:
                found.append(messages)
    return found


SEMCONV_EXPORTS = real_files(FOLDER, "langfuse_pydantic-ai-*.json") + real_files(
    FOLDER, "langfuse_microsoft-agent-*.json"
)


@pytest.mark.parametrize("path", SEMCONV_EXPORTS, ids=[path.name for path in SEMCONV_EXPORTS])
def test_every_message_array_an_emitter_wrote_loads_and_writes_back_exactly(path: Path) -> None:
    arrays = langfuse_messages(path)
    assert arrays
    for messages in arrays:
        assert otel_genai.dump(otel_genai.load(json.dumps(messages))) == messages
        assert detect(messages) == "otel_genai"


def test_pydantic_ai_writes_results_in_user_messages_under_result() -> None:
    (path,) = real_files(FOLDER, "langfuse_pydantic-ai-*.json")
    messages = max(langfuse_messages(path), key=len)
    codes = [diagnostic.code for diagnostic in otel_genai.check(messages)]
    assert set(codes) == {"SEMCONV_MISMATCH"}
    found = [str(diagnostic) for diagnostic in otel_genai.check(messages)][:2]
    assert found == [
        "SEMCONV_MISMATCH: A `tool_call_response` in a `user` message; the conventions put it in a `tool` one"
        " - at `$[3].parts[0]`",
        "SEMCONV_MISMATCH: A `tool_call_response` holds `result`; the conventions name it `response`"
        " - at `$[3].parts[0].result`",
    ]
    results = [message for message in otel_genai.load(messages).messages if type(message) is ToolResultMessage]
    assert results[0].content.startswith("Pun idea:")


def test_the_span_attributes_of_the_conventions_example_and_their_json_text() -> None:
    (path,) = real_files(FOLDER, "openinference_otel-genai-client-span-attributes_*.json")
    data = path.read_bytes()
    conversation = otel_genai.load(data)
    assert [type(message).__name__ for message in conversation.messages] == [
        "UserMessage",
        "AssistantMessage",
        "ToolResultMessage",
        "AssistantMessage",
    ]
    assert otel_genai.dump(conversation) == json.loads(data)
    assert otel_genai.check(data) == ()
    assert detect(data) == "otel_genai"


@pytest.mark.parametrize(
    ("pattern", "said"),
    [
        ("openinference_openinference-*.json", "got OpenInference's own (`llm.input_messages.*`, flattened)"),
        ("langfuse_koog-*.json", "got a Langfuse trace export"),
        (
            "sideseat_agentcore-strands-bedrock_otel-log-records_legacy-gen-ai-events.json",
            "got OTLP log records: the messages are their events' bodies",
        ),
        (
            "sideseat_agentcore-strands-openai_otel-log-records_strands-tracer-events.json",
            "(`message_ir.traces.log_records` reads them span by span)",
        ),
    ],
)
def test_kin_formats_are_refused_by_name(pattern: str, said: str) -> None:
    (path,) = real_files(FOLDER, pattern)
    with pytest.raises(FormatError) as raised:
        otel_genai.load(path.read_bytes())
    (diagnostic,) = raised.value.diagnostics
    assert said in diagnostic.message


def test_the_conventions_own_example_is_reported_as_it_breaks_its_schema() -> None:
    example = [
        {"role": "user", "parts": [{"type": "text", "content": "Weather in Lyon?"}]},
        {
            "role": "assistant",
            "parts": [{"type": "tool_call", "id": "call_1", "name": "get_weather", "arguments": {"location": "Lyon"}}],
        },
        {"role": "tool", "parts": [{"type": "tool_call_response", "id": " call_1", "result": "windy, 9 °C"}]},
    ]
    assert [str(diagnostic) for diagnostic in otel_genai.check(example)] == [
        "MISSING_TOOL_RESULT: Tool call 'call_1' has no result after it - at `$[1].parts[0]`",
        "ORPHAN_TOOL_RESULT: Tool result answers ' call_1', but no tool call has that ID - at `$[2].parts[0]`",
        "SEMCONV_MISMATCH: A `tool_call_response` holds `result`; the conventions name it `response`"
        " - at `$[2].parts[0].result`",
        "SEMCONV_MISMATCH: Tool call ID ' call_1' has surrounding whitespace - at `$[2].parts[0].id`",
    ]
    assert otel_genai.dump(otel_genai.load(example)) == example


def test_calls_without_ids_pair_by_order_and_string_arguments_are_bad() -> None:
    messages = [
        {"role": "assistant", "parts": [{"type": "tool_call", "name": "f", "arguments": '{"a": 1}'}]},
        {"role": "tool", "parts": [{"type": "tool_call_response", "response": {"ok": True}}]},
    ]
    conversation = otel_genai.load(messages)
    result = conversation.messages[1]
    assert type(result) is ToolResultMessage
    assert result.content == '{"ok":true}'
    assert [diagnostic.code for diagnostic in otel_genai.check(messages)] == ["BAD_TOOL_ARGUMENTS", "SEMCONV_MISMATCH"]
    assert otel_genai.dump(conversation) == messages


def test_convert_from_openai_chat_writes_the_conventions_shape() -> None:
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
    written = otel_genai.dump(convert(chat, "otel_genai"))
    assert written == [
        {"role": "system", "parts": [{"type": "text", "content": "Be brief."}]},
        {"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "f", "arguments": {"a": 1}}]},
        {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": "done"}]},
    ]
    assert otel_genai.check(written) == ()
