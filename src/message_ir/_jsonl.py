"""JSON Lines: one message a line, as session logs are kept.

Each line is decoded on its own (the same fast path as `decode_transcript`, one message at a
time), so a log is checked in memory bounded by its longest line plus one small record per
tool call and result for linkage. A diagnostic's `message_index` is the line's index (from
0) and its path is `$[index]...`, exactly as `validate_transcript` reports the list of
parsed lines. Lines end with `\\n` (a `\\r` before it is allowed); the last line may lack it.
An empty line is not a message and is refused (`INVALID_JSON`); only an empty file is the
empty transcript.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

import msgspec

from message_ir._codec import REFUSED, finish_decoded, link_events, message_from_json, parse_json, retagged_diagnostics
from message_ir._diagnostics import Diagnostic, TranscriptError, by_message_index
from message_ir._json_values import type_name
from message_ir._linkage import check_linkage as link_diagnostics
from message_ir._model import Message
from message_ir._shape import ShapeCheck
from message_ir._untyped import encode_json
from message_ir._validate import require_shape

_message_decoder: Final = msgspec.json.Decoder(Message)


def encode_jsonl(messages: Sequence[Message]) -> bytes:
    """One compact JSON message a line, each line ending in `\\n`.

    Raises `TranscriptError` for a message that is not well-formed, as `encode_transcript`.
    """
    require_shape(messages)
    return b"".join([encode_json(message) + b"\n" for message in messages])


class JsonlReader:
    """Reads a log line by line, keeping the messages only if asked to."""

    def __init__(self, *, keep: bool) -> None:
        self.check = ShapeCheck()
        self.keep = keep
        self.messages: list[Message] = []
        self.count = 0

    def line(self, line: bytes | str) -> None:
        """Read the next line (with or without its line ending)."""
        index = self.count
        self.count += 1
        if type(line) is bytes:
            line = line.removesuffix(b"\n").removesuffix(b"\r")
        elif type(line) is str:
            line = line.removesuffix("\n").removesuffix("\r")
        else:
            raise TypeError(f"Expected each line as `bytes` or `str`, got `{type_name(line)}`")
        try:
            message = _message_decoder.decode(line)
        except (msgspec.DecodeError, RecursionError, UnicodeError):
            explained = self.explain(index, line)
            if explained is None:
                return
            message = explained
        else:
            if finish_decoded([message]) == REFUSED:
                explained = self.explain(index, line)
                if explained is None:
                    return
                message = explained
        link_events(index, message, self.check.events)
        if self.keep:
            self.messages.append(message)

    def explain(self, index: int, line: bytes | str) -> Message | None:
        """Report what is wrong with a line the fast path refused; or, when `json.loads`'s
        reading of it is a well-formed message (see `message_ir._codec.explain`), that message."""
        value, retagged, problem = parse_json(line)
        if problem is not None:
            self.check.report(problem.code, index, f"$[{index}]", f"Line {index + 1}: {problem.message}")
            return None
        before = len(self.check.diagnostics)
        events = len(self.check.events)
        self.check.checked_message(index, value)
        if len(self.check.diagnostics) == before:
            self.check.diagnostics.extend(retagged_diagnostics(index, value, retagged))
        if len(self.check.diagnostics) > before:
            return None
        del self.check.events[events:]  # the message's own events are added with it
        return message_from_json(value)

    def diagnostics(self) -> tuple[Diagnostic, ...]:
        """Every diagnostic so far, shape and linkage, sorted by line."""
        found = self.check.diagnostics + link_diagnostics(self.check.events)
        found.sort(key=by_message_index)
        return tuple(found)


def split_lines(data: bytes | str) -> list[bytes] | list[str]:
    """The lines of a JSON Lines text; a final line ending does not start another line."""
    if type(data) is bytes:
        return data.removesuffix(b"\n").split(b"\n") if data else []
    if type(data) is str:
        return data.removesuffix("\n").split("\n") if data else []
    raise TypeError(f"decode_jsonl(): Expected `bytes` or `str`, got `{type_name(data)}`")


def decode_jsonl(data: bytes | str, *, check_linkage: bool = True) -> tuple[Message, ...]:
    """The messages of a JSON Lines transcript, only if it is valid in shape and linkage.

    Raises `TranscriptError` otherwise, with each diagnostic's `message_index` the line's.
    `check_linkage=False` requires the shape only, as for `decode_transcript`.
    """
    reader = JsonlReader(keep=True)
    for line in split_lines(data):
        reader.line(line)
    found = reader.diagnostics() if check_linkage else tuple(reader.check.diagnostics)
    if found:
        raise TranscriptError(found)
    return tuple(reader.messages)


def validate_jsonl(lines: Iterable[bytes] | Iterable[str]) -> tuple[Diagnostic, ...]:
    """Check a JSON Lines log given as an iterable of lines (an open file will do).

    Memory stays bounded by the longest line plus a small record per tool call and result.
    Never raises for bad content; returns `()` when the log is a valid transcript.
    """
    reader = JsonlReader(keep=False)
    for line in lines:
        reader.line(line)
    return reader.diagnostics()
