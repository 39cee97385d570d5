"""ShareGPT rows with tools, as LLaMA-Factory reads them: in and out of the IR, losslessly.

A row is `{"conversations": [{"from": ..., "value": ...}, ...], "tools": "..."}` (other
columns kept as they were); `load` takes the row or the bare list of turns, and `dump` gives
back the same form. How each turn maps:

- `system` → an `Instruction`, in place;
- `human` → `UserMessage`; `gpt` → `AssistantMessage` with one `TextBlock`;
- `function_call` → `AssistantMessage` of `ToolCall`s: its `value` is JSON text
  `{"name": ..., "arguments": {...}}` (or a list of them); the text is written back as it
  was while it still says the same calls;
- `observation` → `ToolResultMessage` answering the earliest unanswered call.

ShareGPT has no call IDs: each call gets one made up (`sharegpt_call_<turn>_<n>`, with a
`MADE_UP_CALL_ID` note, never written back). An `observation` with no call waiting for it
(the model described the call in prose) is a result answering no call: `ORPHAN_TOOL_RESULT`
in `check`, and a `TURN_WITHOUT_CALL` note on load. `tools` is JSON text holding the list of
function declarations (`{"name", "description", "parameters"}`), or the list itself.

`check` reports what breaks the IR's rules, and an `observation` that does not follow its
calls' turn. A row checked as a training example (`check-dataset`) must also keep
LLaMA-Factory's position rule (`TURN_OUT_OF_PLACE`): after an optional first `system` turn,
`human` and `observation` turns stand at odd positions (1st, 3rd, ...), `gpt` and
`function_call` turns at even ones, and the last turn is a `gpt` or `function_call` one;
LLaMA-Factory drops a row that breaks it, with a warning that gives no reason.
"""

from __future__ import annotations

import json
from typing import Final

import msgspec

import message_ir as ir
from message_ir.adapters import _checks, _fast_line, _json, _load_state, _records, _tools, _writing
from message_ir.adapters._build import meta_raw, object_raw
from message_ir.adapters._calls import object_arguments, written_arguments
from message_ir.adapters._conversation import Conversation, Instruction, Note
from message_ir.adapters._format import Format, Recognize
from message_ir.adapters._functions import format_functions, provider_words
from message_ir.adapters._ids import any_id
from message_ir.adapters._json import as_array, as_object, decode
from message_ir.adapters._load_state import LoadState, Origins
from message_ir.adapters._pairing import MADE_UP_INFO, Pairing
from message_ir.adapters._tools import ToolDeclaration, ToolReader

NAME: Final = "sharegpt"
_TURNS: Final = ("system", "human", "gpt", "function_call", "observation")
_TURN_KEYS: Final = ("from", "value")
_CALL_KEYS: Final = ("name", "arguments")
_ODD: Final = ("human", "observation")
_EVEN: Final = ("gpt", "function_call")


def _meta(info: _records.Info) -> msgspec.Raw:
    return meta_raw(NAME, info)


def _declared_tool(tool: dict[str, object], path: str) -> list[ToolDeclaration]:
    """One item of a row's `tools`: a function declaration `{"name", "description", "parameters"}`."""
    return [_tools.function(tool, path, "parameters")]


_TOOLS: Final = ToolReader(_declared_tool, ".name", ".arguments", text=True)


# --- load ---------------------------------------------------------------------------------


def _read(source: object, avoid: frozenset[str], trusted: bool) -> LoadState:
    state = LoadState(NAME, avoid)
    state.trusted = trusted
    turns, prefix = _load_state.message_list(state, source, "conversations", tools=_TOOLS)
    pairing = Pairing(f"{NAME}_call")
    for path, turn in state.objects(turns, prefix, "a turn object"):
        speaker, value = turn.get("from"), turn.get("value")
        if type(speaker) is not str or speaker not in _TURNS:
            _speaker_problem(state, turn, path)
            continue
        if type(value) is not str:
            state.problem(path + ".value", f"Expected `str`, got `{_json.kind(value)}`")
            continue
        info = _records.split_record(turn, _TURN_KEYS, _TURN_KEYS)
        try:
            if speaker == "system":
                meta = _records.make_meta(NAME, info)
                state.instruction("system", value, path, None if meta is None else _json.freeze_info(meta))
            elif speaker == "human":
                state.add(ir.UserMessage(id=state.message_id(), content=value, meta_json=_meta(info)), path)
            elif speaker == "gpt":
                message = ir.AssistantMessage(
                    id=state.message_id(), content=(ir.TextBlock(text=value),), meta_json=_meta(info)
                )
                state.add(message, path, [path + ".value"])
            elif speaker == "function_call":
                _function_call(state, pairing, value, info, path)
            else:
                _observation(state, pairing, value, info, path)
        except ir.ConstructionError as error:  # a parsed value the IR cannot hold (NaN, a lone surrogate)
            state.problem(path, error.problem)
    return state


def _speaker_problem(state: LoadState, turn: dict[str, object], path: str) -> None:
    expected = ", ".join(_TURNS)
    speaker = turn.get("from")
    if "from" not in turn:
        state.problem(path, f"Missing `from`; expected one of {expected}")
    elif type(speaker) is str:
        state.problem(path + ".from", f"Invalid `from` {speaker!r}; expected one of {expected}")
    else:
        state.problem(path + ".from", f"Expected `from` to be a string, got `{_json.kind(speaker)}`")


def python_json(value: object) -> str:
    """JSON text as Python's `json.dumps` writes it (`", "` and `": "`, non-ASCII as it is):
    how LLaMA-Factory's datasets write a `function_call` value."""
    return json.dumps(value, ensure_ascii=False)


def _function_call(state: LoadState, pairing: Pairing, value: str, info: _records.Info, path: str) -> None:
    value_path = path + ".value"
    try:
        parsed = decode(value)
    except (msgspec.DecodeError, RecursionError, UnicodeError):
        state.problem(value_path, 'Expected JSON text of a call (`{"name": ..., "arguments": {...}}`)')
        return
    listed = as_array(parsed)
    records = listed if listed is not None else [parsed]
    if listed is not None:
        info["list"] = True
    message_index = len(state.messages)
    calls: list[ir.AssistantBlock] = []
    written: list[object] = []
    for number, item in enumerate(records):
        call_path = f"{value_path}[{number}]" if listed is not None else value_path
        record = as_object(item)
        name = None if record is None else record.get("name")
        if record is None or type(name) is not str or not name:
            state.problem(
                call_path, 'Expected a call object with a non-empty `name` (`{"name": ..., "arguments": ...}`)'
            )
            return
        call_info = _records.split_record(record, _CALL_KEYS, _CALL_KEYS)
        arguments = object_arguments(state, message_index, record, "arguments", call_path + ".arguments", call_info)
        ir_id = pairing.made_up(state, message_index, name, call_path, number)
        meta = object_raw(_records.make_meta(NAME, call_info, MADE_UP_INFO))
        calls.append(ir.ToolCall(id=ir_id, name=name, arguments_json=object_raw(arguments), meta_json=meta))
        written.append(record)
    if python_json(written if listed is not None else written[0]) != value:
        info["value"] = value  # written otherwise than Python writes it: kept as it was
    message = ir.AssistantMessage(id=state.message_id(), content=tuple(calls), meta_json=_meta(info))
    state.add(message, path, [value_path] * len(calls))


def _observation(state: LoadState, pairing: Pairing, value: str, info: _records.Info, path: str) -> None:
    answered = pairing.answer(None)
    if answered is None:
        state.notes.append(
            Note(
                "TURN_WITHOUT_CALL",
                len(state.messages),
                path,
                "An `observation` with no `function_call` waiting for it; it answers no call",
            )
        )
        answered = f"no_call_before_turn_{state.index}"
    state.add(state.answer(answered, None, value, False, _meta(info), path), path)


# --- dump ---------------------------------------------------------------------------------


def _dump(conversation: Conversation) -> object:
    turns: list[object] = []

    def render(message: ir.Message) -> None:
        info = _records.format_info(message.meta_json, NAME)
        if type(message) is ir.UserMessage:
            turns.append(_turn(info, "human", message.content))
        elif type(message) is ir.ToolResultMessage:
            turns.append(_turn(info, "observation", message.content))
        elif type(message) is ir.AssistantMessage:
            _written_assistant(message, info, turns)

    def instruction(entry: Instruction) -> None:
        turns.append(_turn(_records.frozen_info(entry.meta, NAME), "system", entry.text))

    _writing.interleave(conversation, render, instruction)
    return _writing.container(conversation, NAME, "conversations", turns, {})


def _turn(info: _records.Info, speaker: str, value: str) -> dict[str, object]:
    return _records.build_record(info, _TURN_KEYS, {"from": speaker, "value": value})


def _written_assistant(message: ir.AssistantMessage, info: _records.Info, turns: list[object]) -> None:
    """A `gpt` turn per run of text, a `function_call` turn per run of calls (other formats'
    blocks have no place in ShareGPT)."""
    texts: list[str] = []
    calls: list[ir.ToolCall] = []
    for block in message.content:
        if type(block) is ir.TextBlock:
            if calls:
                turns.append(_call_turn(calls, info))
                calls = []
            texts.append(block.text)
        elif type(block) is ir.ToolCall:
            if texts:
                turns.append(_turn(info, "gpt", "".join(texts)))
                texts = []
            calls.append(block)
    if texts:
        turns.append(_turn(info, "gpt", "".join(texts)))
    if calls:
        turns.append(_call_turn(calls, info))


def _call_turn(calls: list[ir.ToolCall], info: _records.Info) -> dict[str, object]:
    records: list[object] = []
    for call in calls:
        call_info = _records.format_info(call.meta_json, NAME)
        values: dict[str, object] = {"name": call.name}
        written_arguments(call_info, "arguments", call, values)
        records.append(_records.build_record(call_info, _CALL_KEYS, values))
    value = python_json(records if info.get("list") is True or len(records) > 1 else records[0])
    kept = info.get("value")
    if type(kept) is str and decode(kept) == decode(value):  # the kept text still says these calls
        value = kept
    return _turn(info, "function_call", value)


# --- rules ----------------------------------------------------------------------------------


def _rules(conversation: Conversation, origins: Origins) -> list[ir.Diagnostic]:
    """Results right after the turn of their calls (an `observation` answers the last calls)."""
    return _checks.adjacency(conversation, origins, merge_turns=True)


def _position_rule(source: object) -> list[ir.Diagnostic]:
    """LLaMA-Factory's rule for a training row (`TURN_OUT_OF_PLACE`): after an optional first
    `system` turn, `human` / `observation` at odd positions, `gpt` / `function_call` at even
    ones, and a `gpt` or `function_call` turn last (a row `check` read, so its turns are sound)."""
    value = _load_state.parsed(NAME, source) if type(source) is bytes or type(source) is str else source
    record = as_object(value)
    turns = as_array(value) if record is None else as_array(record.get("conversations"))
    prefix = "$" if record is None else "$.conversations"
    speakers: list[tuple[int, str]] = []
    for index, item in enumerate(turns or ()):
        turn = as_object(item)
        speaker = None if turn is None else turn.get("from")
        if type(speaker) is str:
            speakers.append((index, speaker))
    if speakers and speakers[0][1] == "system":
        speakers = speakers[1:]
    found: list[ir.Diagnostic] = []
    for position, (index, speaker) in enumerate(speakers, start=1):
        expected, which = (_ODD, "odd") if position % 2 else (_EVEN, "even")
        if speaker not in expected:
            names = " and ".join(f"`{name}`" for name in expected)
            text = f"A `{speaker}` turn at position {position}; LLaMA-Factory takes only {names} at {which} positions"
            found.append(ir.Diagnostic("TURN_OUT_OF_PLACE", index, f"{prefix}[{index}].from", text))
    if speakers and speakers[-1][1] not in _EVEN:
        index, speaker = speakers[-1]
        text = f"The last turn is a `{speaker}` one; LLaMA-Factory needs a `gpt` or `function_call` turn last"
        found.append(ir.Diagnostic("TURN_OUT_OF_PLACE", index, f"{prefix}[{index}].from", text))
    return found


# --- the fast path of check-dataset -------------------------------------------------------


class _Turn(msgspec.Struct, forbid_unknown_fields=True, gc=False, rename={"speaker": "from"}):
    speaker: str
    value: str


class _Row(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    conversations: list[_Turn]
    tools: msgspec.Raw = msgspec.Raw(b"null")


class _Call(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    name: str
    arguments: dict[str, object]


class _ShallowCall(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    name: str
    arguments: dict[str, _fast_line.Scalar | list[_fast_line.Scalar]]  # two levels at most


_row: Final = msgspec.json.Decoder(_Row).decode
_shallow_calls: Final = msgspec.json.Decoder(_ShallowCall | list[_ShallowCall]).decode
_calls: Final = msgspec.json.Decoder(_Call | list[_Call]).decode
_ID_RULE: Final = any_id("ShareGPT writes no call IDs")


def _is_clean(line: bytes) -> bool:
    """The fast path of `check-dataset` (see `_fast_line`): a row of `conversations` turns in
    LLaMA-Factory's positions (a first `system` turn, then `human` / `observation` at odd
    positions and `gpt` / `function_call` at even ones, ending on an even one), each
    `function_call` turn of one call answered by an `observation` right after it, and `tools`.
    Calls have no IDs."""
    try:
        row = _row(line)
    except _fast_line.REFUSED:
        return False
    taken, declared = _fast_line.declared_of(_TOOLS, row.tools)
    if not taken:
        return False
    turns = row.conversations
    if turns and turns[0].speaker == "system":
        turns = turns[1:]
    if not turns or len(turns) % 2:
        return False  # no turn to learn from, or the last turn at an odd position
    # One call a turn: a second would need a second observation right after the first, at an
    # even position, out of place. So what waits is one call or none.
    waiting = False
    asked: str | None = None  # the speaker at the odd position before this one (positions count from 1)
    for turn in turns:
        if asked is None:
            asked = turn.speaker
            if asked == "observation":
                if not waiting:
                    return False
            elif asked != "human" or waiting:
                return False
            continue
        asked = None
        speaker = turn.speaker
        if speaker == "function_call":
            if _calls_clean(declared, turn.value) != 1:
                return False
            waiting = True
        elif speaker == "gpt":
            waiting = False
        else:
            return False
    return not waiting


def _calls_clean(declared: _fast_line.Declared | None, value: str) -> int:
    """How many calls a `function_call` turn's `value` holds, when they are surely clean (else 0).

    Read first as calls whose arguments are scalars or lists of them (two levels deep at most,
    so surely within the IR's depth limit); only a call nesting further pays for `plain`
    counting the text's brackets. (`arguments_object` does the same for the other formats;
    decoding the call with its arguments `Raw` and handing them to it was measured 9% slower a
    line: 4.37-4.39 µs to 4.75-4.78 µs.)"""
    found: _ShallowCall | list[_ShallowCall] | _Call | list[_Call]
    try:
        found = _shallow_calls(value)
    except msgspec.DecodeError:  # a nested argument, or no call
        if not _fast_line.plain(value):
            return 0
        try:
            found = _calls(value)
        except msgspec.DecodeError:
            return 0
    else:
        if _fast_line.long_number(value):
            return 0
    if isinstance(found, (_ShallowCall, _Call)):  # our own structs
        return 1 if found.name and _fast_line.accepted(declared, found.name, found.arguments) else 0
    for call in found:
        if not call.name or not _fast_line.accepted(declared, call.name, call.arguments):
            return 0
    return len(found)


def _recognizes_body(body: dict[str, object]) -> bool:
    turns = as_array(body.get("conversations"))
    first = as_object(turns[0]) if turns else None
    return first is not None and "from" in first


def _recognizes_record(record: dict[str, object]) -> bool:
    return "from" in record and "value" in record


_WORDS: Final = provider_words(
    "ShareGPT rows with tools (`conversations` of `from` / `value` turns, as LLaMA-Factory reads them)",
    "a ShareGPT row",
    "LLaMA-Factory would drop or a trainer would trip on",
    "conversations",
    source="JSON text, or the parsed row or list of turns",
)
_FUNCTIONS: Final = format_functions(
    NAME, _read, _dump, _rules, _WORDS, json_lines=False, trainer=_position_rule, fast=_is_clean
)


FORMAT: Final = Format(
    _FUNCTIONS,
    id_rule=_ID_RULE,
    recognize=Recognize(body=_recognizes_body, record=_recognizes_record),
    raw_arguments="arguments",
    call_ids=False,
    tools=_TOOLS,
    dataset_line=True,
    messages_key="conversations",
    fast_path=_is_clean,
)
"""The declaration of the format (`message_ir.adapters.FORMATS` lists it)."""

load, dump, dumps, check = _FUNCTIONS.unpacked()

__all__ = ["FORMAT", "NAME", "check", "dump", "dumps", "load"]
