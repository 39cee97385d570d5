"""OpenAI Responses streams assembled into the IR.

Output items start with `response.output_item.added` (at an `output_index`) and end with
`response.output_item.done`, which carries the whole item. Between them, an assistant
`message` grows by `response.output_text.delta`s, a `function_call` by
`response.function_call_arguments.delta`s (and `.done` gives the whole arguments text). A
message becomes a `TextBlock`, a function call a `ToolCall` (its `call_id`), any other item
(`reasoning`, a tool search, ...) an opaque block of format `openai_responses` holding the
item as `.done` gave it (as `.added` did, when the stream was cut before). `response.created`
gives the response's ID and model; `response.completed`, `.incomplete` and `.failed` end the
stream (`.failed` and `error` are the provider's error).
"""

from __future__ import annotations

from typing import Final

import msgspec

from message_ir import AssistantMessage, TextBlock, ToolCall
from message_ir.streams._assembled import Call, Kept, Slot, StreamState, Text, as_list, as_object, unknown_event
from message_ir.streams._framing import Event
from message_ir.streams._scripting import Events, Split, arguments_text, said_blocks
from message_ir.streams._typed import payload_decoder, tags

NAME: Final = "openai_responses"
_ENDS: Final = ("response.completed", "response.incomplete", "response.failed")


def _message_text(item: dict[str, object]) -> str:
    texts = []
    for part in map(as_object, as_list(item.get("content")) or []):
        if part is not None and part.get("type") == "output_text" and type(part.get("text")) is str:
            texts.append(str(part["text"]))
    return "".join(texts)


def _text(text: str) -> Text:
    """A message added, with the text it already holds."""
    return Text([text] if text else [])


def _call(call_id: object, name: object, arguments: object, number: int) -> Call | None:
    """A function call added (at event `number`) with its ID, name and any arguments so far;
    `None` without its ID or name (the item is then kept whole)."""
    if type(call_id) is not str or not call_id or type(name) is not str or not name:
        return None
    call = Call(call_id, name, number)
    if type(arguments) is str and arguments:
        call.parts.append(arguments)
    return call


# The fast path's structs: the fields of the frequent events, typed so that an event that
# needs the careful way fails to decode (a `response` that is not `null`, a value of another
# type); the `response` of each is typed `None` for that.


class _Delta(msgspec.Struct, gc=False):
    output_index: int
    delta: str
    response: None = None


class _TextDelta(_Delta, tag="response.output_text.delta"):
    pass


class _ArgumentsDelta(_Delta, tag="response.function_call_arguments.delta"):
    pass


class _ArgumentsDone(msgspec.Struct, tag="response.function_call_arguments.done", gc=False):
    output_index: int
    arguments: str
    response: None = None


class _OutputPart(msgspec.Struct, gc=False):
    type: object = None
    text: object = None


class _MessageItem(msgspec.Struct, tag="message", gc=False):
    content: list[_OutputPart] = []

    def text(self) -> str:
        """What `_message_text` gives for the item."""
        content = self.content
        if not content:
            return ""
        if len(content) == 1:  # the usual message
            part = content[0]
            return part.text if part.type == "output_text" and type(part.text) is str else ""
        return "".join([part.text for part in content if part.type == "output_text" and type(part.text) is str])


class _CallItem(msgspec.Struct, tag="function_call", gc=False):
    call_id: object = None
    name: object = None
    arguments: object = None


class _ItemAdded(msgspec.Struct, tag="response.output_item.added", gc=False):
    output_index: int
    item: _MessageItem | _CallItem  # any other item: read the careful way
    response: None = None


class _ItemDone(msgspec.Struct, tag="response.output_item.done", gc=False):
    output_index: int
    item: _MessageItem | _CallItem
    response: None = None


class _PartEvent(msgspec.Struct, tag="response.content_part.added", gc=False):
    output_index: int
    response: None = None


class _PartDone(msgspec.Struct, tag="response.content_part.done", gc=False):
    output_index: int
    response: None = None


class _TextDone(msgspec.Struct, tag="response.output_text.done", gc=False):
    output_index: int
    response: None = None


_DECODE: Final = payload_decoder(
    _TextDelta,
    _ArgumentsDelta,
    _ItemAdded,
    _ItemDone,
    _PartEvent,
    _PartDone,
    _TextDone,
    _ArgumentsDone,
    *tags(
        "response.created",
        "response.in_progress",
        "response.queued",
        "response.completed",
        "response.incomplete",
        "response.failed",
        "response.output_text.annotation.added",
        "response.refusal.delta",
        "response.refusal.done",
        "response.reasoning_text.delta",
        "response.reasoning_text.done",
        "response.reasoning_summary_part.added",
        "response.reasoning_summary_part.done",
        "response.reasoning_summary_text.delta",
        "response.reasoning_summary_text.done",
        "error",
    ),
)


class Stream(StreamState):
    """The state of one Responses stream as its events arrive."""

    def __init__(self) -> None:
        super().__init__()
        self.items: dict[int, Slot] = {}

    def take(self, payloads: list[bytes], start: int, first: int) -> int:
        """A delta of an output added as a message or a function call, an output's or a
        content part's start or end, a function call's whole arguments: what the careful way
        does with it, done here. Deltas run on for the same output: its parts are kept."""
        slots = self.items
        decode = _DECODE
        kind: type[_Delta] | None = None  # the deltas of the run, and where they go
        index, parts = -1, []
        for position in range(start, len(payloads)):
            try:
                item = decode(payloads[position])
            except msgspec.DecodeError:  # its ValidationError too: read the careful way
                return position
            if type(item) is kind and item.output_index == index:  # the run goes on
                parts.append(item.delta)
            elif type(item) is _TextDelta or type(item) is _ArgumentsDelta:
                slot = slots.get(item.output_index)
                if type(item) is _TextDelta and type(slot) is Text:
                    kind, parts = _TextDelta, slot.parts
                elif type(item) is _ArgumentsDelta and type(slot) is Call:
                    kind, parts = _ArgumentsDelta, slot.parts
                else:
                    return position
                index = item.output_index
                parts.append(item.delta)
            elif type(item) is _ItemDone:  # an output's end: its whole text or arguments
                slot, done = slots.get(item.output_index), item.item
                if type(slot) is Text and type(done) is _MessageItem:
                    slot.parts[:] = [done.text()]
                elif type(slot) is Call and type(done) is _CallItem:
                    if type(done.arguments) is str:
                        slot.parts[:] = [done.arguments]
                else:
                    return position
            elif type(item) is _ItemAdded:
                if not self._item_added(item, first + position):
                    return position
                kind = None  # the outputs changed
            elif not self._take_other(item):
                return position
        return len(payloads)

    def _take_other(self, item: object) -> bool:
        """A content part's start or end, or a call's whole arguments, read as the careful
        way reads them; `False` for any other event, or one for an output never added."""
        if type(item) is _PartEvent or type(item) is _PartDone or type(item) is _TextDone:
            return item.output_index in self.items
        if type(item) is _ArgumentsDone:
            call = self.items.get(item.output_index)
            if type(call) is not Call:
                return False
            call.parts[:] = [item.arguments]
            return True
        return False

    def _item_added(self, event: _ItemAdded, number: int) -> bool:
        """A message or a function call added, as `_added` adds it (`False`: a call without
        its ID or name, kept whole the careful way)."""
        item = event.item
        slot: Slot | None
        if type(item) is _MessageItem:
            slot = _text(item.text())
        else:
            assert type(item) is _CallItem  # the other of the two
            slot = _call(item.call_id, item.name, item.arguments, number)
            if slot is None:
                return False
        self.items[event.output_index] = slot
        self.slots.append(slot)
        return True

    def event(self, event: Event) -> None:
        payload = as_object(event.value)
        if payload is None:
            return
        kind = payload.get("type")
        response = as_object(payload.get("response"))
        if response is not None:
            self._response(response)
        if kind in _ENDS:
            self.complete = True
            if kind == "response.failed":
                error = as_object((response or {}).get("error")) or {}
                self.error(event.number, error.get("message"))
            return
        if kind == "error":
            self.error(event.number, payload.get("message"))
            return
        if type(kind) is not str or not kind.startswith("response."):
            unknown_event(self.unknown, self.notes, event.number, payload, kind)
            return
        index = payload.get("output_index")
        if type(index) is not int:
            return
        if kind == "response.output_item.added":
            self._added(index, as_object(payload.get("item")) or {}, event.number)
            return
        slot = self.items.get(index)
        if slot is None:
            self.out_of_order(event.number, f"A `{kind}` for output {index}, never added")
            return
        delta, item = payload.get("delta"), as_object(payload.get("item"))
        if (kind == "response.output_text.delta" and isinstance(slot, Text) and type(delta) is str) or (
            kind == "response.function_call_arguments.delta" and isinstance(slot, Call) and type(delta) is str
        ):
            slot.parts.append(delta)
        elif kind == "response.function_call_arguments.done" and isinstance(slot, Call):
            if type(payload.get("arguments")) is str:
                slot.parts[:] = [str(payload["arguments"])]
        elif kind == "response.output_item.done" and item is not None:
            self._done(slot, item)

    def _response(self, response: dict[str, object]) -> None:
        if type(response.get("id")) is str:
            self.message_id = str(response["id"])
            self.info["response_id"] = response["id"]
        for key in ("model", "usage", "status"):
            if response.get(key) is not None:
                self.info["stop_reason" if key == "status" else key] = response[key]

    def _added(self, index: int, item: dict[str, object], number: int) -> None:
        kind = item.get("type")
        slot: Slot | None = None
        if kind == "message":
            slot = _text(_message_text(item))
        elif kind == "function_call":
            slot = _call(item.get("call_id"), item.get("name"), item.get("arguments"), number)
        if slot is None:
            slot = Kept(NAME, kind if type(kind) is str else "item", dict(item))
        self.items[index] = slot
        self.slots.append(slot)

    def _done(self, slot: Slot, item: dict[str, object]) -> None:
        if isinstance(slot, Text):
            slot.parts[:] = [_message_text(item)]
        elif isinstance(slot, Call):
            if type(item.get("arguments")) is str:
                slot.parts[:] = [str(item["arguments"])]
        else:
            slot.data = dict(item)


# --- the scripted double ------------------------------------------------------------------


def script_events(message: AssistantMessage, request_id: str, split: Split) -> tuple[Events, Events]:
    """The events of `message` (`split` cuts its texts into deltas), and the last ones."""
    response = {"id": request_id, "object": "response", "model": "scripted", "status": "in_progress"}
    events: Events = [{"type": "response.created", "response": response}]
    for index, block in enumerate(said_blocks(message)):
        if type(block) is TextBlock:
            item: dict[str, object] = {"type": "message", "id": f"msg_{index}", "role": "assistant", "content": []}
            events.append({"type": "response.output_item.added", "output_index": index, "item": item})
            for piece in split(block.text):
                if piece:
                    delta = {"type": "response.output_text.delta", "output_index": index, "content_index": 0}
                    events.append({**delta, "delta": piece})
            done = {**item, "content": [{"type": "output_text", "text": block.text, "annotations": []}]}
        else:
            assert type(block) is ToolCall
            item = {
                "type": "function_call",
                "id": f"fc_{index}",
                "call_id": block.id,
                "name": block.name,
                "arguments": "",
            }
            events.append({"type": "response.output_item.added", "output_index": index, "item": item})
            for piece in split(arguments_text(block)):
                events.append({"type": "response.function_call_arguments.delta", "output_index": index, "delta": piece})
            done = {**item, "arguments": arguments_text(block)}
        events.append({"type": "response.output_item.done", "output_index": index, "item": done})
    end: Events = [{"type": "response.completed", "response": {**response, "status": "completed"}}]
    return events, end


def error_event(text: str) -> dict[str, object]:
    """The event the provider ends a stream with when it fails, saying `text`."""
    return {"type": "error", "code": "server_error", "message": text}
