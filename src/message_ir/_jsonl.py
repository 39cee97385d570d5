"""JSON Lines: one message a line, as session logs are kept.

Each line is decoded on its own (the same fast path as `decode_transcript`, one message at a
time), and linkage is followed as the lines come (`message_ir._stream_linkage`), so a log is
checked in memory bounded by its longest line plus one integer per call ID and a small
record per call still waiting for its result. A diagnostic's `message_index` is the line's index (from
0) and its path is `$[index]...`, exactly as `validate_transcript` reports the list of
parsed lines. Lines end with `\\n` (a `\\r` before it is allowed); the last line may lack it.
An empty line is not a message and is refused (`INVALID_JSON`); only an empty file is the
empty transcript.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Final

import msgspec

from message_ir._decoding import (
    REFUSED,
    finish_decoded,
    link_events,
    message_from_json,
    parse_json,
    retagged_diagnostics,
)
from message_ir._diagnostics import LINKAGE_CODES, Diagnostic, TranscriptError, by_message_index
from message_ir._json_rule import type_name
from message_ir._linkage import LinkEvent
from message_ir._model import AssistantMessage, Message, ToolCall, ToolResultMessage
from message_ir._shape import ShapeCheck
from message_ir._stream_linkage import StreamingLinkage
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
    """Reads a log line by line, keeping the messages only if asked to.

    `line` returns the diagnostics that are certain once the line is read (its shape, a
    repeated call ID); `finish` the linkage diagnostics only the end makes certain. Nothing
    of a line is kept after it is read but what `StreamingLinkage` keeps (and the message,
    with `keep`).
    """

    def __init__(self, *, keep: bool) -> None:
        self.linkage = StreamingLinkage()
        self.keep = keep
        self.messages: list[Message] = []
        self.count = 0

    def lines(self, lines: list[bytes] | list[str]) -> Iterator[Diagnostic]:
        """Read the next lines (each with or without its line ending), many at once.

        The lines are decoded in one tight loop; when a line fails, or some arguments need a
        closer look, each line is read on its own, which says exactly what is wrong and where. The
        diagnostics come as they are found (a batch of bad lines is not held).
        """
        messages = _batch(lines) if len(lines) > 1 else None
        if messages is None or finish_decoded(messages, track_linkage=False) == REFUSED:
            for line in lines:
                yield from self.line(line)
            return
        found: list[Diagnostic] = []
        call, result = self.linkage.well_formed_call, self.linkage.well_formed_result
        for message in messages:
            index = self.count
            self.count += 1
            if type(message) is ToolResultMessage:
                found.extend(result(index, message.tool_call_id, message.tool_name))
            elif type(message) is AssistantMessage:
                for block_index, block in enumerate(message.content):
                    if type(block) is ToolCall:
                        found.extend(call(index, block_index, block.id, block.name))
        if self.keep:
            self.messages.extend(messages)
        yield from found

    def line(self, line: bytes | str) -> list[Diagnostic]:
        """Read the next line (with or without its line ending)."""
        index = self.count
        self.count += 1
        if type(line) is not bytes and type(line) is not str:
            raise TypeError(f"Expected each line as `bytes` or `str`, got `{type_name(line)}`")
        events: list[LinkEvent] = []
        found: list[Diagnostic] = []
        message: Message | None
        try:
            message = _message_decoder.decode(line)  # the line ending is JSON whitespace: no copy without it
        except (msgspec.DecodeError, RecursionError, UnicodeError):
            message = None
        if message is not None and finish_decoded([message]) == REFUSED:
            message = None
        if message is None:
            if type(line) is bytes:
                line = line.removesuffix(b"\n").removesuffix(b"\r")
            else:
                assert type(line) is str  # checked above
                line = line.removesuffix("\n").removesuffix("\r")
            message = self.explain(index, line, found, events)
        if message is not None:
            link_events(index, message, events)
            if self.keep:
                self.messages.append(message)
        for event in events:
            found.extend(self.linkage.add(event))
        return found

    def explain(
        self, index: int, line: bytes | str, found: list[Diagnostic], events: list[LinkEvent]
    ) -> Message | None:
        """Report what is wrong with a line the fast path refused (into `found`, with the link
        events of what could be read into `events`); or, when `json.loads`'s reading of it is
        a well-formed message (see `message_ir._codec.explain`), that message."""
        value, retagged, problem = parse_json(line)
        if problem is not None:
            found.append(Diagnostic(problem.code, index, f"$[{index}]", f"Line {index + 1}: {problem.message}"))
            return None
        check = ShapeCheck()
        check.checked_message(index, value)
        if not check.diagnostics:
            check.diagnostics.extend(retagged_diagnostics(index, value, retagged))
        if not check.diagnostics:
            return message_from_json(value)
        found.extend(check.diagnostics)
        events.extend(check.events)
        return None

    def finish(self) -> list[Diagnostic]:
        """The linkage diagnostics that the end of the log makes certain."""
        return self.linkage.finish()


def _batch(lines: list[bytes] | list[str]) -> list[Message] | None:
    """The messages of many lines, each line decoded on its own in one tight loop; `None`
    when a line is not one JSON message (then each is read alone, which says why).

    The lines are not joined into one JSON array for a single decode: two lines that are no
    JSON on their own can join into two messages (a line ending inside an array, the next
    closing it and opening another message), and a log with such lines is not valid."""
    decode = _message_decoder.decode
    try:
        return [decode(line) for line in lines]
    except (msgspec.DecodeError, RecursionError, UnicodeError):
        return None


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
    found: list[Diagnostic] = []
    for batch in batches(split_lines(data)):
        found.extend(reader.lines(batch))
    found.extend(reader.finish())
    if not check_linkage:
        found = [diagnostic for diagnostic in found if diagnostic.code not in LINKAGE_CODES]
    if found:
        found.sort(key=by_message_index)
        raise TranscriptError(tuple(found))
    return tuple(reader.messages)


def validate_jsonl(lines: Iterable[bytes] | Iterable[str]) -> tuple[Diagnostic, ...]:
    """Check a JSON Lines log given as an iterable of lines (an open file will do).

    Every diagnostic, sorted by line; `()` when the log is a valid transcript. Never raises
    for bad content. To print diagnostics as they are found, and to stop early, use
    `iter_jsonl_diagnostics`.
    """
    found = list(iter_jsonl_diagnostics(lines))
    found.sort(key=by_message_index)
    return tuple(found)


def iter_jsonl_diagnostics(lines: Iterable[bytes] | Iterable[str]) -> Iterator[Diagnostic]:
    """The diagnostics of a JSON Lines log as they are found, reading it line by line.

    A line's shape diagnostics (and a repeated call ID) come as soon as the line is read;
    the other linkage diagnostics when the log ends (whether a call has a result, or a result
    a call, is only certain then), sorted by line. The same diagnostics as `validate_jsonl`,
    in that order. Memory stays bounded by the longest line, plus one integer per call ID,
    a small record per call still waiting for its result, and a small record per result
    with a linkage problem. Stop iterating to stop reading.
    """
    reader = JsonlReader(keep=False)
    for batch in batches(lines):
        yield from reader.lines(batch)
    yield from reader.finish()


BATCH_LINES: Final = 512
BATCH_BYTES: Final = 1 << 18


def batches(lines: Iterable[bytes] | Iterable[str]) -> Iterator[list[bytes] | list[str]]:
    """The lines in batches of at most `BATCH_LINES` lines or about `BATCH_BYTES` bytes (a
    longer line is a batch of its own), so that a batch is decoded in one tight loop, and memory
    stays bounded by the longest line plus a batch."""
    byte_batch: list[bytes] = []  # one of the two is empty at any time: a batch has one type
    text_batch: list[str] = []
    size = 0
    for line in lines:
        if type(line) is bytes:
            if text_batch:
                yield text_batch
                text_batch, size = [], 0
            if byte_batch and size + len(line) > BATCH_BYTES:
                yield byte_batch
                byte_batch, size = [], 0
            byte_batch.append(line)
            size += len(line)
            if len(byte_batch) >= BATCH_LINES:
                yield byte_batch
                byte_batch, size = [], 0
        elif type(line) is str:
            if byte_batch:
                yield byte_batch
                byte_batch, size = [], 0
            if text_batch and size + len(line) > BATCH_BYTES:
                yield text_batch
                text_batch, size = [], 0
            text_batch.append(line)
            size += len(line)
            if len(text_batch) >= BATCH_LINES:
                yield text_batch
                text_batch, size = [], 0
        else:
            raise TypeError(f"Expected each line as `bytes` or `str`, got `{type_name(line)}`")
    if byte_batch:
        yield byte_batch
    if text_batch:
        yield text_batch
