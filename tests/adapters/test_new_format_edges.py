"""What the new formats refuse, and where they say it is: one case per problem (the adapters' own
records, not the provider's word on them)."""

from __future__ import annotations

import pytest

from message_ir.adapters import FORMATS

CASES: list[tuple[str, object, list[str]]] = [
    (
        "bedrock",
        [{"role": "user", "content": "hi"}],
        ["BAD_FORMAT: Expected a list of content blocks, got `str` - at `$[0].content`"],
    ),
    (
        "bedrock",
        [{"role": "user", "content": [{}]}],
        ["BAD_FORMAT: Expected a content block object - at `$[0].content[0]`"],
    ),
    (
        "bedrock",
        [{"role": "user", "content": [{"text": 5}]}],
        ["BAD_FORMAT: Expected `str`, got `int` - at `$[0].content[0].text`"],
    ),
    (
        "bedrock",
        [{"role": "system", "content": []}],
        ["BAD_FORMAT: Invalid role 'system'; expected one of user, assistant - at `$[0].role`"],
    ),
    (
        "bedrock",
        [{"role": "assistant", "content": [{"toolUse": {"toolUseId": "", "name": "f", "input": {}}}]}],
        ["BAD_FORMAT: Expected a non-empty `str` - at `$[0].content[0].toolUse.toolUseId`"],
    ),
    (
        "bedrock",
        [{"role": "assistant", "content": [{"toolUse": {"toolUseId": "t", "name": "", "input": {}}}]}],
        ["BAD_FORMAT: Expected a non-empty `str` - at `$[0].content[0].toolUse.name`"],
    ),
    (
        "bedrock",
        [
            {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1", "name": "f", "input": {}}}]},
            {"role": "user", "content": [{"toolResult": {"toolUseId": 5}}]},
        ],
        ["BAD_FORMAT: Expected a non-empty `str` - at `$[1].content[0].toolResult.toolUseId`"],
    ),
    (
        "bedrock",
        [
            {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1", "name": "f", "input": {}}}]},
            {"role": "user", "content": [{"toolResult": {"toolUseId": "t1", "status": "maybe"}}]},
        ],
        ["BAD_FORMAT: Expected `success` or `error`, got 'maybe' - at `$[1].content[0].toolResult.status`"],
    ),
    (
        "bedrock",
        [
            {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1", "name": "f", "input": {}}}]},
            {"role": "user", "content": [{"toolResult": {"toolUseId": "t1", "content": "x"}}]},
        ],
        ["BAD_FORMAT: Expected a list of content blocks, got `str` - at `$[1].content[0].toolResult.content`"],
    ),
    (
        "bedrock",
        {"system": "text", "messages": []},
        ["BAD_FORMAT: Expected a list of content blocks, got `str` - at `$.system`"],
    ),
    ("bedrock", {"system": [{"text": "a"}, {"text": "b"}], "messages": [{"role": "user", "content": []}]}, []),
    (
        "vercel_ai",
        [{"role": "robot", "content": "x"}],
        ["BAD_FORMAT: Invalid role 'robot'; expected one of system, user, assistant, tool - at `$[0].role`"],
    ),
    (
        "vercel_ai",
        [{"role": "system", "content": [1]}],
        ["BAD_FORMAT: Expected `str`, got `array` - at `$[0].content`"],
    ),
    ("vercel_ai", {"system": 5, "messages": []}, ["BAD_FORMAT: Expected `str`, got `int` - at `$.system`"]),
    (
        "vercel_ai",
        [{"role": "user", "content": 5}],
        ["BAD_FORMAT: Expected `str` or a list of content parts, got `int` - at `$[0].content`"],
    ),
    (
        "vercel_ai",
        [{"role": "assistant", "content": 5}],
        ["BAD_FORMAT: Expected `str` or a list of parts, got `int` - at `$[0].content`"],
    ),
    (
        "vercel_ai",
        [{"role": "assistant", "content": [5]}],
        ["BAD_FORMAT: Expected a content part with a `type` - at `$[0].content[0]`"],
    ),
    (
        "vercel_ai",
        [{"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "", "toolName": "f", "input": {}}]}],
        ["BAD_FORMAT: Expected a non-empty `str` - at `$[0].content[0].toolCallId`"],
    ),
    (
        "vercel_ai",
        [{"role": "assistant", "content": [{"type": "tool-call", "toolCallId": "c", "toolName": "", "input": {}}]}],
        ["BAD_FORMAT: Expected a non-empty `str` - at `$[0].content[0].toolName`"],
    ),
    (
        "vercel_ai",
        [{"role": "tool", "content": []}],
        ["BAD_FORMAT: Expected at least one `tool-result` part, got none - at `$[0].content`"],
    ),
    (
        "vercel_ai",
        [{"role": "tool", "content": [{"type": "text"}]}],
        ["BAD_FORMAT: Expected a `tool-result` part - at `$[0].content[0]`"],
    ),
    (
        "vercel_ai",
        [
            {
                "role": "tool",
                "content": [
                    {"type": "tool-result", "toolCallId": "", "toolName": "f", "output": {"type": "text", "value": "x"}}
                ],
            }
        ],
        ["BAD_FORMAT: Expected a non-empty `str` - at `$[0].content[0].toolCallId`"],
    ),
    (
        "vercel_ai",
        [
            {
                "role": "tool",
                "content": [
                    {"type": "tool-result", "toolCallId": "c", "toolName": "", "output": {"type": "text", "value": "x"}}
                ],
            }
        ],
        ["BAD_FORMAT: Expected a non-empty `str` - at `$[0].content[0].toolName`"],
    ),
    (
        "vercel_ai",
        [
            {
                "role": "tool",
                "content": [{"type": "tool-result", "toolCallId": "c", "toolName": "f", "result": "x", "isError": 1}],
            }
        ],
        ["BAD_FORMAT: Expected `bool`, got `int` - at `$[0].content[0].isError`"],
    ),
    (
        "vercel_ai",
        [{"role": "tool", "content": [{"type": "tool-result", "toolCallId": "c", "toolName": "f", "output": 5}]}],
        ["BAD_FORMAT: Expected an output object with a `type` - at `$[0].content[0].output`"],
    ),
    (
        "vercel_ai",
        [
            {
                "role": "tool",
                "content": [{"type": "tool-result", "toolCallId": "c", "toolName": "f", "output": {"type": "weird"}}],
            }
        ],
        ["BAD_FORMAT: Expected an output of a known type, got 'weird' - at `$[0].content[0].output`"],
    ),
    (
        "otel_genai",
        {"something": 1},
        [
            "BAD_FORMAT: Expected a GenAI message array, or attributes with `gen_ai.input.messages`"
            " or `gen_ai.output.messages` - at `$`"
        ],
    ),
    (
        "otel_genai",
        {"gen_ai.input.messages": "not json"},
        [
            "BAD_FORMAT: Expected JSON text of a list, got text that is not JSON in `gen_ai.input.messages`"
            ' - at `$["gen_ai.input.messages"]`'
        ],
    ),
    (
        "otel_genai",
        {"gen_ai.input.messages": 5},
        ['BAD_FORMAT: Expected a list (or JSON text of one), got `int` - at `$["gen_ai.input.messages"]`'],
    ),
    (
        "otel_genai",
        {"gen_ai.input.messages": [], "gen_ai.system_instructions": [5]},
        ['BAD_FORMAT: Expected a list of parts, each an object with a `type` - at `$["gen_ai.system_instructions"]`'],
    ),
    ("otel_genai", [5], ["BAD_FORMAT: Expected a message object, got `int` - at `$[0]`"]),
    (
        "otel_genai",
        [{"role": "robot", "parts": []}],
        ["BAD_FORMAT: Invalid role 'robot'; expected one of system, user, assistant, tool - at `$[0].role`"],
    ),
    (
        "otel_genai",
        [{"role": "user", "parts": 5}],
        ["BAD_FORMAT: Expected a list of parts, got `int` - at `$[0].parts`"],
    ),
    (
        "otel_genai",
        [{"role": "system", "parts": [5]}],
        ["BAD_FORMAT: Expected parts, each an object with a `type` - at `$[0].parts`"],
    ),
    (
        "otel_genai",
        [{"role": "assistant", "parts": [5]}],
        ["BAD_FORMAT: Expected a part object with a `type` - at `$[0].parts[0]`"],
    ),
    (
        "otel_genai",
        [{"role": "assistant", "parts": [{"type": "tool_call", "name": ""}]}],
        ["BAD_FORMAT: Expected a non-empty `str` - at `$[0].parts[0].name`"],
    ),
    (
        "otel_genai",
        [{"role": "assistant", "parts": [{"type": "tool_call", "name": "f", "id": 5}]}],
        ["BAD_FORMAT: Expected a non-empty `str` or `null` - at `$[0].parts[0].id`"],
    ),
    (
        "otel_genai",
        [{"role": "user", "parts": [5]}],
        ["BAD_FORMAT: Expected a part object with a `type` - at `$[0].parts[0]`"],
    ),
    (
        "otel_genai",
        [{"role": "tool", "parts": [{"type": "tool_call_response", "id": 7, "response": "x"}]}],
        ["BAD_FORMAT: Expected a non-empty `str` or `null` - at `$[0].parts[0].id`"],
    ),
    (
        "otel_genai",
        {"resourceSpans": []},
        [
            "BAD_FORMAT: Expected GenAI messages, got an OTLP export: the messages are in its spans'"
            " or events' attributes (`message_ir.traces.spans` reads them span by span) - at `$`"
        ],
    ),
]


@pytest.mark.parametrize(("name", "value", "said"), CASES)
def test_a_record_that_is_not_the_format_is_refused_where_it_is(name: str, value: object, said: list[str]) -> None:
    assert [str(diagnostic) for diagnostic in FORMATS[name].check(value)] == said
