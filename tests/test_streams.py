"""`message_ir.streams`: the recorded provider streams assembled, split anywhere, cut
anywhere, and the stream diagnostics."""

from __future__ import annotations

import copy
import itertools
import json
import re
import subprocess
import sys
from pathlib import Path
from unittest import mock

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from message_ir import MAX_DEPTH, AssistantMessage, Diagnostic, TextBlock, ToolCall, assistant_message, tool_call
from message_ir.streams import STREAM_FORMATS, Assembled, Assembler, QueueExhausted, ScriptedModel, assemble, script
from message_ir.streams._assembled import StreamState
from tests.adapters.real import real_files
from tests.property.strategies import arguments_objects, identifiers, texts
from tests.support import json_objects

STREAMS = [
    (format, path)
    for format, folder in (
        ("openai_chat", "openai-chat"),
        ("anthropic", "anthropic"),
        ("openai_responses", "openai-responses"),
        ("gemini", "gemini"),
    )
    for path in real_files(f"streams/{folder}", "*")
]
LAST: dict[str, bytes] = {
    "openai_chat": rb'"finish_reason":\s*"',
    "anthropic": rb"message_stop",
    "openai_responses": rb"response\.completed",
    "gemini": rb'"finishReason":\s*"',
}
"""Where each format's stream says it is over (the first time: a recording may hold several)."""
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
@given(window=st.integers(min_value=0, max_value=4096), mutate=st.booleans(), data=st.data())
def test_a_chunk_framed_in_windows_of_any_size_assembles_the_same(
    format: str, path: Path, window: int, mutate: bool, data: st.DataObject
) -> None:
    """`feed` frames a large chunk a window at a time (cut after a blank line, else after a
    newline): any window size gives what the whole gives, on the recording and mutated."""
    text = path.read_bytes()
    if mutate:
        text = "".join(f"data: {json.dumps(event)}\n\n" for event in _mutated(path, data)).encode()
    expected = assemble(text, format)
    with mock.patch("message_ir.streams._WINDOW", window):
        assert assemble(text, format) == expected


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
    last = re.search(LAST[format], data)
    assert last is not None
    end = data.rfind(b"\n", 0, last.start())  # the line that says the stream is over starts after this
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


def _nested(depth: int) -> dict[str, object]:
    value: dict[str, object] = {}
    for _ in range(depth - 1):
        value = {"a": value}
    return value


@pytest.mark.parametrize(
    ("call_id", "arguments"),
    [
        ("call_1", _nested(MAX_DEPTH)),  # as deep as the IR holds
        ("call_1", {"list": [[1]] * MAX_DEPTH}),  # more brackets than levels: not deep
        ("call_ü", {"city": "Zürich", "days": 10**30}),  # an identifier the constructor looks at closer
        ("call_1", {}),
    ],
)
def test_a_streamed_call_is_the_call_its_constructor_makes(call_id: str, arguments: dict[str, object]) -> None:
    text = json.dumps(arguments)
    fragments = [{"index": 0, "id": call_id, "type": "function", "function": {"name": "f", "arguments": text}}]
    stream = _chunk({"tool_calls": fragments}) + _chunk({}, "tool_calls") + "data: [DONE]\n\n"
    gemini = _gemini([{"functionCall": {"id": call_id, "name": "f", "args": arguments}}]) + _gemini([], "STOP")
    expected = tool_call(id=call_id, name="f", arguments=arguments)  # type: ignore[arg-type]  # plain JSON data
    for done in (assemble(stream, "openai_chat"), assemble(gemini, "gemini")):
        assert done.diagnostics == ()
        assert done.message.content == (expected,)
        (block,) = done.message.content
        assert type(block) is ToolCall
        assert bytes(block.arguments_json) == bytes(expected.arguments_json)


def test_arguments_deeper_than_the_ir_holds_are_kept_as_text() -> None:
    text = json.dumps(_nested(MAX_DEPTH + 1))
    fragments = [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "f", "arguments": text}}]
    stream = _chunk({"tool_calls": fragments}) + _chunk({}, "tool_calls") + "data: [DONE]\n\n"
    call = {"functionCall": {"id": "call_1", "name": "f", "args": _nested(MAX_DEPTH + 1)}}
    gemini = _gemini([call]) + _gemini([], "STOP")
    for done in (assemble(stream, "openai_chat"), assemble(gemini, "gemini")):
        assert [str(diagnostic) for diagnostic in done.diagnostics] == [
            f"BAD_TOOL_ARGUMENTS: Nesting deeper than {MAX_DEPTH} levels - at `$[0]`"
        ]
        (block,) = done.message.content
        assert type(block) is ToolCall
        assert block.arguments == {}
        assert block.meta is not None


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
    with pytest.raises(
        ValueError, match=r"^No stream format 'pi'; expected one of openai_chat, anthropic, openai_responses, gemini$"
    ):
        Assembler("pi")


# --- the scripted double --------------------------------------------------------------------


@st.composite
def sayable(draw: st.DrawFn) -> AssistantMessage:
    """An assistant message of text and calls that every stream format can say: no empty
    text, no two texts in a row (a chat stream joins them), calls with distinct IDs."""
    blocks: list[dict[str, object]] = []
    ids = draw(st.lists(identifiers, unique=True, max_size=3))
    for call_id in ids:
        if draw(st.booleans()) and (not blocks or blocks[-1]["type"] != "text"):
            blocks.append({"type": "text", "text": draw(texts.filter(bool))})
        arguments = draw(arguments_objects)
        blocks.append({"type": "toolCall", "id": call_id, "name": draw(identifiers), "arguments": arguments})
    if not blocks or (draw(st.booleans()) and blocks[-1]["type"] != "text"):
        blocks.append({"type": "text", "text": draw(texts.filter(bool))})
    return assistant_message(id=draw(identifiers), content=blocks)  # type: ignore[arg-type]  # plain block data


@given(
    sayable(), st.sampled_from(sorted(STREAM_FORMATS)), st.none() | st.integers(1, 5), st.none() | st.integers(0, 99)
)
def test_a_scripted_stream_assembles_into_its_message(
    message: AssistantMessage, format: str, chunks: int | None, seed: int | None
) -> None:
    pieces = script(message, format, chunks=chunks, seed=seed)
    done = assemble(b"".join(pieces), format)
    assert done.complete
    assert done.diagnostics == ()
    assert msgspec.structs.replace(done.message, meta_json=message.meta_json) == message
    for cut in range(len(pieces) - 1):  # every way of cutting it: truncated, and a prefix
        partial = assemble(b"".join(script(message, format, chunks=chunks, seed=seed, cut_after=cut)), format)
        assert "STREAM_TRUNCATED" in [diagnostic.code for diagnostic in partial.diagnostics]
        assert len(partial.message.content) <= len(message.content)


def test_a_scripted_model_replays_its_queue_and_says_when_it_is_empty() -> None:
    message = assistant_message(id="r1", content=[{"type": "text", "text": "Hello."}])
    model = ScriptedModel(
        [
            script(message, "anthropic"),
            script(message, "anthropic", cut_after=3),
            script(message, "anthropic", error="Overloaded"),
        ]
    )
    first = assemble(b"".join(model.stream({"turn": 1})), "anthropic")
    assert (first.complete, first.message.content) == (True, message.content)
    cancelled = assemble(b"".join(model.stream({"turn": 2})), "anthropic")
    assert [diagnostic.code for diagnostic in cancelled.diagnostics] == ["STREAM_TRUNCATED"]
    failed = assemble(b"".join(model.stream({"turn": 3})), "anthropic")
    assert [str(diagnostic) for diagnostic in failed.diagnostics] == [
        "STREAM_ERROR: The provider said: Overloaded - at `$[4]`"
    ]
    assert model.remaining == 0
    with pytest.raises(QueueExhausted, match=r"^No scripted response left for request 4: 3 were queued$"):
        model.stream({"turn": 4})
    assert model.requests == [{"turn": 1}, {"turn": 2}, {"turn": 3}, {"turn": 4}]


def test_only_text_and_calls_are_scripted() -> None:
    thinking = assistant_message(
        id="r", content=[{"type": "opaque", "format": "anthropic", "kind": "thinking", "data": {"thinking": "..."}}]
    )
    with pytest.raises(ValueError, match=r"^Only text and calls are scripted; the message holds a `opaque` block$"):
        script(thinking, "anthropic")


def _cli(*arguments: str) -> subprocess.CompletedProcess[str]:
    completed = subprocess.run(
        [sys.executable, "-m", "message_ir", *arguments], capture_output=True, text=True, timeout=60, check=False
    )
    assert "Traceback" not in completed.stderr
    return completed


def test_the_assemble_command(tmp_path: Path) -> None:
    _, path = _named("tool-call-index-1")
    completed = _cli("assemble", "--from", "openai-chat", str(path))
    assert (completed.returncode, completed.stderr) == (0, "")
    (message,) = json.loads(completed.stdout)
    assert [block["type"] for block in message["content"]] == ["text", "toolCall"]
    cut = tmp_path / "cut.sse"
    cut.write_bytes(path.read_bytes()[:600])
    completed = _cli("assemble", "--from", "openai-chat", str(cut), "--to", "anthropic")
    assert completed.returncode == 1
    assert completed.stderr.splitlines()[0] == (
        f"{cut}:-: STREAM_TRUNCATED The stream ended before its last event; what arrived is kept (at $[4])"
    )
    assert json.loads(completed.stdout)["messages"][0]["role"] == "assistant"
    refused = _cli("assemble", "--from", "pi", str(cut))
    assert refused.returncode == 2
    assert refused.stderr.splitlines()[-1] == (
        "message-ir assemble: error: argument --from: not a stream format: 'pi'"
        " (choose from openai-chat, anthropic, openai-responses, gemini)"
    )


def test_each_stream_of_a_recording_that_holds_several_is_clean() -> None:
    _, path = _named("programmatic-tool-calling")
    streams: list[list[bytes]] = []
    for line in path.read_bytes().splitlines():
        if b'"message_start"' in line:
            streams.append([])
        streams[-1].append(line)
    assert len(streams) > 1
    for lines in streams:
        done = assemble(b"\n".join(lines), "anthropic")
        assert (done.complete, done.diagnostics, done.notes) == (True, (), ())


_JUNK: st.SearchStrategy[object] = st.sampled_from(
    [None, 0, "", "x", [], {}, {"type": "mystery"}, {"index": 99}, -1, True]
)
_NEW_KEYS: list[str] = ["response", "error", "usage", "x", "thought", "functionCall", "text", "id", "name", "input"]
_NEW_KEYS.extend(["content", "partialArgs", "willContinue", "finish_reason", "reasoning_content", "item"])


def _mutated(path: Path, data: st.DataObject) -> list[object]:
    """A recorded stream's events, with events dropped, repeated, swapped or replaced, and
    fields replaced, added or dropped, in the event or in an object at any depth in it."""
    events: list[object] = [
        json.loads(line.removeprefix(b"data:").strip())
        for line in path.read_bytes().splitlines()
        if line.strip().startswith((b"{", b"data: {", b"data:{"))
    ]
    for _ in range(data.draw(st.integers(1, 4), label="mutations")):
        index = data.draw(st.integers(0, len(events) - 1))
        action = data.draw(st.sampled_from(["drop", "repeat", "swap", "junk", "field", "new field", "no field"]))
        event = events[index]
        if action == "drop":
            del events[index]
        elif action == "repeat":
            events.insert(index, event)
        elif action == "swap":
            other = data.draw(st.integers(0, len(events) - 1))
            events[index], events[other] = events[other], event
        elif action == "junk":
            events[index] = data.draw(_JUNK)
        elif type(event) is dict and event:
            event = copy.deepcopy(event)
            events[index] = event
            target = data.draw(st.sampled_from(json_objects(event)))
            if action == "new field":
                target[data.draw(st.sampled_from(_NEW_KEYS))] = data.draw(st.sampled_from([1, True, "x", {}]))
            elif target:
                key = data.draw(st.sampled_from(sorted(target)))
                if action == "field":
                    target[key] = data.draw(_JUNK)
                else:
                    del target[key]
        if not events:
            break
    return events


def _careful(source: bytes, format: str) -> Assembled:
    """`assemble` without the format's fast path: every event read the careful way."""
    with mock.patch.object(STREAM_FORMATS[format].stream, "take", _take_none):
        return assemble(source, format)


def _take_none(self: StreamState, payloads: list[bytes], start: int, first: int) -> int:
    return start


@pytest.mark.parametrize(("format", "path"), STREAMS, ids=IDS)
@given(data=st.data())
def test_mutated_recorded_streams_never_raise(format: str, path: Path, data: st.DataObject) -> None:
    events = _mutated(path, data)
    text = "".join(f"data: {json.dumps(event)}\n\n" for event in events)
    for source in (events, text):
        done = assemble(source, format)
        assert type(done) is Assembled
        assert all(type(diagnostic) is Diagnostic for diagnostic in done.diagnostics)


@pytest.mark.parametrize(("format", "path"), STREAMS, ids=IDS)
@given(data=st.data(), cuts=st.lists(st.integers(min_value=0, max_value=1 << 20), max_size=6))
def test_the_fast_path_reads_every_stream_as_the_careful_way(
    format: str, path: Path, data: st.DataObject, cuts: list[int]
) -> None:
    """The fast path (the payloads of a batch decoded into typed structs, the frequent events
    taken straight) gives what reading each event the careful way gives: on the recording as it
    is (its own framing: `event:` lines, CRLF), and mutated, fed in pieces cut anywhere (each
    framing the fast one cuts in one split, and one it does not)."""
    original = path.read_bytes()
    assert assemble(original, format) == _careful(original, format)
    events = _mutated(path, data)
    framing = data.draw(
        st.sampled_from(["data: {}\n\n", "{}\n", "event: x\ndata: {}\n\n", "event: x\ndata: {}\r\n\r\n"])
    )
    text = "".join(framing.replace("{}", json.dumps(event)) for event in events).encode()
    if data.draw(st.booleans()):
        text += STREAM_FORMATS[format].closing
    expected = _careful(text, format)
    assert assemble(text, format) == expected
    assembler = Assembler(format)
    start = 0
    for cut in sorted(cut % (len(text) + 1) for cut in cuts):
        assembler.feed(text[start:cut])
        start = cut
    assembler.feed(text[start:])
    assert assembler.finish() == expected


@pytest.mark.parametrize("format", list(STREAM_FORMATS))
@given(data=st.data())
def test_the_fast_path_reads_scripted_streams_as_the_careful_way(format: str, data: st.DataObject) -> None:
    """Long scripted streams, their payloads' keys changed here and there."""
    blocks: list[dict[str, object]] = []
    for number in range(data.draw(st.integers(1, 6))):
        blocks.append({"type": "text", "text": data.draw(texts) + "text of the block"})
        blocks.append(
            {"type": "toolCall", "id": f"c{number}", "name": "tool", "arguments": data.draw(arguments_objects)}
        )
    message = assistant_message(id="m", content=blocks)  # type: ignore[arg-type]  # plain block data
    pieces = script(message, format, chunks=data.draw(st.integers(1, 5)))
    for _ in range(data.draw(st.integers(0, 3))):
        index = data.draw(st.integers(0, len(pieces) - 1))
        old, new = data.draw(
            st.sampled_from(
                [
                    (b'"delta"', b'"delta2"'),
                    (b'"index": ', b'"index": 1'),
                    (b'"text"', b'"thought": true, "text"'),
                    (b"data: ", b"data:"),
                    (b"\n\n", b"\n: keep-alive\n\n"),
                    (b'"type": "', b'"type": "x'),
                ]
            )
        )
        pieces[index] = pieces[index].replace(old, new, 1)
    text = b"".join(pieces)
    assert assemble(text, format) == _careful(text, format)


def _real_assistant_messages() -> list[AssistantMessage]:
    from message_ir.adapters import anthropic, openai_chat
    from tests.adapters.real import anthropic_messages, openai_chat_messages

    found: list[AssistantMessage] = []
    for path in real_files("openai-chat", "*.json"):
        found.extend(m for m in openai_chat.load(openai_chat_messages(path)).messages if type(m) is AssistantMessage)
    for path in real_files("anthropic", "*.jsonl"):
        found.extend(m for m in anthropic.load(anthropic_messages(path)).messages if type(m) is AssistantMessage)
    return found


def _said(message: AssistantMessage) -> list[tuple[str, object, object]]:
    """A message's blocks as a stream says them: their text, or a call's ID, name and arguments."""
    said: list[tuple[str, object, object]] = []
    for block in message.content:
        if type(block) is TextBlock:
            said.append((block.type, block.text, None))
        elif type(block) is ToolCall:
            said.append((block.id, block.name, block.arguments))
    return said


def test_the_real_assistant_messages_come_back_from_their_scripts() -> None:
    """Every assistant message of the real transcripts whose blocks are text and calls, in
    every format that can say it (OpenAI Chat and Gemini: no empty text, no two in a row)."""
    checked = 0
    for message in _real_assistant_messages():
        if any(type(block) is not TextBlock and type(block) is not ToolCall for block in message.content):
            continue
        kinds = [block.type for block in message.content]
        texts = [block.text for block in message.content if type(block) is TextBlock]
        joins = "" in texts or any(a == b == "text" for a, b in itertools.pairwise(kinds))
        for format in STREAM_FORMATS:
            if joins and format in ("openai_chat", "gemini"):
                continue
            done = assemble(b"".join(script(message, format, chunks=7)), format)
            assert (done.complete, done.diagnostics) == (True, ())
            assert _said(done.message) == _said(message), (format, message.id)
            checked += 1
    assert checked > 100


def test_bad_input_on_the_command_line(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("This is not a stream.\nNor is this.\n")
    empty = tmp_path / "empty.sse"
    empty.write_bytes(b"")
    unknown = tmp_path / "unknown.jsonl"
    unknown.write_text(
        '{"type": "message_start", "message": {"id": "m", "content": []}}\n'
        '{"type": "brand_new_event", "data": 1}\n{"type": "message_stop"}\n'
    )
    for path, said in (
        (text, f"{text}:0: INVALID_JSON An event that is not JSON:"),
        (empty, f"{empty}:-: STREAM_TRUNCATED The stream ended before its last event"),
        (unknown, f"{unknown}:-: UNKNOWN_EVENT An event 'brand_new_event' this package does not know; kept in meta"),
    ):
        completed = _cli("assemble", "--from", "anthropic", str(path))
        assert completed.returncode == 1, completed.stderr
        assert any(line.startswith(said) for line in completed.stderr.splitlines()), completed.stderr
    (message,) = json.loads(_cli("assemble", "--from", "anthropic", str(unknown)).stdout)
    assert message["meta"]["stream"]["unknown_events"] == [{"type": "brand_new_event", "data": 1}]


def _gemini(parts: list[object], finish: str | None = None) -> str:
    candidate: dict[str, object] = {"content": {"role": "model", "parts": parts}}
    if finish is not None:
        candidate["finishReason"] = finish
    return "data: " + json.dumps({"candidates": [candidate], "responseId": "r1"}) + "\n\n"


def test_gemini_thoughts_other_parts_errors_and_arguments_for_no_call() -> None:
    stream = (
        _gemini([{"text": "Let me ", "thought": True}, {"text": "think.", "thought": True, "thoughtSignature": "sig"}])
        + _gemini([{"executableCode": {"code": "1+1"}}])
        + _gemini([{"functionCall": {"partialArgs": [{"jsonPath": "$.a", "stringValue": "x"}]}}])
        + _gemini([{"functionCall": {"name": "f", "willContinue": True}}])
        + _gemini([{"functionCall": {"partialArgs": [{"jsonPath": "$.a.b", "numberValue": 2}, {"jsonPath": "x"}]}}])
        + _gemini([{"functionCall": {"partialArgs": [{"jsonPath": "$.c", "nullValue": None}]}}])
        + _gemini([{"functionCall": {}}], "STOP")
        + 'data: {"error": {"code": 429, "message": "Resource exhausted"}}\n\n'
    )
    done = assemble(stream, "gemini")
    assert [str(diagnostic) for diagnostic in done.diagnostics] == [
        "STREAM_OUT_OF_ORDER: Function-call arguments for no call begun - at `$[2]`",
        "STREAM_ERROR: The provider said: Resource exhausted - at `$[7]`",
    ]
    thought, code, call = done.message.content
    assert thought.type == "opaque"
    assert thought.data == {
        "text": "Let me think.",
        "thought": True,
        "thoughtSignature": "sig",
    }
    assert code.type == "opaque"
    assert code.kind == "executableCode"
    assert type(call) is ToolCall
    assert call.arguments == {"a": {"b": 2}, "c": None}
    assert call.meta == {"stream": {"made_up_id": True}}


def test_responses_errors_failed_responses_and_items_never_added() -> None:
    stream = (
        'data: {"type": "response.created", "response": {"id": "resp_1", "model": "m"}}\n\n'
        'data: {"type": "response.output_text.delta", "output_index": 4, "delta": "x"}\n\n'
        'data: {"type": "response.failed", "response": {"id": "resp_1", "error": {"message": "Server overloaded"}}}\n\n'
    )
    assert [str(diagnostic) for diagnostic in assemble(stream, "openai_responses").diagnostics] == [
        "STREAM_OUT_OF_ORDER: A `response.output_text.delta` for output 4, never added - at `$[1]`",
        "STREAM_ERROR: The provider said: Server overloaded - at `$[2]`",
    ]
    error = 'data: {"type": "error", "code": "server_error", "message": "Oops"}\n\n'
    assert [diagnostic.code for diagnostic in assemble(error, "openai_responses").diagnostics] == ["STREAM_ERROR"]
