"""`bedrock`: Converse requests recorded by others, and Bedrock's rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from message_ir import AssistantMessage, OpaqueBlock, ToolCall, ToolResultMessage
from message_ir.adapters import Conversation, FormatError, anthropic, bedrock, convert, detect, openai_chat
from tests.adapters.real import ids, real_files

REQUESTS = real_files("bedrock", "pydantic-ai_converse-request_*.json")


def _named(part: str) -> bytes:
    (path,) = [path for path in REQUESTS if part in path.name]
    return path.read_bytes()


@pytest.mark.parametrize("path", REQUESTS, ids=ids(REQUESTS))
def test_every_recorded_request_loads_writes_back_exactly_and_is_told_from_anthropic(path: Path) -> None:
    data = path.read_bytes()
    assert json.dumps(bedrock.dump(bedrock.load(data)), ensure_ascii=False) == json.dumps(
        json.loads(data), ensure_ascii=False
    )
    assert bedrock.dumps(bedrock.load(bedrock.dumps(bedrock.load(data)))) == bedrock.dumps(bedrock.load(data))
    assert detect(data) == "bedrock"


NAMED = {
    "pydantic-ai_converse-request_claude-3-7-sonnet_reasoning-tooluse-toolresult.json",
    "pydantic-ai_converse-request_kimi-k2-thinking_functions-style-tooluseid.json",
    "pydantic-ai_converse-request_llama_toolresult-with-document.json",
    "pydantic-ai_converse-request_nova_server-tool-use-and-result-in-assistant.json",
    "pydantic-ai_converse-request_nova_tool-roundtrip-then-retry-prompt.json",
    "pydantic-ai_converse-request_nova_toolresult-status-error.json",
    "pydantic-ai_converse-request_nova_toolresult-then-text-and-document.json",
}
"""The requests PROVENANCE.md names (a request the folder gains joins the round trip only)."""


def test_the_recorded_requests_break_no_rule_but_kimis_documented_id_pattern() -> None:
    named = [path for path in REQUESTS if path.name in NAMED]
    assert len(named) == len(NAMED)
    found = {path.name: [str(diagnostic) for diagnostic in bedrock.check(path.read_bytes())] for path in named}
    assert found.pop("pydantic-ai_converse-request_kimi-k2-thinking_functions-style-tooluseid.json") == [
        "BAD_TOOL_CALL_ID_FORMAT: Tool call ID 'functions.get_temperature:0' has characters not allowed;"
        " Bedrock accepts `^[a-zA-Z0-9_-]+$`, at most 64 characters"
        " - at `$.messages[1].content[1].toolUse.toolUseId`"
    ]
    assert found == {name: [] for name in found}


def test_an_error_status_is_an_error_result_and_a_server_tool_stays_in_place() -> None:
    error = bedrock.load(_named("status-error"))
    (result,) = [message for message in error.messages if type(message) is ToolResultMessage]
    assert (result.is_error, result.content) == (True, "The country is not supported.\n\nFix the errors and try again.")
    server = bedrock.load(_named("server-tool-use"))
    assistant = server.messages[1]
    assert type(assistant) is AssistantMessage
    assert [(block.type, getattr(block, "kind", None)) for block in assistant.content] == [
        ("opaque", "toolUse"),
        ("opaque", "toolResult"),
        ("toolCall", None),
    ]
    assert [instruction.text for instruction in server.instructions] == ["You are a helpful chatbot."]


def test_a_converse_response_is_refused_saying_what_it_is() -> None:
    (path,) = real_files("bedrock", "vercel-ai_converse-response_*.json")
    with pytest.raises(FormatError) as raised:
        bedrock.load(path.read_bytes())
    assert [str(diagnostic) for diagnostic in raised.value.diagnostics] == [
        "BAD_FORMAT: Expected a Converse request or its messages, got a Converse response"
        " (its `output.message` is one message) - at `$`"
    ]


def _use(call_id: str) -> dict[str, object]:
    return {"toolUse": {"toolUseId": call_id, "name": "f", "input": {}}}


def _result(call_id: str, **more: object) -> dict[str, object]:
    return {"toolResult": {"toolUseId": call_id, "content": [{"text": "ok"}], **more}}


def test_the_rules_in_the_source_terms() -> None:
    uses = {"role": "assistant", "content": [_use("a"), _use("b")]}
    one_result = {"role": "user", "content": [_result("a")]}
    late = [
        uses,
        one_result,
        {"role": "assistant", "content": [{"text": "?"}]},
        {"role": "user", "content": [_result("b")]},
    ]
    assert [str(diagnostic) for diagnostic in bedrock.check(late)] == [
        "RESULT_COUNT_MISMATCH: The turn after 2 function call(s) holds 1 function response(s); Bedrock needs as many"
        " - at `$[1]`",
        "RESULT_NOT_ADJACENT: The result for 'b' is not in the turn right after its call - at `$[3].content[0]`",
    ]
    empty_error = [
        {"role": "assistant", "content": [_use("a")]},
        {"role": "user", "content": [{"toolResult": {"toolUseId": "a", "content": [], "status": "error"}}]},
    ]
    assert [str(diagnostic) for diagnostic in bedrock.check(empty_error)] == [
        "EMPTY_ERROR_RESULT: The error result for 'a' says nothing; Bedrock refuses an error result without content"
        " - at `$[1].content[0].toolResult.content`"
    ]


def test_tools_are_read_from_tool_config() -> None:
    body = json.loads(_named("status-error"))
    body["messages"][1]["content"][1]["toolUse"]["input"] = {"country": 7}
    assert [diagnostic.code for diagnostic in bedrock.check(body)] == ["ARGUMENTS_DO_NOT_MATCH_SCHEMA"]
    body["messages"][1]["content"][1]["toolUse"]["name"] = "get_city"
    body["messages"][2]["content"][0]["toolResult"]["toolUseId"] = "tooluse_Ze_bgl9CSqu8aJv7XD-_Dw"
    assert [str(diagnostic) for diagnostic in bedrock.check(body)] == [
        "UNDECLARED_TOOL: Tool 'get_city' is not declared (declared: 'get_capital')"
        " - at `$.messages[1].content[1].toolUse.name`"
    ]


def test_convert_from_anthropic_and_openai_chat_passes_bedrocks_check() -> None:
    chat = openai_chat.load(
        [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Capital of Peru?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": "call.1", "type": "function", "function": {"name": "cap", "arguments": "{}"}}],
            },
            {"role": "tool", "tool_call_id": "call.1", "content": ""},
        ]
    )
    as_bedrock = convert(chat, "bedrock")
    written = bedrock.dump(as_bedrock)
    assert bedrock.check(written) == ()
    assert written == {
        "system": [{"text": "Be brief."}],
        "messages": [
            {"role": "user", "content": [{"text": "Capital of Peru?"}]},
            {"role": "assistant", "content": [{"toolUse": as_bedrock_call(as_bedrock)}]},
            {
                "role": "user",
                "content": [
                    {
                        "toolResult": {
                            "toolUseId": as_bedrock_call(as_bedrock)["toolUseId"],
                            "content": [],
                            "status": "success",
                        }
                    }
                ],
            },
        ],
    }
    back = convert(bedrock.load(written), "anthropic")
    assert anthropic.check(anthropic.dump(back)) == ()


def as_bedrock_call(conversation: Conversation) -> dict[str, object]:
    """The one call of a converted conversation, as Bedrock writes it."""
    messages = conversation.messages
    (call,) = [
        block
        for message in messages
        if type(message) is AssistantMessage
        for block in message.content
        if type(block) is ToolCall
    ]
    return {"toolUseId": call.id, "name": call.name, "input": {}}


def test_what_bedrock_keeps_is_dropped_into_another_format_with_notes() -> None:
    conversation = bedrock.load(_named("reasoning-tooluse"))
    assert any(
        type(block) is OpaqueBlock
        for message in conversation.messages
        if type(message) is AssistantMessage
        for block in message.content
    )
    as_anthropic = convert(conversation, "anthropic")
    assert "DROPPED_OPAQUE_BLOCK" in [note.code for note in as_anthropic.notes]
    assert anthropic.check(anthropic.dump(as_anthropic)) == ()
