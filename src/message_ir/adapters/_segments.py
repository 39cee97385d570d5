"""`check` of a session log in memory that does not grow with the log: a first pass plans,
a second checks one segment at a time.

Loading a whole log holds its conversation (every message, and every line that is not one,
in `meta`): about four times the log's size. A log of gigabytes cannot be checked so. Here:

1. The first pass reads what the tree needs of each line (`_tree.heads`, decoded in C, the
   rest of the line skipped): its ID and parent, whether it is a message line and whose,
   and the IDs it holds (its calls, the calls it answers, its API message). It finds the
   branch (as `_tree.walk` does, on compact arrays) and where a segment may end.
2. The second pass reads the lines again, a segment of about `SEGMENT_BYTES` at a time, with
   the format's own reader and rules, then moves each diagnostic's line (and path) by the
   segment's first line.

A segment ends only where checking it alone says what checking the whole log says: before an
assistant's message line on the branch that follows a user's or a result's (a new turn: the
order of results, their adjacency and the turns' counts depend on nothing before it), and
where no use of a call ID is on both sides (a call and every result naming it until the ID
is called again; a result and the call that comes after it) nor any API message (its lines).
A segment grows past `SEGMENT_BYTES` only while a call is open. A call ID used again in a
later segment is renamed there as a whole load renames it: the reader's state of the reused
IDs goes on from segment to segment (`Renames`), and the source IDs that hold a `~` are
avoided by every rename from the start (as a whole load avoids them once a rename meets one:
the same names). Such a log takes no fast path (a skipped segment would not carry its
renames).

Held for the whole log: a byte of flags and a parent link per line, and in the first pass a
digest per line ID and per call or message ID (128 bits from two of Python's keyed string
hashes, as `message_ir`'s streaming linkage keeps them); then the diagnostics found, since
`check` sorts them at the end, and reports only the format's problems when there are any.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator
from typing import Final, NamedTuple

from message_ir import Diagnostic
from message_ir.adapters._checks import Rules, by_index, found_parts, unreadable
from message_ir.adapters._load_state import LoadState
from message_ir.adapters._log_file import text_lines
from message_ir.adapters._tree import Keys, OnBranch, Renames, heads

SEGMENT_BYTES: Final = 4_000_000
"""About how many bytes of lines one segment holds (more while a call is open)."""

SegmentReader = Callable[[object, frozenset[str], bool, OnBranch], LoadState]
"""A log format's pass over one segment of its source, given what the first pass found."""

Clean = Callable[[bytes, "frozenset[int] | None"], "int | None"]
"""A log format's fast path: for a segment (its lines, and those of them on the branch) that
is surely clean, how many IR messages it holds (its careful check is skipped); `None` when it
may not be clean. Only for a format whose reader carries nothing between segments."""

_LOW: Final = (1 << 64) - 1
_MESSAGE: Final = 1
_ASSISTANT: Final = 2
_SIDECHAIN: Final = 4
_NODE: Final = 8
_ROOT: Final = -1  # a parent link: none
_MISSING: Final = -2  # a parent no line has
_NO_NODE: Final = -3  # a line without an ID of its own


def _digest(text: str) -> int:
    """128 bits from two of Python's keyed string hashes (stable within one process)."""
    return (hash(text) << 64) ^ (hash(text[::-1]) & _LOW)


class Plan(NamedTuple):
    """What the first pass found."""

    on: bytearray | None
    """Per line, 1 when it is on the branch; `None` for a log that is no tree (every line)."""
    cuts: array[int]
    """The lines a segment may start at, in order."""
    reused: frozenset[int]
    """The digests of the call IDs used by more than one call: their state goes from one
    segment to the next."""
    avoid: frozenset[str]
    """The call IDs that hold a `~`, which no rename may give (as `load` avoids them when a
    rename meets one)."""


class _Lines:
    """The first pass's record of a log's lines (see `plan`)."""

    def __init__(self) -> None:
        self.flags = bytearray()
        self.parents: array[int] = array("q")
        self.first: dict[int, int] = {}  # a line ID's digest -> the first line with it
        self.pending: dict[int, list[int]] = {}  # a parent not met yet -> the lines naming it
        self.groups: dict[int, int] = {}  # line -> its API message's digest
        self.calls: dict[int, tuple[int, ...]] = {}  # line -> its calls' digests
        self.answers: dict[int, tuple[int, ...]] = {}  # line -> the digests of the calls it answers
        self.tildes: dict[int, tuple[str, ...]] = {}  # line -> its call IDs that hold a `~` (as renames do)
        self.keeps: dict[int, int] = {}  # pi's compaction line -> the digest of the first entry it keeps
        self.message_lines = 0
        self.message_nodes = 0
        self.linked = False  # whether some line names a parent
        self.last_main = self.last_message = -1  # the last message node of the main conversation, of any
        self.last_main_id = self.last_message_id = 0


def plan(source: object, keys: Keys, leaf: str | None) -> Plan:
    """The first pass over a log given as text or as a `LogFile` (see the module docstring).
    `ValueError` for a `leaf` no line has."""
    lines = _Lines()
    flags, parents, first = lines.flags, lines.parents, lines.first
    for number, head in enumerate(heads(source, (), keys)):
        if head is None:
            flags.append(0)
            parents.append(_NO_NODE)
            continue
        facts = keys.facts(head)
        flag = (
            (_MESSAGE if facts.message else 0)
            | (_ASSISTANT if facts.assistant else 0)
            | (_SIDECHAIN if head.sidechain is True else 0)
        )  # a compaction boundary needs no flag: it has no parent, so the walk ends there
        lines.message_lines += facts.message
        parent = _NO_NODE
        if head.uid is not None:
            flag |= _NODE
            uid = _digest(head.uid)
            first.setdefault(uid, number)
            if head.parent is None:
                parent = _ROOT
            else:
                lines.linked = True
                parent_id = _digest(head.parent)
                found = first.get(parent_id)
                if found is None:
                    lines.pending.setdefault(parent_id, []).append(number)
                    parent = _MISSING
                else:
                    parent = found
            if facts.message:
                lines.message_nodes += 1
                lines.last_message, lines.last_message_id = number, uid
                if head.sidechain is not True:
                    lines.last_main, lines.last_main_id = number, uid
            if facts.keeps_from is not None:
                lines.keeps[number] = _digest(facts.keeps_from)
        if facts.group is not None:
            lines.groups[number] = _digest(facts.group)
        if facts.calls:
            lines.calls[number] = tuple(map(_digest, facts.calls))
        if facts.answers:
            lines.answers[number] = tuple(map(_digest, facts.answers))
        if any("~" in each for each in facts.calls):
            lines.tildes[number] = tuple(each for each in facts.calls if "~" in each)
        flags.append(flag)
        parents.append(parent)
    for parent_id, children in lines.pending.items():
        found = first.get(parent_id)
        if found is not None:
            for child in children:
                parents[child] = found
    lines.pending.clear()
    leaf_line = None
    if leaf is not None:
        leaf_line = first.get(_digest(leaf))
        if leaf_line is None:
            raise ValueError(f"No line of this log has the ID {leaf!r}")
    tree = lines.message_lines > 0 and lines.message_nodes == lines.message_lines and lines.linked
    on = _walk(lines, leaf_line) if tree else None
    lines.first = {}
    cuts, reused, avoid = _cuts(lines, on)
    return Plan(on, cuts, reused, avoid)


def _walk(lines: _Lines, leaf: int | None) -> bytearray:
    """The branch ending at the line `leaf`, or at the last message line of the main
    conversation (else of any): `_tree.walk`'s `on`, on the first pass's arrays."""
    flags, parents = lines.flags, lines.parents
    on = bytearray(len(flags))
    seen = bytearray(len(flags))  # by line: a line a parent link leads to is the first with its ID
    end = lines.last_main if lines.last_main >= 0 else lines.last_message
    end_id = lines.last_main_id if lines.last_main >= 0 else lines.last_message_id
    if leaf is not None:
        end, end_id = leaf, 0
    kept_id: int | None = None
    node = end
    while node >= 0:
        if seen[node]:
            break  # a cycle
        seen[node] = 1
        on[node] = 1
        if kept_id is None:
            kept_id = lines.keeps.get(node)
        if node == end and end_id:
            seen[lines.first[end_id]] = 1  # the first line with the end's ID ends a cycle too
        node = parents[node]
    if kept_id is not None:
        kept_from = lines.first.get(kept_id)
        if kept_from is not None:  # what the compaction summarized is no longer sent
            on[:kept_from] = bytes(kept_from)
    if end >= 0:
        _complete_turns(lines, on, bool(flags[end] & _SIDECHAIN))
    return on


def _complete_turns(lines: _Lines, on: bytearray, sidechain: bool) -> None:
    """`_tree._complete_turns` on the first pass's arrays."""
    flags = lines.flags
    groups = {group for number, group in lines.groups.items() if on[number]}
    calls: set[int] = set()
    for number, found in lines.calls.items():
        if on[number]:
            calls.update(found)
    side = _SIDECHAIN if sidechain else 0
    candidates = [
        number
        for number in sorted({*lines.groups, *lines.answers})
        if not on[number]
        and flags[number] & (_MESSAGE | _NODE) == _MESSAGE | _NODE
        and flags[number] & _SIDECHAIN == side
    ]
    changed = True
    while changed:
        changed = False
        for number in candidates:
            if on[number]:
                continue
            group = lines.groups.get(number)
            if (group is not None and group in groups) or any(
                answer in calls for answer in lines.answers.get(number, ())
            ):
                on[number] = 1
                calls.update(lines.calls.get(number, ()))
                changed = True


def _cuts(lines: _Lines, on: bytearray | None) -> tuple[array[int], frozenset[int], frozenset[str]]:
    """The lines a segment may start at (see the module docstring), the call IDs used by more
    than one call, and those that hold a `~`."""
    flags = lines.flags
    messages = [number for number, flag in enumerate(flags) if flag & _MESSAGE and (on is None or on[number])]
    reach: dict[int, int] = {}  # a line opening an ID's use -> the last line of that use
    latest: dict[int, int] = {}  # a call ID -> the line of its latest call (a use runs to its last result)
    early: dict[int, int] = {}  # a call ID -> the first result naming it before any call (until its call)
    first: dict[int, int] = {}  # an API message -> its first line
    reused: set[int] = set()
    avoid: set[str] = set()
    for number in messages:
        for key in lines.calls.get(number, ()):
            start = early.pop(key, None)
            if start is not None:
                reach[start] = max(reach.get(start, -1), number)
            if key in latest:
                reused.add(key)
            latest[key] = number
        for key in lines.answers.get(number, ()):
            start = latest.get(key)
            if start is None:
                early.setdefault(key, number)
            elif start != number:
                reach[start] = max(reach.get(start, -1), number)
        group = lines.groups.get(number)
        if group is not None:
            start = first.setdefault(group, number)
            if start != number:
                reach[start] = max(reach.get(start, -1), number)
        avoid.update(lines.tildes.get(number, ()))
    latest.clear()
    first.clear()
    cuts: array[int] = array("q")
    open_until = -1
    after_assistant: bool | None = None
    for number in messages:
        assistant = bool(flags[number] & _ASSISTANT)
        if assistant and after_assistant is False and open_until < number:
            cuts.append(number)
        open_until = max(open_until, reach.get(number, -1))
        after_assistant = assistant
    return cuts, frozenset(reused), frozenset(avoid)


class _Segment(NamedTuple):
    start: int
    data: bytes
    on: frozenset[int] | None


def _segments(source: object, found: Plan, size: int) -> Iterator[_Segment]:
    """The log's lines, a segment at a time, each segment's branch lines counted from its start."""
    lines = text_lines(source)
    assert lines is not None  # a log given as text or as a `LogFile`
    cuts, on = found.cuts, found.on
    chunk: list[bytes] = []
    start = held = next_cut = 0
    for number, raw in enumerate(lines):
        if next_cut < len(cuts) and cuts[next_cut] == number:
            next_cut += 1
            if held >= size:
                yield _Segment(start, b"".join(chunk), _relative(on, start, number))
                chunk, start, held = [], number, 0
        chunk.append(raw + b"\n")
        held += len(raw) + 1
    end = start + len(chunk)
    yield _Segment(start, b"".join(chunk), _relative(on, start, end))


def _relative(on: bytearray | None, start: int, end: int) -> frozenset[int] | None:
    if on is None:
        return None
    return frozenset(number - start for number in range(start, end) if on[number])


def _moved(diagnostic: Diagnostic, lines: int, messages: int) -> Diagnostic:
    """A segment's diagnostic in the whole log's terms: its line and the path's first index
    moved by `lines`; an IR message named in the text moved by `messages`."""
    index = diagnostic.message_index
    path = diagnostic.path
    if path.startswith("$["):
        number, _, rest = path[2:].partition("]")
        if number.isdigit():
            path = f"$[{int(number) + lines}]{rest}"
    message = diagnostic.message
    if diagnostic.code == "TOOL_RESULT_BEFORE_CALL":
        text, _, number = message.rpartition(" ")
        if number.isdigit():
            message = f"{text} {int(number) + messages}"
    return Diagnostic(diagnostic.code, None if index is None else index + lines, path, message)


def check_segments(
    source: object,
    read: SegmentReader,
    keys: Keys,
    rules: Rules,
    leaf: str | None,
    size: int = SEGMENT_BYTES,
    *,
    clean: Clean | None = None,
) -> tuple[Diagnostic, ...]:
    """`check` of a log given as text or as a `LogFile`, a segment at a time (see the module
    docstring): what `check` of the whole log gives. Never raises but `OSError`, for a
    `LogFile` that cannot be read."""
    try:
        return _checked(source, read, rules, plan(source, keys, leaf), size, clean)
    except OSError:
        raise
    except Exception as error:  # noqa: BLE001  # as `check` of the whole log: said, never raised
        return unreadable(error)


def _checked(
    source: object, read: SegmentReader, rules: Rules, found: Plan, size: int, clean: Clean | None
) -> tuple[Diagnostic, ...]:
    problems: list[Diagnostic] = []
    parts: tuple[list[Diagnostic], ...] = ([], [], [], [])
    messages = 0
    carried: object = None
    renames = Renames(frozenset(), frozenset(), {}, {})
    for segment in _segments(source, found, size):
        count = None if clean is None or found.reused else clean(segment.data, segment.on)
        if count is not None:  # (a log whose call IDs are used again reads every segment: renames go on)
            messages += count  # nothing to say; its messages counted for the next segments' texts
            continue
        branch = OnBranch(segment.on, carried, renames)
        state = read(segment.data, found.avoid, True, branch)  # `avoid`: no rename meets a source ID
        carried = state.carried
        renames = _renames(state, found.reused)
        if state.problems:
            problems.extend(_moved(problem, segment.start, 0) for problem in state.problems)
            continue
        if problems:
            continue  # only the problems are reported
        conversation, origins = state.finish(state.container_meta)  # no problems: it raises none
        for kept, new in zip(parts, found_parts(conversation, origins, rules, example=False), strict=True):
            kept.extend(_moved(diagnostic, segment.start, messages) for diagnostic in new)
        messages += len(conversation.messages)
    if problems:
        return tuple(sorted(problems, key=by_index))
    return tuple(sorted((*parts[0], *parts[1], *parts[2], *parts[3]), key=by_index))


def _renames(state: LoadState, reused: frozenset[int]) -> Renames:
    """What the next segment needs of `state`'s call IDs: those used again further on."""
    if not reused:
        return Renames(frozenset(), frozenset(), {}, {})
    kept = {source_id for source_id in state.source_ids if _digest(source_id) in reused}
    given = {call_id for call_id in state.call_ids if _digest(call_id.partition("~")[0]) in reused}
    renames = {source_id: number for source_id, number in state.renames.items() if source_id in kept}
    latest = {source_id: found for source_id, found in state.latest.items() if source_id in kept}
    return Renames(frozenset(kept), frozenset(given), renames, latest)
