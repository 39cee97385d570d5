"""Streams: a provider's stream events assembled into the IR's assistant message.

`assemble(source, format=...)` takes a whole stream — raw SSE text or bytes, JSON payloads
one per line, or the parsed events — and gives an `Assembled`: the assistant message (blocks
in the order the provider produced them), its diagnostics, and whether the stream was
complete. `Assembler(format)` takes the bytes as they arrive (`feed`, split anywhere, even
inside a UTF-8 character or a JSON string) and gives the same at `finish`. Neither raises:

- `STREAM_TRUNCATED`: the stream ended before its last event (what arrived is kept: text so
  far, calls with the arguments that came);
- `BAD_TOOL_ARGUMENTS`: a call's fragments do not make a JSON object (the text is kept in the
  call's `meta`, under `stream`);
- `STREAM_OUT_OF_ORDER`: an event for a block or call index never started, or after the end;
- `STREAM_ERROR`: the provider's error event, with its message.

Formats: `openai_chat`, `anthropic`, `openai_responses` and `gemini`, one module each;
`STREAM_FORMATS` lists them. `script` and `ScriptedModel` are the double: the stream a
provider would send for a message (cut, or ending in an error, when asked), and a model that
replays queued streams one request at a time.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from message_ir import Diagnostic
from message_ir.streams._assembled import Assembled, assembled
from message_ir.streams._framing import Event, Framing, Payloads, payload_event
from message_ir.streams._registry import STREAM_FORMATS
from message_ir.streams._script import QueueExhausted, ScriptedModel, script

_WINDOW: Final = 1 << 14
"""How many bytes `Assembler.feed` frames at a time, at least: a batch's payloads are taken
while they are still in the processor's cache, and never all held."""


def _window_end(data: bytes, start: int) -> int:
    """Where the window from `start` ends: after the first blank line (an event's end) past
    `_WINDOW` bytes, else after the first newline, else at the end."""
    end = data.find(b"\n\n", start + _WINDOW)
    if end >= 0:
        return end + 2
    end = data.find(b"\n", start + _WINDOW)
    return len(data) if end < 0 else end + 1


class Assembler:
    """One stream of `format`, assembled as its bytes arrive: `feed` them, then `finish`."""

    def __init__(self, format: str) -> None:
        if format not in STREAM_FORMATS:
            raise ValueError(f"No stream format {format!r}; expected one of {', '.join(STREAM_FORMATS)}")
        self._stream = STREAM_FORMATS[format].stream()
        self._framing = Framing()
        self._cut = False

    def feed(self, chunk: bytes | str) -> None:
        """The next bytes of the stream (text is taken as its UTF-8)."""
        data = chunk.encode("utf-8", "surrogatepass") if type(chunk) is str else chunk
        assert type(data) is bytes
        start, size = 0, len(data)
        while start < size:  # a window at a time
            end = _window_end(data, start)
            for event in self._framing.feed(data[start:end] if start or end < size else data):
                if type(event) is Payloads:
                    self._payloads(event)
                else:
                    assert type(event) is Event
                    self._event(event)
            start = end

    def _payloads(self, payloads: Payloads) -> None:
        """A batch of payloads: taken by the format's fast path, each event it leaves read the
        careful way. Both give the same message and diagnostics (a property test)."""
        stream = self._stream
        first, items = payloads
        position, count = 0, len(items)
        while position < count:
            if not stream.complete:
                position = stream.take(items, position, first)
                if position == count:
                    break
            self._event(payload_event(first + position, items[position]))
            position += 1

    def events(self, events: Iterable[object]) -> None:
        """Events already parsed (one JSON value each, in order)."""
        for value in events:
            self._event(Event(self._framing.next_number(), value))

    def _event(self, event: Event) -> None:
        stream = self._stream
        if event.value is None:
            stream.found.append(
                Diagnostic(
                    "INVALID_JSON", event.number, f"$[{event.number}]", f"An event that is not JSON: {event.problem}"
                )
            )
            return
        try:
            stream.event(event)
        except Exception as error:  # noqa: BLE001  # assembling never raises
            stream.unreadable(event.number, error)

    def finish(self) -> Assembled:
        """What the stream made, once it is over (or cut)."""
        events, cut = self._framing.finish()
        for event in events:
            self._event(event)
        stream = self._stream
        found = list(stream.found)
        if cut or not stream.complete:
            last = self._framing.next_number()
            found.append(
                Diagnostic(
                    "STREAM_TRUNCATED",
                    None,
                    f"$[{last}]",
                    "The stream ended before its last event; what arrived is kept",
                )
            )
        try:
            complete = stream.complete and not cut
            message_id = stream.message_id or "assembled"
            return assembled(stream.slots, message_id, stream.info, found, complete, stream.notes, stream.unknown)
        except Exception as error:  # noqa: BLE001  # a value the IR cannot hold: nothing assembled
            found.append(Diagnostic("UNREADABLE_VALUE", None, "$", f"Could not be assembled ({type(error).__name__})"))
            return assembled([], "assembled", {}, found, False)


def assemble(source: bytes | str | Iterable[object], format: str) -> Assembled:
    """The assistant message a whole stream of `format` makes: raw SSE text or bytes, JSON
    payloads one per line, or the parsed events; see `Assembler`."""
    assembler = Assembler(format)
    if type(source) is bytes or type(source) is str:
        assembler.feed(source)
    else:
        assert not isinstance(source, (bytes, str))
        assembler.events(source)
    return assembler.finish()


__all__ = ["STREAM_FORMATS", "Assembled", "Assembler", "QueueExhausted", "ScriptedModel", "assemble", "script"]
