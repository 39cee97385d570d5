"""The first pass over a session log given as text or as a `LogFile`: what the tree needs of
each line, in compact arrays, and what is found on them.

Each line's head is read (`_tree.heads`, decoded in C, the rest of the line skipped): its ID
and parent, whether it is a message line and whose, and the IDs it holds (its calls, the
calls it answers, its API message). Held for the whole log: a byte of flags, a parent link
and where it ends in the text per line, a digest per line ID and per call or message ID (128
bits from two of Python's keyed string hashes, as `message_ir`'s streaming linkage keeps
them). The digests a line holds are kept in one flat list per kind, with where each line's
digests end (`LineDigests`), not in a dict by line: about a third of the memory on a log of
short lines.

On them: the branch the agent resumes (or the one ending at a leaf), walked as `_tree.walk`
walks it, with the notes a load makes of it (`plan`); where a segment of `_segments` may end
(`cuts_of`), with where each such line starts, so that a segment is read from the text at
once; and the branches of the log (`_log_branches`).
"""

from __future__ import annotations

import operator
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator
from itertools import compress
from typing import Final, NamedTuple, cast

from message_ir.adapters._conversation import Note
from message_ir.adapters._tree import ABANDONED, BEFORE_COMPACTION, SIDECHAIN, Keys, heads

_LOW: Final = (1 << 64) - 1
IS_MESSAGE: Final = 1
IS_ASSISTANT: Final = 2
IS_SIDECHAIN: Final = 4
IS_NODE: Final = 8
IS_BOUNDARY: Final = 16
_ROOT: Final = -1  # a parent link: none
_MISSING: Final = -2  # a parent no line has
_NO_NODE: Final = -3  # a line without an ID of its own


def digest(text: str) -> int:
    """128 bits from two of Python's keyed string hashes (stable within one process)."""
    return (hash(text) << 64) ^ (hash(text[::-1]) & _LOW)


class Plan(NamedTuple):
    """What the first pass found."""

    on: bytearray | None
    """Per line, 1 when it is on the branch; `None` for a log that is no tree (every line)."""
    cuts: array[int]
    """The lines a segment may start at, in order."""
    starts: array[int]
    """Where each line of `cuts` starts in the text (bytes from its start)."""
    reused: frozenset[int]
    """The digests of the call IDs used by more than one call: their state goes from one
    segment to the next."""
    avoid: frozenset[str]
    """The call IDs that hold a `~`, which no rename may give (as `load` avoids them when a
    rename meets one)."""
    notes: tuple[Note, ...] = ()
    """The notes a load makes of the branch (lines off it, broken links), when asked for."""


class LineDigests:
    """Per line, the digests of one kind it holds (its calls, the calls it answers, its API
    message), in the order the lines came.

    One flat list of digests and, per line, where its digests end: 8 bytes a line and 8 a
    digest (`record` gives the lines of one API message the same digest object), where a
    dict of tuples by line took about 125 bytes a line that held one digest, and 170 with a
    call's tuple. `record` appends to both as it goes (a call per line would cost more).
    """

    __slots__ = ("digests", "ends")

    def __init__(self) -> None:
        self.digests: list[int] = []
        self.ends: array[int] = array("q", [0])  # line n's digests are [ends[n], ends[n + 1])

    def get(self, number: int) -> list[int]:
        """The digests of line `number` (a new list; empty when it holds none)."""
        ends = self.ends
        return self.digests[ends[number] : ends[number + 1]]

    def one(self, number: int) -> int | None:
        """The first digest of line `number`, `None` when it holds none."""
        ends = self.ends
        start = ends[number]
        return self.digests[start] if start != ends[number + 1] else None

    def holds(self, number: int) -> bool:
        """Whether line `number` holds a digest of this kind."""
        return self.ends[number] != self.ends[number + 1]

    def items(self) -> Iterator[tuple[int, list[int]]]:
        """Each line holding digests, with them, in line order."""
        ends, held = self.ends, self.digests
        for number in range(len(ends) - 1):
            start, end = ends[number], ends[number + 1]
            if start != end:
                yield number, held[start:end]


class Lines:
    """The first pass's record of a log's lines (see `plan`)."""

    def __init__(self) -> None:
        self.flags = bytearray()
        self.parents: array[int] = array("q")
        self.ends: array[int] = array("q")  # line -> the offset after its newline
        self.first: dict[int, int] = {}  # a line ID's digest -> the first line with it
        self.pending: dict[int, list[int]] = {}  # a parent not met yet -> the lines naming it
        self.groups = LineDigests()  # line -> its API message's digest (one at most)
        self.calls = LineDigests()  # line -> its calls' digests
        self.answers = LineDigests()  # line -> the digests of the calls it answers
        self.tildes: dict[int, tuple[str, ...]] = {}  # line -> its call IDs that hold a `~` (as renames do)
        self.keeps: dict[int, int] = {}  # pi's compaction line -> the digest of the first entry it keeps
        self.same: dict[int, int] = {}  # a line whose ID an earlier line has -> that line
        self.missing: dict[int, str] = {}  # a line whose parent no line has -> the parent's ID
        self.index: tuple[dict[int, list[int]], dict[int, list[int]]] | None = None  # see `index`
        self.message_lines = 0
        self.message_nodes = 0
        self.linked = False  # whether some line names a parent
        self.last_main = self.last_message = -1  # the last message node of the main conversation, of any
        self.last_main_id = self.last_message_id = 0


def plan(source: object, keys: Keys, leaf: str | None, *, with_notes: bool = False, size: int = 0) -> Plan:
    """The first pass over a log given as text or as a `LogFile` (see the module docstring),
    `with_notes`: the notes on the branch a load makes. `ValueError` for a `leaf` no line has.

    `size`: about how many bytes a segment holds; a log shorter than that is read as one
    segment, and no place to cut it is looked for (`cuts` is empty)."""
    lines = record(source, keys)
    leaf_line = None
    if leaf is not None:
        leaf_line = lines.first.get(digest(leaf))
        if leaf_line is None:
            raise ValueError(f"No line of this log has the ID {leaf!r}")
    on: bytearray | None = None
    notes: tuple[Note, ...] = ()
    if is_tree(lines):
        walked = walk(lines, leaf_line)
        on = walked.on
        if with_notes:
            notes = branch_notes(lines, walked)
    lines.first = {}
    lines.index = None
    ends = lines.ends
    if ends and ends[-1] < size:
        cuts, (reused, avoid) = array("q"), used_again(lines, on)
    else:
        cuts, reused, avoid = cuts_of(lines, on)
    starts = array("q", (ends[cut - 1] if cut else 0 for cut in cuts))
    return Plan(on, cuts, starts, reused, avoid, notes)


def branch_notes(lines: Lines, walked: Walked) -> tuple[Note, ...]:
    """The notes `_tree.branch_lines` makes of a walk: each run of message lines off the
    branch, each broken link, a branch of a sub-agent's only."""
    flags, on = lines.flags, walked.on
    # `iter(flags)`, here and below: mypyc (the compiled build) fails on enumerating a `bytearray`.
    message_node = IS_MESSAGE | IS_NODE  # a message line with an ID of its own
    messages = [number for number, flag in enumerate(iter(flags)) if flag & message_node == message_node]
    on_messages = [number for number in messages if on[number]]
    off: list[tuple[int, int, str]] = []
    for number in messages:
        if on[number]:
            continue
        why = SIDECHAIN if flags[number] & IS_SIDECHAIN else BEFORE_COMPACTION if number < walked.stopped else ABANDONED
        if off and off[-1][2] == why and bisect_right(on_messages, off[-1][1]) == bisect_left(on_messages, number):
            off[-1] = (off[-1][0], number, why)
        else:
            off.append((number, number, why))
    notes = [
        Note(
            "OFF_BRANCH",
            None,
            f"$[{first}]",
            f"Message {f'line {first + 1}' if first == last else f'lines {first + 1}-{last + 1}'} "
            f"not on the resumed branch: {why}; kept as is",
        )
        for first, last, why in off
    ]
    for number, missing in walked.broken:
        what = (
            f"line {number + 1}'s parent {lines.missing[number]!r} is no line of this log"
            if missing
            else f"line {number + 1}'s parent links make a cycle; the walk stops there"
        )
        notes.append(Note("BROKEN_PARENT_LINK", None, f"$[{number}]", what))
    if lines.last_message >= 0 and lines.last_main < 0:
        said = "Every message line is a sub-agent's: the branch read is a sidechain"
        notes.append(Note("SIDECHAIN_BRANCH", None, "$", said))
    return tuple(notes)


def is_tree(lines: Lines) -> bool:
    """`_tree.is_tree`: every message line has an ID of its own, and some line names a parent."""
    return lines.message_lines > 0 and lines.message_nodes == lines.message_lines and lines.linked


def record(source: object, keys: Keys) -> Lines:
    """What the first pass keeps of each line."""
    lines = Lines()
    flags, parents, first = lines.flags, lines.parents, lines.first
    groups, calls, answers = lines.groups.digests, lines.calls.digests, lines.answers.digests
    group_ends, call_ends, answer_ends = lines.groups.ends.append, lines.calls.ends.append, lines.answers.ends.append
    group, group_text = 0, None
    uid, uid_text = 0, None  # the latest line ID, and its digest (most lines hang from the line before)
    message_lines = 0
    for number, head in enumerate(heads(source, (), keys, lines.ends)):
        if head is None:
            flags.append(0)
            parents.append(_NO_NODE)
            group_ends(len(groups))
            call_ends(len(calls))
            answer_ends(len(answers))
            continue
        message, line_calls, line_answers, line_group, boundary, keeps_from, assistant = keys.facts(head)
        flag = (
            (IS_MESSAGE if message else 0)
            | (IS_ASSISTANT if assistant else 0)
            | (IS_SIDECHAIN if head.sidechain is True else 0)
            | (IS_BOUNDARY if boundary else 0)
        )
        message_lines += message
        parent = _NO_NODE
        line_id = head.uid
        if line_id is not None:
            flag |= IS_NODE
            parent_text = head.parent
            parent_id = uid if parent_text == uid_text else None
            uid_text, uid = line_id, digest(line_id)
            earlier = first.setdefault(uid, number)
            if earlier != number:
                lines.same[number] = earlier
            if parent_text is None:
                parent = _ROOT
            else:
                lines.linked = True
                if parent_id is None:
                    parent_id = digest(parent_text)
                found = first.get(parent_id)
                if found is None:
                    lines.pending.setdefault(parent_id, []).append(number)
                    lines.missing[number] = parent_text
                    parent = _MISSING
                else:
                    parent = found
            if message:
                lines.message_nodes += 1
                lines.last_message, lines.last_message_id = number, uid
                if head.sidechain is not True:
                    lines.last_main, lines.last_main_id = number, uid
            if keeps_from is not None:
                lines.keeps[number] = digest(keeps_from)
        if line_group is not None:
            if line_group != group_text:  # the lines of one API message share one digest
                group_text, group = line_group, digest(line_group)
            groups.append(group)
        group_ends(len(groups))
        if line_calls:
            calls.extend(map(digest, line_calls))
            if any("~" in each for each in line_calls):
                lines.tildes[number] = tuple(each for each in line_calls if "~" in each)
        call_ends(len(calls))
        if line_answers:
            answers.extend(map(digest, line_answers))
        answer_ends(len(answers))
        flags.append(flag)
        parents.append(parent)
    lines.message_lines = message_lines
    for parent_id, children in lines.pending.items():
        found = first.get(parent_id)
        if found is not None:
            for child in children:
                parents[child] = found
                del lines.missing[child]
    lines.pending.clear()
    return lines


class Walked(NamedTuple):
    on: bytearray
    """Per line, 1 when it is on the branch."""
    held: list[int]
    """The branch's lines, its path's first (from the end up)."""
    stopped: int
    """The line of the compaction the walk stopped at (-1: none)."""
    broken: list[tuple[int, bool]]
    """The broken links met: a line, and whether its parent is missing (else: a cycle)."""


def walk(lines: Lines, leaf: int | None) -> Walked:
    """The branch ending at the line `leaf`, or at the last message line of the main
    conversation (else of any): `_tree.walk`'s, on the first pass's arrays."""
    flags, parents = lines.flags, lines.parents
    on = bytearray(len(flags))
    seen = bytearray(len(flags))  # by line: a line a parent link leads to is the first with its ID
    end = lines.last_main if lines.last_main >= 0 else lines.last_message
    end_id = lines.last_main_id if lines.last_main >= 0 else lines.last_message_id
    if leaf is not None:
        end, end_id = leaf, 0
    kept_id: int | None = None
    keeps = lines.keeps  # pi's compactions: none in most logs
    held: list[int] = []
    broken: list[tuple[int, bool]] = []
    stopped = -1
    node = end
    while node >= 0:
        if seen[node]:
            broken.append((node, False))  # a cycle
            break
        seen[node] = 1
        on[node] = 1
        held.append(node)
        if flags[node] & IS_BOUNDARY:
            stopped = node
        if keeps and kept_id is None:
            kept_id = keeps.get(node)
        if node == end and end_id:
            seen[lines.first[end_id]] = 1  # the first line with the end's ID ends a cycle too
        parent = parents[node]
        if parent == _MISSING:
            broken.append((node, True))
        node = parent
    if kept_id is not None:
        kept_from = lines.first.get(kept_id)
        if kept_from is not None:  # what the compaction summarized is no longer sent
            stopped = kept_from
            on[:kept_from] = bytes(kept_from)
            held = [number for number in held if number >= kept_from]
    if end >= 0:
        complete_turns(lines, on, bool(flags[end] & IS_SIDECHAIN), held)
    return Walked(on, held, stopped, broken)


def index(lines: Lines) -> tuple[dict[int, list[int]], dict[int, list[int]]]:
    """The lines of each API message, and the lines answering each call (by digest)."""
    if lines.index is None:
        groups: dict[int, list[int]] = {}
        for number, held in lines.groups.items():
            groups.setdefault(held[0], []).append(number)
        answering: dict[int, list[int]] = {}
        for number, answers in lines.answers.items():
            for answer in answers:
                answering.setdefault(answer, []).append(number)
        lines.index = (groups, answering)
    return lines.index


def complete_turns(lines: Lines, on: bytearray, sidechain: bool, held: list[int]) -> None:
    """`_tree.complete_turns` on the first pass's arrays: the lines it adds are set in `on`
    and appended to `held` (the branch's lines so far). A line is added when it is a message
    line of the branch's side, off it, of an API message on it (as the branch was before) or
    answering a call it holds (added lines' calls included): the same lines in any order."""
    flags = lines.flags
    side = IS_SIDECHAIN if sidechain else 0
    if not _any_off(flags, on, side):
        return  # no line it could add (a log without rewinds or sub-agents: the usual case)
    by_group, answering = index(lines)
    groups = {group for number in held for group in lines.groups.get(number)}
    calls: set[int] = set()
    for number in held:
        calls.update(lines.calls.get(number))
    pending = [number for group in groups for number in by_group.get(group, ())]
    for call in calls:
        pending.extend(answering.get(call, ()))
    while pending:
        number = pending.pop()
        flag = flags[number]
        if on[number] or flag & (IS_MESSAGE | IS_NODE) != IS_MESSAGE | IS_NODE or flag & IS_SIDECHAIN != side:
            continue
        on[number] = 1
        held.append(number)
        for call in lines.calls.get(number):
            if call not in calls:
                calls.add(call)
                pending.extend(answering.get(call, ()))


_MESSAGE_NODE_OF_SIDE: Final = (
    bytes(1 if flag & (IS_MESSAGE | IS_NODE | IS_SIDECHAIN) == IS_MESSAGE | IS_NODE else 0 for flag in range(256)),
    bytes(
        1 if flag & (IS_MESSAGE | IS_NODE | IS_SIDECHAIN) == IS_MESSAGE | IS_NODE | IS_SIDECHAIN else 0
        for flag in range(256)
    ),
)
"""Per side (the main conversation's, a sub-agent's), a byte per flag byte: 1 for a message
line with an ID of its own of that side (the lines `complete_turns` may add)."""


def _any_off(flags: bytearray, on: bytearray, side: int) -> bool:
    """Whether some message line with an ID of its own, of the `side` given, is off the branch
    (`on`), found on the flags in C: each as one bit of an integer."""
    lines = int.from_bytes(flags.translate(_MESSAGE_NODE_OF_SIDE[1 if side else 0]), "little")
    return lines & ~int.from_bytes(on, "little") != 0


def cuts_of(lines: Lines, on: bytearray | None) -> tuple[array[int], frozenset[int], frozenset[str]]:
    """The lines a segment may start at (see the module docstring), the call IDs used by more
    than one call, and those that hold a `~` (found in the same pass; `used_again` finds them
    alone)."""
    flags = lines.flags
    # A line opening an ID's use -> the last line of that use (-1: none). An array by line, as
    # the message lines are gone over twice below rather than listed: a log of short lines has
    # millions, and a dict or a list of them took about 80 and 36 bytes each.
    reach = array("q", [-1]) * len(flags)
    latest: dict[int, int] = {}  # a call ID -> the line of its latest call (a use runs to its last result)
    early: dict[int, int] = {}  # a call ID -> the first result naming it before any call (until its call)
    first: dict[int, int] = {}  # an API message -> its first line
    reused: set[int] = set()
    avoid: set[str] = set()
    # The tables' arrays read here directly (a line's digests looked up only when it has some):
    # this loop runs once a message line.
    calls, call_ends = lines.calls.digests, lines.calls.ends
    answers, answer_ends = lines.answers.digests, lines.answers.ends
    groups, group_ends = lines.groups.digests, lines.groups.ends
    branch = _branch_messages(flags, on)
    for number in compress(range(len(flags)), branch):
        held, end = call_ends[number], call_ends[number + 1]
        if held != end:
            for key in calls[held:end]:
                start = early.pop(key, None)
                if start is not None:
                    reach[start] = max(reach[start], number)
                if key in latest:
                    reused.add(key)
                latest[key] = number
            avoid.update(lines.tildes.get(number, ()))
        held, end = answer_ends[number], answer_ends[number + 1]
        if held != end:
            for key in answers[held:end]:
                start = latest.get(key)
                if start is None:
                    early.setdefault(key, number)
                elif start != number:
                    reach[start] = max(reach[start], number)
        held = group_ends[number]
        if held != group_ends[number + 1]:
            start = first.setdefault(groups[held], number)
            if start != number:
                reach[start] = max(reach[start], number)
    latest.clear()
    first.clear()
    linked_past = _linked_past(lines.parents)
    cuts: array[int] = array("q")
    open_until = -1
    after_assistant: bool | None = None
    for number in compress(range(len(flags)), branch):
        assistant = bool(flags[number] & IS_ASSISTANT)
        if assistant and after_assistant is False and open_until < number and linked_past[number] < number:
            cuts.append(number)
        open_until = max(open_until, reach[number])
        after_assistant = assistant
    return cuts, frozenset(reused), frozenset(avoid)


_IS_MESSAGE_LINE: Final = bytes(1 if flag & IS_MESSAGE else 0 for flag in range(256))
"""A byte per flag byte: 1 for a message line."""


def _branch_messages(flags: bytearray, on: bytearray | None) -> bytes | bytearray:
    """Per line, 1 for a message line on the branch (`on`; `None`: every line is), found in C:
    the message lines' bytes and the branch's as integers, one bit a line."""
    messages = flags.translate(_IS_MESSAGE_LINE)
    if on is None:
        return messages
    both = int.from_bytes(messages, "little") & int.from_bytes(on, "little")
    return both.to_bytes(len(flags), "little")


def used_again(lines: Lines, on: bytearray | None) -> tuple[frozenset[int], frozenset[str]]:
    """The call IDs of the branch used by more than one call, and those that hold a `~`: all
    that a log read as one segment needs of `cuts_of`, which finds them in its own pass over the
    lines (a second pass there cost a log of several segments about 2% of `check`)."""
    flags = lines.flags
    seen: set[int] = set()
    reused: set[int] = set()
    avoid: set[str] = set()
    for number, keys in lines.calls.items():  # the lines that make calls
        if not flags[number] & IS_MESSAGE or (on is not None and not on[number]):
            continue
        for key in keys:
            if key in seen:
                reused.add(key)
            seen.add(key)
        avoid.update(lines.tildes.get(number, ()))
    return frozenset(reused), frozenset(avoid)


class OneChain:
    """What the first pass would find of the branch of a log read as one segment, told from its
    parsed lines read once, in order (`line`), so that a fast path may judge such a log
    without the first pass: `covers()` says whether every message line is on the branch the
    first pass walks (a log whose lines form no tree has no branch: every line is on it).

    The lines with an ID form one chain (each hangs from the one before, by its ID as text;
    the first from none, or from an ID no line has; no ID twice; a first line that is no
    message line and hangs from none may stand alone, the chain starting again from none
    after it, as after pi's session line), and the message lines are
    all the main conversation's or all a sub-agent's: the walk from the last message line
    then goes through every line before it, and `complete_turns` has nothing to add. Any
    other log may leave lines off the branch: `covers()` is False (the first pass decides).
    Fields are read as the first pass reads them (`_tree.loose_head`): an ID or a parent only
    when it is a `str`, a sub-agent's line only when its flag is `true`."""

    __slots__ = (
        "_chained",
        "_first_parent",
        "_header",
        "_ids",
        "_latest",
        "_linked",
        "_message_nodes",
        "_messages",
        "_parent_key",
        "_sidechain_key",
        "_sides",
        "_uid_key",
    )

    def __init__(self, keys: Keys) -> None:
        self._uid_key, self._parent_key = keys.id, keys.parent
        self._sidechain_key = keys.names.get("sidechain", "sidechain")
        self._ids: set[int] = set()  # the hashes of the IDs read (a clash only makes `covers()` False)
        self._latest: str | None = None  # the ID of the last line with one
        self._first_parent: str | None = None  # what the first line with an ID hangs from
        self._header = False  # the one line with an ID read so far is no message line and hangs from none
        self._messages = self._message_nodes = 0
        self._sides = 0  # 1: a message line of the main conversation was read; 2: of a sub-agent
        self._chained = True
        self._linked = False  # some line with an ID names a parent (as `Lines.linked`)

    def line(self, line: dict[str, object], message: bool) -> bool:
        """The next line of the log (parsed), and whether it is a message line; False once the
        lines read leave `covers()` little hope (they left the chain, and they form a tree so
        far), so that the fast path may stop early."""
        uid = line.get(self._uid_key)
        if message:
            self._messages += 1
            self._sides |= 2 if line.get(self._sidechain_key) is True else 1
        if type(uid) is not str:
            return self._hopeful()
        self._message_nodes += message
        parent = line.get(self._parent_key)
        parent_id = parent if type(parent) is str else None
        if parent_id is not None:
            self._linked = True
        key = hash(uid)  # (an exact `str`: its own hash, cached; a set of `int`s holds less than of IDs)
        if key in self._ids:
            self._chained = False
        self._ids.add(key)
        header, self._header = self._header, False
        if self._latest is None:  # the first line with an ID
            self._first_parent = parent_id
            self._header = not message and parent_id is None  # (pi's session line: its `id` is the session's)
        elif parent_id != self._latest and not (header and parent_id is None):
            self._chained = False  # (after a header, the chain may start anew: nothing hangs from the header)
        self._latest = uid
        return self._hopeful()

    def _hopeful(self) -> bool:
        """Whether the lines read so far may still be covered: they are no tree so far (a
        message line without an ID, or no line names a parent), or they keep to the chain."""
        return self._message_nodes != self._messages or not self._linked or (self._chained and self._sides != 3)

    def covers(self) -> bool:
        """Whether every message line read is on the branch the first pass would walk."""
        tree = self._messages > 0 and self._message_nodes == self._messages and self._linked  # as `is_tree`
        if not tree:
            return True
        first = self._first_parent
        return self._chained and self._sides != 3 and (first is None or hash(first) not in self._ids)


_after: Final = cast("Callable[[int, int], bool]", operator.gt)
"""Whether a line's parent comes after it (`operator.gt`: a builtin, faster in `map` than `int.__gt__`)."""


def _linked_past(parents: array[int]) -> array[int]:
    """Per line, the furthest line that a line before it hangs from (-1: none): a segment
    starts at no line that an earlier line's parent link passes (a log is written parents
    first; one that is not keeps such lines in one segment, so that what a segment's lines
    hang from is in it or before it)."""
    if not any(map(_after, parents, range(len(parents)))):  # no line hangs from a later one (in C): the usual log
        return array("q", [-1]) * len(parents)
    furthest = array("q", bytes(8 * len(parents)))
    reach = -1
    for number, parent in enumerate(parents):
        furthest[number] = reach
        if parent > number:
            reach = max(reach, parent)
    return furthest
