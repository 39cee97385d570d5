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
        return [event for line in lines for event in self._line(line)]

    def next_number(self) -> int:
        """The number the next event gets (and takes)."""
        number = self._count
        self._count += 1
        return number

    def finish(self) -> tuple[list[Event], bool]:
        """The events of a last line without its newline, and whether that line was cut (not
        JSON: the stream ended inside it)."""
        line, self._pending = self._pending, b""
        if not line.strip():
            return [], False
        events = self._line(line)
        cut = bool(events) and events[-1].value is None
        return ([] if cut else events), cut

    def _line(self, line: bytes) -> list[Event]:
        text = line.rstrip(b"\r").strip()
        if not text or text.startswith(b":") or text.startswith(b"event:") or text.startswith(b"id:"):
            return []
        if text.startswith(b"retry:"):
            return []
        payload = text[5:].strip() if text.startswith(b"data:") else text
        number = self.next_number()
        if payload == DONE.encode():
            return [Event(number, DONE)]
        try:
            value: object = _decode(payload)
        except msgspec.DecodeError as error:
            return [Event(number, None, str(error))]
        return [Event(number, value)]
