"""Tool declarations: each provider's `tools` read, calls checked against them, with paths
into the source's calls and arguments, and a clear word when the `[schema]` extra is missing."""

from __future__ import annotations

import sys

import pytest

from message_ir import Diagnostic, assistant_message
from message_ir.adapters import (
    ToolDeclaration,
    _schema_engine,
    _tools,
    anthropic,
    check_tool_calls,
    gemini,
    openai_chat,
    openai_responses,
    tool_declaration,
)

WEATHER: dict[str, object] = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}},
    "required": ["city"],
    "additionalProperties": False,
}


def _openai(arguments: str, name: str = "get_weather", tools: object = None) -> dict[str, object]:
    return {
        "messages": [
            {"role": "user", "content": "weather?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": "c1", "type": "function", "function": {"name": name, "arguments": arguments}}],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        ],
        "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": WEATHER}}]
        if tools is None
        else tools,
    }


def test_openai_chat_arguments_are_checked_with_paths_into_them() -> None:
    assert openai_chat.check(_openai('{"city": "Paris", "days": 2}')) == ()
    assert openai_chat.check(_openai('{"city": 7, "days": 0, "when": "now"}')) == (
        Diagnostic(
            "ARGUMENTS_DO_NOT_MATCH_SCHEMA",
            1,
            "$.messages[1].tool_calls[0].function.arguments.city",
            "Arguments of 'get_weather' fail `type`: 7 is not of type \"string\"",
        ),
        Diagnostic(
            "ARGUMENTS_DO_NOT_MATCH_SCHEMA",
            1,
            "$.messages[1].tool_calls[0].function.arguments.days",
            "Arguments of 'get_weather' fail `minimum`: 0 is less than the minimum of 1",
        ),
        Diagnostic(
            "ARGUMENTS_DO_NOT_MATCH_SCHEMA",
            1,
            "$.messages[1].tool_calls[0].function.arguments",
            "Arguments of 'get_weather' fail `additionalProperties`: Additional properties are not allowed"
            " ('when' was unexpected)",
        ),
    )


def test_an_undeclared_tool_and_arguments_that_are_no_object() -> None:
    assert openai_chat.check(_openai("{}", name="send_email")) == (
        Diagnostic(
            "UNDECLARED_TOOL",
            1,
            "$.messages[1].tool_calls[0].function.name",
            "Tool 'send_email' is not declared (declared: 'get_weather')",
        ),
    )
    assert openai_chat.check(_openai("{not json")) == (
        Diagnostic(
            "BAD_TOOL_ARGUMENTS",
            1,
            "$.messages[1].tool_calls[0].function.arguments",
            "Expected a JSON object as the arguments text",
        ),
    )  # not checked against the schema as well
    assert [d.message for d in openai_chat.check(_openai("{}", name="x", tools=[]))] == [
        "Tool 'x' is not declared (no tool is declared)"
    ]


@pytest.mark.parametrize(
    ("tools", "path", "message"),
    [
        (
            [{"type": "function", "function": {"parameters": WEATHER}}],
            "$.tools[0].function",
            "Expected a tool with a non-empty `name`",
        ),
        (
            [{"type": "function", "function": {"name": "get_weather", "parameters": "object"}}],
            "$.tools[0].function.parameters",
            "Expected the parameters' JSON Schema object",
        ),
        (
            [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "nonsense"}}}],
            "$.tools[0].function.parameters",
            "Not a valid JSON Schema: \"nonsense\" is not valid under any of the schemas listed in the 'anyOf' keyword",
        ),
        ([7], "$.tools[0]", "Expected a tool object"),
        ("all", "$.tools", "Expected a list of tools"),
    ],
)
def test_bad_declarations_are_reported_where_they_stand(tools: object, path: str, message: str) -> None:
    found = openai_chat.check(_openai('{"city": 7}', tools=tools))
    assert found[0] == Diagnostic("BAD_TOOL_DECLARATION", None, path, message)
    assert all(diagnostic.code != "ARGUMENTS_DO_NOT_MATCH_SCHEMA" for diagnostic in found)


def test_legacy_functions_and_a_body_without_tools() -> None:
    record = _openai('{"city": 7}')
    del record["tools"]
    assert openai_chat.check(record) == ()  # nothing declared: nothing to check against
    record["functions"] = [{"name": "get_weather", "parameters": WEATHER}]
    assert [(d.code, d.path) for d in openai_chat.check(record)] == [
        ("ARGUMENTS_DO_NOT_MATCH_SCHEMA", "$.messages[1].tool_calls[0].function.arguments.city")
    ]


def test_anthropic_tools_and_server_tools() -> None:
    body: dict[str, object] = {
        "tools": [
            {"name": "get_weather", "input_schema": WEATHER},
            {"type": "web_search_20250305", "name": "web_search"},
        ],
        "messages": [
            {"role": "user", "content": "weather?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "t1", "name": "get_weather", "input": {"days": 2}},
                    {"type": "tool_use", "id": "t2", "name": "web_search", "input": {"query": "x"}},
                    {"type": "tool_use", "id": "t3", "name": "bash", "input": {}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": f"t{number}", "content": "ok"} for number in (1, 2, 3)
                ],
            },
        ],
    }
    assert anthropic.check(body) == (
        Diagnostic(
            "ARGUMENTS_DO_NOT_MATCH_SCHEMA",
            1,
            "$.messages[1].content[0].input",
            "Arguments of 'get_weather' fail `required`: \"city\" is a required property",
        ),
        Diagnostic(
            "UNDECLARED_TOOL",
            1,
            "$.messages[1].content[2].name",
            "Tool 'bash' is not declared (declared: 'get_weather', 'web_search')",
        ),
    )


def test_responses_function_custom_and_built_in_tools() -> None:
    body: dict[str, object] = {
        "tools": [
            {"type": "function", "name": "get_weather", "parameters": WEATHER},
            {"type": "custom", "name": "apply_patch"},
            {"type": "web_search"},
        ],
        "input": [
            {"role": "user", "content": "go"},
            {"type": "function_call", "name": "get_weather", "arguments": '{"city": []}', "call_id": "c1"},
            {"type": "custom_tool_call", "name": "apply_patch", "input": "*** Begin", "call_id": "c2"},
            {"type": "function_call_output", "call_id": "c1", "output": "x"},
            {"type": "custom_tool_call_output", "call_id": "c2", "output": "x"},
        ],
    }
    assert [(d.code, d.message_index, d.path) for d in openai_responses.check(body)] == [
        ("ARGUMENTS_DO_NOT_MATCH_SCHEMA", 1, "$.input[1].arguments.city")
    ]


def test_gemini_declarations_in_openapi_and_json_schema_form() -> None:
    body: dict[str, object] = {
        "tools": [
            {
                "functionDeclarations": [
                    {
                        "name": "get_weather",
                        "parameters": {
                            "type": "OBJECT",
                            "properties": {"city": {"type": "STRING"}, "note": {"type": "STRING", "nullable": True}},
                            "required": ["city"],
                        },
                    },
                    {"name": "add_event", "parametersJsonSchema": {"type": "object", "required": ["title"]}},
                ]
            },
            {"googleSearch": {}},
        ],
        "contents": [
            {"role": "user", "parts": [{"text": "go"}]},
            {
                "role": "model",
                "parts": [
                    {"functionCall": {"name": "get_weather", "args": {"city": "Paris", "note": None}}},
                    {"functionCall": {"name": "add_event", "args": {}}},
                ],
            },
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"name": "get_weather", "response": {"output": "x"}}},
                    {"functionResponse": {"name": "add_event", "response": {"output": "x"}}},
                ],
            },
        ],
    }
    assert [(d.code, d.path, d.message) for d in gemini.check(body)] == [
        (
            "ARGUMENTS_DO_NOT_MATCH_SCHEMA",
            "$.contents[1].parts[1].functionCall.args",
            "Arguments of 'add_event' fail `required`: \"title\" is a required property",
        )
    ]


def test_check_tool_calls_on_ir_messages() -> None:
    messages = [
        assistant_message(
            id="a1",
            content=[
                {"type": "toolCall", "id": "c1", "name": "get_weather", "arguments": {"city": 3}},
                {"type": "toolCall", "id": "c2", "name": "free", "arguments": {"x": 1}},
            ],
        )
    ]
    tools = [tool_declaration("get_weather", WEATHER), ToolDeclaration("free")]
    assert check_tool_calls(messages, tools) == (
        Diagnostic(
            "ARGUMENTS_DO_NOT_MATCH_SCHEMA",
            0,
            "$[0].content[0].arguments.city",
            "Arguments of 'get_weather' fail `type`: 3 is not of type \"string\"",
        ),
    )
    assert (
        tool_declaration("bad", {"x": float("nan")}).problem == "The parameters are not a JSON value by the IR's rule"
    )


def test_without_the_schema_extra_the_check_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "jsonschema_rs", None)  # as if not installed
    _schema_engine._library.cache_clear()
    try:
        assert openai_chat.check(_openai('{"city": 7}', name="get_weather")) == (
            Diagnostic(
                "SCHEMA_CHECK_UNAVAILABLE",
                None,
                "$.tools",
                "Arguments were not checked against the tools' schemas: install `message-ir[schema]`",
            ),
        )
        assert [d.code for d in openai_chat.check(_openai("{}", name="other"))] == [
            "SCHEMA_CHECK_UNAVAILABLE",
            "UNDECLARED_TOOL",
        ]
        with pytest.raises(ModuleNotFoundError, match=r"pip install 'message-ir\[schema\]'"):
            _schema_engine.compiled(b'{"type": "object"}')
    finally:
        _schema_engine._library.cache_clear()


def test_a_schemas_text_is_remembered_per_object_and_bounded() -> None:
    first = tool_declaration("f", {"type": "object", "properties": {"a": {"type": "integer"}}}).parameters
    second = tool_declaration("f", {"properties": {"a": {"type": "integer"}}, "type": "object"}).parameters
    assert first is not None
    assert second is not None
    assert _tools.schema_text(first) == b'{"type":"object","properties":{"a":{"type":"integer"}}}'
    assert _tools.schema_text(first) is _tools.schema_text(first)  # remembered
    assert _tools.schema_text(second) == b'{"properties":{"a":{"type":"integer"}},"type":"object"}'  # its own order
    for number in range(_tools._MAX_SCHEMA_TEXTS + 1):
        made = tool_declaration("g", {"maximum": number}).parameters
        assert made is not None
        assert _tools.schema_text(made) == b'{"maximum":%d}' % number
    assert len(_tools._SCHEMA_TEXTS) <= _tools._MAX_SCHEMA_TEXTS
