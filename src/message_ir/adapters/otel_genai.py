"""OpenTelemetry GenAI messages (`gen_ai.input.messages`, `gen_ai.output.messages`,
`gen_ai.system_instructions`): in and out of the IR, losslessly, with the conventions' schema.

Pinned to the GenAI semantic conventions of OpenTelemetry semantic-conventions v1.37.0 (the
release that introduced these attributes; the conventions are still "Development"). `load`
takes JSON text or the parsed value:

- the message array itself (as `gen_ai.input.messages` holds it), or
- the attributes of a span or event: an object with any of the three attributes, each the
  array itself or JSON text of it (the conventions allow a JSON string on spans); its other
  attributes are kept. The input messages come first, then the output messages.

A message is `{"role", "parts": [...]}` (an output message also has `finish_reason`). How the
parts map: `text` → a `TextBlock` or the text of a user message (`content`); `tool_call` →
`ToolCall` (`id`, `name`, `arguments`); `tool_call_response` → `ToolResultMessage` answering
`id` (`response`: its text when a string, else its JSON text); `reasoning` and any other part
→ an `OpaqueBlock` of format `otel_genai` in an assistant message, or kept in `meta` in
others. A `system` message and the `gen_ai.system_instructions` attribute are `Instruction`s.
A call without an `id` gets one made up and its response, without one, answers the earliest
waiting call (`MADE_UP_CALL_ID`). Everything is written back as it was, JSON text as it was
written while it still says the same messages.

`check` adds what the conventions' JSON schema asks (`SEMCONV_MISMATCH`, beside the linkage
diagnostics): a `tool_call_response` holding `result` instead of `response` (the conventions'
own example writes it so; it is read as the response), an ID with surrounding whitespace (it
pairs with nothing written without it), a `tool_call` without an `id` to pair by, and a
response inside a `user` message (emitters that follow OpenAI's older shape); arguments that
are not a JSON object are `BAD_TOOL_ARGUMENTS`.
"""

from __future__ import annotations

from typing import Final

import msgspec

import message_ir as ir
from message_ir.adapters import _checks, _json, _load_state, _records, _writing
from message_ir.adapters._build import meta_raw, object_raw
from message_ir.adapters._calls import ir_call_id, object_arguments, written_arguments
from message_ir.adapters._conversation import Conversation, FormatError, Instruction
from message_ir.adapters._format import Format, Recognize
from message_ir.adapters._functions import format_functions, provider_words
from message_ir.adapters._ids import any_id
from message_ir.adapters._json import as_array, as_object, decode, encode, freeze_info, same_json
from message_ir.adapters._load_state import LoadState
from message_ir.adapters._pairing import MADE_UP_INFO, Pairing

NAME: Final = "otel_genai"
CONVENTIONS: Final = "v1.37.0"
"""The version of the OpenTelemetry semantic conventions whose GenAI messages this reads."""
INPUT: Final = "gen_ai.input.messages"
OUTPUT: Final = "gen_ai.output.messages"
SYSTEM: Final = "gen_ai.system_instructions"
_ATTRIBUTES: Final = (INPUT, OUTPUT, SYSTEM)
_MESSAGE_KEYS: Final = ("role", "parts")
_TEXT_KEYS: Final = ("type", "content")
_CALL_KEYS: Final = ("type", "id", "name", "arguments")
_RESPONSE_KEYS: Final = ("type", "id", "response")
_ROLES: Final = ("system", "user", "assistant", "tool")
PART_SEPARATOR: Final = "\n"
"""How the text parts of a message are joined into the IR's text."""


# --- load ---------------------------------------------------------------------------------


def _read(source: object, avoid: frozenset[str], trusted: bool) -> LoadState:
    state = LoadState(NAME, avoid)
    state.trusted = trusted
    entries: list[tuple[str, object, bool]] = []  # (path, message, is output)
    listed = as_array(source)
    attributes = as_object(source)
    first = as_object(listed[0]) if listed else None
    if first is not None and "raw_otel_json" in first and "role" not in first:
        raise FormatError(NAME, (ir.Diagnostic("BAD_FORMAT", None, "$", _LOG_RECORDS),))
    if listed is not None:
        state.container_meta = freeze_info({NAME: {"form": "list"}})
        entries = [(f"$[{number}]", value, False) for number, value in enumerate(listed)]
    elif attributes is not None and any(name in attributes for name in _ATTRIBUTES):
        entries = _attribute_entries(state, attributes)
    else:
        raise FormatError(NAME, (ir.Diagnostic("BAD_FORMAT", None, "$", _not_ours(attributes)),))
    pairing = Pairing(f"{NAME}_call")
    for index, (path, value, output) in enumerate(entries):
        state.at(index)
        if not state.json_ok(value, path):
            continue
        record = as_object(value)
        if record is None:
            state.problem(path, f"Expected a message object, got `{_json.kind(value)}`")
            continue
        try:
            _message(state, pairing, record, path, output)
        except ir.ConstructionError as error:  # a parsed value the IR cannot hold
            state.problem(path, error.problem)
    return state


_LOG_RECORDS: Final = (
    "Expected GenAI messages, got OTLP log records: the messages are their events' bodies"
    " (`message_ir.traces.log_records` reads them span by span)"
)


def _not_ours(attributes: dict[str, object] | None) -> str:
    """Why a value is not GenAI messages, naming what it is when it is a kin of them."""
    keys = list(attributes or ())
    if any(key.startswith("llm.input_messages.") or key.startswith("llm.output_messages.") for key in keys):
        return (
            "Expected the GenAI conventions' attributes, got OpenInference's own (`llm.input_messages.*`,"
            " flattened): a different convention, not read here"
        )
    if "observations" in keys and "trace" in keys:
        return (
            "Expected GenAI messages, got a Langfuse trace export: each observation's `input` and `output`"
            " hold the messages, in the shape the emitter wrote"
        )
    if "resourceSpans" in keys:
        return (
            "Expected GenAI messages, got an OTLP export: the messages are in its spans' or events' attributes"
            " (`message_ir.traces.spans` reads them span by span)"
        )
    if "resourceLogs" in keys:
        return _LOG_RECORDS
    return f"Expected a GenAI message array, or attributes with `{INPUT}` or `{OUTPUT}`"


def _attribute_entries(state: LoadState, attributes: dict[str, object]) -> list[tuple[str, object, bool]]:
    """The messages of a span's or event's attributes; the container's `meta` says how to
    write the attributes back (the others as they were, JSON text kept)."""
    texts: dict[str, object] = {}
    entries: list[tuple[str, object, bool]] = []
    values: dict[str, list[object]] = {}
    for name in _ATTRIBUTES:
        if name not in attributes:
            continue
        value = attributes[name]
        if type(value) is str:
            texts[name] = value
            try:
                value = decode(value)
            except (msgspec.DecodeError, RecursionError, UnicodeError):
                problem = f"Expected JSON text of a list, got text that is not JSON in `{name}`"
                raise FormatError(NAME, (ir.Diagnostic("BAD_FORMAT", None, f'$["{name}"]', problem),)) from None
        items = as_array(value)
        if items is None:
            problem = f"Expected a list (or JSON text of one), got `{_json.kind(value)}`"
            raise FormatError(NAME, (ir.Diagnostic("BAD_FORMAT", None, f'$["{name}"]', problem),))
        values[name] = items
    if SYSTEM in values:
        _system_instructions(state, values[SYSTEM])
    for name, output in ((INPUT, False), (OUTPUT, True)):
        entries.extend((f'$["{name}"][{number}]', value, output) for number, value in enumerate(values.get(name, [])))
    info = {
        "form": "attributes",
        "others": {name: (None if name in _ATTRIBUTES else value) for name, value in attributes.items()},
        "texts": texts,
    }
    state.container_meta = freeze_info({NAME: info})
    return entries


def _system_instructions(state: LoadState, parts: list[object]) -> None:
    texts = _texts(parts)
    path = f'$["{SYSTEM}"]'
    if texts is None:
        state.problem(path, "Expected a list of parts, each an object with a `type`", outside=True)
        return
    plain = parts == [{"type": "text", "content": PART_SEPARATOR.join(texts)}]
    meta: dict[str, object] | None = None if plain else {NAME: {"parts": parts}}
    state.instruction("system", PART_SEPARATOR.join(texts), path, None if meta is None else freeze_info(meta))


def _texts(parts: list[object]) -> list[str] | None:
    """The `content` of the `text` parts of `parts`; `None` when a part is not an object with a `type`."""
    texts: list[str] = []
    for item in parts:
        part = as_object(item)
        if part is None or type(part.get("type")) is not str:
            return None
        if part["type"] == "text" and type(part.get("content")) is str:
            texts.append(str(part["content"]))
    return texts


def _meta(info: _records.Info) -> msgspec.Raw:
    return meta_raw(NAME, info)


def _message(state: LoadState, pairing: Pairing, record: dict[str, object], path: str, output: bool) -> None:
    role = record.get("role")
    parts = as_array(record.get("parts"))
    if type(role) is not str or role not in _ROLES:
        _load_state.role_problem(state, record, path, _ROLES)
        return
    if parts is None:
        state.problem(path + ".parts", f"Expected a list of parts, got `{_json.kind(record.get('parts'))}`")
        return
    info = _records.split_record(record, _MESSAGE_KEYS, _MESSAGE_KEYS)
    if output:
        info["output"] = True
    if role == "system":
        texts = _texts(parts)
        if texts is None:
            state.problem(path + ".parts", "Expected parts, each an object with a `type`")
            return
        info["parts"] = parts
        state.instruction("system", PART_SEPARATOR.join(texts), path, freeze_info({NAME: info}))
    elif role == "assistant":
        _assistant(state, pairing, parts, path, info)
    else:
        _user_side(state, pairing, role, parts, path, info)


def _assistant(state: LoadState, pairing: Pairing, parts: list[object], path: str, info: _records.Info) -> None:
    blocks: list[ir.AssistantBlock] = []
    paths: list[str] = []
    message_index = len(state.messages)
    for number, item in enumerate(parts):
        part_path = f"{path}.parts[{number}]"
        part = as_object(item)
        if part is None or type(part.get("type")) is not str:
            state.problem(part_path, "Expected a part object with a `type`")
            return
        kind = part["type"]
        assert type(kind) is str
        content = part.get("content")
        if kind == "text" and type(content) is str:
            blocks.append(
                ir.TextBlock(text=content, meta_json=_meta(_records.split_record(part, _TEXT_KEYS, _TEXT_KEYS)))
            )
        elif kind == "tool_call":
            call = _call(state, pairing, message_index, part, part_path, number)
            if call is None:
                return
            blocks.append(call)
        else:
            blocks.append(ir.OpaqueBlock(format=NAME, kind=kind, data_json=object_raw(part)))
        paths.append(part_path)
    message = ir.AssistantMessage(id=state.message_id(), content=tuple(blocks), meta_json=_meta(info))
    state.add(message, path, paths)


def _mismatch(state: LoadState, path: str, text: str) -> None:
    state.origins.extra.append(ir.Diagnostic("SEMCONV_MISMATCH", state.index, path, text))


def _call(
    state: LoadState, pairing: Pairing, message_index: int, part: dict[str, object], path: str, number: int
) -> ir.ToolCall | None:
    call_id, name = part.get("id"), part.get("name")
    if type(name) is not str or not name:
        state.problem(path + ".name", "Expected a non-empty `str`")
        return None
    if call_id is not None and (type(call_id) is not str or not call_id):
        state.problem(path + ".id", "Expected a non-empty `str` or `null`")
        return None
    info = _records.split_record(part, _CALL_KEYS, _CALL_KEYS)
    parsed = object_arguments(state, message_index, part, "arguments", path + ".arguments", info)
    if call_id is None:
        info["no_id"] = "null" if "id" in part else "none"
        _mismatch(state, path, "A `tool_call` without an `id`: its response cannot be paired with it")
        ir_id = pairing.made_up(state, message_index, name, path, number)
        meta = object_raw(_records.make_meta(NAME, info, MADE_UP_INFO))
        return ir.ToolCall(id=ir_id, name=name, arguments_json=object_raw(parsed), meta_json=meta)
    if call_id != call_id.strip():
        _mismatch(state, path + ".id", f"Tool call ID {call_id!r} has surrounding whitespace")
    ir_id = ir_call_id(state, message_index, call_id, name, path + ".id", info)
    return ir.ToolCall(id=ir_id, name=name, arguments_json=object_raw(parsed), meta_json=_meta(info))


def _user_side(
    state: LoadState, pairing: Pairing, role: str, parts: list[object], path: str, info: _records.Info
) -> None:
    """A `user` or `tool` message: a result per `tool_call_response` part, a user message per
    run of other parts (the first IR message carries the message's `info`)."""
    info["first"] = True
    if role != "user":
        info["role"] = role
    part_number = 0
    run: list[object] = []
    run_start = 0

    def flush() -> None:
        nonlocal part_number, run, info
        if not run:
            return
        texts = _texts(run) or []
        message = ir.UserMessage(
            id=state.message_id(part_number),
            content=PART_SEPARATOR.join(texts),
            meta_json=_meta({**info, "parts": run}),
        )
        state.add(message, f"{path}.parts[{run_start}]")
        part_number, run, info = part_number + 1, [], {}

    for number, item in enumerate(parts):
        part_path = f"{path}.parts[{number}]"
        part = as_object(item)
        if part is None or type(part.get("type")) is not str:
            state.problem(part_path, "Expected a part object with a `type`")
            return
        if part["type"] != "tool_call_response":
            if not run:
                run_start = number
            run.append(part)
            continue
        flush()
        if role == "user":
            _mismatch(
                state, part_path, "A `tool_call_response` in a `user` message; the conventions put it in a `tool` one"
            )
        result = _response(state, pairing, part, part_path, {**info, "part": {}}, part_number)
        if result is None:
            return
        state.add(result, part_path)
        part_number, info = part_number + 1, {}
    flush()
    if part_number == 0:  # no parts: one empty message keeps its place
        state.add(ir.UserMessage(id=state.message_id(), content="", meta_json=_meta({**info, "parts": []})), path)


def _response(
    state: LoadState, pairing: Pairing, part: dict[str, object], path: str, info: _records.Info, number: int
) -> ir.ToolResultMessage | None:
    call_id = part.get("id")
    if call_id is not None and (type(call_id) is not str or not call_id):
        state.problem(path + ".id", "Expected a non-empty `str` or `null`")
        return None
    key = "response"
    if "response" not in part and "result" in part:
        key = "result"
        _mismatch(state, path + ".result", "A `tool_call_response` holds `result`; the conventions name it `response`")
    value = part.get(key)
    part_info = _records.split_record(part, (*_RESPONSE_KEYS, "result"), _RESPONSE_KEYS)
    part_info["key"] = key
    if key not in part:
        part_info["no_response"] = True
    text = value if type(value) is str else ("" if key not in part else encode(value).decode())
    if type(value) is not str and key in part:
        part_info["value"] = value
    if call_id is None:
        part_info["no_id"] = "null" if "id" in part else "none"
        answered = pairing.answer(None)
        source_id = answered if answered is not None else f"{NAME}_response_{state.index}_{number}"
    else:
        if call_id != call_id.strip():
            _mismatch(state, path + ".id", f"Tool call ID {call_id!r} has surrounding whitespace")
        source_id = call_id
    ir_call, name = state.result_call(len(state.messages), source_id, None, path)
    return state.result(ir_call, name, text, False, _meta({**info, "part": part_info}), number)


# --- dump ---------------------------------------------------------------------------------


def _dump(conversation: Conversation) -> object:
    inputs: list[object] = []
    outputs: list[object] = []
    open_record: tuple[_records.Info, list[object], bool] | None = None
    restore: dict[str, str] = {}

    def close() -> None:
        nonlocal open_record
        if open_record is not None:
            info, parts, output = open_record
            role = info.get("role", "user")
            record = _records.build_record(info, _MESSAGE_KEYS, {"role": role, "parts": parts})
            (outputs if output else inputs).append(record)
            open_record = None

    system_path = f'$["{SYSTEM}"]'
    anchored: dict[str | None, list[Instruction]] = {}
    for entry in conversation.instructions:
        if not (entry.path == system_path and conversation.format == NAME):  # that one is an attribute
            anchored.setdefault(entry.before, []).append(entry)
    for message in conversation.messages:
        for entry in anchored.pop(message.id, []):
            close()
            inputs.append(_written_system(entry))
        info = _records.format_info(message.meta_json, NAME)
        output = info.get("output") is True
        if type(message) is ir.AssistantMessage:
            close()
            parts = _assistant_parts(message, restore)
            (outputs if output else inputs).append(
                _records.build_record(info, _MESSAGE_KEYS, {"role": "assistant", "parts": parts})
            )
            continue
        if info.get("first") is True or open_record is None:
            close()
            kept = {key: value for key, value in info.items() if key in ("keys", "extra", "role")}
            if info.get("first") is not True and type(message) is ir.ToolResultMessage:
                kept["role"] = "tool"  # a result from elsewhere: in a `tool` message, as the conventions say
            open_record = (kept, [], output)
        if type(message) is ir.ToolResultMessage:
            open_record[1].append(_written_response(message, info, restore))
        else:
            assert type(message) is ir.UserMessage
            kept_parts = as_array(info.get("parts"))
            if kept_parts is not None and PART_SEPARATOR.join(_texts(kept_parts) or []) == message.content:
                open_record[1].extend(kept_parts)
            else:
                open_record[1].append({"type": "text", "content": message.content})
    close()
    for entries in anchored.values():
        inputs.extend(_written_system(entry) for entry in entries)
    if not outputs and _form(conversation) != "attributes":
        return inputs
    return _written_attributes(conversation, inputs, outputs)


def _form(conversation: Conversation) -> str:
    info = _records.frozen_info(conversation.meta, NAME) if conversation.format == NAME else {}
    return str(info.get("form", "list"))


def _written_attributes(conversation: Conversation, inputs: list[object], outputs: list[object]) -> dict[str, object]:
    info = _records.frozen_info(conversation.meta, NAME) if conversation.format == NAME else {}
    others = as_object(info.get("others")) or {INPUT: None, OUTPUT: None}
    texts = as_object(info.get("texts")) or {}
    system = [entry for entry in conversation.instructions if entry.path == f'$["{SYSTEM}"]' and info]
    values: dict[str, object] = {INPUT: inputs, OUTPUT: outputs}
    if system:
        kept = as_array(_records.frozen_info(system[0].meta, NAME).get("parts"))
        said = kept is not None and PART_SEPARATOR.join(_texts(kept) or []) == system[0].text
        values[SYSTEM] = kept if said else [{"type": "text", "content": system[0].text}]
    written: dict[str, object] = {}
    for name, value in others.items():
        if name not in _ATTRIBUTES:
            written[name] = value
        elif name in values:
            written[name] = _as_given(values.pop(name), texts.get(name))
    for name, value in values.items():
        if value or name == INPUT:
            written[name] = _as_given(value, texts.get(name))
    return written


def _as_given(value: object, text: object) -> object:
    """An attribute's value as the source gave it: JSON text (the same text while it still
    says the same value) or the value itself."""
    if type(text) is not str:
        return value
    try:
        if decode(text) == value:
            return text
    except (msgspec.DecodeError, RecursionError, UnicodeError):
        pass
    return encode(value).decode()


def _written_system(entry: Instruction) -> dict[str, object]:
    info = _records.frozen_info(entry.meta, NAME)
    parts = as_array(info.get("parts"))
    if parts is None or PART_SEPARATOR.join(_texts(parts) or []) != entry.text:
        parts = [{"type": "text", "content": entry.text}]
    return _records.build_record(info, _MESSAGE_KEYS, {"role": "system", "parts": parts})


def _assistant_parts(message: ir.AssistantMessage, restore: dict[str, str]) -> list[object]:
    parts: list[object] = []
    for block in message.content:
        if type(block) is ir.TextBlock:
            info = _records.format_info(block.meta_json, NAME)
            parts.append(_records.build_record(info, _TEXT_KEYS, {"type": "text", "content": block.text}))
        elif type(block) is ir.OpaqueBlock:
            if block.format == NAME:
                parts.append(_json.opaque_data(block))
        elif type(block) is ir.ToolCall:
            info = _records.format_info(block.meta_json, NAME)
            values: dict[str, object] = {"type": "tool_call"}
            no_id = info.get("no_id")
            if no_id == "null":
                values["id"] = None
            elif no_id != "none":
                values["id"] = _writing.written_call_id(info, block.id, restore)
            values["name"] = block.name
            written_arguments(info, "arguments", block, values)
            parts.append(_records.build_record(info, _CALL_KEYS, values))
    return parts


def _written_response(message: ir.ToolResultMessage, info: _records.Info, restore: dict[str, str]) -> dict[str, object]:
    part_info = as_object(info.get("part")) or {}
    values: dict[str, object] = {"type": "tool_call_response"}
    no_id = part_info.get("no_id")
    if no_id == "null":
        values["id"] = None
    elif no_id != "none":
        values["id"] = restore.get(message.tool_call_id, message.tool_call_id)
    key = "result" if part_info.get("key") == "result" else "response"
    kept = part_info.get("value")
    if "value" in part_info and encode(kept).decode() == message.content:
        values[key] = kept
    elif not (part_info.get("no_response") is True and message.content == ""):
        values[key] = message.content
    usual: tuple[str, ...] = ("type", "id", key)
    return _records.build_record(part_info, usual, values)


def _structured_result(message: ir.ToolResultMessage, structured: object) -> ir.ToolResultMessage | None:
    """An MCP result's structured content as the `tool_call_response`'s `response` value, when
    its text is that structure's JSON; the text becomes its compact form."""
    if not same_json(message.content, structured):
        return None
    text = encode(structured).decode()
    return msgspec.structs.replace(message, content=text, meta_json=_meta({"part": {"value": structured}}))


def _recognizes_body(body: dict[str, object]) -> bool:
    return INPUT in body or OUTPUT in body


def _span_messages(attributes: dict[str, object]) -> object | None:
    """A span's (or its `gen_ai.client.inference.operation.details` event's) attributes, when
    they hold the conventions' messages: read whole, the other attributes kept."""
    return attributes if INPUT in attributes or OUTPUT in attributes else None


def _recognizes_record(record: dict[str, object]) -> bool:
    """A message with `parts` whose items have a `type` (Gemini's parts have none)."""
    parts = as_array(record.get("parts"))
    first = as_object(parts[0]) if parts else None
    return "role" in record and first is not None and type(first.get("type")) is str


_WORDS: Final = provider_words(
    f"OpenTelemetry GenAI messages (conventions {CONVENTIONS}): the message array, or span or event"
    f" attributes with `{INPUT}` / `{OUTPUT}`",
    "OpenTelemetry GenAI messages",
    "breaks the GenAI conventions' schema",
    "messages",
)
_FUNCTIONS: Final = format_functions(NAME, _read, _dump, _checks.no_rules, _WORDS, json_lines=False)


FORMAT: Final = Format(
    _FUNCTIONS,
    id_rule=any_id("the GenAI conventions take any ID"),
    recognize=Recognize(body=_recognizes_body, record=_recognizes_record),
    raw_arguments="arguments",
    span_messages=_span_messages,
    structured_result=_structured_result,
)
"""The declaration of the format (`message_ir.adapters.FORMATS` lists it)."""

load, dump, dumps, check = _FUNCTIONS.unpacked()

__all__ = ["CONVENTIONS", "FORMAT", "INPUT", "NAME", "OUTPUT", "SYSTEM", "check", "dump", "dumps", "load"]
