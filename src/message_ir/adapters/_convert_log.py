"""`convert` of a session log a segment at a time, so that a log of gigabytes is never held
whole: each segment (`_segments`) is converted alone (`convert_alone`) and its records are
written as soon as they are made, inside the frame the target writes around them.

What is written is what writing `convert` of the whole log gives, byte for byte (the tests
compare the two on the real logs and on mutations of them, cut at every place a segment may
end), and the notes are `convert`'s, in its order (given by step: the caller lists each
step's after the step before, for the whole log). A log that cannot be so converted says so
before its end (`False`): what was written is to be thrown away and the log converted whole.
That is when a segment cannot be converted alone (see `convert_alone`), when the target is a
session log (its records link to the records before them) or writes no frame of its own around
the records (its empty conversation is no bare list, and no object with one empty list), or
when a segment's frame differs from the empty conversation's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Final

from message_ir.adapters._conversation import Conversation, Note
from message_ir.adapters._convert import convert_alone
from message_ir.adapters._json import as_array, as_object, encode
from message_ir.adapters._registry import FORMATS
from message_ir.adapters._segments import Segment

_MARK: Final = "\x00message-ir: the records\x00"
"""What stands for the records where a frame is written (no JSON value of a frame holds it)."""


def write_converted_log(
    segments: Iterable[Segment], to: str, write: Callable[[bytes], object], note: Callable[[int, Note], object]
) -> bool:
    """Write, a piece at a time, `dumps(convert(log, to))` of the log whose branch `segments`
    holds; `note(step, note)` is given `convert`'s notes of each segment by step (0 to 3).
    `False` when the log is to be converted whole (see the module docstring): what was
    written then is not the output. Raises as iterating `segments` raises."""
    declared = FORMATS[to]
    if declared.json_lines or declared.payload:  # a session log
        return False
    empty = declared.dump(Conversation(format=to, messages=()))
    frame = _frame(empty)
    if frame is None:
        return False
    before, after, key = frame
    write(before)
    separator = b""
    for segment in segments:
        done = convert_alone(segment.conversation, to, segment.first_message)
        if done is None:
            return False
        converted, steps = done
        records = _records(declared.dump(converted), empty, key)
        if records is None:
            return False
        for record in records:
            write(separator + encode(record))
            separator = b","
        for step, notes in enumerate(steps):
            for each in notes:
                note(step, each)
    write(after)
    return True


def _frame(empty: object) -> tuple[bytes, bytes, str | None] | None:
    """What the target writes before and after its records, and the key of its records (`None`
    for a bare list), from its empty conversation; `None` when that shows no one place."""
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
    """The records of a segment's dumped form, when its frame is the empty conversation's."""
    if key is None:
        return as_array(written)
    body, frame = as_object(written), as_object(empty)
    if body is None or frame is None or list(body) != list(frame):
        return None
    if any(value != frame[name] for name, value in body.items() if name != key):
        return None
    return as_array(body[key])
