"""What `repair` of a session log would fix, found a segment at a time, so that a log of
gigabytes is never held to learn that there is nothing to repair.

A segment (`_segments`) ends only where no use of a call ID is on both sides, so every
linkage problem `repair_transcript` mends lies inside one segment: repairing each segment's
messages alone makes the fixes a repair of the whole branch makes (the tests compare the
two on the real logs and on mutations of them, cut at every place a segment may end).

Only the fixes are taken from here. Writing a changed segment alone is not what writing the
whole repaired log gives: a new result line in a log whose lines form a tree is linked on
the branch of the segment, not of the whole log, and a Codex line that is no message can
land on the other side of a dropped result. So the command line writes a log back from here
only when repair changes nothing, and repairs a log it changes whole.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import NamedTuple

from message_ir import Fix, repair_transcript
from message_ir.adapters._segments import Segment


class SegmentFixes(NamedTuple):
    """One segment, and what repair of it fixes."""

    segment: Segment
    fixes: tuple[Fix, ...]
    """Its fixes, each `message_index` (and a moved result's "in message N") counted in the
    whole branch, as a repair of the whole branch counts them."""


def changed(fixes: Iterable[Fix]) -> bool:
    """Whether repair changed anything (an `unrepaired` fix changes nothing)."""
    return any(fix.action != "unrepaired" for fix in fixes)


def segment_fixes(segments: Iterable[Segment], *, missing_result_content: str) -> Iterator[SegmentFixes]:
    """Each segment of a log with the fixes `repair_transcript` makes in it. Raises as
    iterating `segments` raises (`FormatError` at the first segment with format problems)."""
    for segment in segments:
        repair = repair_transcript(segment.conversation.messages, missing_result_content=missing_result_content)
        yield SegmentFixes(segment, tuple(_moved(fix, segment.first_message) for fix in repair.fixes))


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
