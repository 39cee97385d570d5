"""An MCP `CallToolResult` as an IR tool result: the text joined, the rest kept in `meta`."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from message_ir import Message, ToolCall, assistant_message, user_message, validate_transcript
from message_ir.adapters import FORMATS, FormatError, convert, tool_result_from_mcp, vercel_ai

REAL = Path(__file__).resolve().parents[3] / "shared" / "real" / "mcp" / "pydantic-ai_deepwiki_tools-call-result.json"
CALL = ToolCall(id="call_1", name="ask_question", arguments_json=msgspec.Raw(b'{"repoName":"pydantic/pydantic-ai"}'))


def test_a_real_answer_keeps_its_structured_content() -> None:
    response = json.loads(REAL.read_bytes())
    result = tool_result_from_mcp(CALL, REAL.read_bytes())
    assert (result.id, result.tool_call_id, result.tool_name, result.is_error) == (
        "mcp-call_1",
        "call_1",
        "ask_question",
        False,
    )
    assert result.content == "\n".join(item["text"] for item in response["result"]["content"])
    assert msgspec.json.decode(result.meta_json) == {
        "mcp": {"structuredContent": response["result"]["structuredContent"]}
    }
    assert tool_result_from_mcp(CALL, response["result"], id="r1") == msgspec.structs.replace(result, id="r1")
    transcript = [
        user_message(id="u1", content="What is pydantic-ai?"),
        assistant_message(
            id="a1", content=[{"type": "toolCall", "id": "call_1", "name": "ask_question", "arguments": {}}]
        ),
        result,
    ]
    assert validate_transcript(transcript) == ()


def test_items_that_are_not_plain_text_are_kept_whole() -> None:
    items = [
        {"type": "text", "text": "Two files:"},
        {"type": "resource_link", "uri": "file:///a.py", "name": "a.py"},
        {"type": "text", "text": "done", "annotations": {"audience": ["user"]}},
        {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
    ]
    result = tool_result_from_mcp(CALL, {"content": items, "isError": True, "_meta": {"trace": "t1"}})
    assert (result.content, result.is_error) == ("Two files:\ndone", True)
    assert msgspec.json.decode(result.meta_json) == {"mcp": {"_meta": {"trace": "t1"}, "content": items}}
    assert msgspec.json.decode(tool_result_from_mcp(CALL, {}).meta_json) == {"mcp": {"no_content": True}}


@pytest.mark.parametrize(
    ("result", "path", "message"),
    [
        (
            {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602}},
            "$.error",
            "Expected a result, got a JSON-RPC error response (the call itself failed)",
        ),
        ({"jsonrpc": "2.0", "id": 1, "result": 3}, "$.result", "Expected a CallToolResult object, got `int`"),
        ({"content": "text"}, "$.content", "Expected a list of content items, got `str`"),
        ({"content": [{"text": "x"}]}, "$.content[0]", "Expected a content item with a `type`"),
        ({"content": [{"type": "text", "text": 1}]}, "$.content[0].text", "Expected `str`, got `int`"),
        ({"content": [], "isError": "yes"}, "$.isError", "Expected `bool`, got `str`"),
        (
            {"content": [], "structuredContent": {1, 2}},
            "$",
            "Not a JSON value by the IR's rule (exact builtins, finite numbers, UTF-8, depth)",
        ),
        (b'{"content": [', "$", "Invalid JSON: Input data was truncated"),
    ],
)
def test_what_is_not_a_call_tool_result_is_named(result: object, path: str, message: str) -> None:
    with pytest.raises(FormatError) as raised:
        tool_result_from_mcp(CALL, result)
    assert [(d.path, d.message) for d in raised.value.diagnostics] == [(path, message)]


def _answered(text: str, *, is_error: bool = False) -> list[Message]:
    """A question, a call, and its MCP answer with structured content (and `text` as text)."""
    answer: dict[str, object] = {
        "content": [{"type": "text", "text": text}],
        "structuredContent": {"sky": "rain", "temp": 7},
    }
    if is_error:
        answer["isError"] = True
    return [
        user_message(id="u", content="Weather in Oslo?"),
        assistant_message(id="a", content=[CALL]),
        tool_result_from_mcp(CALL, answer),
    ]


def _placed(target: str, text: str, value: object) -> tuple[str, list[object], object]:
    """Where `target` holds the structure: the body's list of records, the path from the
    result's record to its field, and what stands there."""
    if target == "bedrock":
        return "messages", ["content", 0, "toolResult", "content"], [{"text": text}, {"json": value}]
    if target == "gemini":
        return "contents", ["parts", 0, "functionResponse", "response"], value
    if target == "vercel_ai":
        return "messages", ["content", 0, "output"], {"type": "json", "value": value}
    return "", ["parts", 0, "response"], value


PLACED = ("bedrock", "gemini", "otel_genai", "vercel_ai")


def _at(value: object, keys: list[object]) -> object:
    for key in keys:
        value = value[key]  # type: ignore[index]  # plain JSON, walked by known keys
    return value


@pytest.mark.parametrize("target", PLACED)
@pytest.mark.parametrize("text", ['{"sky": "rain", "temp": 7}', '{"sky":"rain","temp":7}'])
def test_convert_puts_structured_content_where_the_target_holds_it(target: str, text: str) -> None:
    structure = {"sky": "rain", "temp": 7}
    converted = convert(_answered(text), to=target)
    assert [note.code for note in converted.notes].count("PLACED_STRUCTURED_CONTENT") == 1
    written = FORMATS[target].dumps(converted)
    assert FORMATS[target].check(written) == ()
    key, keys, expected = _placed(target, text, structure)
    body = json.loads(written)
    records = body[key] if key else body
    assert _at(records[2], keys) == expected
    again = FORMATS[target].load(written)
    assert again.messages[2].content == (text if target == "bedrock" else '{"sky":"rain","temp":7}')


def test_structured_content_stays_out_where_the_text_says_something_else() -> None:
    for target in ("gemini", "vercel_ai", "otel_genai", "openai_chat", "anthropic"):
        converted = convert(_answered("It rains, 7 degrees."), to=target)
        assert "PLACED_STRUCTURED_CONTENT" not in [note.code for note in converted.notes], target
        assert converted.messages[2].content == "It rains, 7 degrees."
    placed = convert(_answered("It rains, 7 degrees."), to="bedrock")
    assert [note.code for note in placed.notes] == ["PLACED_STRUCTURED_CONTENT", "DROPPED_META"]
    error = convert(_answered('{"sky": "rain", "temp": 7}', is_error=True), to="vercel_ai")
    assert json.loads(vercel_ai.dumps(error))["messages"][2]["content"][0]["output"] == {
        "type": "error-json",
        "value": {"sky": "rain", "temp": 7},
    }
    assert "PLACED_STRUCTURED_CONTENT" not in [
        note.code for note in convert(_answered('{"sky": "rain", "temp": 7}', is_error=True), to="gemini").notes
    ]
