"""What a rendered page shows, worked out once for both writers: which result answers which
call (by the linkage, not by position), where each diagnostic and note goes, and the counts
of the header."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from message_ir import AssistantMessage, Diagnostic, Message, ToolCall, ToolResultMessage, validate_transcript
from message_ir.adapters import Branch, Conversation, Note

RESULT_CODES = frozenset(
    {
        "ORPHAN_TOOL_RESULT",
        "DUPLICATE_TOOL_RESULT",
        "TOOL_RESULT_BEFORE_CALL",
        "TOOL_NAME_MISMATCH",
        "RESULT_NOT_ADJACENT",
        "RESULT_NOT_FIRST",
        "EMPTY_ERROR_RESULT",
    }
)
"""Codes about a result rather than its call: placed beside the result when both are there."""


class Answer(NamedTuple):
    """One result of a call: where it is and whether it comes where the providers expect it
    (right after the call's message, among other results)."""

    at: int
    """The index of the result's message."""
    result: ToolResultMessage
    in_place: bool


class View(NamedTuple):
    """A conversation with everything placed: what the writers walk."""

    conversation: Conversation
    title: str
    answers: dict[int, dict[int, tuple[Answer, ...]]]
    """Message index -> block index of a call -> its results, in file order."""
    answered: dict[int, tuple[int, int] | None]
    """Result message index -> (message index, block index) of its call, or `None` (an orphan)."""
    problems: dict[int, tuple[Diagnostic, ...]]
    """Message index -> the diagnostics placed beside it (all of them, for the header)."""
    call_problems: dict[tuple[int, int], tuple[Diagnostic, ...]]
    """(message index, block index) of a call -> those of its message's diagnostics that name it."""
    beside: dict[int, tuple[Diagnostic, ...]]
    """Message index -> its diagnostics that are not shown with one of its calls."""
    file_problems: tuple[Diagnostic, ...]
    """The diagnostics about the whole file, or that no message can be named for."""
    diagnostics: tuple[Diagnostic, ...]
    notes: dict[int, tuple[Note, ...]]
    file_notes: tuple[Note, ...]
    branches: tuple[Branch, ...]
    remarks: tuple[str, ...]
    """What the page says of how it was read (a half-written last line left out, ...)."""
    calls: int
    results: int
    first: int = 0
    """The index of the conversation's first message (a segment's: see `view`)."""


def view(
    conversation: Conversation,
    diagnostics: Sequence[Diagnostic],
    *,
    title: str,
    branches: Sequence[Branch],
    remarks: Sequence[str],
    indexed: bool,
    places: Mapping[str, int] | None = None,
    first: int = 0,
) -> View:
    """Pair calls with results and place diagnostics and notes (`indexed`: the diagnostics'
    `message_index` is the conversation's own, as `validate_transcript` gives it; `places`:
    the source path each message came from, when the source was loaded here). With `first`,
    the conversation is a segment of a longer one (`Trees.segments`) whose messages are
    numbered from `first`, as its notes, places and diagnostics number them; its results
    answer its own calls."""
    messages = conversation.messages
    calls: dict[str, list[tuple[int, int]]] = {}
    call_count = 0
    for index, message in enumerate(messages, first):
        if type(message) is AssistantMessage:
            for number, block in enumerate(message.content):
                if type(block) is ToolCall:
                    calls.setdefault(block.id, []).append((index, number))
                    call_count += 1
    answers: dict[int, dict[int, list[Answer]]] = {}
    answered: dict[int, tuple[int, int] | None] = {}
    result_count = 0
    for index, message in enumerate(messages, first):
        if type(message) is not ToolResultMessage:
            continue
        result_count += 1
        place = _call_of(calls.get(message.tool_call_id, ()), index)
        answered[index] = place
        if place is not None:
            call_index, number = place
            in_place = call_index < index and _only_results_between(messages, call_index - first, index - first)
            answers.setdefault(call_index, {}).setdefault(number, []).append(Answer(index, message, in_place))
    placed, file_level = _place_diagnostics(conversation, diagnostics, calls, indexed, places or {}, first)
    call_problems: dict[tuple[int, int], list[Diagnostic]] = {}
    beside: dict[int, list[Diagnostic]] = {}
    for index, found in placed.items():
        message = messages[index - first]
        numbers: dict[str, int] = {}
        if type(message) is AssistantMessage:
            numbers = {block.id: place for place, block in enumerate(message.content) if type(block) is ToolCall}
        for diagnostic in found:
            named = numbers.get(_quoted(diagnostic.message) or "")
            if named is None:
                beside.setdefault(index, []).append(diagnostic)
            else:
                call_problems.setdefault((index, named), []).append(diagnostic)
    notes: dict[int, list[Note]] = {}
    file_notes: list[Note] = []
    for note in conversation.notes:
        if note.message_index is None or not first <= note.message_index < first + len(messages):
            file_notes.append(note)
        else:
            notes.setdefault(note.message_index, []).append(note)
    return View(
        conversation=conversation,
        title=title,
        answers={
            index: {number: tuple(found) for number, found in by_block.items()} for index, by_block in answers.items()
        },
        answered=answered,
        problems={index: tuple(found) for index, found in placed.items()},
        call_problems={place: tuple(found) for place, found in call_problems.items()},
        beside={index: tuple(found) for index, found in beside.items()},
        file_problems=tuple(file_level),
        diagnostics=tuple(diagnostics),
        notes={index: tuple(found) for index, found in notes.items()},
        file_notes=tuple(file_notes),
        branches=tuple(branches),
        remarks=tuple(remarks),
        calls=call_count,
        results=result_count,
        first=first,
    )


def _call_of(places: Sequence[tuple[int, int]], result_index: int) -> tuple[int, int] | None:
    """The call a result answers: the last call with its ID before it, else the first after
    it (a result that came too early), else `None`."""
    before = [place for place in places if place[0] < result_index]
    if before:
        return before[-1]
    return places[0] if places else None


def _only_results_between(messages: Sequence[Message], start: int, end: int) -> bool:
    return all(type(messages[index]) is ToolResultMessage for index in range(start + 1, end))


def _place_diagnostics(
    conversation: Conversation,
    diagnostics: Sequence[Diagnostic],
    calls: dict[str, list[tuple[int, int]]],
    indexed: bool,
    places: Mapping[str, int],
    first: int,
) -> tuple[dict[int, list[Diagnostic]], list[Diagnostic]]:
    """Each diagnostic beside the message it concerns, else at file level.

    A format's `check` gives paths into the source's JSON, whose records are not the IR's
    messages one for one. A diagnostic goes beside: the message that came from the record its
    path is in (when the source was loaded here, `places`); else the message of a note at the
    same source path; the message where the IR's own check finds the same problem for the same
    call; the message holding the call (or result) its text names; the message of a note on
    the same source record. What none of these place concerns the file.
    """
    messages = conversation.messages
    by_path: dict[str, int] = {}
    for note in conversation.notes:
        if note.message_index is not None:
            by_path[note.path] = note.message_index
    by_record: dict[str, int] = {}
    for note in conversation.notes:
        if note.message_index is not None:
            by_record.setdefault(_record(note.path), note.message_index)
    own: dict[tuple[str, str | None], list[int]] = {}
    for found in validate_transcript(messages):
        if found.message_index is not None:
            own.setdefault((found.code, _quoted(found.message)), []).append(found.message_index + first)
    results_of: dict[str, int] = {}
    for index, message in enumerate(messages, first):
        if type(message) is ToolResultMessage:
            results_of.setdefault(message.tool_call_id, index)
    placed: dict[int, list[Diagnostic]] = {}
    file_level: list[Diagnostic] = []
    for diagnostic in diagnostics:
        where = _from_place(diagnostic.path, places) if places else None
        if where is None:
            where = _index_of(diagnostic, first + len(messages), by_path, by_record, own, calls, results_of, indexed)
        if where is None:
            file_level.append(diagnostic)
        else:
            placed.setdefault(where, []).append(diagnostic)
    return placed, file_level


def _index_of(
    diagnostic: Diagnostic,
    count: int,
    by_path: Mapping[str, int],
    by_record: Mapping[str, int],
    own: dict[tuple[str, str | None], list[int]],
    calls: dict[str, list[tuple[int, int]]],
    results_of: dict[str, int],
    indexed: bool,
) -> int | None:
    if indexed:
        index = diagnostic.message_index
        return index if index is not None and index < count else None
    exact = by_path.get(diagnostic.path)
    if exact is not None:
        return exact
    named = _quoted(diagnostic.message)
    same = own.get((diagnostic.code, named))
    if same:
        return same.pop(0)
    if named is not None:
        if diagnostic.code in RESULT_CODES and named in results_of:
            return results_of[named]
        if named in calls:
            return calls[named][0][0]
        if named in results_of:
            return results_of[named]
    if diagnostic.message_index is None:
        return None
    return by_record.get(_record(diagnostic.path))


def _from_place(path: str, places: Mapping[str, int]) -> int | None:
    """The message whose record (or block's record) holds `path`: the longest of `places`
    that `path` starts with, cut at a `.` or a `[`."""
    while path:
        found = places.get(path)
        if found is not None:
            return found
        cut = max(path.rfind("."), path.rfind("["))
        if cut <= 0:
            return None
        path = path[:cut]
    return None


def _record(path: str) -> str:
    """The source record a path starts in (`$[7]` of `$[7].payload.arguments`)."""
    end = path.find("]")
    return path[: end + 1] if path.startswith("$[") and end > 0 else path


def _quoted(text: str) -> str | None:
    """The first `'...'` of a message (the call ID a linkage message names), or `None`."""
    parts = text.split("'", 2)
    return parts[1] if len(parts) == 3 else None
