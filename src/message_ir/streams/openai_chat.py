"""OpenAI Chat Completions streams (`chat.completion.chunk`s) assembled into the IR.

Each chunk's first choice carries a `delta`: `content` (text), `reasoning_content` or
`reasoning` (what reasoning models and compatible servers send; kept as an opaque
`reasoning` block of format `openai_chat`), and `tool_calls` fragments by `index` — the first
fragment of an index has the call's `id` and `function.name`, the next ones pieces of
`function.arguments`. An index need not start at 0 (an OpenAI-compatible Claude endpoint
starts at 1). The stream is complete once a `finish_reason` or `[DONE]` arrived; a chunk
with only `usage` (sent last when asked for) gives the usage; `{"error": ...}` is the
provider's error.
"""

from __future__ import annotations

from typing import Final

import msgspec

from message_ir import AssistantMessage, TextBlock, ToolCall
from message_ir.streams._assembled import Call, Kept, StreamState, Text, as_list, as_object, unknown_event
from message_ir.streams._framing import DONE, Event
from message_ir.streams._scripting import Events, Split, arguments_text, said_blocks
from message_ir.streams._typed import lines_decoder

NAME: Final = "openai_chat"
CLOSING: Final = b"data: [DONE]\n\n"
"""What an OpenAI Chat SSE stream sends after its last chunk."""
_REASONING_KEYS: Final = ("reasoning_content", "reasoning")


class _Function(msgspec.Struct, gc=False):
    arguments: object = msgspec.UNSET
    name: object = msgspec.UNSET


class _Fragment(msgspec.Struct, gc=False):
    index: object = msgspec.UNSET
    function: _Function | None = None


class _Delta(msgspec.Struct, gc=False):
    content: object = msgspec.UNSET
    tool_calls: list[_Fragment] | None = None
    reasoning_content: object = msgspec.UNSET
    reasoning: object = msgspec.UNSET


class _Choice(msgspec.Struct, gc=False):
    delta: _Delta | None = None
    finish_reason: object = None


class _Chunk(msgspec.Struct, gc=False):
    id: object = msgspec.UNSET
    model: object = msgspec.UNSET
    choices: list[_Choice] | None = None
    usage: object = None
    error: object = msgspec.UNSET


_DECODE_LINES: Final = lines_decoder(_Chunk)


class Stream(StreamState):
    """The state of one OpenAI Chat stream as its events arrive."""

    def __init__(self) -> None:
        super().__init__()
        self.decode_lines = _DECODE_LINES
        self.calls: dict[int, Call] = {}

    def take(self, items: list[object], start: int, first: int) -> int:
        """A chunk whose first choice adds text to the text being written, or arguments to
        calls begun, and nothing else that needs the careful way (an ID or model not seen
        yet, usage, reasoning, a finish reason, an error)."""
        unset, calls = msgspec.UNSET, self.calls
        known_id = self.info.get("response_id") if self.message_id else None  # an ID seen before
        has_model = "model" in self.info
        last = self.slots[-1] if self.slots else None
        text = last if type(last) is Text else None  # the text being written, if it is the last block
        for position in range(start, len(items)):
            chunk = items[position]
            if type(chunk) is not _Chunk or chunk.error is not unset or chunk.usage is not None:
                return position
            chunk_id = chunk.id
            if (type(chunk_id) is str and chunk_id != known_id) or (not has_model and type(chunk.model) is str):
                return position
            choices = chunk.choices
            if not choices:
                return position
            choice = choices[0]
            delta = choice.delta
            if (
                delta is None
                or choice.finish_reason is not None
                or delta.reasoning_content is not unset
                or delta.reasoning is not unset
            ):
                return position
            content, fragments = delta.content, delta.tool_calls
            if type(content) is str:
                if content and text is None:
                    return position
            elif content is not unset and content is not None:
                return position
            if fragments:
                adding: list[tuple[Call, str]] = []
                for fragment in fragments:
                    function, index = fragment.function, fragment.index
                    call = calls.get(index) if type(index) is int else None
                    if call is None or function is None:
                        return position
                    if type(function.arguments) is str:
                        adding.append((call, function.arguments))
                for call, arguments in adding:
                    call.parts.append(arguments)
            if text is not None and type(content) is str and content:
                text.parts.append(content)
        return len(items)

    def event(self, event: Event) -> None:
        value = event.value
        if value == DONE:
            self.complete = True
            return
        chunk = as_object(value)
        if chunk is None:
            return
        error = as_object(chunk.get("error"))
        if error is not None:
            self.error(event.number, error.get("message"))
            return
        for key, name in (("id", "response_id"), ("model", "model")):
            if type(chunk.get(key)) is str and name not in self.info:
                self.info[name] = chunk[key]
        if type(chunk.get("id")) is str and not self.message_id:
            self.message_id = str(chunk["id"])
        if as_object(chunk.get("usage")) is not None:
            self.info["usage"] = chunk["usage"]
        choices = as_list(chunk.get("choices"))
        if choices is None and "usage" not in chunk:
            unknown_event(self.unknown, self.notes, event.number, chunk, chunk.get("object"))
            return
        choice = as_object(choices[0]) if choices else None
        if choice is None:
            return
        delta = as_object(choice.get("delta")) or {}
        for key in _REASONING_KEYS:
            if type(delta.get(key)) is str and delta[key]:
                self._reasoning(key, str(delta[key]))
        if type(delta.get("content")) is str and delta["content"]:
            last = self.slots[-1] if self.slots else None
            if not isinstance(last, Text):
                last = Text()
                self.slots.append(last)
            last.parts.append(str(delta["content"]))
        for item in as_list(delta.get("tool_calls")) or []:
            fragment = as_object(item)
            if fragment is not None:
                self._call(fragment, event.number)
        if type(choice.get("finish_reason")) is str:
            self.info["stop_reason"] = choice["finish_reason"]
            self.complete = True

    def _reasoning(self, key: str, text: str) -> None:
        last = self.slots[-1] if self.slots else None
        if not (isinstance(last, Kept) and last.kind == "reasoning"):
            last = Kept(NAME, "reasoning", {key: ""})
            self.slots.append(last)
        last.data[key] = str(last.data.get(key, "")) + text

    def _call(self, fragment: dict[str, object], number: int) -> None:
        index = fragment.get("index")
        function = as_object(fragment.get("function")) or {}
        arguments = function.get("arguments")
        if type(index) is not int:
            index = len(self.calls) if type(fragment.get("id")) is str else -1
        call = self.calls.get(index)
        if call is None:
            call_id, name = fragment.get("id"), function.get("name")
            if type(call_id) is not str or not call_id or type(name) is not str or not name:
                self.out_of_order(
                    number,
                    f"A tool-call fragment for index {index}, whose first fragment (with its `id` and name) never came",
                )
                return
            call = Call(call_id, name, number)
            self.calls[index] = call
            self.slots.append(call)
        if type(arguments) is str:
            call.parts.append(arguments)


# --- the scripted double ------------------------------------------------------------------


def script_events(message: AssistantMessage, request_id: str, split: Split) -> tuple[Events, Events]:
    """The events of `message` (`split` cuts its texts into deltas), and the last ones."""

    def chunk(delta: dict[str, object], finish: str | None = None) -> dict[str, object]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return {"id": request_id, "object": "chat.completion.chunk", "model": "scripted", "choices": [choice]}

    events: Events = [chunk({"role": "assistant"})]
    index = 0
    has_calls = False
    for block in said_blocks(message):
        if type(block) is TextBlock:
            events.extend(chunk({"content": piece}) for piece in split(block.text) if piece)
            continue
        assert type(block) is ToolCall
        has_calls = True
        first = {"index": index, "id": block.id, "type": "function", "function": {"name": block.name, "arguments": ""}}
        events.append(chunk({"tool_calls": [first]}))
        for piece in split(arguments_text(block)):
            events.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
        index += 1
    end: Events = [chunk({}, "tool_calls" if has_calls else "stop")]
    return events, end


def error_event(text: str) -> dict[str, object]:
    """The event the provider ends a stream with when it fails, saying `text`."""
    return {"error": {"message": text, "type": "server_error"}}
