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

from collections.abc import Callable
from typing import Final

import msgspec

from message_ir import AssistantMessage, TextBlock, ToolCall
from message_ir.streams._assembled import Call, Kept, StreamState, Text, as_list, as_object, unknown_event
from message_ir.streams._framing import DONE, Event
from message_ir.streams._scripting import Events, Split, arguments_text, said_blocks

NAME: Final = "openai_chat"
CLOSING: Final = b"data: [DONE]\n\n"
"""What an OpenAI Chat SSE stream sends after its last chunk."""
_REASONING_KEYS: Final = ("reasoning_content", "reasoning")


# The fast path's structs: the fields of the frequent chunks, typed so that a chunk that needs
# the careful way fails to decode (a reasoning text, a finish reason, usage or an error that
# is not `null`, a fragment without its index or function, a value of another type).


class _Function(msgspec.Struct, gc=False):
    arguments: str | None = None
    name: object = msgspec.UNSET


class _Fragment(msgspec.Struct, gc=False):
    index: int
    function: _Function
    id: object = msgspec.UNSET


class _Delta(msgspec.Struct, gc=False):
    content: str | None = None
    tool_calls: list[_Fragment] | None = None
    reasoning_content: None = None
    reasoning: None = None


class _Choice(msgspec.Struct, gc=False):
    delta: _Delta | None = None
    finish_reason: None = None


class _Chunk(msgspec.Struct, gc=False):
    choices: list[_Choice] | None = None
    usage: None = None
    error: None = None


class _Named(_Chunk, gc=False):
    """A chunk with the ID and model, read until the stream's are known (later ones are not
    read: the first ones stay)."""

    id: object = msgspec.UNSET
    model: object = msgspec.UNSET


_DECODE: Final[Callable[[bytes], _Chunk]] = msgspec.json.Decoder(_Chunk).decode
_DECODE_NAMED: Final[Callable[[bytes], _Chunk]] = msgspec.json.Decoder(_Named).decode


class Stream(StreamState):
    """The state of one OpenAI Chat stream as its events arrive."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: dict[int, Call] = {}

    def take(self, payloads: list[bytes], start: int, first: int) -> int:
        """A chunk whose first choice adds text, or arguments to calls, or begins one call,
        and nothing else that needs the careful way (an ID or model not known yet, usage,
        reasoning, a finish reason, an error): what the careful way does with it, done here."""
        info, slots, calls = self.info, self.slots, self.calls
        named = not (self.message_id and "response_id" in info and "model" in info)
        decode = _DECODE_NAMED if named else _DECODE
        last = slots[-1] if slots else None
        text = last if type(last) is Text else None  # the text being written, if it is the last block
        for position in range(start, len(payloads)):
            try:
                chunk = decode(payloads[position])
            except msgspec.DecodeError:  # its ValidationError too: read the careful way
                return position
            if named and type(chunk) is _Named and self._names(chunk):
                return position
            choices = chunk.choices
            if not choices:
                return position
            delta = choices[0].delta
            if delta is None:
                return position
            content, fragments = delta.content, delta.tool_calls
            begun: Call | None = None
            if fragments:
                if len(fragments) == 1:
                    fragment = fragments[0]
                    if fragment.index not in calls:
                        call_id, name = fragment.id, fragment.function.name
                        if type(call_id) is not str or not call_id or type(name) is not str or not name:
                            return position
                        begun = Call(call_id, name, first + position)
                elif any(fragment.index not in calls for fragment in fragments):
                    return position
            if content:
                if text is None:
                    text = Text()
                    slots.append(text)
                text.parts.append(content)
            if fragments:
                if begun is not None:
                    calls[fragments[0].index] = begun
                    slots.append(begun)
                    text = None
                for fragment in fragments:
                    arguments = fragment.function.arguments
                    if arguments is not None:
                        calls[fragment.index].parts.append(arguments)
        return len(payloads)

    def _names(self, chunk: _Named) -> bool:
        """Whether the chunk says the stream's ID or model, not known yet."""
        info = self.info
        if type(chunk.id) is str and (not self.message_id or "response_id" not in info):
            return True
        return type(chunk.model) is str and "model" not in info

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
