"""One minimal case per code: every `DiagnosticCode` and `NoteCode` is produced by the smallest
input that shows it, and the cases and the codes' `Literal`s agree (a new code needs a case)."""

from __future__ import annotations

import json
import typing
from collections.abc import Callable
from unittest import mock

import pytest

from message_ir import (
    DiagnosticCode,
    Message,
    TranscriptError,
    assistant_message,
    decode_transcript,
    tool_call,
    validate_transcript,
)
from message_ir.adapters import (
    NoteCode,
    _checks,
    anthropic,
    bedrock,
    claude_code,
    codex,
    convert,
    gemini,
    hf_chat,
    mistral,
    openai_chat,
    openai_responses,
    otel_genai,
    sharegpt,
    tool_result_from_mcp,
    vercel_ai,
)
from message_ir.datasets._tokens import too_many
from message_ir.streams import assemble

USER = {"role": "user", "id": "u", "content": "hi"}
CALL = {"role": "assistant", "id": "a", "content": [{"type": "toolCall", "id": "c", "name": "f", "arguments": {}}]}
RESULT = {"role": "toolResult", "id": "r", "toolCallId": "c", "toolName": "f", "content": "ok", "isError": False}


def _call(call_id: str = "c", name: str = "f", arguments: str = "{}") -> dict[str, object]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _chat(*calls: dict[str, object]) -> dict[str, object]:
    return {"role": "assistant", "content": None, "tool_calls": list(calls)}


def _tool(call_id: str = "c") -> dict[str, object]:
    return {"role": "tool", "tool_call_id": call_id, "content": "ok"}


def _codes(found: tuple[object, ...] | list[object]) -> list[str]:
    return [str(getattr(item, "code")) for item in found]  # noqa: B009  # Diagnostics and Notes alike


def _decoded(data: bytes) -> list[str]:
    try:
        decode_transcript(data)
    except TranscriptError as error:
        return _codes(error.diagnostics)
    return []


def _weather_tools(parameters: dict[str, object]) -> dict[str, object]:
    return {
        "messages": [{"role": "user", "content": "?"}, _chat(_call(arguments='{"city": "x"}')), _tool()],
        "tools": [{"type": "function", "function": {"name": "f", "parameters": parameters}}],
    }


def _surprised() -> list[str]:
    """What `check` says when something inside it fails unexpectedly (a bug, simulated)."""

    def broken(source: object) -> object:
        raise KeyError("x")

    with mock.patch.object(_checks, "validate_transcript", broken):
        return _codes(anthropic.check([]))


def _gave_up() -> dict[str, object]:
    """A call whose argument a `pattern` cannot be checked against (the engine gives up)."""
    body = _weather_tools({"properties": {"city": {"pattern": r"^(a|a)*\1b$"}}})
    call = _call(arguments=json.dumps({"city": "a" * 40 + "!"}))
    return {**body, "messages": [{"role": "user", "content": "?"}, _chat(call), _tool()]}


def _converted(source: object, load: Callable[[object], object], to: str) -> list[str]:
    return _codes(convert(load(source), to).notes)  # type: ignore[arg-type]  # every `load` gives a Conversation


_ANTHROPIC_THINKING = [
    {"role": "user", "content": "hi"},
    {
        "role": "assistant",
        "content": [{"type": "thinking", "thinking": "t", "signature": "s"}, {"type": "text", "text": "yo"}],
    },
]

DIAGNOSTIC_CASES: dict[str, Callable[[], list[str]]] = {
    "TRANSCRIPT_NOT_A_LIST": lambda: _codes(validate_transcript({})),
    "MESSAGE_NOT_A_RECORD": lambda: _codes(validate_transcript([1])),
    "UNKNOWN_ROLE": lambda: _codes(validate_transcript([{"role": "bot", "id": "b", "content": "x"}])),
    "UNKNOWN_FIELD": lambda: _codes(validate_transcript([{**USER, "extra": 1}])),
    "BAD_MESSAGE_ID": lambda: _codes(validate_transcript([{**USER, "id": ""}])),
    "BAD_CONTENT": lambda: _codes(validate_transcript([{**USER, "content": 1}])),
    "BAD_BLOCK": lambda: _codes(validate_transcript([{**CALL, "content": [{"type": "x"}]}])),
    "BAD_TOOL_CALL": lambda: _codes(
        validate_transcript([{**CALL, "content": [{"type": "toolCall", "id": "", "name": "f", "arguments": {}}]}])
    ),
    "BAD_TOOL_ARGUMENTS": lambda: _codes(
        validate_transcript([{**CALL, "content": [{"type": "toolCall", "id": "c", "name": "f", "arguments": []}]}])
    ),
    "BAD_TOOL_RESULT_FIELD": lambda: _codes(validate_transcript([CALL, {**RESULT, "isError": "no"}])),
    "BAD_META": lambda: _codes(validate_transcript([{**USER, "meta": 1}])),
    "UNREADABLE_VALUE": _surprised,
    "DUPLICATE_TOOL_CALL_ID": lambda: _codes(validate_transcript([CALL, RESULT, CALL, {**RESULT, "id": "r2"}])),
    "DUPLICATE_TOOL_RESULT": lambda: _codes(validate_transcript([CALL, RESULT, {**RESULT, "id": "r2"}])),
    "ORPHAN_TOOL_RESULT": lambda: _codes(validate_transcript([USER, RESULT])),
    "TOOL_RESULT_BEFORE_CALL": lambda: _codes(validate_transcript([RESULT, CALL])),
    "TOOL_NAME_MISMATCH": lambda: _codes(validate_transcript([CALL, {**RESULT, "toolName": "g"}])),
    "MISSING_TOOL_RESULT": lambda: _codes(validate_transcript([CALL, USER])),
    "INVALID_JSON": lambda: _decoded(b"["),
    "JSON_TOO_DEEP": lambda: _decoded(b"[" * 2000 + b"]" * 2000),
    "DUPLICATE_KEY": lambda: _decoded(b'[{"role":"user","role":"assistant","id":"x","content":[]}]'),
    "BAD_FORMAT": lambda: _codes(openai_chat.check(5)),
    "RESULT_NOT_ADJACENT": lambda: _codes(
        openai_chat.check([_chat(_call()), {"role": "user", "content": "wait"}, _tool()])
    ),
    "RESULT_NOT_FIRST": lambda: _codes(
        anthropic.check(
            [
                {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}]},
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "first"},
                        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"},
                    ],
                },
            ]
        )
    ),
    "RESULT_COUNT_MISMATCH": lambda: _codes(
        gemini.check(
            [
                {
                    "role": "model",
                    "parts": [{"functionCall": {"name": "f", "args": {}}}, {"functionCall": {"name": "f", "args": {}}}],
                },
                {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {"output": "ok"}}}]},
            ]
        )
    ),
    "BAD_TOOL_CALL_ID_FORMAT": lambda: _codes(openai_chat.check([_chat(_call("c" * 41)), _tool("c" * 41)])),
    "REASONING_ITEM_MISPLACED": lambda: _codes(
        openai_responses.check(
            [{"type": "message", "role": "user", "content": "hi"}, {"type": "reasoning", "id": "rs", "summary": []}]
        )
    ),
    "UNDECLARED_TOOL": lambda: _codes(openai_chat.check({**_weather_tools({}), "tools": []})),
    "ARGUMENTS_DO_NOT_MATCH_SCHEMA": lambda: _codes(
        openai_chat.check(_weather_tools({"properties": {"city": {"type": "integer"}}}))
    ),
    "BAD_TOOL_DECLARATION": lambda: _codes(openai_chat.check(_weather_tools({"type": "nonsense"}))),
    "SCHEMA_CHECK_UNAVAILABLE": lambda: _codes(openai_chat.check(_gave_up())),
    "LOG_RECORD_GAP": lambda: _codes(
        codex.check([{"timestamp": "t", "ordinal": 0, "type": "x"}, {"timestamp": "t", "ordinal": 2, "type": "x"}])
    ),
    "UNKNOWN_KEY": lambda: _codes(openai_chat.FORMAT.functions.check_example(b'{"messages": [], "metadata": 1}')),
    "TOO_MANY_TOKENS": lambda: [too_many(5, 4).code],
    "NO_ASSISTANT_MESSAGE": lambda: _codes(
        openai_chat.FORMAT.functions.check_example([{"role": "user", "content": "hi"}])
    ),
    "TURN_OUT_OF_PLACE": lambda: _codes(
        sharegpt.FORMAT.functions.check_example([{"from": "gpt", "value": "hi"}, {"from": "gpt", "value": "hi"}])
    ),
    "PADDED_BY_ARROW": lambda: _codes(_padded()),
    "EMPTY_ERROR_RESULT": lambda: _codes(
        bedrock.check(
            [
                {"role": "assistant", "content": [{"toolUse": {"toolUseId": "t1", "name": "f", "input": {}}}]},
                {"role": "user", "content": [{"toolResult": {"toolUseId": "t1", "content": [], "status": "error"}}]},
            ]
        )
    ),
    "SEMCONV_MISMATCH": lambda: _codes(
        otel_genai.check([{"role": "tool", "parts": [{"type": "tool_call_response", "id": "c", "result": "x"}]}])
    ),
    "STREAM_TRUNCATED": lambda: _codes(
        assemble('data: {"choices": [{"index": 0, "delta": {"content": "Hi"}}]}\n', "openai_chat").diagnostics
    ),
    "STREAM_OUT_OF_ORDER": lambda: _codes(
        assemble(
            '{"type": "content_block_delta", "index": 4, "delta": {"type": "text_delta", "text": "x"}}', "anthropic"
        ).diagnostics
    ),
    "STREAM_ERROR": lambda: _codes(
        assemble('{"type": "error", "error": {"message": "Overloaded"}}', "anthropic").diagnostics
    ),
    "USER_AFTER_TOOL": lambda: _codes(
        mistral.check([_chat(_call("abcdefghi")), _tool("abcdefghi"), {"role": "user", "content": "and?"}])
    ),
}


def _padded() -> tuple[object, ...]:
    from message_ir.datasets._arrow import padded_by_arrow

    row = {
        "messages": [_chat({"type": "function", "function": {"name": "f", "arguments": {"a": 1, "b": None}}})],
        "tools": [{"type": "function", "function": {"name": "f", "parameters": {"properties": {"a": {}}}}}],
    }
    return tuple(padded_by_arrow(json.dumps(row).encode(), "hf_chat"))


_HF_CALL = [
    {"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": {}}}]},
    {"role": "tool", "name": "f", "content": "ok"},
]
_SYSTEM_THEN_CALL = [
    {"role": "system", "content": "s1"},
    {"role": "user", "content": "hi"},
    {"role": "system", "content": "s2"},
    _chat(_call()),
    _tool(),
]

NOTE_CASES: dict[str, Callable[[], list[str]]] = {
    "RENAMED_REUSED_CALL_ID": lambda: _codes(
        openai_chat.load([_chat(_call()), _tool(), _chat(_call()), _tool()]).notes
    ),
    "ARGUMENTS_NOT_AN_OBJECT": lambda: _codes(openai_chat.load([_chat(_call(arguments="[]")), _tool()]).notes),
    "PLACEHOLDER_TOOL_NAME": lambda: _codes(openai_chat.load([_tool("gone")]).notes),
    "REWROTE_CALL_ID": lambda: _converted([_chat(_call("call.1")), _tool("call.1")], openai_chat.load, "anthropic"),
    "RESTORED_CALL_ID": lambda: _codes(
        convert(convert(openai_chat.load([_chat(_call("call.1")), _tool("call.1")]), "anthropic"), "openai_chat").notes
    ),
    "DROPPED_OPAQUE_BLOCK": lambda: _converted(_ANTHROPIC_THINKING, anthropic.load, "openai_chat"),
    "DROPPED_META": lambda: _converted([{"role": "user", "content": "hi", "name": "x"}], openai_chat.load, "anthropic"),
    "MOVED_RESULT": lambda: _converted(
        [_chat(_call()), {"role": "user", "content": "wait"}, _tool()], openai_chat.load, "anthropic"
    ),
    "MOVED_INSTRUCTION": lambda: _converted(_SYSTEM_THEN_CALL, openai_chat.load, "openai_responses"),
    "MERGED_INSTRUCTIONS": lambda: _converted(_SYSTEM_THEN_CALL, openai_chat.load, "anthropic"),
    "DROPPED_INSTRUCTION": lambda: _converted(_SYSTEM_THEN_CALL, openai_chat.load, "pi"),
    "DROPPED_EMPTY_TEXT": lambda: _converted(
        [{"role": "user", "content": "hi"}, {"role": "assistant", "content": ""}], openai_chat.load, "anthropic"
    ),
    "DROPPED_BAD_ARGUMENTS": lambda: _converted(
        [_chat(_call(arguments="{cut")), _tool()], openai_chat.load, "openai_chat"
    ),
    "MADE_UP_CALL_ID": lambda: _codes(
        gemini.load([{"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]}]).notes
    ),
    "WROTE_MADE_UP_CALL_ID": lambda: _converted(_HF_CALL, hf_chat.load, "openai_chat"),
    "DROPPED_CALL_ID": lambda: _converted([_chat(_call()), _tool()], openai_chat.load, "sharegpt"),
    "RETYPED_ARGUMENTS": lambda: _converted([_chat(_call()), _tool()], openai_chat.load, "hf_chat"),
    "TURN_WITHOUT_CALL": lambda: _codes(sharegpt.load([{"from": "observation", "value": "42"}]).notes),
    "OFF_BRANCH": lambda: _codes(claude_code.load([_line("a"), _line("b", None), _line("c", "a")]).notes),
    "BROKEN_PARENT_LINK": lambda: _codes(claude_code.load([_line("a", "gone")]).notes),
    "SIDECHAIN_BRANCH": lambda: _codes(
        claude_code.load([_line("a", sidechain=True), _line("b", "a", sidechain=True)]).notes
    ),
    "SOURCE_FORM": lambda: _codes(vercel_ai.load([{"role": "user", "content": "hi"}]).notes),
    "UNKNOWN_EVENT": lambda: _codes(assemble('{"type": "brand_new_event"}', "anthropic").notes),
    "INSERTED_ASSISTANT_MESSAGE": lambda: _converted(
        [_chat(_call()), _tool(), {"role": "user", "content": "and?"}], openai_chat.load, "mistral"
    ),
    "PLACED_STRUCTURED_CONTENT": lambda: _codes(convert(_mcp_answered(), "bedrock").notes),
}


def _mcp_answered() -> list[Message]:
    """A call answered by an MCP result with structured content."""
    call = tool_call(id="call_1", name="weather", arguments={})
    answer = {"content": [{"type": "text", "text": "rain"}], "structuredContent": {"sky": "rain"}}
    return [assistant_message(id="a", content=[call]), tool_result_from_mcp(call, answer)]


def _line(uuid: str, parent: str | None = None, *, sidechain: bool = False) -> dict[str, object]:
    """A Claude Code user line in a tree."""
    message = {"role": "user", "content": uuid}
    return {"parentUuid": parent, "isSidechain": sidechain, "type": "user", "uuid": uuid, "message": message}


def _all(alias: object) -> set[str]:
    found: set[str] = set()
    for argument in typing.get_args(alias):
        found |= _all(argument) if typing.get_args(argument) else {str(argument)}
    return found


def test_the_cases_and_the_codes_agree() -> None:
    assert set(DIAGNOSTIC_CASES) == _all(DiagnosticCode)
    assert set(NOTE_CASES) == _all(NoteCode)


@pytest.mark.parametrize("code", sorted(DIAGNOSTIC_CASES))
def test_each_diagnostic_code_has_a_minimal_case(code: str) -> None:
    assert code in DIAGNOSTIC_CASES[code]()


@pytest.mark.parametrize("code", sorted(NOTE_CASES))
def test_each_note_code_has_a_minimal_case(code: str) -> None:
    assert code in NOTE_CASES[code]()
