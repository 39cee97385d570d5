"""Anthropic Messages streams assembled into the IR.

`message_start` gives the message's ID, model and first usage; `content_block_start` starts
a block at an `index` (`text`, `tool_use`, `thinking`, and server or MCP tool blocks), whose
`content_block_delta`s add to it (`text_delta`, `input_json_delta` — the call's arguments as
JSON fragments —, `thinking_delta`, `signature_delta`, `citations_delta`);
`message_delta` gives the stop reason and final usage; `message_stop` ends the stream;
`ping` is nothing; `error` is the provider's error. A `tool_use` becomes a `ToolCall`;
every other non-text block (thinking, `server_tool_use`, `mcp_tool_use`, their results, ...)
is kept in place as an opaque block of format `anthropic`, as the `anthropic` adapter keeps
them, its JSON fragments put in its `input`.
"""

from __future__ import annotations

from typing import Final

import msgspec

from message_ir import AssistantMessage, TextBlock, ToolCall
from message_ir.streams._assembled import Call, Kept, Slot, StreamState, Text, as_list, as_object, unknown_event
from message_ir.streams._framing import Event
from message_ir.streams._scripting import Events, Split, arguments_text, said_blocks
from message_ir.streams._typed import payload_decoder, tags

NAME: Final = "anthropic"
_CALL_KEYS: Final = ("type", "id", "name", "input")
_DELTA_TEXT: Final = {"text_delta": "text", "thinking_delta": "thinking", "signature_delta": "signature"}


class _TextDelta(msgspec.Struct, tag="text_delta", gc=False):
    value: str = msgspec.field(name="text")


class _JsonDelta(msgspec.Struct, tag="input_json_delta", gc=False):
    value: str = msgspec.field(name="partial_json")


class _ThinkingDelta(msgspec.Struct, tag="thinking_delta"):
    pass


class _SignatureDelta(msgspec.Struct, tag="signature_delta"):
    pass


class _CitationsDelta(msgspec.Struct, tag="citations_delta"):
    pass


class _BlockDelta(msgspec.Struct, tag="content_block_delta", gc=False):
    index: int
    delta: _TextDelta | _JsonDelta | _ThinkingDelta | _SignatureDelta | _CitationsDelta


class _TextStart(msgspec.Struct, tag="text", gc=False):
    text: object = None


class _ToolUseStart(msgspec.Struct, tag="tool_use", forbid_unknown_fields=True, gc=False):
    """A `tool_use` block with no other field (another is kept in the call's `meta`: the
    careful way)."""

    id: str
    name: str
    input: object = None


class _BlockStart(msgspec.Struct, tag="content_block_start", gc=False):
    index: int
    content_block: _TextStart | _ToolUseStart  # any other block: read the careful way


class _BlockStop(msgspec.Struct, tag="content_block_stop", gc=False):
    index: object = None


class _Ping(msgspec.Struct, tag="ping", gc=False):
    index: object = None  # never sent: a struct with no field is `Any` to mypy


_DECODE: Final = payload_decoder(
    _BlockDelta,
    _BlockStart,
    _BlockStop,
    _Ping,
    *tags("message_start", "message_delta", "message_stop", "error"),
)


class Stream(StreamState):
    """The state of one Anthropic stream as its events arrive."""

    def __init__(self) -> None:
        super().__init__()
        self.blocks: dict[int, Slot] = {}
        self._after_end = 0

    def take(self, payloads: list[bytes], start: int, first: int) -> int:
        """A block's start or stop, a ping, a text delta for a text block, a JSON delta for a
        call or a kept block: what the careful way does with it, done here. Deltas run on for
        the same block: its parts are kept."""
        blocks = self.blocks
        decode = _DECODE
        kind: type[_TextDelta | _JsonDelta] | None = None  # the deltas of the run, and where they go
        index, parts = -1, []
        for position in range(start, len(payloads)):
            try:
                item = decode(payloads[position])
            except msgspec.DecodeError:  # its ValidationError too: read the careful way
                return position
            if type(item) is _BlockDelta:
                delta = item.delta
                if type(delta) is not kind or item.index != index:
                    slot = blocks.get(item.index)
                    if type(delta) is _TextDelta and type(slot) is Text:
                        kind, parts = _TextDelta, slot.parts
                    elif type(delta) is _JsonDelta and (type(slot) is Call or type(slot) is Kept):
                        kind, parts = _JsonDelta, slot.parts
                    else:
                        return position
                    index = item.index
                parts.append(delta.value)
            elif type(item) is _BlockStart:
                if not self._started(item, first + position):
                    return position
                kind = None  # the blocks changed
            elif type(item) is not _BlockStop and type(item) is not _Ping:
                return position
        return len(payloads)

    def _started(self, start: _BlockStart, number: int) -> bool:
        """A text or `tool_use` block started, as `_start` starts it (`False`: a call without
        its ID or name, kept whole the careful way)."""
        block = start.content_block
        slot: Slot
        if type(block) is _TextStart:
            slot = Text([block.text] if type(block.text) is str and block.text else [])
        else:
            assert type(block) is _ToolUseStart  # the other of the two
            if not block.id or not block.name:
                return False
            given = as_object(block.input)
            slot = Call(block.id, block.name, number, given=given if given else None, given_decoded=True)
        self.blocks[start.index] = slot
        self.slots.append(slot)
        return True

    def event(self, event: Event) -> None:
        payload = as_object(event.value)
        if payload is None:
            return
        kind = payload.get("type")
        if self.complete and kind != "ping":
            self._after_end += 1
            if self._after_end == 1:
                self.out_of_order(event.number, f"A `{kind}` event after the stream's end (`message_stop`)")
            return
        if kind == "message_start":
            message = as_object(payload.get("message")) or {}
            if type(message.get("id")) is str:
                self.message_id = str(message["id"])
                self.info["response_id"] = message["id"]
            for key in ("model", "usage"):
                if key in message:
                    self.info[key] = message[key]
        elif kind == "content_block_start":
            self._start(payload, event.number)
        elif kind == "content_block_delta":
            self._delta(payload, event.number)
        elif kind == "message_delta":
            delta = as_object(payload.get("delta")) or {}
            if type(delta.get("stop_reason")) is str:
                self.info["stop_reason"] = delta["stop_reason"]
            usage = as_object(payload.get("usage"))
            if usage is not None:
                self.info["usage"] = {**(as_object(self.info.get("usage")) or {}), **usage}
        elif kind == "message_stop":
            self.complete = True
        elif kind in ("ping", "content_block_stop"):
            return
        elif kind != "error":
            unknown_event(self.unknown, self.notes, event.number, payload, kind)
        else:
            self.error(event.number, (as_object(payload.get("error")) or {}).get("message"))

    def _start(self, payload: dict[str, object], number: int) -> None:
        index, block = payload.get("index"), as_object(payload.get("content_block"))
        if type(index) is not int or block is None or type(block.get("type")) is not str:
            self.out_of_order(number, "A `content_block_start` without an `index` or a block")
            return
        kind = str(block["type"])
        slot: Slot
        call_id, name = block.get("id"), block.get("name")
        if kind == "text":
            slot = Text([str(block["text"])] if type(block.get("text")) is str and block["text"] else [])
        elif kind == "tool_use" and type(call_id) is str and call_id and type(name) is str and name:
            given = as_object(block.get("input"))
            kept = {key: value for key, value in block.items() if key not in _CALL_KEYS}
            slot = Call(call_id, name, number, given=given if given else None, kept={"block": kept} if kept else {})
        else:
            slot = Kept(NAME, kind, dict(block), "input")
        self.blocks[index] = slot
        self.slots.append(slot)

    def _delta(self, payload: dict[str, object], number: int) -> None:
        index, delta = payload.get("index"), as_object(payload.get("delta")) or {}
        slot = self.blocks.get(index) if type(index) is int else None
        if slot is None:
            self.out_of_order(number, f"A delta for block {index}, which never started")
            return
        kind = delta.get("type")
        if kind == "input_json_delta" and type(delta.get("partial_json")) is str:
            if isinstance(slot, (Call, Kept)):
                slot.parts.append(str(delta["partial_json"]))
            return
        key = _DELTA_TEXT.get(kind, "") if type(kind) is str else ""
        value = delta.get(key) if key else None
        if type(value) is not str:
            if isinstance(slot, Kept):  # citations and other deltas: kept in order
                slot.data["deltas"] = [*(as_list(slot.data.get("deltas")) or []), delta]
            return
        if isinstance(slot, Text) and key == "text":
            slot.parts.append(value)
        elif isinstance(slot, Kept):
            slot.data[key] = str(slot.data.get(key, "")) + value


# --- the scripted double ------------------------------------------------------------------


def script_events(message: AssistantMessage, request_id: str, split: Split) -> tuple[Events, Events]:
    """The events of `message` (`split` cuts its texts into deltas), and the last ones."""
    start = {"id": request_id, "type": "message", "role": "assistant", "model": "scripted", "content": []}
    events: Events = [{"type": "message_start", "message": start}]
    has_calls = False
    for index, block in enumerate(said_blocks(message)):
        if type(block) is TextBlock:
            events.append(
                {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}
            )
            for piece in split(block.text):
                if piece:
                    delta = {"type": "text_delta", "text": piece}
                    events.append({"type": "content_block_delta", "index": index, "delta": delta})
        else:
            assert type(block) is ToolCall
            has_calls = True
            use = {"type": "tool_use", "id": block.id, "name": block.name, "input": {}}
            events.append({"type": "content_block_start", "index": index, "content_block": use})
            for piece in split(arguments_text(block)):
                delta = {"type": "input_json_delta", "partial_json": piece}
                events.append({"type": "content_block_delta", "index": index, "delta": delta})
        events.append({"type": "content_block_stop", "index": index})
    stop = {"stop_reason": "tool_use" if has_calls else "end_turn", "stop_sequence": None}
    end: Events = [{"type": "message_delta", "delta": stop, "usage": {"output_tokens": 0}}, {"type": "message_stop"}]
    return events, end


def error_event(text: str) -> dict[str, object]:
    """The event the provider ends a stream with when it fails, saying `text`."""
    return {"type": "error", "error": {"type": "api_error", "message": text}}
