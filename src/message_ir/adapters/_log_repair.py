"""`repair` of a session log a segment at a time, so that a log of gigabytes is not held
whole when repair changes nothing, or only its last segment (a call whose result was lost
when the agent was stopped: the usual case).

A segment (`_segments`) ends only where no use of a call ID is on both sides, so every
linkage problem `repair_transcript` mends lies inside one segment: repairing each segment's
messages alone makes the fixes a repair of the whole branch makes (the tests compare the
two on the real logs and on mutations of them, cut at every place a segment may end).

What is written: the log as read when repair changes nothing; when it changes the last
segment only, the lines before it as read, then the repaired segment as the format writes
it, which is what writing the whole repaired log gives (the tests hold it to that; for pi,
whose writer spells some escapes its own way, the same log once read). A log whose other
segments change, or in which repair drops a result, is repaired whole: writing a middle
segment alone is not what writing the whole log gives (a new result line in a tree is
linked on the branch its segment ends on, which may be an abandoned one, and a Codex line
that is no message can land on the other side of a dropped result), and the line that hung
from a dropped line is linked to a line of the branch that may lie in an earlier segment.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import NamedTuple

from message_ir import Fix, Message, repair_transcript
from message_ir.adapters._conversation import Conversation
from message_ir.adapters._log_file import copy_range
from message_ir.adapters._segments import Segment


class SegmentFixes(NamedTuple):
    """One segment, and what repair of it fixes."""

    segment: Segment
    fixes: tuple[Fix, ...]
    """Its fixes, each `message_index` (and a moved result's "in message N") counted in the
    whole branch, as a repair of the whole branch counts them."""
    messages: tuple[Message, ...]
    """Its messages once repaired."""


def changed(fixes: Iterable[Fix]) -> bool:
    """Whether repair changed anything (an `unrepaired` fix changes nothing)."""
    return any(fix.action != "unrepaired" for fix in fixes)


def segment_fixes(segments: Iterable[Segment], *, missing_result_content: str) -> Iterator[SegmentFixes]:
    """Each segment of a log with the fixes `repair_transcript` makes in it. Raises as
    iterating `segments` raises (`FormatError` at the first segment with format problems)."""
    for segment in segments:
        yield _fixes(segment, missing_result_content)


def _fixes(segment: Segment, missing_result_content: str) -> SegmentFixes:
    repair = repair_transcript(segment.conversation.messages, missing_result_content=missing_result_content)
    fixes = tuple(_moved(fix, segment.first_message) for fix in repair.fixes)
    return SegmentFixes(segment, fixes, repair.messages)


class LogRepair(NamedTuple):
    """What a repair a segment at a time found."""

    changed: SegmentFixes | None
    """The last segment, when repair changes it (and no other); `None` when repair changes
    nothing."""
    clean: bool = False
    """Whether the fast path of `check` took every segment (`repair_units`): `check` of the
    log says nothing."""


def repair_log(
    segments: Iterable[Segment | int], *, missing_result_content: str, each: Callable[[SegmentFixes], object]
) -> LogRepair | None:
    """Find what repair of a log fixes, a segment at a time (`each` is given each loaded
    segment's fixes, in order; a segment given as its count of messages is one `check` says
    nothing of, see `repair_units`); `None` as soon as repair changes a segment that is not the
    last, or drops a result (the log is to be repaired whole). Raises as `segment_fixes` raises."""
    last: SegmentFixes | None = None
    clean = True
    for segment in segments:
        if last is not None:
            return None  # a segment repair changes, with another after it
        if type(segment) is int:
            continue  # nothing to fix
        assert type(segment) is Segment
        clean = False
        done = _fixes(segment, missing_result_content)
        if any(fix.action == "dropped_result" for fix in done.fixes):
            return None  # a line dropped from a tree is relinked by what the whole log holds
        each(done)
        if changed(done.fixes):
            last = done
    return LogRepair(last, clean)


def write_repaired(
    source: object, last: SegmentFixes, dumps: Callable[[Conversation], bytes], write: Callable[[bytes], object]
) -> None:
    """Write a log given as bytes or as a `LogFile` whose last segment repair changed: its
    lines before that segment as read, then the segment repaired, as `dumps` writes it."""
    segment = last.segment
    copy_range(source, 0, segment.first_byte, write)
    write(dumps(segment.conversation.replace(messages=last.messages)))


def _moved(fix: Fix, messages: int) -> Fix:
    """A segment's fix in the whole branch's terms: its messages start at `messages`."""
    if not messages:
        return fix
    text = fix.message
    if fix.code == "TOOL_RESULT_BEFORE_CALL":  # "... after its call in message N"
        head, _, number = text.rpartition(" ")
        if number.isdigit():
            text = f"{head} {int(number) + messages}"
    return Fix(fix.code, fix.message_index + messages, fix.action, text, fix.dropped)
