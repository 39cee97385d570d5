"""A session log read in memory that does not grow with the log: a first pass plans
(`_first_pass`), a second reads one segment at a time, for `check` (`check_segments`) and for
`load_checked` a segment at a time (`Format.segments`: `render` writes a page so).

Loading a whole log holds its conversation (every message, and every line that is not one,
in `meta`): about four times the log's size. A log of gigabytes cannot be read so. Here the
second pass reads the lines again, a segment of about `SEGMENT_BYTES` at a time, with the
format's own reader and rules; the reader numbers a segment's lines from its first line's
number in the log (`OnBranch.first`), so that its paths, made-up message IDs and `meta` are
those a load of the whole log gives.

A segment ends only where reading it alone says what reading the whole log says: before an
assistant's message line on the branch that follows a user's or a result's (a new turn: the
order of results, their adjacency and the turns' counts depend on nothing before it), and
where no use of a call ID is on both sides (a call and every result naming it until the ID
is called again; a result and the call that comes after it) nor any API message (its lines),
and where no line hangs from a line after the cut (a log written parents first has none).
A segment grows past `SEGMENT_BYTES` only while a call is open. A call ID used again in a
later segment is renamed there as a whole load renames it: the reader's state of the reused
IDs goes on from segment to segment (`Renames`), and the source IDs that hold a `~` are
avoided by every rename from the start (as a whole load avoids them once a rename meets one:
the same names). Such a log takes no fast path (a skipped segment would not carry its
renames).

Held for the whole log: what the first pass keeps (about 40 bytes a line and a digest per
ID, see `_first_pass`); then, for `check`, the diagnostics found, since `check` sorts them
at the end, and reports only the format's problems when there are any.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from itertools import compress
from typing import Final, NamedTuple

import msgspec

from message_ir import Diagnostic
from message_ir.adapters._checks import Checked, Rules, by_index, checked_loaded, found_parts, unreadable
from message_ir.adapters._conversation import Conversation, FormatError, Note
from message_ir.adapters._first_pass import Plan, digest, plan
from message_ir.adapters._load_state import LoadState
from message_ir.adapters._log_file import LogFile, is_text, read_range, text_blocks
from message_ir.adapters._tree import Keys, OnBranch, Renames

SEGMENT_BYTES: Final = 4_000_000
"""About how many bytes of lines one segment holds (more while a call is open)."""

STREAMED_BLOCK: Final = 1 << 18
"""How many bytes of lines a fast path that streams a whole log is given at a time (`streams`
of `check_segments`): few, so that a log it gives up on at its start costs little (a block's
deep lines are found at once), and enough that a block's own cost is nothing."""

SegmentReader = Callable[[object, frozenset[str], bool, OnBranch], LoadState]
"""A log format's pass over one segment of its source, given what the first pass found."""

Clean = Callable[[bytes, "frozenset[int] | None"], "int | None"]
"""A log format's fast path: for a segment (its lines, and those of them on the branch) that
is surely clean, how many IR messages it holds (its careful check is skipped); `None` when it
may not be clean. It is not asked of a log whose call IDs are used again (the renames go on
from segment to segment), nor once a segment's reader carried something to the next (a Codex
record number): a segment it takes must be one whose careful reading would carry nothing."""


class CleanUntil(NamedTuple):
    """What a fast path of a whole log says when it read every line and only the last ones
    may not be clean: the lines before `line` (which starts `byte` bytes into the log's text)
    are, holding `messages` IR messages, and a segment may start at `line` (see the module
    docstring: nothing before it depends on what comes after, and back)."""

    line: int
    byte: int
    messages: int


CleanAlone = Callable[[Iterable[bytes]], "int | CleanUntil | None"]
"""A log format's fast path for a whole log, asked before any first pass, given as blocks of
whole lines (each ending in a newline), in order: how many IR messages it holds when it is
surely clean whatever the first pass would find of its branch, where its clean lines end
when only its last lines may not be (`CleanUntil`: those are checked alone, as a segment),
else `None` (then the log is planned and checked as any other). Asked only of a log shorter
than a segment (one block), unless the format says that it reads a log of any size in
memory that does not grow with the log's text (`streams`)."""


class _Segment(NamedTuple):
    start: int
    offset: int
    """Where its first line starts in the log's text."""
    data: bytes
    on: frozenset[int] | None
    """Its lines on the branch, counted from its start (for the fast path)."""
    branch: frozenset[int] | None
    """The same lines numbered in the whole log (for the reader)."""


def _segments(source: object, found: Plan, size: int) -> Iterator[_Segment]:
    """The log's lines, a segment at a time, with its lines on the branch: each segment is
    read from the text at once (the first pass found where its first line starts), and its
    last line ends in a newline."""
    text = source.encode("utf-8", "surrogatepass") if type(source) is str else source
    cuts, starts, on = found.cuts, found.starts, found.on
    start = offset = 0
    for cut, cut_offset in zip(cuts, starts, strict=True):
        if cut_offset - offset >= size:
            yield _segment(start, offset, read_range(text, offset, cut_offset), on, cut)
            start, offset = cut, cut_offset
    data = read_range(text, offset, None)
    if data and not data.endswith(b"\n"):
        data += b"\n"
    yield _segment(start, offset, data, on, start + data.count(b"\n"))


def _segment(start: int, offset: int, data: bytes, on: bytearray | None, end: int) -> _Segment:
    if on is None:
        return _Segment(start, offset, data, None, None)
    window = on[start:end]  # a byte per line: 1 on the branch
    return _Segment(
        start,
        offset,
        data,
        frozenset(compress(range(end - start), window)),
        frozenset(compress(range(start, end), window)),
    )


def _moved(diagnostic: Diagnostic, messages: int) -> Diagnostic:
    """A segment's diagnostic in the whole log's terms: an IR message named in the text moved
    by `messages` (its line and path are the whole log's: the reader numbers from the
    segment's first line)."""
    if diagnostic.code != "TOOL_RESULT_BEFORE_CALL":
        return diagnostic
    text, _, number = diagnostic.message.rpartition(" ")
    if not number.isdigit():
        return diagnostic
    return Diagnostic(diagnostic.code, diagnostic.message_index, diagnostic.path, f"{text} {int(number) + messages}")


def check_segments(
    source: object,
    read: SegmentReader,
    keys: Keys,
    rules: Rules,
    leaf: str | None,
    size: int = SEGMENT_BYTES,
    *,
    clean: Clean | None = None,
    alone: CleanAlone | None = None,
    streams: bool = False,
) -> tuple[Diagnostic, ...]:
    """`check` of a log given as text or as a `LogFile`, a segment at a time (see the module
    docstring): what `check` of the whole log gives. Never raises but `OSError`, for a
    `LogFile` that cannot be read. A log shorter than a segment that `alone` finds clean is
    read once, with no first pass (`check` of a session log as it grows: one pass, not two);
    with `streams`, a log of any size is (a clean log of the usual shape: one pass, not two;
    one that is not is read again from its start once `alone` gives up)."""
    try:
        if alone is not None and leaf is None:
            if type(source) is str:
                source = source.encode("utf-8", "surrogatepass")  # once, for both passes
            if streams:
                found = alone(text_blocks(source, STREAMED_BLOCK))
            else:  # a log shorter than a segment, as one block
                data = _tail(source, 0, size)
                found = None if data is None else alone((data,))
            if type(found) is int:
                return ()
            if type(found) is CleanUntil:
                tail = _tail(source, found.byte, size)
                if tail is not None:
                    return _tail_checked(tail, read, rules, found)
        return _checked(source, read, rules, plan(source, keys, leaf, size=size), size, clean)
    except OSError:
        raise
    except Exception as error:  # noqa: BLE001  # as `check` of the whole log: said, never raised
        return unreadable(error)


def _tail(source: object, start: int, size: int) -> bytes | None:
    """The text of a log given as bytes or as a `LogFile` from `start` to its end, each line
    ending in a newline, when it is shorter than a segment; `None` for a longer one (told from
    its length before it is read)."""
    if type(source) is LogFile:
        length = os.stat(source.path).st_size if source.end is None else min(os.stat(source.path).st_size, source.end)
    else:
        assert type(source) is bytes  # a log given as bytes or as a `LogFile`
        length = len(source)
    if length - start >= size:
        return None
    data = read_range(source, start, None)
    if data and not data.endswith(b"\n"):
        data += b"\n"
    return data if len(data) < size else None  # (a file may have grown between the two reads)


def _tail_checked(data: bytes, read: SegmentReader, rules: Rules, found: CleanUntil) -> tuple[Diagnostic, ...]:
    """`check` of a log whose lines before `found.line` a fast path found clean: what the
    careful check of the rest (`data`), read alone as a segment, says (`_checked`'s, for a
    log of one segment after its clean ones)."""
    state = read(data, frozenset(), True, OnBranch(None, first=found.line))  # no call ID used again: no rename
    if state.problems:
        return tuple(sorted(state.problems, key=by_index))
    conversation, origins = state.finish(state.container_meta)
    parts = found_parts(conversation, origins, rules, example=False)
    return tuple(sorted((_moved(diagnostic, found.messages) for part in parts for diagnostic in part), key=by_index))


def _read_segments(
    source: object, read: SegmentReader, found: Plan, size: int, clean: Clean | None
) -> Iterator[tuple[_Segment, LoadState | int]]:
    """Each segment with the reader's state after it, or with its IR message count when the
    fast path takes it. What a segment's reading leaves for the next (a Codex record's
    number, the renames of reused call IDs) goes on to it."""
    carried: object = None
    renames = Renames(frozenset(), frozenset(), {}, {})
    for segment in _segments(source, found, size):
        fast = None if found.reused or carried is not None else clean  # (see `Clean`)
        count = None if fast is None else fast(segment.data, segment.on)
        if count is not None:
            yield segment, count
            continue
        branch = OnBranch(segment.branch, carried, renames, segment.start)
        state = read(segment.data, found.avoid, True, branch)  # `avoid`: no rename meets a source ID
        carried = state.carried
        renames = _renames(state, found.reused)
        yield segment, state


def _checked(
    source: object, read: SegmentReader, rules: Rules, found: Plan, size: int, clean: Clean | None
) -> tuple[Diagnostic, ...]:
    problems: list[Diagnostic] = []
    parts: tuple[list[Diagnostic], ...] = ([], [], [], [])
    messages = 0
    for _, state in _read_segments(source, read, found, size, clean):
        if type(state) is int:
            messages += state  # nothing to say; its messages counted for the next segments' texts
            continue
        assert type(state) is LoadState
        if state.problems:
            problems.extend(state.problems)
            continue
        if problems:
            continue  # only the problems are reported
        conversation, origins = state.finish(state.container_meta)  # no problems: it raises none
        for kept, new in zip(parts, found_parts(conversation, origins, rules, example=False), strict=True):
            kept.extend(_moved(diagnostic, messages) for diagnostic in new)
        messages += len(conversation.messages)
    if problems:
        return tuple(sorted(problems, key=by_index))
    return tuple(sorted((*parts[0], *parts[1], *parts[2], *parts[3]), key=by_index))


class Segment(NamedTuple):
    """A run of a session log's branch, loaded and checked alone (`Format.segments`). Its
    messages are the branch's from `first_message` on; all else is in the whole log's terms."""

    first_line: int
    """The log's line (0-based) the segment starts at."""
    first_message: int
    """The index of the segment's first message in the whole branch's conversation."""
    conversation: Conversation
    """The segment's messages; its notes' `message_index` counts from the branch's first
    message (the first segment also holds the notes on the branch the whole log's load gives)."""
    diagnostics: tuple[Diagnostic, ...]
    """What `check` of the whole log says of these lines, sorted as `check` sorts."""
    places: dict[str, int]
    """Where each message came from (as `Checked.places`), in the whole log's terms."""
    first_byte: int = 0
    """Where `first_line` starts in the log's text (bytes from its start, in UTF-8 for a log
    given as `str`); 0 for a log given as parsed values, read as one segment."""


Segments = Callable[[object, "str | None"], Iterator[Segment]]
"""`Format.segments`: a log's branch (ending at a leaf, `None`: the one resumed), loaded and
checked a segment at a time."""


def segments_function(
    format: str,
    read: SegmentReader,
    keys: Keys,
    rules: Rules,
    whole: Callable[[object, str | None], Checked],
    *,
    trees: bool,
    clean: Clean | None = None,
    streamed: CleanAlone | None = None,
) -> Segments:
    """`Format.segments` of a log format: a log given as text or as a `LogFile` in segments,
    any other source whole (`whole`, its `load_checked`); `trees`: whether its lines form a
    tree, so that a leaf may be named; `clean`: the fast path of its `check`, which
    `repair_units` skips segments by; `streamed`: its fast path of a whole log of any size
    (`check_segments`' `alone` with `streams`), which `repair_units` asks first."""

    def segments(source: object, leaf: str | None = None) -> Iterator[Segment]:
        if leaf is not None and not trees:
            raise ValueError(f"{format} logs have no branches: only a log whose lines form a tree has")
        if is_text(source):
            yield from loaded_segments(format, source, read, keys, rules, leaf)
        else:
            yield Segment(0, 0, *whole(source, leaf))

    segments.__module__ = f"message_ir.adapters.{format}"
    segments.__qualname__ = segments.__name__ = "segments"

    def unchecked(source: object) -> Iterator[Segment]:
        return loaded_segments(format, source, read, keys, rules, None, checked=False)

    _UNCHECKED[format] = (segments, unchecked)
    if clean is not None:

        def units(source: object, size: int = SEGMENT_BYTES) -> Iterator[Segment | int]:
            if streamed is not None:
                return streamed_units(format, source, read, keys, rules, size, clean, streamed)
            return _segments_alone(format, source, read, keys, rules, None, size, clean)

        _SKIPPING[format] = (segments, units)
    return segments


Units = Callable[[object, int], Iterator["Segment | int"]]
"""A log's resumed branch for `repair` (see `repair_units`), in segments of about the given size."""

_UNCHECKED: dict[str, tuple[Segments, Callable[[object], Iterator[Segment]]]] = {}
"""Per log format: its `Format.segments`, and its resumed branch's segments loaded without
`check`'s diagnostics (`segments_function` puts them here)."""

_SKIPPING: dict[str, tuple[Segments, Units]] = {}
"""Per log format whose `check` has a fast path: its `Format.segments`, and its segments for
`repair` (`segments_function` puts them here)."""


def unchecked_segments(format: str, segments: Segments, source: object) -> Iterator[Segment]:
    """The segments of the resumed branch of a log of `format`, for what needs its messages
    only (`convert`): `segments(source, None)`, but that `check` is not run on them (each
    `Segment` has no `diagnostics` and no `places`). A log that is not of its format raises
    `FormatError` as `segments` does. For `segments` other than the format's own, or a source
    not given as text or a `LogFile`, `segments(source, None)` itself."""
    registered = _UNCHECKED.get(format)
    if registered is None or registered[0] is not segments or not is_text(source):
        return segments(source, None)
    return registered[1](source)


def repair_units(format: str, segments: Segments, source: object) -> Iterator[Segment | int]:
    """The segments of the resumed branch of a log of `format`, for `repair`: `segments(source,
    None)`, except that a segment the format's fast path finds clean is its count of IR
    messages, neither loaded nor checked. `check` says nothing of such a segment, so repair has
    nothing to fix in it. Without a fast path, or for `segments` other than the format's own,
    or for a source not given as text or a `LogFile`, every segment is loaded."""
    registered = _SKIPPING.get(format)
    if registered is None or registered[0] is not segments or not is_text(source):
        return segments(source, None)
    return registered[1](source, SEGMENT_BYTES)


def streamed_units(
    format: str,
    source: object,
    read: SegmentReader,
    keys: Keys,
    rules: Rules,
    size: int,
    clean: Clean | None,
    alone: CleanAlone,
) -> Iterator[Segment | int]:
    """`repair_units` of a log whose format's fast path reads a whole log of any size
    (`alone`, as `check_segments` asks it with `streams`): a clean log is one count of IR
    messages; one whose clean lines end before its last turns (`CleanUntil`) is their count,
    then the rest loaded and checked alone as a segment (when shorter than `size`); any other
    is planned and read a segment at a time (`_segments_alone`)."""
    if type(source) is str:
        source = source.encode("utf-8", "surrogatepass")  # once, for every pass
    found = alone(text_blocks(source, STREAMED_BLOCK))
    if type(found) is int:
        yield found
        return
    if type(found) is CleanUntil:
        tail = _tail(source, found.byte, size)
        if tail is not None:
            yield found.messages
            state = read(tail, frozenset(), True, OnBranch(None, first=found.line))  # no call ID used again: no rename
            yield _segment_of(format, state, rules, found.line, found.messages, found.byte)
            return
    yield from _segments_alone(format, source, read, keys, rules, None, size, clean)


def loaded_segments(
    format: str,
    source: object,
    read: SegmentReader,
    keys: Keys,
    rules: Rules,
    leaf: str | None,
    size: int | None = None,
    *,
    checked: bool = True,
) -> Iterator[Segment]:
    """A log given as text or as a `LogFile`, loaded and checked a segment at a time (see the
    module docstring): together, the segments hold what `load_checked` of the whole log
    gives. Raises `ValueError` for a `leaf` no line has (before the first segment),
    `FormatError` at the first segment with format problems (with that segment's), `OSError`
    for a `LogFile` that cannot be read.

    A segment is given once the next one with a message is read: an instruction at its end
    stands before that message (`Instruction.before`), as in a whole load. `size`: about how
    many bytes a segment holds (`None`: `SEGMENT_BYTES`, read when called). Without `checked`,
    `check` is not run on the segments (no `diagnostics`, no `places`)."""
    size = SEGMENT_BYTES if size is None else size
    held: list[Segment] = []  # segments whose instructions at the end stand before a message to come
    for segment in _segments_alone(format, source, read, keys, rules, leaf, size, None, checked=checked):
        assert type(segment) is Segment  # no fast path: every segment is loaded
        messages = segment.conversation.messages
        if messages:
            for waiting in held:
                yield _standing_before(waiting, messages[0].id)
            held = []
        held.append(segment)
    yield from held


def _standing_before(segment: Segment, message_id: str) -> Segment:
    """`segment` with its instructions that stand before no message of its own standing
    before the message `message_id` of a later segment."""
    instructions = segment.conversation.instructions
    if all(instruction.before is not None for instruction in instructions):
        return segment
    placed = tuple(
        instruction if instruction.before is not None else msgspec.structs.replace(instruction, before=message_id)
        for instruction in instructions
    )
    return segment._replace(conversation=msgspec.structs.replace(segment.conversation, instructions=placed))


def _segments_alone(
    format: str,
    source: object,
    read: SegmentReader,
    keys: Keys,
    rules: Rules,
    leaf: str | None,
    size: int,
    clean: Clean | None,
    *,
    checked: bool = True,
) -> Iterator[Segment | int]:
    """Each segment as read alone (an instruction at its end stands before no message); with
    `clean`, a segment the fast path takes is its count of IR messages instead."""
    found = plan(source, keys, leaf, with_notes=True, size=size)
    messages = 0
    for segment, state in _read_segments(source, read, found, size, clean):
        if type(state) is int:
            messages += state
            yield state
            continue
        assert type(state) is LoadState
        branch_notes = found.notes if segment.start == 0 else ()  # a load's notes of the branch come first
        loaded = _segment_of(format, state, rules, segment.start, messages, segment.offset, branch_notes, checked)
        yield loaded
        messages += len(loaded.conversation.messages)


def _segment_of(
    format: str,
    state: LoadState,
    rules: Rules,
    first_line: int,
    messages: int,
    first_byte: int,
    branch_notes: tuple[Note, ...] = (),
    checked: bool = True,
) -> Segment:
    """The `Segment` a reader's pass over one segment made (starting at `first_line`, after
    `messages` IR messages of the branch), checked unless not `checked`, its notes after
    `branch_notes`; `FormatError` when the pass found format problems."""
    if state.problems:
        raise FormatError(format, tuple(sorted(state.problems, key=by_index)))
    if checked:  # (raises none)
        conversation, diagnostics, places = checked_loaded(*state.finish(state.container_meta), rules)
    else:
        conversation, diagnostics, places = state.finish(state.container_meta)[0], (), {}
    notes = branch_notes + tuple(_moved_note(note, messages) for note in conversation.notes)
    return Segment(
        first_line,
        messages,
        msgspec.structs.replace(conversation, notes=notes),
        tuple(_moved(diagnostic, messages) for diagnostic in diagnostics),
        {path: index + messages for path, index in places.items()},
        first_byte,
    )


def _moved_note(note: Note, messages: int) -> Note:
    if note.message_index is None or not messages:
        return note
    return Note(note.code, note.message_index + messages, note.path, note.message)


def _renames(state: LoadState, reused: frozenset[int]) -> Renames:
    """What the next segment needs of `state`'s call IDs: those used again further on."""
    if not reused:
        return Renames(frozenset(), frozenset(), {}, {})
    kept = {source_id for source_id in state.source_ids if digest(source_id) in reused}
    given = {call_id for call_id in state.call_ids if digest(call_id.partition("~")[0]) in reused}
    renames = {source_id: number for source_id, number in state.renames.items() if source_id in kept}
    latest = {source_id: found for source_id, found in state.latest.items() if source_id in kept}
    return Renames(frozenset(kept), frozenset(given), renames, latest)
