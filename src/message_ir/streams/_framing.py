"""A provider stream's bytes, as they arrive, into its events: SSE (`data:` lines, `event:`
lines and comments skipped, `[DONE]`), or one JSON payload per line.

Bytes are cut into lines only at `\\n` and decoded a whole line at a time, so a chunk may end
anywhere (inside a UTF-8 character, inside a JSON string). A line is held until its newline
comes; `finish` reads the last one, which a file may end without.
"""

from __future__ import annotations

from typing import Final, NamedTuple

import msgspec

_decode: Final = msgspec.json.Decoder(object).decode
DONE: Final = "[DONE]"
"""What OpenAI Chat's SSE stream sends last, instead of JSON."""


class Event(NamedTuple):
    """One payload of the stream: its number (from 0), and the parsed JSON or `DONE`; `None`
    when the line was not JSON (`problem` says why)."""

    number: int
    value: object
    problem: str = ""


class Framing:
    """The events of bytes fed in any pieces."""

    def __init__(self) -> None:
        self._pending = b""
        self._count = 0

    def feed(self, chunk: bytes) -> list[Event]:
        """The events the lines completed by `chunk` hold."""
        data = self._pending + chunk
        *lines, self._pending = data.split(b"\n")
        events: list[Event] = []
        for line in lines:
            if not line or line == b"\r":  # the blank line between SSE events
                continue
            event = self._line(line)
            if event is not None:
                events.append(event)
        return events

    def next_number(self) -> int:
        """The number the next event gets (and takes)."""
        number = self._count
        self._count += 1
        return number

    def finish(self) -> tuple[list[Event], bool]:
        """The events of a last line without its newline, and whether that line was cut (not
        JSON: the stream ended inside it)."""
        line, self._pending = self._pending, b""
        event = self._line(line) if line.strip() else None
        if event is None:
            return [], False
        if event.value is None:
            return [], True
        return [event], False

    def _line(self, line: bytes) -> Event | None:
        if line.startswith(b"data: {"):  # the common case: one JSON payload
            payload = line[6:]
        else:
            text = line.strip()
            if not text or text.startswith((b":", b"event:", b"id:", b"retry:")):
                return None
            payload = text[5:].strip() if text.startswith(b"data:") else text
            if payload == DONE.encode():
                return Event(self.next_number(), DONE)
        number = self.next_number()
        try:
            return Event(number, _decode(payload))
        except msgspec.DecodeError as error:
            return Event(number, None, str(error))
