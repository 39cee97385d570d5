"""gemini-cli chat recordings (`~/.gemini/tmp/<project>/chats/session-*.json`), losslessly.

A recording is one JSON object, `{"sessionId", "projectHash", "startTime", "lastUpdated",
"messages": [...]}`, whose `messages` are records with a `type`:

- `user` → `UserMessage` (`content` is a string, or Gemini parts read as a `gemini` user
  content: text parts joined by a newline, a `functionResponse` part a `ToolResultMessage`);
- `gemini` → `AssistantMessage`: its `content` text as a `TextBlock` (none when it is
  empty; Gemini parts read as a `gemini` model content), then one `ToolCall` per
  `toolCalls` entry, in order; then, for each call whose `result` is set, a
  `ToolResultMessage` right after the assistant message: the call's results are stored
  *inside* the call. The result's text is its `functionResponse.response`'s `output` (or
  `error`, then `is_error`); the record's other fields (`thoughts`, `tokens`, `model`, a
  call's `status`, `displayName`, ...) are kept in `meta`;
- every other record (`info`, `error`, `warning`, ...) is kept as it is, in its place.

`dump` writes each call's result back into its `result`. A result that `repair` made (or one
of a conversation from another format) goes into its call's `result` as gemini-cli writes
one (`[{"functionResponse": {"id", "name", "response": {"output" | "error": text}}}]`) and
sets the call's `status` to `error` (unless it says `error` or `cancelled`) or `success`. A
result that has no call to go into is written as a `user` record holding its
`functionResponse` part.

`check` reports the IR's diagnostics (a call whose `result` is missing is
`MISSING_TOOL_RESULT`) and arguments that are not an object; the Gemini turn rules hold by
construction, since results live inside their calls. `message_index` is the index in
`messages`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

import msgspec

import message_ir as ir
from message_ir.adapters import _checks, _held_lines, _json, _load_state, _log, _records, _writing, gemini
from message_ir.adapters._build import meta_raw, object_raw
from message_ir.adapters._calls import id_and_name, ir_call_id
from message_ir.adapters._conversation import Conversation
from message_ir.adapters._format import Format, Recognize
from message_ir.adapters._functions import Words, format_functions
from message_ir.adapters._ids import any_id
from message_ir.adapters._json import as_array, as_object, decoded_object, encode
from message_ir.adapters._load_state import LoadState
from message_ir.adapters._log_file import whole
from message_ir.adapters._pairing import Pairing
from message_ir.adapters._tools import arguments_value
from message_ir.adapters._usage import Call, text, tokens

NAME: Final = "gemini_cli"
_RECORD_KEYS: Final = ("type", "content", "toolCalls")
_USER_RECORD_KEYS: Final = ("type", "content")
_CALL_KEYS: Final = ("id", "name", "args", "result")
_FAILED: Final = ("error", "cancelled")


# --- load ---------------------------------------------------------------------------------


def _read(source: object, avoid: frozenset[str], trusted: bool) -> LoadState:
    state = LoadState(NAME, avoid)
    state.trusted = trusted
    records, prefix = _load_state.message_list(state, source, "messages")
    pairing = Pairing("gemini_call")
    kept: list[object] = []
    for index, path, item in state.readable(records, prefix):
        record = as_object(item)
        record_type = None if record is None else record.get("type")
        if record is None or record_type not in ("user", "gemini"):
            kept.append([index, item])
            continue
        start = len(state.messages)
        try:
            if record_type == "user":
                _user(state, pairing, record, path)
            else:
                _gemini(state, pairing, record, path)
        except ir.ConstructionError as error:  # a parsed value the IR cannot hold
            state.problem(path, error.problem)
        for number in range(start, len(state.messages)):
            info: _records.Info = {"line": index}
            if number == start:
                known = _RECORD_KEYS if record_type == "gemini" else _USER_RECORD_KEYS  # a user's `toolCalls` is extra
                record_info = _records.split_record(record, known, known)
                if "content" not in record:
                    record_info["no_content"] = True  # absent stays absent
                info["record"] = record_info
            state.messages[number] = _log.with_info(state, path, state.messages[number], NAME, info)
    state.container_meta = _log.kept_meta(state, kept, prefix)
    return state


def _content_parts(state: LoadState, record: dict[str, object], path: str) -> list[dict[str, object]] | None:
    """A record's `content` as Gemini parts (a lone part as a list of one)."""
    content = record.get("content")
    if as_object(content) is not None:
        content = [content]
    return gemini.read_parts(state, content, path + ".content")


def _user(state: LoadState, pairing: Pairing, record: dict[str, object], path: str) -> None:
    content = record.get("content")
    if type(content) is str:
        state.add(ir.UserMessage(id=state.message_id(), content=content), path)
        return
    parts = _content_parts(state, record, path)
    if parts is not None:
        gemini.read_user_parts(state, pairing, parts, path + ".content", {})


def _gemini(state: LoadState, pairing: Pairing, record: dict[str, object], path: str) -> None:
    content = record.get("content", "")
    blocks: list[ir.AssistantBlock] = []
    block_paths: list[str] = []
    if type(content) is str:
        if content:
            blocks.append(ir.TextBlock(text=content))
            block_paths.append(path + ".content")
    else:
        parts = _content_parts(state, record, path)
        found = None if parts is None else gemini.read_model_parts(state, pairing, parts, path + ".content")
        if found is None:
            return
        blocks.extend(found[0])
        block_paths.extend(found[1])
    calls = as_array(record.get("toolCalls", []))
    if calls is None:
        state.problem(path + ".toolCalls", f"Expected a list, got `{_json.kind(record.get('toolCalls'))}`")
        return
    message_index = len(state.messages)
    results: list[tuple[dict[str, object], str, str, str]] = []  # (call record, IR ID, name, path)
    for number, item in enumerate(calls):
        call_path = f"{path}.toolCalls[{number}]"
        call = as_object(item)
        if call is None:
            state.problem(call_path, f"Expected a tool call object, got `{_json.kind(item)}`")
            return
        block = _call(state, message_index, call, call_path)
        if block is None:
            return
        blocks.append(block)
        block_paths.append(call_path)
        if call.get("result") is not None:
            results.append((call, block.id, block.name, call_path + ".result"))
    info: _records.Info = {}
    if type(content) is not str:
        info["parts"] = True
    if calls == [] and "toolCalls" in record:
        info["no_calls"] = True
    state.add(
        ir.AssistantMessage(id=state.message_id(), content=tuple(blocks), meta_json=_meta(info)), path, block_paths
    )
    for part, (call, ir_id, name, result_path) in enumerate(results, start=1):
        result = _result(state, call, ir_id, name, result_path, part)
        if result is None:
            return
        state.add(result, result_path)


def _meta(info: _records.Info) -> msgspec.Raw:
    return meta_raw(NAME, info)


def _call(state: LoadState, message_index: int, call: dict[str, object], path: str) -> ir.ToolCall | None:
    named = id_and_name(state, call, path)
    if named is None:
        return None
    call_id, name = named
    arguments = call.get("args", {})
    info: _records.Info = {"call": _records.split_record(call, _CALL_KEYS, _CALL_KEYS)}
    if "args" not in call:
        info["no_args"] = True
    parsed = as_object(arguments)
    if parsed is None:
        info["args"] = arguments
        state.bad_arguments(message_index, path + ".args", encode(arguments).decode())
        parsed = {}
    if "result" not in call:
        info["no_result"] = True
    ir_id = ir_call_id(state, message_index, call_id, name, path + ".id", info)
    return ir.ToolCall(id=ir_id, name=name, arguments_json=object_raw(parsed), meta_json=_meta(info))


def result_text(result: object) -> tuple[str, bool]:
    """The IR text of a call's `result` and whether it is an error: the first
    `functionResponse`'s response, else the text parts, else a string itself."""
    if type(result) is str:
        return result, False
    parts = as_array(result)
    if parts is None:
        parts = [result]
    for item in parts:
        part = as_object(item)
        response = None if part is None else as_object(part.get("functionResponse"))
        if response is not None:
            body = as_object(response.get("response")) or {}
            text, is_error, _ = gemini.response_text(body)
            return text, is_error
    return gemini.parts_text(parts), False


def _result(
    state: LoadState, call: dict[str, object], ir_id: str, name: str, path: str, part: int
) -> ir.ToolResultMessage | None:
    result = call["result"]
    if type(result) is not str and as_array(result) is None and as_object(result) is None:
        state.problem(path, f"Expected a list of parts, a part or a `str`, got `{_json.kind(result)}`")
        return None
    text, is_error = result_text(result)
    info: _records.Info = {"in_call": True}
    if encode(result) != encode(_written_result(call.get("id"), name, text, is_error)):  # key order too
        info["result"] = result
    return state.result(ir_id, name, text, is_error, _meta(info), part)


def _written_result(call_id: object, name: str, text: str, is_error: bool) -> list[object]:
    """A result as gemini-cli writes one."""
    response = {"id": call_id, "name": name, "response": gemini.response_value(text, is_error)}
    return [{"functionResponse": response}]


# --- the fast path of check ---------------------------------------------------------------


_SURE_DEPTH: Final = _held_lines.SURE_DEPTH + 2
"""A recording nesting at most this deep holds each record within `meta`'s limit wherever
`load` puts it: a record sits two levels down in the recording (in `messages`), where a
log's line sits at the top."""


def _is_clean(data: bytes) -> bool:
    """Whether `check` of a recording (JSON text) surely says nothing, without loading it: a
    recording object whose `messages` are `user` records of text (a string, or parts that are
    each a `text` alone), `gemini` records whose `content` is a string and whose every tool
    call has an `id` (no two alike), a `name`, `args` an object (or none) and a `result` (a
    string, a part, or a list of parts), and records of other types (kept as they are);
    nesting within `_SURE_DEPTH`. Such a recording's results sit in their calls: every call
    is answered, right after its message, by its own tool. (Not a fast path of
    `check-dataset`: a recording without a `gemini` record is taken, which `check_example`
    would say has no assistant message.) Anything else is the careful path's to judge (a
    property test compares the two on mutations of the real recordings)."""
    try:
        value = _json.decode(data)  # as `load` parses a recording
    except (msgspec.DecodeError, RecursionError):
        return False
    if type(value) is not dict:
        return False
    recording: dict[str, object] = value  # decoded here: `str` keys
    records = recording.get("messages")
    if type(records) is not list or not _held_lines.held(recording, _SURE_DEPTH):
        return False
    called: set[str] = set()  # every call ID so far: one used again is the careful path's (renamed, or a duplicate)
    for item in records:
        if type(item) is not dict:
            continue  # kept as it is
        record: dict[str, object] = item  # decoded here: `str` keys
        kind = record.get("type")
        if kind == "user":
            if not _text_content(record.get("content")):
                return False
        elif kind == "gemini" and not _clean_gemini(record, called):
            return False
    return True


def _text_content(content: object) -> bool:
    if type(content) is str:
        return True
    if type(content) is not list or not content:
        return False
    return all(type(part) is dict and len(part) == 1 and type(part.get("text")) is str for part in content)


def _clean_gemini(record: dict[str, object], called: set[str]) -> bool:
    calls = record.get("toolCalls", [])
    if type(record.get("content", "")) is not str or type(calls) is not list:
        return False
    for item in calls:
        if type(item) is not dict:
            return False
        call: dict[str, object] = item  # decoded here: `str` keys
        call_id, name, result = call.get("id"), call.get("name"), call.get("result")
        if type(call_id) is not str or not call_id or type(name) is not str or not name or call_id in called:
            return False
        called.add(call_id)
        if type(call.get("args", {})) is not dict:
            return False
        if type(result) is list:
            for part in result:
                if type(part) is not dict:
                    return False
        elif type(result) is not str and type(result) is not dict:
            return False  # no result (or an odd one): the careful path's
    return True


# --- usage --------------------------------------------------------------------------------


def _usage(source: object) -> Iterator[Call]:
    """Each `gemini` record with `tokens` is one API call. Gemini counts cached input inside
    `input`, and thinking apart from `output`: here cached input is `cache_read` only, and
    `output` holds the thoughts too."""
    source = whole(source)
    recording = _load_state.parsed(NAME, source) if type(source) is bytes or type(source) is str else source
    body = as_object(recording) or {}
    session = text(body.get("sessionId"))
    for index, item in enumerate(as_array(body.get("messages")) or []):
        record = as_object(item) or {}
        counts = as_object(record.get("tokens")) if record.get("type") == "gemini" else None
        if counts is None:
            continue
        cached = tokens(counts.get("cached"))
        yield Call(
            session,
            text(record.get("model")),
            text(record.get("timestamp")),
            max(tokens(counts.get("input")) - cached, 0),
            tokens(counts.get("output")) + tokens(counts.get("thoughts")),
            cached,
            0,
            index,
        )


# --- dump ---------------------------------------------------------------------------------


class _Writer:
    """Writes IR messages as records, each call's results into the call."""

    def __init__(self, conversation: Conversation) -> None:
        self.own = conversation.format == NAME
        self.placement = _log.Placement()
        self.restore: dict[str, str] = {}
        # IR call ID -> its written records whose `result` is still to be filled, in order (two
        # calls of one record may share an ID: each takes the next result of that ID)
        self.open_calls: dict[str, list[dict[str, object]]] = {}
        self.group: list[ir.Message] = []  # the user-side messages of one record
        self.group_entries: dict[str, object] = {}  # the `meta` entries of its first, decoded once
        self.group_line: int | None = None
        self.previous: dict[str, object] | None = None

    def message(self, message: ir.Message) -> None:
        entries = _records.meta_entries(message.meta_json)  # this format's and `gemini`'s, decoded once
        info = _records.entry_info(entries, NAME)
        line = info.get("line")
        if type(message) is ir.AssistantMessage:
            self.close()
            self._add(line, self._assistant(message, info))
            return
        if type(message) is ir.ToolResultMessage and self._into_call(message, info):
            return
        if self.group and (line is None or line != self.group_line or "record" in info):
            self.close()
        if not self.group:
            self.group_entries = entries
        self.group.append(message)
        self.group_line = line if type(line) is int else None

    def close(self) -> None:
        """Write the user record of the messages gathered so far."""
        if not self.group:
            return
        first = self.group[0]
        info = _records.entry_info(self.group_entries, NAME)
        record_info = decoded_object(info.get("record")) or {}  # decoded `meta`: `str` keys
        content: object
        if (
            len(self.group) == 1
            and type(first) is ir.UserMessage
            and not _records.entry_info(self.group_entries, gemini.NAME)
        ):
            content = first.content
        else:
            rendered = as_object(gemini.render_contents(self.group, self.restore)[0]) or {}
            content = rendered.get("parts")
        values: dict[str, object] = {"type": "user", "content": content}
        if record_info.get("no_content") is True and not content:
            del values["content"]
        record = _records.build_record(record_info, _RECORD_KEYS, values) if "record" in info else self._new(values)
        self.group = []
        self._add(info.get("line"), record)

    def _add(self, line: object, record: dict[str, object]) -> None:
        self.placement.add([(line if type(line) is int else None, record)])
        self.previous = record

    def _new(self, values: dict[str, object]) -> dict[str, object]:
        """A record the package writes: an ID and the timestamp of the record before it."""
        previous = self.previous or {}
        record: dict[str, object] = {"id": _log.new_uuid(NAME, encode(values).decode(), str(previous.get("id")))}
        if "timestamp" in previous:
            record["timestamp"] = previous["timestamp"]
        record.update(values)
        return record

    def _assistant(self, message: ir.AssistantMessage, info: _records.Info) -> dict[str, object]:
        parts = info.get("parts") is True
        in_content: list[ir.AssistantBlock] = []  # blocks written as Gemini parts of `content`
        calls: list[ir.ToolCall] = []  # blocks written as `toolCalls`
        for block in message.content:
            if type(block) is not ir.ToolCall:
                in_content.append(block)
            elif parts and "call" not in _records.format_info(block.meta_json, NAME) and gemini_info(block):
                in_content.append(block)  # a `functionCall` part of the content
            else:
                calls.append(block)
        content: object
        if parts:
            content = gemini.written_model_parts(tuple(in_content), self.restore)
        else:
            content = "".join(block.text for block in in_content if type(block) is ir.TextBlock)
        values: dict[str, object] = {"type": "gemini", "content": content}
        written = [self._call(call) for call in calls]
        if written or info.get("no_calls") is True:
            values["toolCalls"] = written
        record_info = decoded_object(info.get("record")) or {}
        if record_info.get("no_content") is True and not content:
            del values["content"]
        return _records.build_record(record_info, _RECORD_KEYS, values) if "record" in info else self._new(values)

    def _call(self, call: ir.ToolCall) -> dict[str, object]:
        info = _records.format_info(call.meta_json, NAME)
        call_info = decoded_object(info.get("call")) or {}
        values: dict[str, object] = {"id": _writing.written_call_id(info, call.id, self.restore), "name": call.name}
        arguments: object = arguments_value(call)
        if "args" in info and arguments == {}:
            arguments = info["args"]
        if not (info.get("no_args") is True and arguments == {}):
            values["args"] = arguments
        if info.get("no_result") is not True:
            values["result"] = None  # filled when its result is met
        record = _records.build_record(call_info, _CALL_KEYS, values)
        self.open_calls.setdefault(call.id, []).append(record)
        return record

    def _into_call(self, message: ir.ToolResultMessage, info: _records.Info) -> bool:
        """Put a result into the `result` of its call, if that is written and still empty."""
        waiting = self.open_calls.get(message.tool_call_id)
        if not waiting:
            return False
        if "line" in info and info.get("in_call") is not True:
            return False  # read from a user record's parts: it stays there
        record = waiting.pop(0)
        kept = info.get("result")
        if kept is not None and result_text(kept) == (message.content, message.is_error):
            record["result"] = kept
            return True
        record["result"] = _written_result(record.get("id"), message.tool_name, message.content, message.is_error)
        if info.get("in_call") is not True:  # a new result: the call's status says how it ended
            status = record.get("status")
            if not (message.is_error and status in _FAILED):
                record["status"] = "error" if message.is_error else "success"
        return True


def gemini_info(value: ir.Message | ir.ToolCall) -> _records.Info:
    """What the `gemini` reader kept of a message or call (parts, a response's fields)."""
    return _records.format_info(value.meta_json, gemini.NAME)


def _dump(conversation: Conversation) -> object:
    writer = _Writer(conversation)
    for message in conversation.messages:
        writer.message(message)
    writer.close()
    kept = _log.kept_lines(conversation.meta, NAME) if writer.own else []
    records = writer.placement.lines(kept)
    return _writing.container(conversation, NAME, "messages", records, {})


def _recognizes_body(body: dict[str, object]) -> bool:
    return as_array(body.get("messages")) is not None and ("sessionId" in body or "projectHash" in body)


def _recognizes_record(record: dict[str, object]) -> bool:
    return record.get("type") == "gemini"


_WORDS: Final = Words(
    "gemini-cli chat recordings (JSON from ~/.gemini/tmp/<project>/chats)",
    "JSON text, or the parsed object",
    "a gemini-cli chat recording",
    "The recording as plain data, every record in its place.",
    "The IR's diagnostics of the recording and arguments that are not an object; never raises.",
)
_FUNCTIONS: Final = format_functions(NAME, _read, _dump, _checks.no_rules, _WORDS, json_lines=False, fast=_is_clean)


FORMAT: Final = Format(
    _FUNCTIONS,
    id_rule=any_id("gemini-cli accepts any non-empty ID"),
    recognize=Recognize(body=_recognizes_body, record=_recognizes_record),
    payload=gemini.NAME,
    raw_arguments="args",
    keeps_instructions=False,
    usage=_usage,
)
"""The declaration of the format (`message_ir.adapters.FORMATS` lists it)."""

load, dump, dumps, check = _FUNCTIONS.unpacked()

__all__ = ["FORMAT", "NAME", "check", "dump", "dumps", "load"]
