"""Codex rollout logs (`~/.codex/sessions/.../rollout-*.jsonl`), losslessly.

Each line is `{"timestamp": ..., "type": ..., "payload": {...}}`. A `response_item` line's
payload is one OpenAI Responses item, read as the `openai_responses` adapter reads an item
(so consecutive output items, each on its own line, are one assistant message, and
developer messages are instructions). Every other line (`session_meta`, `turn_context`,
`event_msg`, `compacted`, ...) is kept as it is: a compaction is not expanded, so the log's
messages are its `response_item` records in file order.

`check` applies the Responses rules (a call's output exists and comes after it, reasoning
items stay with the item after them, `call_id` at most 64 characters); diagnostics name the
0-based line and a path into it, such as `$[41].payload.call_id`. Codex's redacted logs
whose `arguments` are not JSON load (the text is kept and written back) and `check`
reports `BAD_TOOL_ARGUMENTS`. `check` of a rollout given as text or as a `LogFile` reads
it a segment at a time (a segment ends before an output item that follows an input item), so
a long rollout is never held whole; a segment of plain items is judged by a fast path that
builds no IR (a rollout under 4 MB, read once so). A result that `repair` made is written as Codex writes one:
a `response_item` line with a `function_call_output` (or `custom_tool_call_output`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Final, Literal

import msgspec

import message_ir as ir
from message_ir.adapters import _fast_line, _held_lines, _json, _log, _records, _tree, _writing, openai_responses
from message_ir.adapters._conversation import Conversation, Instruction
from message_ir.adapters._format import Format, Recognize
from message_ir.adapters._functions import log_functions, log_words
from message_ir.adapters._json import as_object
from message_ir.adapters._load_state import LoadState
from message_ir.adapters._log_file import raw_lines
from message_ir.adapters._segments import check_segments, segments_function
from message_ir.adapters._usage import Call, text, tokens

NAME: Final = "codex"
_PAYLOAD: Final = "payload"


def _read(source: object, avoid: frozenset[str], trusted: bool, segment: _tree.OnBranch | None = None) -> LoadState:
    """A pass over a rollout, or over one segment of it (`segment`: what `check`'s first pass
    found, and the record number the segment before expects next)."""
    state, values = _log.reading(NAME, source, avoid, trusted)
    kept: list[object] = []
    run = openai_responses.Run()
    records = _Records()
    if segment is not None:
        _tree.resume(state, segment)
        if type(segment.carried) is int:
            records.expected = segment.carried
    for number, path, value, line in _log.readable_lines(state, values):
        if line is not None:
            records.check(state, number, path, line)
        item = None if line is None or line.get("type") != "response_item" else as_object(line.get(_PAYLOAD))
        if line is None or item is None:
            kept.append([number, value])
            continue
        tag = (NAME, {"line": number, "envelope": _log.envelope(line, _PAYLOAD)})
        openai_responses.read_item(state, run, item, path + ".payload", tag)
    run.close(state)
    state.container_meta = _log.kept_meta(state, kept)
    state.carried = records.expected
    return state


# --- where a segment of `check` may end -----------------------------------------------------

_OUTPUTS: Final = ("function_call_output", "custom_tool_call_output")


_NO_FACTS: Final = _tree.Facts(False)
_MESSAGE_FACTS: Final = (_tree.Facts(True), _tree.Facts(True, assistant=True))
"""A `message` item's facts: a user's (or any other role's), an assistant's."""


def _facts(head: _tree.Head) -> _tree.Facts:
    """A `response_item` line's item: whether it is an output (the assistant's side), the call
    it makes or answers."""
    item = head.message if head.type == "response_item" else None
    if item is None:
        return _NO_FACTS
    kind = item.type or ("message" if item.role is not None else None)
    if kind == "message":
        return _MESSAGE_FACTS[item.role == "assistant"]
    call = () if item.call_id is None else (item.call_id,)
    if kind in _OUTPUTS:
        return _tree.facts_of((True, (), call, None, False, None, False))
    return _tree.facts_of(
        (True, call if kind in ("function_call", "custom_tool_call") else (), (), None, False, None, True)
    )


_NAMES: Final = {"uid": "message-ir:uid", "parent": "message-ir:parent", "message": _PAYLOAD}  # no tree
_KEYS: Final = _tree.Keys(_NAMES, _PAYLOAD, _json.renamed_decoder(_tree.Head, _NAMES), _facts)


def _check(source: object) -> tuple[ir.Diagnostic, ...]:
    return check_segments(source, _read, _KEYS, openai_responses.provider_rules, None, clean=_clean, alone=_clean_alone)


# --- the fast path of check ---------------------------------------------------------------


class _ItemLine(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A `response_item` line of the plain shape: every key named (a line with any other, such
    as a record number, fails the decode), so nothing the careful path keeps goes unread."""

    timestamp: str
    type: Literal["response_item"]
    payload: openai_responses.TypedItem


_item_line: Final = msgspec.json.Decoder(_ItemLine).decode
_ITEM_TYPE: Final = b'"response_item"'
_NEAR_START: Final = 80
"""Codex writes a line's `type` after its `timestamp`: within this many bytes of its start (a
line whose type is found there is decoded into `_ItemLine` first)."""


def _clean(data: bytes, on: frozenset[int] | None = None) -> int | None:
    """How many IR messages a segment of a rollout (whole lines; `on` is `None`: a rollout is
    no tree) holds, when it is surely clean (`check` of it would say nothing); else `None`.

    It takes the plain shape only: each `response_item` line holds a timestamp and an item
    `openai_responses.clean_items` takes (decoded straight into typed structs), and every other
    line is a JSON object held in `meta` as it is, without a record number (`ordinal`: which
    record comes next goes on from segment to segment, so a paginated rollout is the careful
    path's). Anything else is the careful path's to judge (a property test compares the two on
    real rollouts and their mutations)."""
    items: list[openai_responses.TypedItem] = []
    for raw in raw_lines(data):  # (a last line without its newline too: the segments give none)
        if raw.find(_ITEM_TYPE, 0, _NEAR_START) >= 0:
            try:
                items.append(_item_line(raw).payload)
                continue
            except _fast_line.REFUSED:
                pass  # not of the plain shape: read as any line, below (and refused if an item)
        line = _held_lines.held_object(raw, _held_lines.deep_line(raw))  # (an item line nests a few levels)
        if line is None or line.get("type") == "response_item" or "ordinal" in line:
            return None
    return openai_responses.clean_items(items, _fast_line.Linkage(None, openai_responses.ID_RULE), custom=True)


def _clean_alone(blocks: Iterable[bytes]) -> int | None:
    """`_clean` of a whole log shorter than a segment (one block), without the first pass."""
    return _clean(b"".join(blocks))


def _usage(source: object) -> Iterator[Call]:
    """Each `token_count` event whose running total moved is one API call, counted by its
    `last_token_usage` (Codex repeats the event, same totals, when only its rate limits
    change); the model is the latest `turn_context`'s. OpenAI counts cached input inside
    `input_tokens`: here it is `cache_read` only."""
    session = model = None
    total: object = None
    for number, line in _log.objects(NAME, source):
        payload = as_object(line.get(_PAYLOAD)) or {}
        if line.get("type") == "session_meta":
            session = text(payload.get("id"))
        elif line.get("type") == "turn_context":
            model = text(payload.get("model")) or model
        info = as_object(payload.get("info")) if payload.get("type") == "token_count" else None
        last = None if info is None else as_object(info.get("last_token_usage"))
        if info is None or last is None or info.get("total_token_usage") == total:
            continue
        total = info.get("total_token_usage")
        cached = tokens(last.get("cached_input_tokens"))
        yield Call(
            session,
            model,
            text(line.get("timestamp")),
            max(tokens(last.get("input_tokens")) - cached, 0),
            tokens(last.get("output_tokens")),
            cached,
            0,
            number,
        )


class _Records:
    """The record numbers of a paginated rollout (`ordinal` on every line, from the first one
    on): each one more than the one before, since Codex cannot resume past a gap."""

    def __init__(self) -> None:
        self.expected: int | None = None

    def check(self, state: LoadState, number: int, path: str, line: dict[str, object]) -> None:
        if "ordinal" not in line and self.expected is None:
            return  # the single-file layout: no record numbers
        ordinal = line.get("ordinal")
        problem = None
        if type(ordinal) is not int or ordinal < 0:
            problem = f"Expected the record number (`ordinal`, an `int` of at least 0), got `{_json.kind(ordinal)}`"
        elif self.expected is not None and ordinal > self.expected:
            missing = ordinal - self.expected
            problem = (
                f"Record {ordinal} follows record {self.expected - 1}: {missing} record{'s' if missing > 1 else ''}"
                " missing; Codex cannot resume past a gap"
            )
        elif self.expected is not None and ordinal < self.expected:
            problem = f"Record {ordinal} comes again after record {self.expected - 1}; Codex cannot resume past it"
        if problem is not None:
            state.origins.extra.append(ir.Diagnostic("LOG_RECORD_GAP", number, path + ".ordinal", problem))
        if type(ordinal) is int and ordinal >= 0 and (self.expected is None or ordinal >= self.expected):
            self.expected = ordinal + 1
        elif (type(ordinal) is not int or ordinal < 0) and self.expected is not None:
            self.expected += 1  # a line without its number takes the next one's place


def _dump(conversation: Conversation, *, texts: bool = False) -> list[object]:
    own = conversation.format == NAME
    placement = _log.Placement()
    renderer = openai_responses.Renderer()
    previous: dict[str, object] | None = None

    def write(items: list[tuple[dict[str, object], _records.Info]]) -> None:
        nonlocal previous
        lines: _log.Lines = []
        for item, info in items:
            line, line_envelope = info.get("line"), as_object(info.get("envelope"))
            if type(line) is not int or line_envelope is None:
                line, line_envelope = None, {"timestamp": None, "type": "response_item", _PAYLOAD: None}
                if previous is not None and "timestamp" in previous:
                    line_envelope["timestamp"] = previous["timestamp"]
            written = _log.filled(line_envelope, _PAYLOAD, item)
            previous = written
            lines.append((line, written))
        placement.add(lines)

    def message(entry: ir.Message) -> None:
        write([(item, _records.format_info(meta, NAME)) for item, meta in renderer.message(entry)])

    def instruction(entry: Instruction) -> None:
        write([(renderer.instruction(entry), _records.frozen_info(entry.meta, NAME))])

    _writing.interleave(conversation, message, instruction)
    return placement.lines(_log.kept_lines(conversation.meta, NAME, texts=texts) if own else [])


_LINE_TYPES: Final = ("session_meta", "response_item", "event_msg", "turn_context", "compacted")


def _recognizes_line(line: dict[str, object]) -> bool:
    return line.get("type") in _LINE_TYPES and "payload" in line and "timestamp" in line


_WORDS: Final = log_words(
    "Codex rollout logs (JSON Lines from ~/.codex/sessions)",
    "a Codex rollout",
    "Every problem the Responses API would refuse on resuming this rollout, and the IR's own",
)
_FUNCTIONS: Final = log_functions(NAME, _read, _dump, openai_responses.provider_rules, _WORDS, _check)


FORMAT: Final = Format(
    _FUNCTIONS,
    id_rule=openai_responses.FORMAT.id_rule,  # a Codex rollout holds Responses items
    recognize=Recognize(line=_recognizes_line),
    payload=openai_responses.NAME,
    segments=segments_function(
        NAME,
        _read,
        _KEYS,
        openai_responses.provider_rules,
        lambda source, _: _FUNCTIONS.load_checked(source),
        trees=False,
        clean=_clean,
    ),
    usage=_usage,
)
"""The declaration of the format (`message_ir.adapters.FORMATS` lists it)."""

load, dump, dumps, check = _FUNCTIONS.unpacked()

__all__ = ["FORMAT", "NAME", "check", "dump", "dumps", "load"]
