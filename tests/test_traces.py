"""`message_ir.traces`: the conversations of an OTLP/JSON trace export, span by span: the
AI SDK's recorded export, GenAI spans and events built here, spans out of order, attributes
that are no JSON, and anything else never raising."""

from __future__ import annotations

import base64
import json

from hypothesis import given

from message_ir import AssistantMessage, Diagnostic, TextBlock, ToolCall
from message_ir.adapters import vercel_ai
from message_ir.traces import Trace, log_records, spans
from tests.adapters.real import REAL
from tests.adapters.test_contract import ai_sdk_prompts
from tests.property.strategies import json_values

AI_SDK = REAL / "vercel-ai" / "sideseat_ai-sdk-6_otlp-traces_lines4-7.jsonl"


def test_the_ai_sdk_export_gives_each_model_call_in_the_order_it_started() -> None:
    trace = spans(AI_SDK.read_bytes())
    assert trace.diagnostics == ()
    assert len(trace.conversations) == 11
    assert {(found.name, found.event, found.format) for found in trace.conversations} == {
        ("ai.generateText.doGenerate", "", "vercel_ai")
    }
    starts = [found.start or 0 for found in trace.conversations]
    assert all(starts)
    assert starts == sorted(starts)
    # Each span's conversation is its prompt, as `vercel_ai.load` reads it, then the reply the
    # span recorded: text, or calls, whose results are in the next span's prompt.
    prompts = {json.dumps(prompt) for prompt in ai_sdk_prompts(AI_SDK)}
    for found in trace.conversations:
        assert found.conversation is not None
        messages = vercel_ai.dump(found.conversation)  # written back as it was read: a list
        assert type(messages) is list
        assert json.dumps(messages[:-1]) in prompts
        reply = found.conversation.messages[-1]
        assert type(reply) is AssistantMessage
        waiting = [block for block in reply.content if type(block) is ToolCall]
        assert [diagnostic.code for diagnostic in found.diagnostics] == ["MISSING_TOOL_RESULT"] * len(waiting)
    last = trace.conversations[-1].conversation
    assert last is not None
    final = last.messages[-1]
    assert type(final) is AssistantMessage
    assert type(final.content[0]) is TextBlock  # the run's last answer


def _value(value: object) -> dict[str, object]:
    """A value as an OTLP `AnyValue`."""
    if type(value) is str:
        return {"stringValue": value}
    if type(value) is bool:
        return {"boolValue": value}
    if type(value) is int:
        return {"intValue": str(value)}
    if type(value) is list:
        return {"arrayValue": {"values": [_value(item) for item in value]}}
    assert type(value) is dict
    return {"kvlistValue": {"values": [{"key": key, "value": _value(item)} for key, item in value.items()]}}


def _span(span_id: str, start: int, attributes: dict[str, object], events: list[object] | None = None) -> object:
    span: dict[str, object] = {
        "traceId": "t1",
        "spanId": span_id,
        "name": "chat model",
        "startTimeUnixNano": str(start),
        "attributes": [{"key": key, "value": _value(value)} for key, value in attributes.items()],
    }
    if events is not None:
        span["events"] = events
    return span


USER = [{"role": "user", "parts": [{"type": "text", "content": "Weather in Lyon?"}]}]
CALL = [{"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "weather", "arguments": {}}]}]


def _export(*spans_: object) -> bytes:
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": list(spans_)}]}]}).encode()


def test_genai_spans_and_events_in_the_order_they_started() -> None:
    later = _span("s2", 2_000, {"gen_ai.input.messages": json.dumps(USER), "gen_ai.output.messages": json.dumps(CALL)})
    details = {
        "name": "gen_ai.client.inference.operation.details",
        "timeUnixNano": "1500",
        "attributes": [{"key": "gen_ai.input.messages", "value": _value(json.dumps(USER))}],
    }
    earlier = _span("s1", 1_000, {"gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 12}, [details])
    trace = spans(_export(later, earlier))  # listed out of order
    assert [(found.span_id, found.event, found.start) for found in trace.conversations] == [
        ("s1", "gen_ai.client.inference.operation.details", 1_500),
        ("s2", "", 2_000),
    ]
    first, second = trace.conversations
    assert first.path == "$.resourceSpans[0].scopeSpans[0].spans[1].events[0]"
    assert second.conversation is not None
    assert [message.role for message in second.conversation.messages] == ["user", "assistant"]
    # The call has no result in this span: what the format's `check` says.
    assert [diagnostic.code for diagnostic in second.diagnostics] == ["MISSING_TOOL_RESULT"]


def test_what_cannot_be_read_is_said_and_never_raised() -> None:
    broken = _span("s1", 1, {"gen_ai.input.messages": '[{"role": "user", "parts": ['})
    lines = b"\n".join(
        [
            _export(broken),
            b"not json",
            b'{"resourceLogs": []}',
            json.dumps({"timestamp": 1, "data": json.loads(_export())}).encode(),
        ]
    )
    trace = spans(lines)
    (found,) = trace.conversations
    assert found.conversation is None
    assert [str(diagnostic) for diagnostic in found.diagnostics] == [
        "BAD_FORMAT: Expected JSON text of a list, got text that is not JSON in `gen_ai.input.messages`"
        ' - at `$["gen_ai.input.messages"]`'
    ]
    assert trace.diagnostics == (
        Diagnostic("INVALID_JSON", 1, "$[1]", "Invalid JSON: JSON is malformed: invalid character (byte 4)"),
        Diagnostic("BAD_FORMAT", 2, "$[2]", "Expected an OTLP trace export (`resourceSpans`)"),
    )


def test_otlp_values_are_read_as_plain_json() -> None:
    raw = base64.b64encode(b"\x01\xff").decode()
    attributes = [
        {"key": "gen_ai.input.messages", "value": _value(json.dumps(USER))},
        {"key": "count", "value": {"intValue": "-7"}},
        {"key": "ratio", "value": {"doubleValue": 0.5}},
        {"key": "blob", "value": {"bytesValue": raw}},
        {"key": "nothing", "value": {}},
        {"key": "list", "value": _value(["a", 1, True])},
        {"key": "map", "value": _value({"k": "v"})},
    ]
    span = {"spanId": "s", "attributes": attributes}
    (found,) = spans(_export(span)).conversations
    assert found.start is None
    assert found.conversation is not None
    kept = found.conversation.meta
    assert kept is not None
    others = kept.thaw()["otel_genai"]["others"]  # type: ignore[index,call-overload]  # plain JSON
    assert others == {
        "gen_ai.input.messages": None,  # where the messages stood among the attributes
        "count": -7,
        "ratio": 0.5,
        "blob": "01ff",
        "nothing": None,
        "list": ["a", 1, True],
        "map": {"k": "v"},
    }


@given(json_values)
def test_any_json_value_is_read_or_refused_never_raised(value: object) -> None:
    for source in (value, json.dumps(value), {"resourceSpans": [{"scopeSpans": [{"spans": [value]}]}]}):
        assert type(spans(source)) is Trace


AGENTCORE = REAL / "otel-genai"
LEGACY_EVENTS = AGENTCORE / "sideseat_agentcore-strands-bedrock_otel-log-records_legacy-gen-ai-events.json"
STRANDS_ONLY = AGENTCORE / "sideseat_agentcore-strands-openai_otel-log-records_strands-tracer-events.json"


def test_agentcore_per_message_events_are_one_conversation_per_span() -> None:
    """A CloudWatch export of AgentCore's log records, newest first: the botocore
    instrumentation logged a Converse request as one event per message (Bedrock's blocks),
    and some results twice (a `gen_ai.tool.message` and the user message holding it)."""
    trace = log_records(LEGACY_EVENTS.read_bytes())
    (found,) = trace.conversations
    assert (found.format, found.span_id, found.event, found.start) == (
        "bedrock",
        "06df90d70f7db03f",
        "gen_ai.*.message",
        1763423913427377240,
    )
    assert found.path == "$[46].raw_otel_json"  # the earliest of its records
    assert found.conversation is not None
    assert [entry.role for entry in found.conversation.instructions] == ["system"]
    assert len(found.conversation.messages) == 37
    records = [entry["raw_otel_json"] for entry in json.loads(LEGACY_EVENTS.read_bytes())]  # read here, never copied
    users = [
        record
        for record in (json.loads(raw) if type(raw) is str else raw for raw in records)
        if type(record) is dict and record.get("attributes", {}).get("event.name") == "gen_ai.user.message"
    ]
    earliest_user = min(users, key=lambda record: int(record["timeUnixNano"]))
    assert found.conversation.messages[0].content == earliest_user["body"]["content"][0]["text"]
    # The export lacks the records of one call (its assistant message and one result):
    # what the events hold, said as Bedrock would refuse it.
    assert [(diagnostic.code, diagnostic.path) for diagnostic in found.diagnostics] == [
        ("RESULT_COUNT_MISMATCH", "$.messages[20]"),
        ("ORPHAN_TOOL_RESULT", "$.messages[21].content[0]"),
    ]
    assert found.diagnostics[0].message == (
        "The turn after 1 function call(s) holds 2 function response(s); Bedrock needs as many"
    )
    assert [(diagnostic.code, diagnostic.message_index) for diagnostic in trace.diagnostics] == [
        ("BAD_FORMAT", 2),
        ("BAD_FORMAT", 3),
        ("BAD_FORMAT", 4),
    ]


def test_strands_own_tracer_events_are_refused_by_name() -> None:
    trace = log_records(STRANDS_ONLY.read_bytes())
    assert trace.conversations == ()
    assert len(trace.diagnostics) == 9
    assert {str(diagnostic).split(" - at ")[0] for diagnostic in trace.diagnostics} == {
        "BAD_FORMAT: Expected the GenAI conventions' message events, got Strands' own tracer event"
        " (`strands.telemetry.tracer`): its input and output messages do not say the order the conversation had;"
        " not read"
    }


def _log(name: str, body: object, time: int, span: str = "s1") -> dict[str, object]:
    """An OTLP/JSON log record of one event, its body an OTLP `AnyValue`."""
    return {
        "timeUnixNano": str(time),
        "traceId": "t1",
        "spanId": span,
        "eventName": name,
        "body": _value(body),
        "attributes": [{"key": "gen_ai.system", "value": _value("aws.bedrock")}],
    }


def test_an_otlp_logs_export_in_any_order_with_a_result_logged_twice() -> None:
    call = {"toolUse": {"toolUseId": "c1", "name": "weather", "input": {"city": "Lyon"}}}
    result = {"toolResult": {"toolUseId": "c1", "content": [{"text": "sunny"}]}}
    records = [
        _log("gen_ai.choice", {"index": 0, "message": {"content": [{"text": "Sunny."}]}}, 5),
        _log("gen_ai.user.message", {"content": [result]}, 4),
        _log("gen_ai.tool.message", {"content": [{"text": "sunny"}], "id": "c1"}, 3),  # the same result
        _log("gen_ai.assistant.message", {"content": [call]}, 2),
        _log("gen_ai.user.message", {"content": [{"text": "Weather in Lyon?"}]}, 1),
        _log("gen_ai.system.message", {"content": [{"text": "Be brief."}]}, 0),
        _log("gen_ai.user.message", {"content": [{"text": "Other span."}]}, 9, span="s2"),
        _log("gen_ai.tool.message", {"content": [{"text": "nobody asked"}]}, 10, span="s2"),
        {"timeUnixNano": "1", "body": {"stringValue": "Invocation completed"}},  # no event: passed over
    ]
    export = {"resourceLogs": [{"scopeLogs": [{"logRecords": records}]}]}
    trace = log_records(json.dumps(export))
    first, second = trace.conversations
    assert first.conversation is not None
    assert [(type(message).__name__, message.content if type(message) is not AssistantMessage else None)
            for message in first.conversation.messages] == [
        ("UserMessage", "Weather in Lyon?"),
        ("AssistantMessage", None),
        ("ToolResultMessage", "sunny"),
        ("AssistantMessage", None),
    ]  # fmt: skip
    assert first.diagnostics == ()
    assert first.path == "$.resourceLogs[0].scopeLogs[0].logRecords[5]"
    # A tool message with no ID and no call waiting answers nothing: said, not guessed.
    assert second.conversation is None
    assert [str(diagnostic) for diagnostic in second.diagnostics] == [
        "BAD_FORMAT: Expected a non-empty `str` - at `$.messages[1].content[0].toolResult.toolUseId`"
    ]
    assert trace.diagnostics == ()


def test_events_whose_bodies_no_format_reads_and_values_that_are_no_records() -> None:
    openai_shaped = [_log("gen_ai.user.message", {"content": "hi", "role": "user"}, 1)]
    (found,) = log_records({"resourceLogs": [{"scopeLogs": [{"logRecords": openai_shaped}]}]}).conversations
    assert found.conversation is None
    assert [str(diagnostic) for diagnostic in found.diagnostics] == [
        "BAD_FORMAT: Expected message events whose content a format reads - at `$`"
    ]
    assert log_records(b'{"resourceSpans": []}').diagnostics == (
        Diagnostic("BAD_FORMAT", None, "$", "Expected OTLP log records (`resourceLogs`)"),
    )
    cloudwatch = [{"timestamp": 1, "raw_otel_json": "{not json"}, {"timestamp": 2}]
    assert log_records(cloudwatch) == Trace((), ())


@given(json_values)
def test_any_json_value_is_read_as_log_records_or_refused_never_raised(value: object) -> None:
    record = {"eventName": "gen_ai.user.message", "body": value}
    for source in (
        value,
        json.dumps(value),
        [{"raw_otel_json": value}],
        {"resourceLogs": [{"scopeLogs": [{"logRecords": [record]}]}]},
    ):
        assert type(log_records(source)) is Trace
