"""`message_ir.streams`: the recorded provider streams assembled, split anywhere, cut
anywhere, and the stream diagnostics."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from message_ir import AssistantMessage, Diagnostic, ToolCall
from message_ir.streams import STREAM_FORMATS, Assembled, Assembler, assemble
from tests.adapters.real import real_files

STREAMS = [("openai_chat", path) for path in real_files("streams/openai-chat", "*")] + [
    ("anthropic", path) for path in real_files("streams/anthropic", "*")
]
IDS = [path.name for _, path in STREAMS]


def _calls(message: AssistantMessage) -> list[tuple[str, str, object]]:
    return [(block.id, block.name, block.arguments.thaw()) for block in message.content if type(block) is ToolCall]


def _named(part: str) -> tuple[str, Path]:
    (found,) = [(format, path) for format, path in STREAMS if part in path.name]
    return found


def test_the_recorded_streams_assemble_into_what_the_providers_sent() -> None:
    format, path = _named("gpt-4o-mini_tool-call-deltas")
    done = assemble(path.read_bytes(), format)
    assert done.complete
    assert done.diagnostics == ()
    assert [(name, arguments) for _, name, arguments in _calls(done.message)] == [("get_capital", {"country": "UK"})]
    assert json.loads(bytes(done.message.meta_json))["stream"]["stop_reason"] == "tool_calls"
    format, path = _named("tool-call-index-1")
    done = assemble(path.read_bytes(), format)  # the call's index starts at 1
    assert [block.type for block in done.message.content] == ["text", "toolCall"]
    assert _calls(done.message) == [("toolu_sanitized", "read_file", {"path": "a.txt"})]
    format, path = _named("mcp-tool-use-and-result")
    done = assemble(path.read_bytes(), format)
    kinds = [getattr(block, "kind", block.type) for block in done.message.content]
    assert kinds == ["thinking", "mcp_tool_use", "mcp_tool_result", "text"]
    format, path = _named("programmatic-tool-calling")  # several responses in one recording
    done = assemble(path.read_bytes(), format)
    assert [str(diagnostic) for diagnostic in done.diagnostics] == [
        "STREAM_OUT_OF_ORDER: A `message_start` event after the stream's end (`message_stop`) - at `$[167]`"
    ]
    assert _calls(done.message) == [("toolu_019jKkXz4jAdwHweHBw92CVY", "rollDie", {"player": "player1"})]


@pytest.mark.parametrize(("format", "path"), STREAMS, ids=IDS)
def test_every_recorded_stream_is_complete_and_its_parsed_events_give_the_same(format: str, path: Path) -> None:
    data = path.read_bytes()
    done = assemble(data, format)
    assert done.complete
    assert "STREAM_TRUNCATED" not in [diagnostic.code for diagnostic in done.diagnostics]
    payloads = [
        json.loads(line.removeprefix(b"data:").strip())
        for line in data.splitlines()
        if line.strip().startswith((b"{", b"data: {", b"data:{"))
    ]
    assert assemble(payloads, format).message == done.message


@pytest.mark.parametrize(("format", "path"), STREAMS, ids=IDS)
@given(cuts=st.lists(st.integers(min_value=0, max_value=1 << 20), max_size=12))
def test_bytes_split_anywhere_assemble_the_same(format: str, path: Path, cuts: list[int]) -> None:
    data = path.read_bytes()
    assembler = Assembler(format)
    start = 0
    for cut in sorted({cut % (len(data) + 1) for cut in cuts}):
        assembler.feed(data[start:cut])
        start = cut
    assembler.feed(data[start:])
    assert assembler.finish() == assemble(data, format)


@pytest.mark.parametrize(("format", "path"), STREAMS, ids=IDS)
@given(fraction=st.floats(min_value=0.0, max_value=0.999))
def test_a_stream_cut_anywhere_keeps_what_arrived_and_says_so(format: str, path: Path, fraction: float) -> None:
    data = path.read_bytes()
    whole = assemble(data, format)
    finish = re.search(rb'"finish_reason":\s*"', data)  # OpenAI Chat: the message is whole with it
    stop = data.find(b"message_stop") if finish is None else finish.start()  # Anthropic: its last event
    end = data.rfind(b"\n", 0, stop) if stop >= 0 else data.rstrip().rfind(b"\n")  # the last event's line starts after
    cut = data[: int(end * fraction)]
    done = assemble(cut, format)
    assert type(done) is Assembled
    assert "STREAM_TRUNCATED" in [diagnostic.code for diagnostic in done.diagnostics]
    assert not done.complete
    whole_text = "".join(getattr(block, "text", "") for block in whole.message.content)
    cut_text = "".join(getattr(block, "text", "") for block in done.message.content)
    assert whole_text.startswith(cut_text)


def _chunk(delta: dict[str, object], finish: str | None = None) -> str:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    return "data: " + json.dumps({"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [choice]}) + "\n\n"


def test_arguments_that_make_no_object_are_kept_and_reported() -> None:
    call = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "f", "arguments": '{"a": '}}
    stream = _chunk({"tool_calls": [call]}) + _chunk({}, "tool_calls") + "data: [DONE]\n\n"
    done = assemble(stream, "openai_chat")
    assert [str(diagnostic) for diagnostic in done.diagnostics] == [
        "BAD_TOOL_ARGUMENTS: The arguments of 'call_1' do not make a JSON object: '{\"a\": ' - at `$[0]`"
    ]
    (block,) = done.message.content
    assert type(block) is ToolCall
    assert block.meta is not None
    assert block.meta.thaw() == {"stream": {"arguments": '{"a": '}}


def test_an_error_event_and_a_fragment_for_an_index_never_started() -> None:
    stream = (
        _chunk({"content": "Hel"})
        + _chunk({"tool_calls": [{"index": 3, "function": {"arguments": "{}"}}]})
        + 'data: {"error": {"message": "Rate limit reached", "type": "rate_limit"}}\n\n'
    )
    done = assemble(stream, "openai_chat")
    assert [str(diagnostic) for diagnostic in done.diagnostics] == [
        "STREAM_OUT_OF_ORDER: A tool-call fragment for index 3, whose first fragment (with its `id` and name)"
        " never came - at `$[1]`",
        "STREAM_ERROR: The provider said: Rate limit reached - at `$[2]`",
    ]
    anthropic_error = (
        'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n'
    )
    assert [diagnostic.code for diagnostic in assemble(anthropic_error, "anthropic").diagnostics] == ["STREAM_ERROR"]


def test_nothing_raises_and_an_unknown_format_is_refused() -> None:
    for junk in (b"", b"\xff\xfe", b"data: {", b"data: [1]\n\n", b'{"type": "content_block_delta", "index": 9}\n'):
        for format in STREAM_FORMATS:
            done = assemble(junk, format)
            assert type(done.diagnostics) is tuple
            assert all(type(diagnostic) is Diagnostic for diagnostic in done.diagnostics)
    with pytest.raises(ValueError, match=r"^No stream format 'gemini'; expected one of openai_chat, anthropic$"):
        Assembler("gemini")
