"""`convert` of a session log a segment at a time, so that a log of gigabytes is never held
whole: each segment (`_segments`) is converted alone (`convert_alone`) and the records of its
messages are written as soon as they are made; what goes before and after them (the frame the
target writes around its records, and the instructions) is known at the end.

What is written is what writing `convert` of the whole log gives, byte for byte (the tests
compare the two on the real logs and on mutations of them, cut at every place a segment may
end), and the notes are `convert`'s, in its order (given by step: the caller lists each step's
after the step before, for the whole log). The instructions are held until the end: `convert`
puts those of another format before the first message, or in the target's field for them
(`converted_instructions`), so they are written before the messages' records or in the frame.

New call IDs are chosen among all the log's IDs, and so are the IDs of the messages Mistral
puts between a tool result and a user message. So a first pass gathers the log's call IDs
(`CallIds`): before anything is converted for Mistral; for another target only once a call
ID it must change is met, and what was written so far is then written again. Only the call
IDs are held (with the few message IDs that hold `_bridge`), never the messages.

A log that cannot be so converted says so (`None`): what was written is to be thrown away and
the log converted whole. That is when the target is a session log (its records link to the
records before them) or writes no frame of its own around the records (its empty
conversation is no bare list, and no object with one empty list), or when a segment's frame
differs from the empty conversation's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Final

from message_ir import Message
from message_ir.adapters._conversation import Conversation, Instruction, Note
from message_ir.adapters._convert import CallIds, Runs, convert_alone, converted_instructions
from message_ir.adapters._json import as_array, as_object, encode
from message_ir.adapters._registry import FORMATS
from message_ir.adapters._segments import Segment

STEPS: Final = 7
"""The steps whose notes are given apart (`write_converted_log`'s `note`), in `convert`'s order."""

_MARK: Final = "\x00message-ir: the records\x00"
"""What stands for the records where a frame is written (no JSON value of a frame holds it)."""


def write_converted_log(
    segments: Callable[[], Iterable[Segment]],
    to: str,
    write: Callable[[bytes], object],
    note: Callable[[int, Note], object],
    restart: Callable[[], object],
) -> tuple[bytes, bytes] | None:
    """Write, a piece at a time, the records of the messages of `dumps(convert(log, to))`, of the
    log whose branch each call of `segments()` gives, and give what goes before them and after
    them (the whole output is the three); `note(step, note)` is given `convert`'s notes by step
    (0 to `STEPS - 1`). When a call ID must change, what was written and noted is thrown away
    (`restart()`) and written again once the log's IDs are gathered. `None` when the log is to
    be converted whole (see the module docstring): what was written then is not the output.
    Raises as iterating `segments()` raises."""
    declared = FORMATS[to]
    if declared.json_lines or declared.payload:  # before the log is read
        return None
    empty = declared.dump(Conversation(format=to, messages=()))
    frame = _frame(empty)
    if frame is None:
        return None
    runs = _gathered(segments(), to) if declared.bridge_text else Runs()  # a bridge's ID is chosen among all
    written = _written(segments(), to, write, note, empty, frame, runs)
    if isinstance(written, _Again):
        restart()
        written = _written(segments(), to, write, note, empty, frame, _gathered(segments(), to))
    assert not isinstance(written, _Again)  # every run converts alone once the IDs are known
    return written


class _Again:
    """`_written`'s answer when a call ID must change and the log's IDs are not known yet."""


_AGAIN: Final = _Again()


def _gathered(segments: Iterable[Segment], to: str) -> Runs:
    """What converting the log's segments one at a time into `to` needs to know of the whole
    log: its call IDs and the message IDs a new message may meet (a first pass)."""
    ids = CallIds()
    for segment in segments:
        ids.add(segment.conversation.messages)
    return ids.runs(to)


def _written(
    segments: Iterable[Segment],
    to: str,
    write: Callable[[bytes], object],
    note: Callable[[int, Note], object],
    empty: object,
    frame: tuple[bytes, bytes, str | None],
    runs: Runs,
) -> tuple[bytes, bytes] | _Again | None:
    """`write_converted_log` with what is known of the whole log (`runs`); `_AGAIN` when that is
    not enough."""
    declared = FORMATS[to]
    key = frame[2]
    source = ""
    instructions: list[Instruction] = []
    first: Message | None = None
    separator = b""
    for segment in segments:
        run = segment.conversation
        source = run.format
        if run.instructions:
            instructions.extend(run.instructions)
            run = run.replace(instructions=())
        done = convert_alone(run, to, segment.first_message, runs)
        if done is None:
            return _AGAIN
        converted, steps = done
        records = _records(declared.dump(converted), empty, key)
        if records is None:
            return None
        for record in records:
            write(separator + encode(record))
            separator = b","
        if first is None and converted.messages:
            first = converted.messages[0]
        for step, notes in enumerate(steps):
            for each in notes:
                note(step, each)
    if not instructions:
        return frame[0], frame[1]
    said: list[Note] = []
    placed = converted_instructions(
        Conversation(format=source, messages=(), instructions=tuple(instructions)), to, first, said
    )
    for each in said:
        note(STEPS - 1, each)
    return _around(declared.dump(Conversation(format=to, messages=(), instructions=placed)), empty, frame, separator)


def _around(
    written: object, empty: object, frame: tuple[bytes, bytes, str | None], separator: bytes
) -> tuple[bytes, bytes] | None:
    """What goes before and after the messages' records, from the dumped instructions alone:
    in the frame (a field of their own), or as records before the messages' (which the whole
    output writes there: the instructions stand before its first message)."""
    records = _records(written, empty, frame[2])
    if records is None:  # the frame holds them
        own = _frame(written)
        return None if own is None or own[2] != frame[2] else (own[0], own[1])
    if not records:
        return frame[0], frame[1]
    return frame[0] + b",".join(map(encode, records)) + separator, frame[1]


def _frame(empty: object) -> tuple[bytes, bytes, str | None] | None:
    """What the target writes before and after its records, and the key of its records (`None`
    for a bare list), from a conversation without messages; `None` when that shows no one
    place."""
    if as_array(empty) == []:
        return b"[", b"]", None
    body = as_object(empty)
    if body is None:
        return None
    keys = [key for key, value in body.items() if as_array(value) == []]
    if len(keys) != 1:
        return None
    marked = encode({key: [_MARK] if key == keys[0] else value for key, value in body.items()})
    mark = encode([_MARK])
    at = marked.find(mark)
    if at < 0 or marked.find(mark, at + 1) >= 0:
        return None
    return marked[:at] + b"[", b"]" + marked[at + len(mark) :], keys[0]


def _records(written: object, empty: object, key: str | None) -> list[object] | None:
    """The records of a dumped form, when its frame is the empty conversation's."""
    if key is None:
        return as_array(written)
    body, frame = as_object(written), as_object(empty)
    if body is None or frame is None or list(body) != list(frame):
        return None
    if any(value != frame[name] for name, value in body.items() if name != key):
        return None
    return as_array(body[key])
