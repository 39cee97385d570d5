"""Claude Code session logs (`~/.claude/projects/<project>/<session>.jsonl`), losslessly.

Each line is one JSON object. `user` and `assistant` lines wrap one Anthropic message in
their `message` field, read as the `anthropic` adapter reads it (so thinking blocks are
`anthropic` opaque blocks, and a user line with several `tool_result` blocks is several IR
messages). Claude Code writes one API message over several lines that share `message.id`
(a line per content block), and the results of its first calls can come between those
lines: all lines sharing one `message.id` are one IR assistant message, at the place of its
first line. Every other line (`progress`, `system`, `summary`, `file-history-snapshot`,
`queue-operation`, ...) is not a message and is kept as it is.

`check` applies the Anthropic rules to the conversation the log stands for (the lines
merged that way): diagnostics name the 0-based line (`message_index`) and a path into it,
such as `$[12].message.content[0]`.

`dump` gives the list of lines and `dumps` JSON Lines: every line written back as it was
read, and a result that `repair` made written as Claude Code writes one: a `user` line
holding a `tool_result` block, with the session's fields copied from the line before it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Final, NamedTuple

import message_ir as ir
from message_ir.adapters import (
    _fast_line,
    _first_pass,
    _held_lines,
    _json,
    _log,
    _records,
    _tree,
    _tree_functions,
    anthropic,
)
from message_ir.adapters._build import object_raw
from message_ir.adapters._conversation import Conversation
from message_ir.adapters._format import Format, Recognize
from message_ir.adapters._functions import log_functions, log_words
from message_ir.adapters._json import as_array, as_object, decoded_object
from message_ir.adapters._load_state import LoadState
from message_ir.adapters._segments import CleanUntil, segments_function
from message_ir.adapters._usage import Call, call_of, text

NAME: Final = "claude_code"
_PAYLOAD: Final = "message"
_SESSION_FIELDS: Final = (
    "parentUuid",
    "isSidechain",
    "userType",
    "cwd",
    "sessionId",
    "version",
    "gitBranch",
    "agentId",
    "slug",
)
"""The fields of a message line that a new line copies from the line before it."""


# --- load ---------------------------------------------------------------------------------


def _read(source: object, avoid: frozenset[str], trusted: bool, leaf: str | _tree.OnBranch | None = None) -> LoadState:
    state, values = _log.reading(NAME, source, avoid, trusted)
    on = _tree.branch_lines(state, source, values, leaf, _KEYS)
    kept: list[object] = []
    assistants: dict[str, int] = {}  # message.id -> the IR index of its assistant message
    folded: dict[int, list[object]] = {}  # the IR index of a split message -> its later lines' `more`
    for number, path, value, line in _log.readable_lines(state, values):
        line_type = None if line is None else line.get("type")
        if line is None or line_type not in _MESSAGE_TYPES or (on is not None and number not in on):
            kept.append([number, value])
            continue
        message = as_object(line.get(_PAYLOAD))
        if message is None:
            state.problem(path + ".message", f"Expected a message object, got `{_json.kind(line.get(_PAYLOAD))}`")
            continue
        start = len(state.messages)
        message_id = message.get("id")
        state.joins = assistants.get(message_id) if type(message_id) is str else None
        anthropic.read_message(state, message, path + ".message")
        state.joins = None
        if len(state.messages) == start:
            continue  # a problem was reported
        line_envelope = _log.envelope(line, _PAYLOAD)
        last = state.messages[-1]
        if type(last) is ir.AssistantMessage and type(message_id) is str:
            into = assistants.get(message_id)
            if into is not None:
                _fold(state, into, last, number, line_envelope, folded.setdefault(into, []))
                continue
            assistants[message_id] = start
        first: _records.Info = {"blocks": len(last.content)} if type(last) is ir.AssistantMessage else {}
        _log.mark(state, start, NAME, number, line_envelope, first)
    for into, more in folded.items():  # each split message's `meta` written once: linear in its lines
        split = state.messages[into]
        info = _records.format_info(split.meta_json, NAME)
        info["more"] = more
        first_line = info.get("line")
        assert type(first_line) is int  # `mark` put it there
        state.at(first_line)  # a problem here is its first line's
        state.messages[into] = _log.with_info(state, f"$[{first_line}]", split, NAME, info)
    state.container_meta = _log.kept_meta(state, kept)
    return state


def _fold(
    state: LoadState,
    into: int,
    part: ir.AssistantMessage,
    line: int,
    line_envelope: dict[str, object],
    more: list[object],
) -> None:
    """Join the assistant message just read from `line` onto message `into` (same `message.id`);
    what writes the line back goes on `more`, which `_read` puts in the message's `meta` once,
    after the last line (each line's entry is checked here, where a problem belongs to it)."""
    first = state.messages[into]
    assert type(first) is ir.AssistantMessage
    entry: dict[str, object] = {
        "line": line,
        "envelope": line_envelope,
        "anthropic": _records.format_info(part.meta_json, anthropic.NAME),
        "blocks": len(part.content),
    }
    joined = ir.AssistantMessage(id=first.id, content=first.content + part.content, meta_json=first.meta_json)
    state.fold_last(into, joined)
    try:
        object_raw({NAME: {"more": [entry]}})  # nested as deep as it will be in the `meta`
    except ir.ConstructionError as error:
        state.problem(f"$[{line}]", error.problem)
        return
    more.append(entry)


# --- the tree -----------------------------------------------------------------------------

_MESSAGE_TYPES: Final = ("user", "assistant")


_NO_FACTS: Final = _tree.Facts(False)
"""What a line that is no message and no compaction boundary says (most lines of a log)."""
_BOUNDARY_FACTS: Final = _tree.Facts(False, boundary=True)
_MESSAGE_FACTS: Final = _tree.Facts(True)
"""What a message line without a `message` says."""


def _facts(head: _tree.Head) -> _tree.Facts:
    """A message line's calls (`tool_use` blocks), the calls it answers (`tool_result` blocks),
    its API message (`message.id`); a compaction boundary."""
    line_type = head.type
    if line_type not in _MESSAGE_TYPES:
        boundary = line_type == "system" and head.subtype == "compact_boundary"
        return _BOUNDARY_FACTS if boundary else _NO_FACTS
    message = head.message
    if message is None:
        return _MESSAGE_FACTS
    calls: tuple[str, ...] = ()
    answers: tuple[str, ...] = ()
    content = message.content
    if type(content) is list:  # (this runs once a line of the first pass: no lists built for nothing)
        for block in content:
            kind = block.type
            if kind == "tool_use":
                if block.id is not None:
                    calls += (block.id,)
            elif kind == "tool_result" and block.tool_use_id is not None:
                answers += (block.tool_use_id,)
    if line_type == "assistant":  # read as its role says
        return _tree.facts_of((True, calls, answers, message.id, False, None, message.role == "assistant"))
    return _tree.facts_of((True, calls, answers, None, False, None, False))


_NAMES: Final = {"uid": "uuid", "parent": "parentUuid", "sidechain": "isSidechain"}
_KEYS: Final = _tree.Keys(_NAMES, _PAYLOAD, _json.renamed_decoder(_tree.Head, _NAMES), _facts)


# --- the fast path of check ---------------------------------------------------------------


def _clean(data: bytes, on: frozenset[int] | None, *, alone: bool = False) -> int | None:
    """How many IR messages a segment of a log (whole lines, each ending in a newline; `on`:
    its lines on the branch, `None`: every line) holds, when it is surely clean (`check` of it
    would say nothing); else `None`. `alone`: the segment is a whole log no first pass read
    (see `_clean_lines`)."""
    found = _clean_lines((data,), on, alone=alone)
    return found if type(found) is int else None


def _clean_alone(blocks: Iterable[bytes]) -> int | CleanUntil | None:
    """`_clean` of a whole log of any size, given in blocks of whole lines, without the first
    pass (see `alone`), or where its clean lines end when only its last ones may not be clean;
    its memory does not grow with the log's text (only with its IDs)."""
    return _clean_lines(blocks, None, alone=True)


_WALK_AFTER: Final = 256
"""How many turns `_clean_lines` reads before it walks them, at the start of a new assistant
message: the lines of one API message are joined into one turn, as `load` joins them, as
long as that turn is not walked yet."""


def _clean_lines(
    blocks: Iterable[bytes], on: frozenset[int] | None, *, alone: bool, walk_after: int = _WALK_AFTER
) -> int | CleanUntil | None:
    """`_clean` of the lines of `blocks` (each of whole lines ending in a newline, in order;
    `on`, when given, numbers the lines of one block, a segment's). `alone`: they are a whole
    log no first pass read (`on` is `None`), taken only when its lines say that every message
    line is on its branch (`_first_pass.OneChain`).

    It takes the usual shape only: every line a JSON object held in `meta` as it is, each
    message line's `message` of its own role, with `text` and `tool_use` (and `thinking`)
    blocks from the assistant, a string or `text` and `tool_result` blocks from the user, each
    call answered in the next user turn before anything else (`_fast_line.Linkage`), the
    lines of one `message.id` joined as `load` joins them. Anything else is the careful
    path's to judge (a property test compares the two on real logs and their mutations).

    The turns are walked `walk_after` at a time, so that what is held does not grow with the
    log: a line of an API message whose turn was walked already is left to the careful path.
    Alone, when every line was read and the walk of the last turns (or a call left without
    its result at the end: a session cut off) is all that is not clean, it gives where the
    clean lines end (`CleanUntil`): at the start of the last walk that began a new turn after
    a user's with no call waiting, when no result after it answers a call before it."""
    turns: list[list[object] | str] = []  # the IR's order: an assistant's blocks, a user's content
    user: list[bool] = []
    joined: dict[str, int] = {}  # message.id -> its turn, for the turns not walked yet
    walked: set[int] = set()  # the hashes of the message.ids of the turns walked (a clash: the careful path)
    called: dict[str, int] = {}  # the call IDs of the lines read so far -> their line: `load` names a result by them
    chain = _first_pass.OneChain(_KEYS) if alone else None
    linkage = _fast_line.Linkage(None, anthropic.ID_RULE)
    count = 0
    until: CleanUntil | None = None  # where the clean lines end, as far as the walks went
    first_line = first_byte = 0  # of the block
    for data in blocks:
        deep = _held_lines.deep_lines(data)  # the lines that may nest too deeply for `meta`
        start, size, number = 0, len(data), -1
        while start < size:  # each line, as `raw_lines` gives it (a last line without its newline too)
            stop = data.find(b"\n", start)
            if stop < 0:
                stop = size
            raw, line_start, number = data[start:stop], start, number + 1
            start = stop + 1
            line = _held_lines.held_object(raw, number in deep if deep else False)
            if line is None:
                return None
            line_type = line.get("type")
            if chain is not None and not chain.line(line, line_type in _MESSAGE_TYPES):
                return None  # a line off the chain: the first pass says what is on the branch
            if line_type not in _MESSAGE_TYPES or (on is not None and number not in on):
                continue
            payload = line.get(_PAYLOAD)
            if type(payload) is not dict:
                return None
            message: dict[str, object] = payload  # decoded here: `str` keys
            if message.get("role") != line_type:
                return None
            content = message.get("content")
            if line_type == "user":
                if "id" in message:
                    return None
                if type(content) is str:
                    turns.append(content)
                elif type(content) is list and content:
                    for item in content:
                        if type(item) is not dict:
                            continue
                        part: dict[str, object] = item  # decoded here: `str` keys
                        if part.get("type") == "tool_result":
                            answered = part.get("tool_use_id")
                            if answered is None:
                                continue
                            if type(answered) is not str or answered not in called:
                                return None  # a result before its call's line: `load` names no tool for it
                            if until is not None and called[answered] < until.line:
                                until = None  # a result answering a call made before the clean lines' end
                    turns.append(content)
                else:
                    return None
                user.append(True)
                continue
            message_id = message.get("id")
            if type(content) is not list or not content or type(message_id) is not str:
                return None
            blocks_of_line: list[object] = content
            for item in blocks_of_line:
                if type(item) is dict:
                    block: dict[str, object] = item
                    call_id = block.get("id")
                    if call_id is not None:
                        if type(call_id) is not str:
                            return None  # an ID `load` refuses: the careful path says so
                        if call_id in called:
                            return None  # used again: `load` renames it, and pairs results by the rename
                        called[call_id] = first_line + number
            into = joined.get(message_id)
            if into is not None:
                turn = turns[into]
                assert type(turn) is list
                turn.extend(blocks_of_line)
                continue
            if walked and hash(message_id) in walked:
                return None  # a line of an API message walked already: `load` joins it there
            if len(turns) >= walk_after:
                after_user = user[-1]
                messages = _walk(turns, user, linkage)
                if messages is None:
                    return None
                count += messages
                walked.update(map(hash, joined))
                turns, user, joined = [], [], {}
                if alone and after_user and linkage.message():  # a place a segment may start
                    until = CleanUntil(first_line + number, first_byte + line_start, count)
            joined[message_id] = len(turns)
            turns.append(list(blocks_of_line))
            user.append(False)
        first_line += number + 1
        first_byte += size
    if chain is not None and not chain.covers():
        return None  # a message line may be off the branch: the first pass says which
    messages = _walk(turns, user, linkage)
    if messages is not None and linkage.end():
        return count + messages
    return until


def _walk(turns: list[list[object] | str], user: list[bool], linkage: _fast_line.Linkage) -> int | None:
    """How many IR messages the turns read (in order) make, when each is clean, `linkage`
    going on from the turns before them; else `None`."""
    count = 0
    for turn, from_user in zip(turns, user, strict=True):
        messages = _user_clean(turn, linkage) if from_user else _assistant_clean(turn, linkage)
        if messages is None:
            return None
        count += messages
    return count


def _object(value: object) -> dict[str, object] | None:
    """`value` if it is a JSON object (decoded here: no caller's type, every key a `str`)."""
    return value if type(value) is dict else None


def _array(value: object) -> list[object] | None:
    return value if type(value) is list else None


def _text_block(block: dict[str, object]) -> bool:
    text = block.get("text")
    return len(block) == 2 and type(text) is str


def _assistant_clean(blocks: list[object] | str, linkage: _fast_line.Linkage) -> int | None:
    """1 for a clean assistant message (its blocks joined), else `None`."""
    if type(blocks) is not list or not linkage.assistant():
        return None
    for item in blocks:
        block = _object(item)
        if block is None:
            return None
        kind = block.get("type")
        if kind == "tool_use":
            call_id, name, arguments = block.get("id"), block.get("name"), _object(block.get("input"))
            if not _CALL_KEYS.issuperset(block) or type(call_id) is not str or type(name) is not str:
                return None
            if arguments is None:
                return None
            if not linkage.call(call_id, name, arguments):
                return None
        elif kind == "thinking":
            if len(block) != 3 or type(block.get("thinking")) is not str or type(block.get("signature")) is not str:
                return None
        elif kind != "text" or not _text_block(block):
            return None
    return 1


def _user_clean(content: list[object] | str, linkage: _fast_line.Linkage) -> int | None:
    """How many IR messages a clean user message is (one per result, one per run of text
    blocks), else `None`."""
    if type(content) is str:
        return 1 if linkage.message() else None
    count = 0
    in_text = False
    for item in content:
        block = _object(item)
        if block is None:
            return None
        kind = block.get("type")
        if kind == "tool_result":
            call_id, result, is_error = block.get("tool_use_id"), block.get("content"), block.get("is_error", False)
            if not _RESULT_KEYS.issuperset(block) or type(call_id) is not str or type(is_error) is not bool:
                return None
            if type(result) is not str and not _text_blocks(result):
                return None
            if not linkage.result(call_id):
                return None
            count, in_text = count + 1, False
        elif kind != "text" or not _text_block(block) or not linkage.message():
            return None
        elif not in_text:
            count, in_text = count + 1, True
    return count


_RESULT_KEYS: Final = frozenset({"type", "tool_use_id", "content", "is_error"})
_CALL_KEYS: Final = frozenset({"type", "id", "name", "input", "caller"})  # `caller`: Claude Code 2.1


def _text_blocks(value: object) -> bool:
    items = _array(value)
    if not items:
        return False
    for item in items:
        block = _object(item)
        if block is None or block.get("type") != "text" or not _text_block(block):
            return False
    return True


# --- usage --------------------------------------------------------------------------------


_USAGE_KEYS: Final = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")


def _usage(source: object) -> Iterator[Call]:
    """Each API call of the log, once: the lines of one `message.id` are one call, counted by
    the usage of its last line (every line repeats the call's usage, which may still grow);
    sub-agents' lines and other branches are calls too. Claude Code's own `<synthetic>`
    messages (errors it wrote itself) are none."""
    found: dict[str, Call] = {}
    for number, line in _log.objects(NAME, source):
        message = as_object(line.get(_PAYLOAD)) if line.get("type") == "assistant" else None
        usage = None if message is None else as_object(message.get("usage"))
        if message is None or usage is None or message.get("model") == "<synthetic>":
            continue
        key = text(message.get("id")) or text(line.get("requestId")) or text(line.get("uuid")) or f"line {number}"
        where = (text(line.get("sessionId")), text(message.get("model")), text(line.get("timestamp")), number)
        found[key] = call_of(usage, _USAGE_KEYS, where)
    yield from found.values()  # in the order of each call's first line


# --- dump ---------------------------------------------------------------------------------


class _Writing(NamedTuple):
    """What the writer gathers as it writes the messages' lines."""

    restore: dict[str, str]
    """Renamed call IDs -> the IDs the log holds (filled as calls are met)."""
    call_lines: dict[str, str]
    """IR call ID -> the `uuid` of the line holding the call."""
    made: dict[str, tuple[bool, object]]
    """Each new line's `uuid` -> the parent it copied, if any."""
    new_results: list[tuple[dict[str, object], str]]
    """Each new result line, with the `uuid` of its call's line."""


def _dump(conversation: Conversation, *, texts: bool = False) -> list[object]:
    own = conversation.format == NAME
    placement = _log.Placement()
    state = _Writing({}, {}, {}, [])
    previous: dict[str, object] | None = None  # the envelope of the latest message line
    messages = conversation.messages
    index = 0
    ahead: dict[str, object] | None = None  # the next message's entries, decoded while grouping a line
    while index < len(messages):
        message = messages[index]
        # Decoded once for both formats' entries (and for the line grouping before, if it read them).
        entries = _records.meta_entries(message.meta_json) if ahead is None else ahead
        ahead = None
        info = _records.entry_info(entries, NAME)
        line, line_envelope = _log.line_in(info)
        first = _records.entry_info(entries, anthropic.NAME)
        index += 1
        if type(message) is ir.AssistantMessage:
            lines = _assistant_lines(message, info, first, line, line_envelope, previous, state)
        else:
            group = [message]
            their_infos = [first]  # what `anthropic` kept of each, from `meta` decoded once
            hoisted: list[tuple[ir.Message, _records.Info]] = []  # results repair put inside this line
            while line is not None and index < len(messages) and type(messages[index]) is not ir.AssistantMessage:
                next_entries = _records.meta_entries(messages[index].meta_json)
                next_line, next_envelope = _log.line_in(_records.entry_info(next_entries, NAME))
                if next_line is None and next_envelope is None and type(messages[index]) is ir.ToolResultMessage:
                    found = _inserted_results(messages, index, next_entries, line)
                    if found is not None:
                        new, index, next_entries = found
                        hoisted.extend(new)
                        next_line, next_envelope = line, None
                if next_line != line or next_envelope is not None:
                    ahead = next_entries
                    break
                group.append(messages[index])
                their_infos.append(_records.entry_info(next_entries, anthropic.NAME))
                index += 1
            for result, result_info in hoisted:  # each its own new line, before the line it was put in
                new_lines = _user_lines([result], [result_info], None, None, previous, state)
                previous = decoded_object(new_lines[0][1]) or previous
                placement.add(new_lines)
            lines = _user_lines(group, their_infos, line, line_envelope, previous, state)
        for _, value in lines:
            written = decoded_object(value)
            if written is not None:
                previous = written
        placement.add(lines)
    if not own:
        return placement.lines([])
    kept = _log.kept_lines(conversation.meta, NAME, texts=texts)
    return _tree.tree_lines(placement, kept, conversation.notes, state.made, state.new_results, _KEYS)


def _inserted_results(
    messages: Sequence[ir.Message], index: int, entries: dict[str, object], line: int
) -> tuple[list[tuple[ir.Message, _records.Info]], int, dict[str, object]] | None:
    """The result at `index` that no line holds (`entries`: its decoded `meta`) and those like
    it right after, when the user line `line` goes on after them (repair put them between two
    of its messages), with where the line goes on and that message's entries; `None` otherwise."""
    found: list[tuple[ir.Message, _records.Info]] = []
    while True:
        found.append((messages[index], _records.entry_info(entries, anthropic.NAME)))
        index += 1
        if index == len(messages) or type(messages[index]) is ir.AssistantMessage:
            return None
        entries = _records.meta_entries(messages[index].meta_json)
        next_line, next_envelope = _log.line_in(_records.entry_info(entries, NAME))
        if next_line is not None or next_envelope is not None or type(messages[index]) is not ir.ToolResultMessage:
            return (found, index, entries) if next_line == line and next_envelope is None else None


def _user_lines(
    group: list[ir.Message],
    infos: list[_records.Info],
    line: int | None,
    line_envelope: dict[str, object] | None,
    previous: dict[str, object] | None,
    state: _Writing,
) -> _log.Lines:
    """The line of user-side messages read from one line (`infos`: what `anthropic` kept of
    each), or of one new message (a new line after `previous`; a new result's line goes into
    `state.new_results`)."""
    payload = anthropic.render_messages(group, state.restore, infos)[0]
    if line_envelope is None:
        line, line_envelope = None, _new_envelope(previous, "user", group[0].id, state.made)
    lines: _log.Lines = [(line, _log.filled(line_envelope, _PAYLOAD, payload))]
    message = group[0]
    call_line = state.call_lines.get(message.tool_call_id) if type(message) is ir.ToolResultMessage else None
    new_line = decoded_object(lines[0][1])  # a decoded envelope, filled
    if line is None and call_line is not None and new_line is not None:
        state.new_results.append((new_line, call_line))
    return lines


def _assistant_lines(
    message: ir.AssistantMessage,
    info: _records.Info,
    first: _records.Info,
    line: int | None,
    line_envelope: dict[str, object] | None,
    previous: dict[str, object] | None,
    state: _Writing,
) -> _log.Lines:
    """The lines of one assistant message: its blocks split over the lines they came from
    (what is left over goes to the last line); `info` is what this format kept of the message,
    `first` the Anthropic entry of its first line."""
    if line_envelope is None:
        line, line_envelope = None, _new_envelope(previous, "assistant", message.id, state.made)
    parts: list[tuple[int | None, dict[str, object], _records.Info, int]] = []
    count = info.get("blocks")
    parts.append(
        (
            line,
            line_envelope,
            first,
            count if type(count) is int else 0,
        )
    )
    for item in as_array(info.get("more")) or []:
        entry = decoded_object(item) or {}  # from the decoded `meta`
        more_line, more_envelope = entry.get("line"), decoded_object(entry.get("envelope"))
        more_count = entry.get("blocks")
        if type(more_line) is int and more_envelope is not None and type(more_count) is int:
            parts.append((more_line, more_envelope, decoded_object(entry.get("anthropic")) or {}, more_count))
    lines: _log.Lines = []
    start = 0
    for number, (part_line, part_envelope, part_info, count) in enumerate(parts):
        end = len(message.content) if number == len(parts) - 1 else min(start + count, len(message.content))
        blocks: Sequence[ir.AssistantBlock] = message.content[start:end]
        start = end
        payload = anthropic.render_assistant(blocks, part_info, state.restore)
        lines.append((part_line, _log.filled(part_envelope, _PAYLOAD, payload)))
        uid = part_envelope.get("uuid")
        for block in blocks:
            if type(block) is ir.ToolCall and type(uid) is str:
                state.call_lines[block.id] = uid
    return lines


def _new_envelope(
    previous: dict[str, object] | None, kind: str, message_id: str, made: dict[str, tuple[bool, object]]
) -> dict[str, object]:
    """The fields of a line Claude Code would write for a new message, after `previous`
    (recorded in `made` with the `parentUuid` it copied from `previous`)."""
    line: dict[str, object] = {}
    session = "" if previous is None else str(previous.get("sessionId", ""))
    for name in _SESSION_FIELDS:
        if previous is not None and name in previous:
            line[name] = previous[name]
    if previous is not None and type(previous.get("uuid")) is str:
        line["parentUuid"] = previous["uuid"]
    line["type"] = kind
    line[_PAYLOAD] = None
    line["uuid"] = _log.new_uuid(NAME, session, message_id)
    if previous is not None and "timestamp" in previous:
        line["timestamp"] = previous["timestamp"]
    _tree.record_new_line(made, _KEYS, str(line["uuid"]), previous)
    return line


_LINE_TYPES: Final = (
    "user",
    "assistant",
    "summary",
    "system",
    "progress",
    "file-history-snapshot",
    "queue-operation",
)


def _recognizes_line(line: dict[str, object]) -> bool:
    line_type = line.get("type")
    return line_type == "file-history-snapshot" or (
        line_type in _LINE_TYPES and ("sessionId" in line or "uuid" in line or "leafUuid" in line)
    )


_WORDS: Final = log_words(
    "Claude Code session logs (JSON Lines from ~/.claude/projects)",
    "a Claude Code log",
    "Every problem Anthropic would answer with a 400 on resuming this session, and the IR's own",
)
_TREES: Final = _tree_functions.tree_functions(
    NAME,
    _read,
    _KEYS,
    anthropic.provider_rules,
    "the branch Claude Code resumes",
    clean=_clean,
    alone=_clean_alone,
    streams=True,
)
_FUNCTIONS: Final = log_functions(
    NAME, _read, _dump, anthropic.provider_rules, _WORDS, lambda source: _TREES.check(source, None)
)


FORMAT: Final = Format(
    _FUNCTIONS,
    id_rule=anthropic.FORMAT.id_rule,  # a Claude Code log holds Anthropic messages
    recognize=Recognize(line=_recognizes_line),
    payload=anthropic.NAME,
    keeps_instructions=False,
    trees=_TREES,
    segments=segments_function(
        NAME,
        _read,
        _KEYS,
        anthropic.provider_rules,
        _TREES.load_checked,
        trees=True,
        clean=_clean,
        streamed=_clean_alone,
    ),
    usage=_usage,
)
"""The declaration of the format (`message_ir.adapters.FORMATS` lists it)."""

_, dump, dumps, check = _FUNCTIONS.unpacked()
load, branches = _TREES.load, _TREES.branches

__all__ = ["FORMAT", "NAME", "branches", "check", "dump", "dumps", "load"]
