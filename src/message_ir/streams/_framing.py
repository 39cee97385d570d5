"""A provider stream's bytes, as they arrive, into its events: SSE (`data:` lines, `event:`
lines and comments skipped, `[DONE]`), or one JSON payload per line.

Bytes are cut into lines only at `\\n` and decoded a whole line at a time, so a chunk may end
anywhere (inside a UTF-8 character, inside a JSON string). A line is held until its newline
comes; `finish` reads the last one, which a file may end without.

The lines a chunk completes are usually only `data: {...}` payloads, `event:` lines and the
blank lines between events: then they are given as one batch of payloads (`Payloads`), which
a format's fast path reads one after the other (see `_typed`); any other line makes them go
one at a time.
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple

import msgspec

_decode: Final = msgspec.json.Decoder(object).decode
_NEWLINE: Final = ord("\n")
DONE: Final = "[DONE]"
"""What OpenAI Chat's SSE stream sends last, instead of JSON."""
_DONE_BYTES: Final = DONE.encode()


class Event(NamedTuple):
    """One payload of the stream: its number (from 0), and the parsed JSON or `DONE`; `None`
    when the line was not JSON (`problem` says why)."""

    number: int
    value: object
    problem: str = ""


class Payloads(NamedTuple):
    """The payloads of `len(items)` consecutive events, numbered from `first`, not yet decoded:
    each what followed `data: ` on its line (or the whole line, when it had no `data: `)."""

    first: int
    items: list[bytes]


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


def payload_event(number: int, payload: bytes) -> Event:
    """The event of a payload (what followed `data: `, or a whole line starting with `{`):
    `[DONE]` is `DONE`, anything else its JSON."""
    if payload.startswith(b"{"):
        return line_event(number, payload)
    payload = payload.strip()
    return Event(number, DONE) if payload == _DONE_BYTES else line_event(number, payload)


def _split_plain(lines: bytes) -> list[bytes] | None:
    """The payloads of whole lines in one of the two usual shapes: every event a `data: `
    line and a blank line, or an `event:` line, a `data: ` line and a blank line; else `None`.

    One split cuts them; when no piece holds a newline (one search of the pieces joined,
    which is faster than counting the newlines of the lines), no line is of another kind."""
    if not lines.endswith(b"\n\n"):
        return None
    if lines.startswith(b"data: "):
        items = lines.split(b"\n\ndata: ")
        items[0] = items[0][6:]
        items[-1] = items[-1][:-2]
        # An empty item is an empty `data: ` line: not JSON, as the careful way says.
        return None if b"\n" in b"".join(items) else items
    if lines.startswith(b"event: "):
        parts = lines.split(b"\n\nevent: ")
        parts[-1] = parts[-1][:-2]
        cut = [part.partition(b"\ndata: ") for part in parts]  # each part `type\ndata: {...}`
        items = [payload for _, _, payload in cut]
        if b"" in items or b"\n" in b"".join(items) or b"\n" in b"".join([kind for kind, _, _ in cut]):
            return None  # a part without its `data: ` line, or with a line of another kind
        return items
    return None


_NOT_A_PAYLOAD: Final = re.compile(rb"\n(?:[^{\r\n]|\r[^\n])")
"""In `_payload_lines`: a line that is neither a payload nor blank (so it was not plain)."""


def _payloads_of(payloads: bytes) -> list[bytes]:
    """The payloads of `_payload_lines`' text (each line after a newline starting with `{`)."""
    return [b"{" + text for text in payloads.split(b"\n{")[1:]]


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
        events: list[Event | Payloads] = []
        items = _split_plain(lines)
        if items is not None:  # the usual case
            self._add(items, events)
            return events
        done = lines.rfind(b"data: [DONE]")  # OpenAI Chat's last line, after its last event
        if done >= 0 and (done == 0 or lines[done - 1] == _NEWLINE) and not lines[done + 12 :].strip():
            lines, last = lines[:done], lines[done:].strip()
        else:
            last = b""
        payloads = _payload_lines(lines)
        if _NOT_A_PAYLOAD.search(payloads) is None:  # every line plain
            self._add(_payloads_of(payloads), events)
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
        self._add(_payloads_of(_payload_lines(plain)), events)

    def _add(self, items: list[bytes], events: list[Event | Payloads]) -> None:
        if items:
            events.append(Payloads(self._count, items))
            self._count += len(items)

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
        if line.startswith(b"data: "):  # the common case: one payload
            return payload_event(self.next_number(), line[6:])
        text = line.strip()
        if not text or text.startswith((b":", b"event:", b"id:", b"retry:")):
            return None
        return payload_event(self.next_number(), text[5:].strip() if text.startswith(b"data:") else text)
