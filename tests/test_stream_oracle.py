"""The providers' own SDKs as the oracle of `message_ir.streams`: on every recorded OpenAI Chat
and Anthropic stream, the text, the calls (IDs, names, arguments) and the stop reason equal
what openai-python's and anthropic-sdk-python's stream accumulators make of the same events.

The SDKs are test dependencies of this module only (nox's `oracle` session installs them).
Where an SDK fails on a recorded stream, the failure is pinned here: openai-python's
accumulator raises `IndexError` on a tool-call index that starts at 1 (an OpenAI-compatible
Claude endpoint sends one), where `assemble` reads the call.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest

from message_ir import AssistantMessage, TextBlock, ToolCall
from message_ir.streams import assemble
from tests.adapters.real import real_files

openai_streaming = pytest.importorskip("openai.lib.streaming.chat")
openai_types = pytest.importorskip("openai.types.chat")
anthropic_streaming = pytest.importorskip("anthropic.lib.streaming._messages")

OPENAI = real_files("streams/openai-chat", "*")
ANTHROPIC = real_files("streams/anthropic", "*")
SDK_FAILS: dict[str, type[Exception]] = {
    "vercel-ai_openai-compatible-claude-haiku_tool-call-index-1.sse": IndexError,
}
"""Recorded streams an SDK's accumulator raises on, and what it raises."""


def _payloads(path: Path) -> list[dict[str, object]]:
    found = []
    for line in path.read_bytes().splitlines():
        text = line.strip().removeprefix(b"data:").strip()
        if text.startswith(b"{"):
            found.append(json.loads(text))
    return found


def _ours(message: AssistantMessage) -> tuple[str, list[tuple[str, str, object]]]:
    text = "".join(block.text for block in message.content if type(block) is TextBlock)
    calls: list[tuple[str, str, object]] = [
        (block.id, block.name, block.arguments.thaw()) for block in message.content if type(block) is ToolCall
    ]
    return text, calls


def _stop_reason(message: AssistantMessage) -> object:
    return json.loads(bytes(message.meta_json))["stream"].get("stop_reason")


def _handle_all(state: object, chunks: list[object]) -> None:
    for chunk in chunks:
        state.handle_chunk(chunk)  # type: ignore[attr-defined]  # the SDK's state, imported at run time


@pytest.mark.parametrize("path", OPENAI, ids=[path.name for path in OPENAI])
def test_openai_pythons_accumulator_agrees(path: Path) -> None:
    done = assemble(path.read_bytes(), "openai_chat")
    state = openai_streaming.ChatCompletionStreamState()
    if path.name in SDK_FAILS:
        chunks = [openai_types.ChatCompletionChunk.model_validate(payload) for payload in _payloads(path)]
        with pytest.raises(SDK_FAILS[path.name]):
            _handle_all(state, chunks)
        assert done.complete  # where the SDK fails, the stream is read
        return
    for payload in _payloads(path):
        state.handle_chunk(openai_types.ChatCompletionChunk.model_validate(payload))
    choice = state.get_final_completion().choices[0]
    calls = [
        (call.id, call.function.name, json.loads(call.function.arguments or "{}"))
        for call in choice.message.tool_calls or []
    ]
    assert _ours(done.message) == (choice.message.content or "", calls)
    assert _stop_reason(done.message) == choice.finish_reason


@pytest.mark.parametrize("path", ANTHROPIC, ids=[path.name for path in ANTHROPIC])
def test_anthropic_sdks_accumulator_agrees(path: Path) -> None:
    done = assemble(path.read_bytes(), "anthropic")
    accumulate = anthropic_streaming.accumulate_event
    buffers: dict[str, object] = {}  # newer SDKs keep each block's JSON fragments here
    if "json_bufs" in inspect.signature(accumulate).parameters:
        buffers["json_bufs"] = {}
    snapshot = None
    for payload in _payloads(path):
        if payload.get("type") == "ping":
            continue
        # As the SDK's own stream does: the event's JSON built into its types unchecked (its
        # typed union has no MCP blocks; validating would refuse a stream the API sent).
        snapshot = accumulate(event=payload, current_snapshot=snapshot, **buffers)
        if payload.get("type") == "message_stop":
            break  # a recording may hold more streams: `assemble` reads the first
    assert snapshot is not None
    text = "".join(block.text for block in snapshot.content if block.type == "text")
    calls = [(block.id, block.name, block.input) for block in snapshot.content if block.type == "tool_use"]
    assert _ours(done.message) == (text, calls)
    assert _stop_reason(done.message) == snapshot.stop_reason
