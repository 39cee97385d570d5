"""A session log as a tree: which lines are the branch the agent resumes.

Claude Code (`uuid` / `parentUuid`) and pi v3 (`id` / `parentId`) link every line to the one
before it on its branch; a rewind, an edited prompt or a sub-agent leaves other branches in
the same file. `walk` finds the branch from a leaf (by default the last message line of the
main conversation, in file order) back along the parent links to its root, and adds what
completes a turn on it wherever it hangs: the other lines of an assistant message on it (one
`message.id`), and the lines holding results of calls on it. A compaction boundary has no
parent (its `logicalParentUuid` is not followed), so what came before it is off the branch.

Every line off the branch is said once per run of lines, with the reason. Broken links (a
parent that no line has, a cycle) end the walk where they are and are said; nothing here
raises or loops forever.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from functools import partial
from typing import Final, NamedTuple

import msgspec

from message_ir.adapters._conversation import Note
from message_ir.adapters._json import as_array, as_object, decode
from message_ir.adapters._load_state import LoadState
from message_ir.adapters._log import Placement, plain_line, reading
from message_ir.adapters._log_file import is_text, text_lines


class Node(NamedTuple):
    """What the walk needs of one line."""

    number: int
    """The 0-based line."""
    uid: str
    """Its own ID (`uuid`, pi's `id`)."""
    parent: str | None
    """Its parent's ID (`None`: a root)."""
    message: bool
    """Whether it is a message line (read into the conversation when on the branch)."""
    sidechain: bool = False
    """Whether it is a sub-agent's line (Claude Code's `isSidechain`)."""
    boundary: bool = False
    """Whether it is a compaction boundary."""
    group: str | None = None
    """The assistant message it is a part of (`message.id`), if any."""
    calls: tuple[str, ...] = ()
    """The IDs of the calls it holds."""
    answers: tuple[str, ...] = ()
    """The IDs of the calls it holds results of."""
    timestamp: str | None = None
    """When it was written, if it says."""
    keeps_from: str | None = None
    """For pi's compaction entry: the ID of the first entry sent after its summary (those
    before it on the branch are no longer sent)."""


class Walk(NamedTuple):
    """The branch read, and what was said of the lines off it."""

    on: frozenset[int]
    """The lines on the branch."""
    leaf: Node | None
    """The line the branch ends with."""
    off: tuple[tuple[int, int, str], ...]
    """Runs of message lines off the branch: `(first, last, why)`."""
    broken: tuple[tuple[int, str], ...]
    """Broken links met on the way: `(line, what)`."""
    sidechain_only: bool
    """Whether the log has no main-conversation message line (a sub-agent's own log)."""


SIDECHAIN: Final = "a sub-agent's lines (isSidechain)"
BEFORE_COMPACTION: Final = "before a compaction boundary (no longer sent)"
ABANDONED: Final = "another branch (a rewind or an edited prompt)"


def is_tree(nodes: Sequence[Node], message_lines: int) -> bool:
    """Whether a log reads as a tree: every message line has an ID of its own, and some line
    names a parent (a log without parent links reads in file order)."""
    return (
        message_lines > 0
        and sum(1 for node in nodes if node.message) == message_lines
        and any(node.parent is not None for node in nodes)
    )


def _by_id(nodes: Iterable[Node]) -> dict[str, Node]:
    """Each line by its ID (the first line, where two share one)."""
    found: dict[str, Node] = {}
    for node in nodes:
        found.setdefault(node.uid, node)
    return found


def walk(nodes: Sequence[Node], leaf: str | None = None) -> Walk:
    """The branch ending at the line `leaf` (by its ID), or at the last message line of the
    main conversation (else the last message line at all)."""
    by_id = _by_id(nodes)
    messages = [each for each in nodes if each.message]
    main = [each for each in messages if not each.sidechain]
    end = by_id.get(leaf) if leaf is not None else (main[-1] if main else (messages[-1] if messages else None))
    on: set[int] = set()
    broken: list[tuple[int, str]] = []
    stopped_at_boundary = -1
    seen: set[str] = set()
    kept_id: str | None = None  # what the compaction on the branch nearest its leaf keeps
    node: Node | None = end
    while node is not None:
        if node.uid in seen:
            broken.append((node.number, f"line {node.number + 1}'s parent links make a cycle; the walk stops there"))
            break
        seen.add(node.uid)
        on.add(node.number)
        if node.boundary:
            stopped_at_boundary = node.number
        if kept_id is None:
            kept_id = node.keeps_from
        if node.parent is None:
            break
        parent = by_id.get(node.parent)
        if parent is None:
            broken.append((node.number, f"line {node.number + 1}'s parent {node.parent!r} is no line of this log"))
        node = parent
    kept_from = None if kept_id is None else by_id.get(kept_id)
    if kept_from is not None:  # what the compaction summarized is no longer sent
        stopped_at_boundary = kept_from.number
        on = {number for number in on if number >= kept_from.number}
    _complete_turns(nodes, on, end is not None and end.sidechain)
    on_messages = sorted(node.number for node in messages if node.number in on)
    off: list[tuple[int, int, str]] = []
    for message in messages:
        if message.number in on:
            continue
        why = (
            SIDECHAIN if message.sidechain else BEFORE_COMPACTION if message.number < stopped_at_boundary else ABANDONED
        )
        if off and off[-1][2] == why and _none_between(on_messages, off[-1][1], message.number):
            off[-1] = (off[-1][0], message.number, why)
        else:
            off.append((message.number, message.number, why))
    return Walk(frozenset(on), end, tuple(off), tuple(broken), bool(messages) and not main)


def _complete_turns(nodes: Iterable[Node], on: set[int], sidechain: bool) -> None:
    """Add the lines that complete a turn on the branch: the other lines of its assistant
    messages, and the lines answering its calls (each wherever it hangs), from the branch's
    own side (the main conversation's, or for a sub-agent's branch, the sidechain's)."""
    groups: set[str] = set()
    calls: set[str] = set()
    for node in nodes:
        if node.number in on:
            if node.group is not None:
                groups.add(node.group)
            calls.update(node.calls)
    changed = True
    while changed:  # a line added may hold calls whose results are elsewhere too
        changed = False
        for node in nodes:
            if node.number in on or not node.message or node.sidechain != sidechain:
                continue
            if (node.group is not None and node.group in groups) or any(answer in calls for answer in node.answers):
                on.add(node.number)
                calls.update(node.calls)
                changed = True


def _none_between(numbers: Sequence[int], last: int, number: int) -> bool:
    """Whether none of the sorted `numbers` lies strictly between `last` and `number`."""
    return bisect_right(numbers, last) == bisect_left(numbers, number)


def leaves(nodes: Sequence[Node]) -> list[Node]:
    """The message lines below which no message line hangs, in file order: the ends of the
    log's branches (a sub-agent's included)."""
    by_id = _by_id(nodes)
    above: set[str] = set()  # IDs of lines with a message line below them
    for node in nodes:
        if not node.message:
            continue
        parent = node.parent
        while parent is not None and parent not in above:  # each line is marked once: linear
            above.add(parent)
            found = by_id.get(parent)
            parent = None if found is None else found.parent
    return [node for node in nodes if node.message and node.uid not in above]


class HeadBlock(msgspec.Struct, gc=False):
    """What the tree needs of a content block: its type, a call's ID, the call a result answers."""

    type: str | None = None
    id: str | None = None
    tool_use_id: str | None = None


class HeadMessage(msgspec.Struct, rename={"tool_call_id": "toolCallId"}, gc=False):
    """What the tree (and a segment's cut) needs of a line's message."""

    id: str | None = None
    role: str | None = None
    tool_call_id: str | None = None
    content: list[HeadBlock] | str | None = None
    type: str | None = None
    """An item's type (a Codex line's Responses item)."""
    call_id: str | None = None
    """The call an item makes or answers (a Codex line's Responses item)."""


class Head(msgspec.Struct, gc=False):
    """What the tree needs of a line, read under the names a log format gives its fields
    (`Keys.names`, with `_json.renamed_decoder`); decoded in C, the rest of the line skipped."""

    type: str | None = None
    uid: str | None = None
    parent: str | None = None
    sidechain: bool | None = None
    subtype: str | None = None
    keeps_from: str | None = None
    timestamp: str | None = None
    message: HeadMessage | None = None


def _text(value: object) -> str | None:
    return value if type(value) is str else None


def loose_head(value: object, names: Mapping[str, str], payload: str) -> Head | None:
    """The head of a parsed line, any value (`None`: not an object), each field taken only when
    it has its usual type, with exact type checks (a caller's value runs no code)."""
    line = as_object(value)
    if line is None:
        return None
    message = as_object(line.get(payload))
    head_message = None
    if message is not None:
        blocks = [
            HeadBlock(_text(block.get("type")), _text(block.get("id")), _text(block.get("tool_use_id")))
            for block in (as_object(item) for item in as_array(message.get("content")) or [])
            if block is not None
        ]
        head_message = HeadMessage(
            _text(message.get("id")),
            _text(message.get("role")),
            _text(message.get("toolCallId")),
            blocks,
            _text(message.get("type")),
            _text(message.get("call_id")),
        )
    sidechain = line.get(names.get("sidechain", "sidechain"))
    return Head(
        _text(line.get("type")),
        _text(line.get(names["uid"])),
        _text(line.get(names["parent"])),
        sidechain if type(sidechain) is bool else None,
        _text(line.get("subtype")),
        _text(line.get(names.get("keeps_from", "keeps_from"))),
        _text(line.get("timestamp")),
        head_message,
    )


def heads(
    source: object, values: Iterable[object], keys: Keys, ends: array[int] | None = None
) -> Iterator[Head | None]:
    """Each line's head: for a log given as text or as a `LogFile`, decoded from the line by
    the format's typed decoder without building the rest of its value (a first pass); a line
    whose fields have unusual types, and every line of a log given as parsed values, read
    loosely; `None` for a line that is not JSON (the reading pass reports it). With `ends`,
    the offset in the text after each line's newline is appended to it."""
    decoder = keys.decoder
    data = source.encode("utf-8", "surrogatepass") if type(source) is str else source
    if type(data) is bytes:  # its lines found here (as `raw_lines` finds them): one generator a line, not two
        start, size = 0, len(data)
        while start < size:
            stop = data.find(b"\n", start)
            if stop < 0:
                stop = size
            raw = data[start:stop]
            start = stop + 1
            if ends is not None:
                ends.append(start)
            try:
                yield decoder(raw)
            except msgspec.ValidationError:  # unusual types, or a syntax error after one: read it loosely
                yield _loose_line(raw, keys)
            except (msgspec.DecodeError, RecursionError):
                yield None
        return
    lines = text_lines(source)
    if lines is not None:
        end = 0
        for raw in lines:
            if ends is not None:
                end += len(raw) + 1
                ends.append(end)
            try:
                yield decoder(raw)
            except msgspec.ValidationError:
                yield _loose_line(raw, keys)
            except (msgspec.DecodeError, RecursionError):
                yield None
    else:
        for value in values:
            yield loose_head(value, keys.names, keys.payload)


def _loose_line(raw: bytes, keys: Keys) -> Head | None:
    """The head of a line the typed decoder refused, read loosely (`None`: not JSON)."""
    try:
        value = decode(raw)
    except (msgspec.DecodeError, RecursionError):
        return None
    return loose_head(value, keys.names, keys.payload)


class Facts(NamedTuple):
    """What a log format says of one line's head (see `Node`)."""

    message: bool
    calls: tuple[str, ...] = ()
    answers: tuple[str, ...] = ()
    group: str | None = None
    boundary: bool = False
    keeps_from: str | None = None
    assistant: bool = False
    """Whether it is an assistant's message line (a turn of the assistant starts at one that
    follows a user's or a result's)."""


FactFields = tuple[bool, tuple[str, ...], tuple[str, ...], "str | None", bool, "str | None", bool]
"""`Facts`' seven fields, in order."""

facts_of: Final[Callable[[FactFields], Facts]] = partial(tuple.__new__, Facts)
"""The `Facts` of its seven fields, made in C: a `NamedTuple`'s own constructor is a Python
function, which costs about 80 ns more a message line of a first pass."""


def read_nodes(source: object, values: Iterable[object], keys: Keys) -> tuple[list[Node], int]:
    """The tree's nodes (the lines with an ID of their own), and the number of message lines."""
    found: list[Node] = []
    messages = 0
    for number, head in enumerate(heads(source, values, keys)):
        if head is None:
            continue
        facts = keys.facts(head)
        messages += facts.message
        if head.uid is not None:
            found.append(
                Node(
                    number,
                    head.uid,
                    head.parent,
                    facts.message,
                    head.sidechain is True,
                    facts.boundary,
                    facts.group,
                    facts.calls,
                    facts.answers,
                    head.timestamp,
                    facts.keeps_from,
                )
            )
    return found, messages


class Keys(NamedTuple):
    """How a log format writes its tree: its names for the fields of `Head` (`uid` and
    `parent` at least), the key of a line's message, its typed decoder of heads, and what it
    says of a line (`Facts`)."""

    names: Mapping[str, str]
    payload: str
    decoder: Callable[[bytes], Head]
    facts: Callable[[Head], Facts]

    @property
    def id(self) -> str:
        return self.names["uid"]

    @property
    def parent(self) -> str:
        return self.names["parent"]


def record_new_line(made: dict[str, tuple[bool, object]], keys: Keys, new_id: str, previous: object) -> None:
    """Remember in `made` the parent link the new line `new_id`, written after `previous`,
    keeps in a log without a tree: `previous`'s own (and whether it had one), or, after a new
    line, what that one kept (see `link_new_lines`)."""
    line = as_object(previous)
    before = None if line is None else line.get(keys.id)
    if type(before) is str and before in made:
        made[new_id] = made[before]
    else:
        made[new_id] = (line is not None and keys.parent in line, None if line is None else line.get(keys.parent))


def tree_lines(
    placement: Placement,
    kept: Sequence[tuple[int, object]],
    notes: Iterable[Note],
    made: dict[str, tuple[bool, object]],
    new_results: list[tuple[dict[str, object], str]],
    keys: Keys,
) -> list[object]:
    """Every line a tree log's writer writes back into the log it read, in order (the
    messages' and the `kept` ones): a line that hung from a removed line relinked
    (`relink_past_removed`; `notes` are the load's, naming the links broken when read), and
    the new lines linked on the branch (`link_new_lines`)."""
    numbered = placement.numbered(kept)
    whole = _every_line_written(numbered)
    if made or not whole:  # lines are read, and some changed: as plain data
        numbered = [(number, plain_line(value)) for number, value in numbered]
    every_line = [value for _, value in numbered]
    if not whole:
        relink_past_removed(numbered, placement.message_lines, broken_lines(notes), keys)
    if made:
        link_new_lines(every_line, made, new_results, keys)
    return every_line


def relink_past_removed(
    numbered: Sequence[tuple[int | None, object]], messages: Collection[int], broken: Collection[int], keys: Keys
) -> None:
    """Keep a tree whole where message lines were removed (a result `repair` dropped).

    `numbered` is every written line with the line of the log it was read from (`None` for a
    new one), `messages` the lines the conversation's messages were read from (the branch
    read), `broken` the lines whose parent no line had when read. A line whose parent
    is no written line, though its link was whole when read, hung from a removed line: it
    hangs instead from the line of the branch before the removed one (a branch is a chain:
    the line a removed line of it hung from). Nothing changes in a log written back with
    every line it was read with (`tree_lines` asks this only of one written without some)."""
    present = {number for number, _ in numbered if number is not None}
    removed = sorted(set(range(max(present) + 1)).difference(present))
    ids: set[str] = set()
    branch: list[tuple[int, str]] = []  # the branch's lines read, in order, with their IDs
    for number, value in numbered:
        line = as_object(value)
        uid = None if line is None else line.get(keys.id)
        if type(uid) is str:
            ids.add(uid)
            if number is not None and number in messages:
                branch.append((number, uid))
    branch.sort()
    for number, value in numbered:
        line = as_object(value)
        if number is None or line is None or number in broken:
            continue
        parent = line.get(keys.parent)
        if type(parent) is not str or parent in ids:
            continue
        before = bisect_left(removed, number)
        if not before:
            continue
        at = bisect_left(branch, (removed[before - 1], ""))  # the branch's lines before the removed one
        if at:
            line[keys.parent] = branch[at - 1][1]


def _every_line_written(numbered: Sequence[tuple[int | None, object]]) -> bool:
    """Whether every line of the log read is among the written ones (`numbered`, as in
    `relink_past_removed`), or none was."""
    present = {number for number, _ in numbered if number is not None}
    return not present or len(present) == max(present) + 1


def broken_lines(notes: Iterable[Note]) -> frozenset[int]:
    """The lines a load noted as hanging from no line of the log (`BROKEN_PARENT_LINK` at `$[n]`)."""
    found: set[int] = set()
    for note in notes:
        number = note.path[2:-1]
        if note.code == "BROKEN_PARENT_LINK" and note.path.startswith("$[") and number.isdigit():
            found.add(int(number))
    return frozenset(found)


def link_new_lines(
    written: list[object],
    made: dict[str, tuple[bool, object]],
    new_results: list[tuple[dict[str, object], str]],
    keys: Keys,
) -> None:
    """Link the new lines (`made`: each new line's ID -> whether it copied a parent link from
    the line before it, and which) of a log that had message lines.

    In a log without parent links, each new line keeps the link it copied (the log stays one
    without a tree). In a tree, each new result line (`new_results`: the line, and the ID of
    its call's line) goes on the live branch: its parent is its call's line, and the line of
    the branch that hung from the call's line now hangs from it (several new results of calls
    on one line hang one from the other)."""
    new_lines: list[dict[str, object]] = []
    old_values: list[object] = []
    for value in written:
        line = as_object(value)
        uid = None if line is None else line.get(keys.id)
        if line is not None and type(uid) is str and uid in made:
            new_lines.append(line)
        else:
            old_values.append(value)
    tree_nodes, messages = read_nodes(None, old_values, keys)
    if not messages:
        return  # every message line is new: each hangs from the line before it
    if not is_tree(tree_nodes, messages):
        for line in new_lines:
            had, copied = made[str(line[keys.id])]
            if had:
                line[keys.parent] = copied
            else:
                line.pop(keys.parent, None)
        return
    on = walk(tree_nodes).on
    tips: dict[str, str] = {}  # a call's line -> the last new line hung from it
    for line, call_line in new_results:
        line[keys.parent] = tips.get(call_line, call_line)
        tips[call_line] = str(line[keys.id])
    for node in tree_nodes:
        if node.parent is not None and node.number in on and node.parent in tips:
            child = as_object(old_values[node.number])
            assert child is not None  # a node is an object line
            child[keys.parent] = tips.pop(node.parent)


class OnBranch(NamedTuple):
    """The lines of a branch found already (by `check`'s first pass over a whole log, for one
    segment of it): `lines` (numbered in the whole log), or `None` for a log that is no tree;
    and what the format's reader carried over from the segment before (`LoadState.carried`)."""

    lines: frozenset[int] | None
    carried: object = None
    renames: Renames | None = None
    """The call IDs used again further on, as the segments before left them (see `Renames`)."""
    first: int = 0
    """The number in the whole log of the segment's first line: its lines are numbered from
    it (their paths, made-up message IDs and `meta`), as a load of the whole log numbers them."""


class Renames(NamedTuple):
    """What `LoadState` knows of the call IDs a log uses again, at the end of a segment: which
    were seen, the IR IDs given, each one's last rename number and latest call. The next
    segment starts from it, so a reused ID is renamed there as a whole load renames it."""

    source_ids: frozenset[str]
    call_ids: frozenset[str]
    renames: dict[str, int]
    latest: dict[str, tuple[str, str]]


def resume(state: LoadState, branch: OnBranch) -> None:
    """Start `state` at the segment's first line, from what the segments before left of the
    reused call IDs."""
    state.first_record = branch.first
    carried = branch.renames
    if carried is None:
        return
    state.source_ids.update(carried.source_ids)
    state.call_ids.update(carried.call_ids)
    state.renames.update(carried.renames)
    state.latest.update(carried.latest)
    for source_id in carried.latest:
        state.latest_message[source_id] = -1  # a message of a segment before: never this one's


def branch_lines(
    state: LoadState, source: object, values: Iterable[object], leaf: str | OnBranch | None, keys: Keys
) -> frozenset[int] | None:
    """The lines of the branch to read (ending at the line whose ID is `leaf`, else the one the
    agent resumes), with a note on `state` for each run of message lines off it and each broken
    link; `None` for a log that is no tree (read every line in order). `ValueError` for a
    `leaf` no line has. Given `OnBranch`, its lines (no note: `check` has no use for them)."""
    if type(leaf) is OnBranch:
        resume(state, leaf)
        return leaf.lines
    assert leaf is None or type(leaf) is str
    nodes, messages = read_nodes(source, values, keys)
    if leaf is not None and not any(node.uid == leaf for node in nodes):
        raise ValueError(f"No line of this log has the ID {leaf!r}")
    if not is_tree(nodes, messages):
        return None
    branch = walk(nodes, leaf)
    for first, last, why in branch.off:
        lines = f"line {first + 1}" if first == last else f"lines {first + 1}-{last + 1}"
        state.notes.append(
            Note("OFF_BRANCH", None, f"$[{first}]", f"Message {lines} not on the resumed branch: {why}; kept as is")
        )
    for number, what in branch.broken:
        state.notes.append(Note("BROKEN_PARENT_LINK", None, f"$[{number}]", what))
    if branch.sidechain_only:
        state.notes.append(
            Note("SIDECHAIN_BRANCH", None, "$", "Every message line is a sub-agent's: the branch read is a sidechain")
        )
    return branch.on


class Branch(NamedTuple):
    """One branch of a session log: where it ends, when, and how long it is."""

    leaf: str
    """The ID of its last message line (`uuid`, pi's `id`: give it to `load(source, leaf=...)`)."""
    line: int
    """That line, 0-based."""
    timestamp: str | None
    """That line's `timestamp`, if it has one."""
    messages: int
    """How many message lines the branch has (the lines that complete its turns included)."""
    sidechain: bool
    """Whether it is a sub-agent's branch."""
    resumed: bool
    """Whether it is the branch the agent resumes (the one `load` reads by default)."""


def branches(format: str, source: object, keys: Keys) -> tuple[Branch, ...]:
    """The branches of a log, in the file order of their last lines (empty for a log without
    parent links). A line that only completes another branch's turn (a parallel call's
    result hanging off its call) ends no branch of its own."""
    _, values = reading(format, source, frozenset(), is_text(source))
    nodes, messages = read_nodes(source, values, keys)
    if not is_tree(nodes, messages):
        return ()
    resumed = walk(nodes).leaf
    walks = [(leaf, walk(nodes, leaf.uid)) for leaf in leaves(nodes)]
    holding: dict[int, int] = {}  # line -> how many branches hold it
    for _, walked in walks:
        for number in walked.on:
            holding[number] = holding.get(number, 0) + 1
    found: list[Branch] = []
    for leaf, walked in walks:
        if holding.get(leaf.number, 0) > 1:  # (a leaf whose ID an earlier line has is not on its walk)
            continue
        count = sum(1 for node in nodes if node.message and node.number in walked.on)
        is_resumed = resumed is not None and leaf.number == resumed.number
        found.append(Branch(leaf.uid, leaf.number, leaf.timestamp, count, leaf.sidechain, is_resumed))
    return tuple(found)
