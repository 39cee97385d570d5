"""pi coding-agent session logs (`~/.pi/agent/sessions/.../<session>.jsonl`), losslessly.

Each line is one JSON object with a `type`. A `message` line holds one pi message in its
`message` field:

- `user` → `UserMessage` (its text parts joined by a newline; images and other parts kept
  in `meta`);
- `assistant` → `AssistantMessage`: `text` → `TextBlock`, `toolCall` → `ToolCall`
  (`arguments` is an object; one that is not is kept as it was and the IR holds `{}`),
  anything else (`thinking`, ...) → an `OpaqueBlock` of format `pi`, in place; the message's
  other fields (`api`, `provider`, `model`, `usage`, `stopReason`, `errorMessage`,
  `timestamp`) are kept in `meta`;
- `toolResult` → `ToolResultMessage` (`toolCallId`, `toolName`, `isError`; text parts
  joined, the rest kept).

Messages of other roles (`bashExecution`, custom ones) and every other line (`session`,
`model_change`, `thinking_level_change`, `compaction`, ...) are kept as they are. A session
whose entries have `id` and `parentId` (format v2 and later) is a tree: `load` reads the
branch ending at the last message entry, as pi resumes it (`branches` lists the others, and
`load(source, leaf=id)` reads one); a session without them (format v1) is read in file order.

pi itself reshapes a transcript for each provider it sends it to, so `check` reports the
IR's own diagnostics (a call without a result, a result without a call, a reused ID) and
arguments that are not an object, not one provider's ID rules. `check` of a log given as
text or as a `LogFile` reads it a segment at a time, as Claude Code's does (a plain segment
judged by a fast path that builds no IR; a plain log under 4 MB read once so). A result
that `repair` made is written as pi writes one: a `message` line with a `toolResult`
(`isError` true).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Final

import msgspec

import message_ir as ir
from message_ir.adapters import (
    _checks,
    _fast_line,
    _first_pass,
    _held_lines,
    _json,
    _load_state,
    _log,
    _records,
    _tree,
    _tree_functions,
    _writing,
)
from message_ir.adapters._build import meta_raw
from message_ir.adapters._calls import BlockShape, read_block, written_arguments
from message_ir.adapters._conversation import Conversation
from message_ir.adapters._format import Format, Recognize
from message_ir.adapters._functions import log_functions, log_words
from message_ir.adapters._ids import any_id
from message_ir.adapters._json import as_array, as_object
from message_ir.adapters._load_state import LoadState
from message_ir.adapters._segments import CleanUntil, segments_function
from message_ir.adapters._usage import Call, call_of, text

NAME: Final = "pi"
_PAYLOAD: Final = "message"
_USER_KEYS: Final = ("role", "content")
_ASSISTANT_KEYS: Final = ("role", "content")
_RESULT_KEYS: Final = ("role", "toolCallId", "toolName", "content", "isError")
_TEXT_KEYS: Final = ("type", "text")
_CALL_KEYS: Final = ("type", "id", "name", "arguments")
_BLOCKS: Final = BlockShape(NAME, _TEXT_KEYS, "toolCall", _CALL_KEYS, "arguments")
TEXT_SEPARATOR: Final = "\n"
"""How the text parts of a user message or a tool result are joined into the IR's `content`."""


# --- load ---------------------------------------------------------------------------------


def _read(source: object, avoid: frozenset[str], trusted: bool, leaf: str | _tree.OnBranch | None = None) -> LoadState:
    state, values = _log.reading(NAME, source, avoid, trusted)
    on = _tree.branch_lines(state, source, values, leaf, _KEYS)
    kept: list[object] = []
    for number, path, value, line in _log.readable_lines(state, values):
        message = None if line is None or line.get("type") != "message" else as_object(line.get(_PAYLOAD))
        role = None if message is None else message.get("role")
        if line is None or message is None or role not in _ROLES or (on is not None and number not in on):
            kept.append([number, value])
            continue
        start = len(state.messages)
        try:
            if role == "user":
                _user(state, message, path + ".message")
            elif role == "assistant":
                _assistant(state, message, path + ".message")
            else:
                _result(state, message, path + ".message")
        except ir.ConstructionError as error:  # a parsed value the IR cannot hold
            state.problem(path, error.problem)
        if len(state.messages) > start:
            _log.mark(state, start, NAME, number, _log.envelope(line, _PAYLOAD))
    state.container_meta = _log.kept_meta(state, kept)
    return state


# --- the tree (pi's format v2 and later) ------------------------------------------------

_ROLES: Final = ("user", "assistant", "toolResult")


def _facts(head: _tree.Head) -> _tree.Facts:
    """A message entry's calls (`toolCall` parts), the call a `toolResult` answers; what a
    compaction keeps (`firstKeptEntryId`)."""
    message = head.message
    role = None if message is None or head.type != "message" else message.role
    parts = message.content if message is not None and role == "assistant" and type(message.content) is list else []
    answered = None if message is None or role != "toolResult" else message.tool_call_id
    calls = tuple([part.id for part in parts if part.type == "toolCall" and part.id is not None])
    keeps_from = head.keeps_from if head.type == "compaction" else None
    return _tree.facts_of(
        (role in _ROLES, calls, () if answered is None else (answered,), None, False, keeps_from, role == "assistant")
    )


_NAMES: Final = {"uid": "id", "parent": "parentId", "keeps_from": "firstKeptEntryId"}
_KEYS: Final = _tree.Keys(_NAMES, _PAYLOAD, _json.renamed_decoder(_tree.Head, _NAMES), _facts)


def _meta(info: _records.Info) -> msgspec.Raw:
    return meta_raw(NAME, info)


def _text_parts(state: LoadState, content: object, path: str, info: _records.Info) -> str | None:
    """The IR text of `content` (a string, or a list of parts), keeping in `info` what the
    text alone does not say."""
    if type(content) is str:
        info["string"] = True
        return content
    found = _load_state.part_texts(state, content, path, ("text",))
    if found is None:
        return None
    texts, parts = found
    joined = TEXT_SEPARATOR.join(texts)
    if parts != [{"type": "text", "text": joined}] or list(as_object(parts[0]) or {}) != list(_TEXT_KEYS):
        info["parts"] = parts
    return joined


def _written_parts(info: _records.Info, text: str) -> object:
    """The `content` to write for IR text: the kept parts if they still say it, else a text part."""
    if info.get("string") is True:
        return text
    parts = as_array(info.get("parts"))
    if parts is not None:
        texts = [part.get("text") for part in map(as_object, parts) if part is not None and part.get("type") == "text"]
        if TEXT_SEPARATOR.join(str(text) for text in texts) == text:
            return parts
    return [{"type": "text", "text": text}]


def _user(state: LoadState, record: dict[str, object], path: str) -> None:
    info = _records.split_record(record, _USER_KEYS, _USER_KEYS)
    text = _text_parts(state, record.get("content"), path + ".content", info)
    if text is None:
        return
    state.add(ir.UserMessage(id=state.message_id(), content=text, meta_json=_meta(info)), path)


def _assistant(state: LoadState, record: dict[str, object], path: str) -> None:
    info = _records.split_record(record, _ASSISTANT_KEYS, _ASSISTANT_KEYS)
    content = as_array(record.get("content"))
    if content is None:
        state.problem(
            path + ".content", f"Expected a list of content blocks, got `{_json.kind(record.get('content'))}`"
        )
        return
    message_index = len(state.messages)
    blocks: list[ir.AssistantBlock] = []
    block_paths: list[str] = []
    for number, item in enumerate(content):
        block_path = f"{path}.content[{number}]"
        block = as_object(item)
        block_type = None if block is None else block.get("type")
        if block is None or type(block_type) is not str or not block_type:
            state.problem(block_path, "Expected a content block with a `type`")
            return
        ir_block = read_block(state, message_index, block, block_path, _BLOCKS, _meta)
        if ir_block is None:
            return
        blocks.append(ir_block)
        block_paths.append(block_path)
    state.add(
        ir.AssistantMessage(id=state.message_id(), content=tuple(blocks), meta_json=_meta(info)), path, block_paths
    )


def _result(state: LoadState, record: dict[str, object], path: str) -> None:
    call_id, name, is_error = record.get("toolCallId"), record.get("toolName"), record.get("isError", False)
    if type(call_id) is not str or not call_id:
        state.problem(path + ".toolCallId", "Expected a non-empty `str`")
        return
    if name is not None and (type(name) is not str or not name):
        state.problem(path + ".toolName", "Expected a non-empty `str`")
        return
    if type(is_error) is not bool:
        state.problem(path + ".isError", f"Expected `bool`, got `{_json.kind(is_error)}`")
        return
    info = _records.split_record(record, _RESULT_KEYS, _RESULT_KEYS)
    text = _text_parts(state, record.get("content"), path + ".content", info)
    if text is None:
        return
    if name is None:
        info["no_name" if "toolName" not in record else "null_name"] = True
    if "isError" not in record:
        info["no_is_error"] = True  # absent stays absent
    state.add(state.answer(call_id, name, text, is_error, _meta(info), path), path)


# --- the fast path of check ---------------------------------------------------------------


_ID_RULE: Final = any_id("pi takes any call ID")
"""No provider rule: the fast path's `Linkage` asks only that an ID is a non-empty `str`."""


def _clean(data: bytes, on: frozenset[int] | None, *, alone: bool = False) -> int | None:
    """How many IR messages a segment of a log (whole lines; `on`: its lines on the branch,
    `None`: every line) holds, when it is surely clean (`check` of it would say nothing); else
    `None`. `alone`: the segment is a whole log no first pass read (see `_clean_lines`)."""
    found = _clean_lines((data,), on, alone=alone)
    return found if type(found) is int else None


def _clean_alone(blocks: Iterable[bytes]) -> int | CleanUntil | None:
    """`_clean` of a whole log of any size, given in blocks of whole lines, without the first
    pass (see `alone`), or where its clean lines end when only its last calls wait for their
    results; its memory does not grow with the log's text (only with its IDs)."""
    return _clean_lines(blocks, None, alone=True)


def _clean_lines(blocks: Iterable[bytes], on: frozenset[int] | None, *, alone: bool) -> int | CleanUntil | None:
    """`_clean` of the lines of `blocks` (each of whole lines ending in a newline, in order;
    `on`, when given, numbers the lines of one block, a segment's). `alone`: they are a whole
    log no first pass read (`on` is `None`), taken only when its lines say that every message
    line is on its branch (`_first_pass.OneChain`) and no compaction moves where the branch
    starts.

    It takes the usual shape only: every line a JSON object held in `meta` as it is; each
    message entry on the branch a `user` message of text (a string, or `text` parts), an
    `assistant` message of `text` blocks (or none), `toolCall`s (an `id`, a `name`, `arguments` an
    object) and blocks of other types (kept as they are), or a `toolResult` naming its call
    (and its tool, if at all) with text content; each call answered by the results right after
    its message (`_fast_line.Linkage`), no call ID used twice. Anything else is the careful
    path's to judge (a property test compares the two on real logs and their mutations).

    Each entry is judged as it is read, so nothing but the IDs is held. Alone, when the only
    thing not clean is a call still waiting for its result at the end (a session cut off), it
    gives where the clean lines end (`CleanUntil`): at the last assistant message that follows
    a user's or a result's (no call waits there, and a result after it answering a call before
    it is no clean line)."""
    linkage = _fast_line.Linkage(None, _ID_RULE)
    called: set[str] = set()  # every call ID so far: one used again is renamed by `load` (the careful path's)
    chain = _first_pass.OneChain(_KEYS) if alone else None
    count = 0
    until: CleanUntil | None = None
    after_user = False  # whether the last message entry read was a user's or a result
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
            payload = line.get(_PAYLOAD) if line_type == "message" else None
            message: dict[str, object] | None = payload if type(payload) is dict else None  # decoded: `str` keys
            role = None if message is None else message.get("role")
            if chain is not None and (line_type == "compaction" or not chain.line(line, role in _ROLES)):
                return None  # the first pass says what is on the branch
            if message is None or role not in _ROLES or (on is not None and number not in on):
                continue  # kept as it is
            if role == "user":
                if not _plain_text(message.get("content")) or not linkage.message():
                    return None
            elif role == "assistant":
                if alone and after_user:  # a place a segment may start (`_clean_assistant`: no call waits)
                    until = CleanUntil(first_line + number, first_byte + line_start, count)
                if not _clean_assistant(message.get("content"), linkage, called):
                    return None
            elif not _clean_result(message, linkage):
                return None
            after_user = role != "assistant"
            count += 1
        first_line += number + 1
        first_byte += size
    if chain is not None and not chain.covers():
        return None  # a message line may be off the branch: the first pass says which
    return count if linkage.end() else until


def _plain_text(content: object) -> bool:
    """Whether a user message's or a result's `content` is text: a string, or `text` parts."""
    if type(content) is str:
        return True
    if type(content) is not list or not content:
        return False
    for item in content:
        if type(item) is not dict:
            return False
        part: dict[str, object] = item  # decoded here: `str` keys
        if part.get("type") != "text" or type(part.get("text")) is not str:
            return False
    return True


def _clean_assistant(content: object, linkage: _fast_line.Linkage, called: set[str]) -> bool:
    if type(content) is not list or not linkage.assistant():  # (no blocks: an aborted reply, as pi writes it)
        return False
    for item in content:
        if type(item) is not dict:
            return False
        block: dict[str, object] = item  # decoded here: `str` keys
        kind = block.get("type")
        if kind == "text":
            if type(block.get("text")) is not str:
                return False
        elif kind == "toolCall":
            call_id, name, arguments = block.get("id"), block.get("name"), block.get("arguments")
            if type(call_id) is not str or type(name) is not str or type(arguments) is not dict:
                return False
            if call_id in called or not linkage.call(call_id, name, arguments):
                return False
            called.add(call_id)
        elif type(kind) is not str or not kind:
            return False
    return True


def _clean_result(message: dict[str, object], linkage: _fast_line.Linkage) -> bool:
    call_id, name, is_error = message.get("toolCallId"), message.get("toolName"), message.get("isError", False)
    if type(call_id) is not str or type(is_error) is not bool or not _plain_text(message.get("content")):
        return False
    if name is None and "toolName" in message:
        return False  # `null`: written back so, and the careful path's
    if name is not None and (type(name) is not str or not name):
        return False
    return linkage.result(call_id, name)


# --- usage --------------------------------------------------------------------------------


_USAGE_KEYS: Final = ("input", "output", "cacheRead", "cacheWrite")


def _usage(source: object) -> Iterator[Call]:
    """Each assistant message entry with a `usage` is one API call (every branch counts)."""
    session = None
    for number, line in _log.objects(NAME, source):
        if line.get("type") == "session":
            session = text(line.get("id"))
        message = as_object(line.get(_PAYLOAD)) if line.get("type") == "message" else None
        usage = None if message is None or message.get("role") != "assistant" else as_object(message.get("usage"))
        if message is None or usage is None:
            continue
        yield call_of(usage, _USAGE_KEYS, (session, text(message.get("model")), text(line.get("timestamp")), number))


# --- dump ---------------------------------------------------------------------------------


def _dump(conversation: Conversation, *, texts: bool = False) -> list[object]:
    own = conversation.format == NAME
    placement = _log.Placement()
    restore: dict[str, str] = {}
    previous: dict[str, object] | None = None
    last_time: object = None  # the `timestamp` of the latest pi message written
    call_lines: dict[str, str] = {}  # IR call ID -> the `id` of the entry holding the call
    new_results: list[tuple[dict[str, object], str]] = []  # a new result entry, its call's entry
    made: dict[str, tuple[bool, object]] = {}  # each new entry's `id` -> the parent it copied, if any
    for message in conversation.messages:
        info = _records.format_info(message.meta_json, NAME)
        line, line_envelope = _log.line_in(info)
        if type(message) is ir.AssistantMessage:
            payload = _dump_assistant(message, info, restore)
        elif type(message) is ir.UserMessage:
            values: dict[str, object] = {"role": "user", "content": _written_parts(info, message.content)}
            if not info:  # a new message: stamped like the one before it
                values["timestamp"] = last_time
            payload = _records.build_record(info, _USER_KEYS, values)
        else:
            assert type(message) is ir.ToolResultMessage
            payload = _dump_result(message, info, restore, last_time)
        if line_envelope is None:
            line = None
            line_envelope = _new_envelope(previous, message.id, made)
        written = _log.filled(line_envelope, _PAYLOAD, payload)
        entry_id = written.get("id")
        if type(message) is ir.AssistantMessage and type(entry_id) is str:
            call_lines.update((block.id, entry_id) for block in message.content if type(block) is ir.ToolCall)
        call_line = call_lines.get(message.tool_call_id) if type(message) is ir.ToolResultMessage else None
        if line is None and call_line is not None:
            new_results.append((written, call_line))
        previous = written
        time = payload.get("timestamp")
        if time is not None:
            last_time = time
        placement.add([(line, written)])
    if not own:
        return placement.lines([])
    kept = _log.kept_lines(conversation.meta, NAME, texts=texts)
    return _tree.tree_lines(placement, kept, conversation.notes, made, new_results, _KEYS)


def _new_envelope(
    previous: dict[str, object] | None, message_id: str, made: dict[str, tuple[bool, object]]
) -> dict[str, object]:
    """The fields of an entry pi would write for a new message after `previous`: in a session
    whose entries have an `id` (format v2 and later), a new `id` and `parentId` the entry before
    (recorded in `made`; `_tree.link_new_lines` puts a new result on the live branch)."""
    line: dict[str, object] = {"type": "message"}
    before = None if previous is None else previous.get("id")
    if type(before) is str:
        line["id"] = _log.new_uuid(NAME, before, message_id).replace("-", "")[:8]
        line["parentId"] = before
        _tree.record_new_line(made, _KEYS, str(line["id"]), previous)
    if previous is not None and "timestamp" in previous:
        line["timestamp"] = previous["timestamp"]
    line[_PAYLOAD] = None
    return line


def _dump_assistant(message: ir.AssistantMessage, info: _records.Info, restore: dict[str, str]) -> dict[str, object]:
    blocks: list[object] = []
    for block in message.content:
        if type(block) is ir.TextBlock:
            text_info = _records.format_info(block.meta_json, NAME)
            blocks.append(_records.build_record(text_info, _TEXT_KEYS, {"type": "text", "text": block.text}))
        elif type(block) is ir.OpaqueBlock:
            if block.format == NAME:
                blocks.append(_json.opaque_data(block))
        elif type(block) is ir.ToolCall:
            call_info = _records.format_info(block.meta_json, NAME)
            call_id = _writing.written_call_id(call_info, block.id, restore)
            values: dict[str, object] = {"type": "toolCall", "id": call_id, "name": block.name}
            written_arguments(call_info, "arguments", block, values)
            blocks.append(_records.build_record(call_info, _CALL_KEYS, values))
    return _records.build_record(info, _ASSISTANT_KEYS, {"role": "assistant", "content": blocks})


def _dump_result(
    message: ir.ToolResultMessage, info: _records.Info, restore: dict[str, str], last_time: object
) -> dict[str, object]:
    values: dict[str, object] = {
        "role": "toolResult",
        "toolCallId": restore.get(message.tool_call_id, message.tool_call_id),
    }
    if info.get("no_name") is not True:
        values["toolName"] = None if info.get("null_name") is True else message.tool_name
    values["content"] = _written_parts(info, message.content)
    if message.is_error or info.get("no_is_error") is not True:
        values["isError"] = message.is_error
    if not info:  # a new result (one `repair` made): stamped like the message before it
        values["timestamp"] = last_time
    return _records.build_record(info, _RESULT_KEYS, values)


def _recognizes_line(line: dict[str, object]) -> bool:
    line_type = line.get("type")
    if line_type == "session":
        return "payload" not in line
    message = as_object(line.get("message"))
    return line_type == "message" and message is not None and message.get("role") in ("user", "assistant", "toolResult")


_WORDS: Final = log_words(
    "pi coding-agent session logs (JSON Lines from ~/.pi/agent/sessions)",
    "a pi session log",
    "The IR's diagnostics of the session and arguments that are not an object",
)
_TREES: Final = _tree_functions.tree_functions(
    NAME,
    _read,
    _KEYS,
    _checks.no_rules,
    "the branch pi resumes (its last message entry's)",
    clean=_clean,
    alone=_clean_alone,
    streams=True,
)
_FUNCTIONS: Final = log_functions(
    NAME, _read, _dump, _checks.no_rules, _WORDS, lambda source: _TREES.check(source, None)
)


FORMAT: Final = Format(
    _FUNCTIONS,
    id_rule=any_id("pi accepts any non-empty ID"),
    recognize=Recognize(line=_recognizes_line),
    raw_arguments="arguments",
    keeps_instructions=False,
    trees=_TREES,
    segments=segments_function(
        NAME, _read, _KEYS, _checks.no_rules, _TREES.load_checked, trees=True, clean=_clean, streamed=_clean_alone
    ),
    usage=_usage,
)
"""The declaration of the format (`message_ir.adapters.FORMATS` lists it)."""

_, dump, dumps, check = _FUNCTIONS.unpacked()
load, branches = _TREES.load, _TREES.branches

__all__ = ["FORMAT", "NAME", "branches", "check", "dump", "dumps", "load"]
