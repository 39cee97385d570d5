"""Gemini streams (`streamGenerateContent` chunks) assembled into the IR.

Each chunk is a response whose first candidate's `content.parts` continue the message: a
`text` part adds to the text (a thought, `"thought": true`, to an opaque `thought` block of
format `gemini`), a `functionCall` part is a call — whole, or (Vertex AI's streamed function
arguments) begun with its `name` and `"willContinue": true`, its arguments then sent as
`partialArgs` (`jsonPath`, and a `stringValue` that continues the one before at that path, or a
number, boolean or null value), and ended by an empty `functionCall`. A call without an `id`
gets `stream_call_<n>`, marked in its `meta`. A `thoughtSignature` is kept in the `meta` of the
block it came with. The stream is complete once a candidate has a `finishReason`.
"""

from __future__ import annotations

from typing import Final

import msgspec

from message_ir import AssistantMessage, TextBlock, ToolCall
from message_ir.streams._assembled import Call, Kept, StreamState, Text, as_list, as_object, unknown_event
from message_ir.streams._framing import Event
from message_ir.streams._scripting import Events, Split, said_blocks

NAME: Final = "gemini"
_VALUES: Final = ("numberValue", "boolValue", "nullValue")


# The fast path's structs: the fields of the frequent chunks, typed so that a chunk that needs
# the careful way fails to decode (a function call, a thought, a finish reason or an error
# that is not `null`, a part without its text, a value of another type).


class _FunctionCall(msgspec.Struct, gc=False):
    name: str = ""
    id: object = msgspec.UNSET
    args: object = None
    partialArgs: None = None
    willContinue: None = None


class _Part(msgspec.Struct, gc=False):
    text: str | None = None
    thought: None = None
    thoughtSignature: object = msgspec.UNSET  # Gemini's own key
    functionCall: _FunctionCall | None = None


class _Content(msgspec.Struct, gc=False):
    parts: list[_Part]


class _Candidate(msgspec.Struct, gc=False):
    content: _Content
    finishReason: None = None


class _Chunk(msgspec.Struct, gc=False):
    candidates: list[_Candidate]
    responseId: object = msgspec.UNSET
    modelVersion: object = msgspec.UNSET
    usageMetadata: object = msgspec.UNSET
    error: None = None


_DECODE: Final = msgspec.json.Decoder(_Chunk).decode


class Stream(StreamState):
    """The state of one Gemini stream as its chunks arrive."""

    def take(self, payloads: list[bytes], start: int, first: int) -> int:
        """A chunk whose first candidate has one part, text or a whole call (and may say the
        response ID, model and usage), without a finish reason or an error: what the careful
        way does with it, done here."""
        slots, info, unset = self.slots, self.info, msgspec.UNSET
        last = slots[-1] if slots else None
        text = last if type(last) is Text else None  # the text being written, if it is the last block
        decode = _DECODE
        for position in range(start, len(payloads)):
            try:
                chunk = decode(payloads[position])
            except msgspec.DecodeError:  # its ValidationError too: read the careful way
                return position
            candidates = chunk.candidates
            if not candidates:
                return position
            try:
                (part,) = candidates[0].content.parts
            except ValueError:  # no part, or more than one: read the careful way
                return position
            call = part.functionCall
            if call is not None:
                if self._open is not None:
                    return position
                if call.name:
                    signature, number = part.thoughtSignature, first + position
                    slots.append(self._begun(call.id, call.name, call.args, signature, number, decoded=True))
                    text = None
            elif part.text is None:
                return position
            elif part.text or type(part.thoughtSignature) is str:
                if text is None:
                    text = Text()
                    slots.append(text)
                text.parts.append(part.text)
            if type(chunk.responseId) is str:  # as the careful way keeps them, in its order
                self.message_id = chunk.responseId
                info["response_id"] = chunk.responseId
            if chunk.modelVersion is not unset:
                info["model"] = chunk.modelVersion
            if chunk.usageMetadata is not unset:
                info["usage"] = chunk.usageMetadata
        return len(payloads)

    def _begun(
        self, call_id: object, name: str, args: object, signature: object, number: int, *, decoded: bool = False
    ) -> Call:
        """A call begun (at event `number`): its ID, or one made up and said in its `meta`,
        and the thought signature it came with; `decoded`: its `args` were decoded here from
        the stream's bytes (the fast path), not given by a caller."""
        kept: dict[str, object] = {}
        if type(call_id) is not str or not call_id:
            call_id = f"stream_call_{self._calls}"
            kept["made_up_id"] = True
        if type(signature) is str:
            kept["thoughtSignature"] = signature
        self._calls += 1
        return Call(call_id, name, number, given=as_object(args), given_decoded=decoded, kept=kept)

    def __init__(self) -> None:
        super().__init__()
        self._open: Call | None = None  # a call whose arguments are still streaming
        self._args: dict[str, object] = {}
        self._calls = 0

    def event(self, event: Event) -> None:
        chunk = as_object(event.value)
        if chunk is None:
            return
        error = as_object(chunk.get("error"))
        if error is not None:
            self.error(event.number, error.get("message"))
            return
        if type(chunk.get("responseId")) is str:
            self.message_id = str(chunk["responseId"])
            self.info["response_id"] = chunk["responseId"]
        for key, name in (("modelVersion", "model"), ("usageMetadata", "usage")):
            if key in chunk:
                self.info[name] = chunk[key]
        candidates = as_list(chunk.get("candidates"))
        if candidates is None and "usageMetadata" not in chunk and "promptFeedback" not in chunk:
            unknown_event(self.unknown, self.notes, event.number, chunk, chunk.get("object"))
            return
        candidate = as_object(candidates[0]) if candidates else None
        if candidate is None:
            return
        content = as_object(candidate.get("content")) or {}
        for part in map(as_object, as_list(content.get("parts")) or []):
            if part is not None:
                self._part(part, event.number)
        if type(candidate.get("finishReason")) is str:
            self.info["stop_reason"] = candidate["finishReason"]
            self.complete = True
            self._close()

    def _part(self, part: dict[str, object], number: int) -> None:
        call = as_object(part.get("functionCall"))
        signature = part.get("thoughtSignature")
        if call is not None:
            self._call(call, signature, number)
            return
        text = part.get("text")
        if text == "" and type(signature) is not str:
            return  # an empty text part (sent with the finish reason): nothing
        if type(text) is not str:
            self.slots.append(Kept(NAME, next(iter(part), "part"), dict(part)))
            return
        if part.get("thought") is True:
            last = self.slots[-1] if self.slots else None
            if not (isinstance(last, Kept) and last.kind == "thought"):
                last = Kept(NAME, "thought", {"text": "", "thought": True})
                self.slots.append(last)
            last.data["text"] = str(last.data.get("text", "")) + text
            if type(signature) is str:
                last.data["thoughtSignature"] = signature
            return
        last_text = self.slots[-1] if self.slots else None
        if not isinstance(last_text, Text):
            last_text = Text()
            self.slots.append(last_text)
        last_text.parts.append(text)

    def _call(self, call: dict[str, object], signature: object, number: int) -> None:
        name, partial = call.get("name"), as_list(call.get("partialArgs"))
        if partial is not None:
            if self._open is None:
                self.out_of_order(number, "Function-call arguments for no call begun")
                return
            for item in map(as_object, partial):
                if item is not None:
                    self._partial(item)
            return
        if type(name) is not str or not name:
            self._close()  # an empty `functionCall`: the streamed call is whole
            return
        self._close()
        slot = self._begun(call.get("id"), name, call.get("args"), signature, number)
        self.slots.append(slot)
        if call.get("willContinue") is True:
            self._open, self._args = slot, {}

    def _partial(self, item: dict[str, object]) -> None:
        path = item.get("jsonPath")
        if type(path) is not str or not path.startswith("$."):
            return
        keys = path[2:].split(".")
        target = self._args
        for key in keys[:-1]:
            inner = as_object(target.get(key))
            if inner is None:
                inner = {}
                target[key] = inner
            target = inner
        last = keys[-1]
        if type(item.get("stringValue")) is str:
            before = target.get(last)
            target[last] = (before if type(before) is str else "") + str(item["stringValue"])
        else:
            for key in _VALUES:
                if key in item:
                    target[last] = None if key == "nullValue" else item[key]

    def _close(self) -> None:
        if self._open is not None:
            self._open.given = {**(self._open.given or {}), **self._args}
            self._open.given_decoded = False  # what the careful way read: perhaps a caller's values
            self._open, self._args = None, {}


# --- the scripted double ------------------------------------------------------------------


def script_events(message: AssistantMessage, request_id: str, split: Split) -> tuple[Events, Events]:
    """The events of `message` (`split` cuts its texts into deltas), and the last ones."""

    def chunk(parts: list[object], finish: str | None = None) -> dict[str, object]:
        candidate: dict[str, object] = {"content": {"role": "model", "parts": parts}, "index": 0}
        if finish is not None:
            candidate["finishReason"] = finish
        return {"candidates": [candidate], "modelVersion": "scripted", "responseId": request_id}

    events: Events = []
    for block in said_blocks(message):
        if type(block) is TextBlock:
            events.extend(chunk([{"text": piece}]) for piece in split(block.text) if piece)
        else:
            assert type(block) is ToolCall
            call = {"id": block.id, "name": block.name, "args": block.arguments.thaw()}
            events.append(chunk([{"functionCall": call}]))
    end: Events = [chunk([], "STOP")]
    return events, end


def error_event(text: str) -> dict[str, object]:
    """The event the provider ends a stream with when it fails, saying `text`."""
    return {"error": {"code": 500, "message": text, "status": "INTERNAL"}}
