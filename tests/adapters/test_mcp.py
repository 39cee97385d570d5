"""An MCP `CallToolResult` as an IR tool result: the text joined, the rest kept in `meta`."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from message_ir import ToolCall, assistant_message, user_message, validate_transcript
from message_ir.adapters import FormatError, tool_result_from_mcp

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
