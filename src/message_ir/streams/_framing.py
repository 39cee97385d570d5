"""A provider stream's bytes, as they arrive, into its events: SSE (`data:` lines, `event:`
lines and comments skipped, `[DONE]`), or one JSON payload per line.

Bytes are cut into lines only at `\\n` and decoded a whole line at a time, so a chunk may end
anywhere (inside a UTF-8 character, inside a JSON string). A line is held until its newline
comes; `finish` reads the last one, which a file may end without.

The lines a chunk completes are usually only `data: {...}` payloads, `event:` lines and the
blank lines between events: then they are given as one batch of payloads (`Payloads`), which
a format decodes in one call (see `_typed`); any other line makes them go one at a time.
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple

import msgspec

_decode: Final = msgspec.json.Decoder(object).decode
_NEWLINE: Final = ord("\n")
DONE: Final = "[DONE]"
"""What OpenAI Chat's SSE stream sends last, instead of JSON."""


class Event(NamedTuple):
    """One payload of the stream: its number (from 0), and the parsed JSON or `DONE`; `None`
    when the line was not JSON (`problem` says why)."""

    number: int
    value: object
    problem: str = ""


class Payloads(NamedTuple):
    """The JSON payloads of `total` consecutive events, numbered from `first`, not yet
    decoded: `lines` holds them one a line (each starting with `{`), with blank lines between."""

    first: int
    lines: bytes
    total: int


class Located:
    """The payloads of a batch, found one at a time in increasing order (the events the fast
    path leaves): from the last one found, or from the end when that is nearer; all at once
    when they are asked for all along the batch."""

    def __init__(self, payloads: Payloads) -> None:
        self.lines, self.total = payloads.lines, payloads.total
        self._offset, self._at = -1, -1  # the last payload found, and where its `\\n{` is
        self._all: list[bytes] | None = None
        self._asked = 0

    def text(self, offset: int) -> bytes:
        """The payload `offset` (from 0; at least the one asked before)."""
        if self._all is not None:
            return self._all[offset]
        self._asked += 1
        lines = self.lines
        if self._asked > 4 and offset - self._offset > 4 and self.total - offset > 4:
            self._all = [b"{" + text for text in lines.split(b"\n{")[1:]]
            return self._all[offset]
        if offset - self._offset <= self.total - offset:
            at = self._at
            for _ in range(offset - self._offset):
                at = lines.find(b"\n{", at + 1)
        else:
            at = len(lines)
            for _ in range(self.total - offset):
                at = lines.rfind(b"\n{", 0, at)
        self._offset, self._at = offset, at
        end = lines.find(b"\n{", at + 1)
        return lines[at + 1 : end if end >= 0 else len(lines)]


_OTHER_LINE: Final = re.compile(rb"\n(?!data: \{|event:|\{|\r?(?:\n|\Z))")
"""In a `\\n` and the lines after it: a line that is not plain. The plain ones are payloads
(`data: {...}`, or a bare `{...}` line), `event:` lines and blank lines."""
_EVENT_LINE: Final = re.compile(rb"\nevent:[^\n]*")
"""An `event:` line (after the newline before it)."""


def line_event(number: int, payload: bytes) -> Event:
    """The event of one payload line (`value` `None` when it is not JSON)."""
    try:
        return Event(number, _decode(payload))
    except msgspec.DecodeError as error:
        return Event(number, None, str(error))


_NOT_A_PAYLOAD: Final = re.compile(rb"\n(?:[^{\r\n]|\r[^\n])")
"""In `_payload_lines`: a line that is neither a payload nor blank (so it was not plain)."""


def _payload_lines(lines: bytes) -> bytes:
    """Lines with their `event:` lines and `data: ` prefixes taken out, after a newline: the
    plain ones become payloads (starting with `{`) and blank lines."""
    payloads = b"\n" + lines
    if b"event:" in lines:
        payloads = _EVENT_LINE.sub(b"", payloads)
    return payloads.replace(b"\ndata: ", b"\n")


class Framing:
    """The events of bytes fed in any pieces."""

    def __init__(self) -> None:
        self._pending = b""
        self._count = 0

    def feed(self, chunk: bytes) -> list[Event | Payloads]:
        """The events the lines completed by `chunk` hold: the payloads of each run of plain
        lines as one batch, any other line's event alone, in order."""
        data = self._pending + chunk
        end = data.rfind(b"\n") + 1
        lines, self._pending = data[:end], data[end:]
        done = lines.rfind(b"data: [DONE]")  # OpenAI Chat's last line, after its last event
        if done >= 0 and (done == 0 or lines[done - 1] == _NEWLINE) and not lines[done + 12 :].strip():
            lines, last = lines[:done], lines[done:].strip()
        else:
            last = b""
        payloads = _payload_lines(lines)
        events: list[Event | Payloads] = []
        if _NOT_A_PAYLOAD.search(payloads) is None:  # the usual case: every line plain
            self._add(payloads, events)
            if last:
                events.append(Event(self.next_number(), DONE))
            return events
        if last:
            lines += last + b"\n"  # read with the others
        start = 0
        for other in _OTHER_LINE.finditer(b"\n" + lines[:-1]):  # a line starts at each match's index
            line_start = other.start()
            line_end = lines.index(b"\n", line_start)
            self._batch(lines[start:line_start], events)
            event = self._line(lines[line_start:line_end])
            if event is not None:
                events.append(event)
            start = line_end + 1
        self._batch(lines[start:], events)
        return events

    def _batch(self, plain: bytes, events: list[Event | Payloads]) -> None:
        """The payloads of plain lines."""
        self._add(_payload_lines(plain), events)

    def _add(self, payloads: bytes, events: list[Event | Payloads]) -> None:
        count = payloads.count(b"\n{")  # every payload line starts with `{`; the others are blank
        if count:
            events.append(Payloads(self._count, payloads, count))
            self._count += count

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
        return line_event(self.next_number(), payload)
