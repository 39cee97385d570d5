"""Gemini `contents`: in and out of the IR, losslessly, with Gemini's rules.

`load` takes JSON text or the parsed value: the bare `contents` list, or a request body
`{"systemInstruction": ..., "contents": [...], ...}`; `dump` gives back the same form. Field
names are read in the REST API's camelCase (`functionCall`) and in the Python SDK's
snake_case (`function_call`), and written back as they were. How each content maps:

- a `model` content becomes one `AssistantMessage`: a `text` part → `TextBlock` (its
  `thoughtSignature` and other fields kept in the block's `meta`), a `functionCall` part →
  `ToolCall`, a thought (`"thought": true`) or any other part → an `OpaqueBlock` of format
  `gemini`, in place;
- a `user` content (or one with role `function`, or none) becomes, in order, one
  `ToolResultMessage` per `functionResponse` part and one `UserMessage` per run of other
  parts (their text parts joined by a newline; the parts kept in `meta`);
- `systemInstruction` (a content, or a string) is the one `Instruction`.

A result's text is its `response`'s `output` (or `error`, then `is_error`), the two keys
Gemini documents; any other `response` object is kept and its JSON text is the IR content.

IDs are optional in Gemini. A call without one gets a made-up ID (`gemini_call_<content>_<part>`,
with a `MADE_UP_CALL_ID` note), and a response without one answers the earliest unanswered
call of its name that had none: pairing by order and name, as Gemini does. Made-up IDs are
never written back.

Rules (`check`): consecutive contents of one role are one turn; a call's responses come in
the turn right after it (`RESULT_NOT_ADJACENT`), and that turn holds as many responses as the
calls before it (`RESULT_COUNT_MISMATCH`: Gemini answers "Please ensure that the number of
function response parts is equal to the number of function call parts of the function call
turn").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import msgspec

import message_ir as ir
from message_ir.adapters import _checks, _fast_line, _json, _load_state, _records, _tools, _writing
from message_ir.adapters._build import meta_raw, object_raw
from message_ir.adapters._calls import ir_call_id
from message_ir.adapters._conversation import Conversation
from message_ir.adapters._format import Format, Recognize
from message_ir.adapters._functions import format_functions, provider_words
from message_ir.adapters._ids import any_id
from message_ir.adapters._json import as_array, as_object, encode, freeze_info, same_json
from message_ir.adapters._load_state import LoadState, Origins
from message_ir.adapters._pairing import MADE_UP_INFO, Pairing
from message_ir.adapters._tools import ToolDeclaration, ToolReader, arguments_value

NAME: Final = "gemini"
_CONTENT_KEYS: Final = ("role", "parts")
_CALL_KEYS: Final = ("id", "name", "args")
_RESPONSE_KEYS: Final = ("id", "name", "response")
_TEXT_KEYS: Final = ("text",)
_CONTENT_INFO: Final[tuple[str, ...]] = ("keys", "extra", "role", "no_role")
"""What a user-side message's `meta` keeps of its content record (its first message keeps it)."""
_CALL: Final = ("functionCall", "function_call")
_RESPONSE: Final = ("functionResponse", "function_response")
_SYSTEM: Final = ("systemInstruction", "system_instruction")
_SIGNATURES: Final = ("thoughtSignature", "thought_signature")
_USER_ROLES: Final = ("user", "function")
_ID_RULE: Final = any_id("Gemini accepts any non-empty ID")
TEXT_SEPARATOR: Final = "\n"
"""How the text parts of one run of user content are joined into the IR's `content`."""


def _declared_tool(tool: dict[str, object], path: str) -> list[ToolDeclaration]:
    """One item of a body's `tools`: its function declarations (none for a built-in tool,
    such as `googleSearch`, which nothing calls by name)."""
    declarations = tool.get("functionDeclarations", tool.get("function_declarations"))
    return [
        _tools.gemini_function(as_object(entry), f"{path}.functionDeclarations[{number}]")
        for number, entry in enumerate(as_array(declarations) or [])
    ]


_TOOLS: Final = ToolReader(_declared_tool, ".functionCall.name", ".functionCall.args")


# --- the pieces both Gemini formats read --------------------------------------------------


def field(record: dict[str, object], names: tuple[str, str]) -> str | None:
    """Which spelling of a field (camelCase, snake_case) `record` has, or `None`."""
    for name in names:
        if name in record:
            return name
    return None


def response_text(response: dict[str, object]) -> tuple[str, bool, bool]:
    """The IR text of a `functionResponse.response`, whether it is an error, and whether
    writing those two back (`response_value`) gives exactly this response."""
    if list(response) == ["output"] and type(response["output"]) is str:
        return response["output"], False, True
    if list(response) == ["error"] and type(response["error"]) is str:
        return response["error"], True, True
    output = response.get("output")
    if type(output) is str:
        return output, False, False
    error = response.get("error")
    if type(error) is str:
        return error, True, False
    return encode(response).decode(), False, False


def response_value(text: str, is_error: bool) -> dict[str, object]:
    """The `response` object that says `text` (as `error` when `is_error`, else `output`)."""
    return {"error": text} if is_error else {"output": text}


def read_call(
    state: LoadState, pairing: Pairing, message_index: int, part: dict[str, object], path: str, number: int
) -> ir.ToolCall | None:
    """The `ToolCall` of the `functionCall` part `number` of a content, at `path`."""
    key = field(part, _CALL)
    assert key is not None
    call = as_object(part[key])
    call_path = f"{path}.{key}"
    if call is None:
        state.problem(call_path, f"Expected an object, got `{_json.kind(part[key])}`")
        return None
    call_id, name = call.get("id"), call.get("name")
    if type(name) is not str or not name:
        state.problem(call_path + ".name", "Expected a non-empty `str`")
        return None
    if call_id is not None and (type(call_id) is not str or not call_id):
        state.problem(call_path + ".id", "Expected a non-empty `str`")
        return None
    info = _part_info(part, key)
    call_info = _records.split_record(call, _CALL_KEYS, _CALL_KEYS)
    if "args" in call:
        parsed = as_object(call["args"])
        if parsed is None:
            info["args"] = call["args"]
            state.bad_arguments(message_index, call_path + ".args", encode(call["args"]).decode())
            parsed = {}
    else:
        parsed = {}
        call_info["no_args"] = True
    if call_id is None:
        call_info["no_id"] = True
        ir_id = pairing.made_up(state, message_index, name, call_path, number)
    else:
        ir_id = ir_call_id(state, message_index, call_id, name, call_path + ".id", call_info)
    if call_info:
        info["call"] = call_info
    meta = _meta(info) if call_id is not None else object_raw(_records.make_meta(NAME, info, MADE_UP_INFO))
    return ir.ToolCall(id=ir_id, name=name, arguments_json=object_raw(parsed), meta_json=meta)


def read_response(
    state: LoadState,
    pairing: Pairing,
    part: dict[str, object],
    path: str,
    number: int,
    message_id: str,
    info: _records.Info,
) -> ir.ToolResultMessage | None:
    """The `ToolResultMessage` of the `functionResponse` part `number` of the current
    content, at `path`; `info` (what the content keeps) goes in its `meta` too."""
    key = field(part, _RESPONSE)
    assert key is not None
    response = as_object(part[key])
    response_path = f"{path}.{key}"
    if response is None:
        state.problem(response_path, f"Expected an object, got `{_json.kind(part[key])}`")
        return None
    call_id, name, value = response.get("id"), response.get("name"), response.get("response", {})
    if type(name) is not str or not name:
        state.problem(response_path + ".name", "Expected a non-empty `str`")
        return None
    if call_id is not None and (type(call_id) is not str or not call_id):
        state.problem(response_path + ".id", "Expected a non-empty `str`")
        return None
    body = as_object(value)
    if body is None:
        state.problem(response_path + ".response", f"Expected an object, got `{_json.kind(value)}`")
        return None
    text, is_error, exact = response_text(body)
    info = {**info, "part": _part_info(part, key)}
    response_info = _records.split_record(response, _RESPONSE_KEYS, _RESPONSE_KEYS)
    if not exact:
        response_info["response"] = body
    if "response" not in response:
        response_info["no_response"] = True
    message_index = len(state.messages)
    if call_id is None:
        response_info["no_id"] = True
        ir_id = pairing.answer(name)
        if ir_id is None:  # no call waits for it: an orphan, under an ID of its own
            ir_id = f"gemini_response_{state.index}_{number}"
        ir_call_id, tool_name = state.result_call(message_index, ir_id, name, response_path)
    else:
        ir_call_id, tool_name = state.result_call(message_index, call_id, name, response_path)
    if response_info:
        info["response"] = response_info
    return ir.ToolResultMessage(
        id=message_id,
        tool_call_id=ir_call_id,
        tool_name=tool_name,
        content=text,
        is_error=is_error,
        meta_json=_meta(info),
    )


def _structured_result(message: ir.ToolResultMessage, structured: object) -> ir.ToolResultMessage | None:
    """An MCP result's structured content as the `functionResponse`'s `response`, when its
    text is that structure's JSON (as MCP asks servers to send it); the text becomes its
    compact form."""
    if type(structured) is not dict or message.is_error or not same_json(message.content, structured):
        return None
    text = encode(structured).decode()
    if response_text(structured) != (text, False, False):
        return None  # an `output` or `error` object alone: the text would be that string
    return msgspec.structs.replace(message, content=text, meta_json=_meta({"response": {"response": structured}}))


def _part_info(part: dict[str, object], key: str) -> _records.Info:
    """What a call or response part keeps besides its call: its other fields, its spelling."""
    info = _records.split_record(part, (key,), (key,))
    if key != _CALL[0] and key != _RESPONSE[0]:
        info["snake"] = True
    return info


def _meta(info: _records.Info) -> msgspec.Raw:
    return meta_raw(NAME, info)


def parts_text(parts: list[object]) -> str:
    """The IR text of content parts: their (non-thought) `text` parts, joined."""
    texts: list[str] = []
    for item in parts:
        part = as_object(item)
        if part is not None and type(part.get("text")) is str and part.get("thought") is not True:
            texts.append(str(part["text"]))
    return TEXT_SEPARATOR.join(texts)


def read_parts(state: LoadState, value: object, path: str, *, outside: bool = False) -> list[dict[str, object]] | None:
    items = as_array(value)
    if items is None:
        state.problem(path, f"Expected a list of parts, got `{_json.kind(value)}`", outside=outside)
        return None
    parts: list[dict[str, object]] = []
    for number, item in enumerate(items):
        part = as_object(item)
        if part is None:
            state.problem(f"{path}[{number}]", f"Expected a part object, got `{_json.kind(item)}`", outside=outside)
            return None
        if "text" in part and type(part["text"]) is not str:
            problem = f"Expected `str`, got `{_json.kind(part['text'])}`"
            state.problem(f"{path}[{number}].text", problem, outside=outside)
            return None
        parts.append(part)
    return parts


def read_model_parts(
    state: LoadState, pairing: Pairing, parts: list[dict[str, object]], path: str
) -> tuple[list[ir.AssistantBlock], list[str]] | None:
    """The assistant blocks of a model content's parts (at `path`), and each block's path."""
    blocks: list[ir.AssistantBlock] = []
    paths: list[str] = []
    message_index = len(state.messages)
    for number, part in enumerate(parts):
        part_path = f"{path}[{number}]"
        if field(part, _CALL) is not None:
            call = read_call(state, pairing, message_index, part, part_path, number)
            if call is None:
                return None
            blocks.append(call)
        elif type(part.get("text")) is str and part.get("thought") is not True:
            text = part["text"]
            assert type(text) is str
            blocks.append(ir.TextBlock(text=text, meta_json=_meta(_records.split_record(part, _TEXT_KEYS, _TEXT_KEYS))))
        else:
            kind = (
                "thought"
                if part.get("thought") is True
                else next((name for name in part if name not in _SIGNATURES), "part")
            )
            blocks.append(ir.OpaqueBlock(format=NAME, kind=kind, data_json=object_raw(part)))
        paths.append(part_path)
    return blocks, paths


def written_model_parts(blocks: Sequence[ir.AssistantBlock], restore: dict[str, str]) -> list[object]:
    """The parts of a model content for an IR assistant message's blocks (renamed IDs restored)."""
    parts: list[object] = []
    for block in blocks:
        if type(block) is ir.TextBlock:
            part: dict[str, object] = {"text": block.text}
            if block.meta_json:  # else nothing kept: the usual part, or one made in the IR
                part = _records.build_record(_records.format_info(block.meta_json, NAME), _TEXT_KEYS, part)
            parts.append(part)
        elif type(block) is ir.OpaqueBlock:
            if block.format == NAME:
                parts.append(_json.opaque_data(block))
        elif type(block) is ir.ToolCall:
            parts.append(_written_call(block, restore))
    return parts


def _written_call(call: ir.ToolCall, restore: dict[str, str]) -> dict[str, object]:
    if not call.meta_json:  # nothing kept (the usual part, or one made in the IR): the IR says it all
        return {_CALL[0]: {"id": call.id, "name": call.name, "args": arguments_value(call)}}
    info = _records.format_info(call.meta_json, NAME)
    call_info = _json.decoded_object(info.get("call")) or {}
    values: dict[str, object] = {}
    if call_info.get("no_id") is not True:
        values["id"] = _writing.written_call_id(call_info, call.id, restore)
    values["name"] = call.name
    arguments: object = arguments_value(call)
    if "args" in info and arguments == {}:
        arguments = info["args"]
    if not (call_info.get("no_args") is True and arguments == {}):
        values["args"] = arguments
    key = _CALL[1] if info.get("snake") is True else _CALL[0]
    # `values` are in the usual order: only a kept order or kept fields change it (a renamed ID,
    # the usual reason for this `meta`, does not), so `build_record` is asked only then.
    inner = values
    if "keys" in call_info or "extra" in call_info:
        inner = _records.build_record(call_info, _CALL_KEYS, values)
    if "keys" in info or "extra" in info:
        return _records.build_record(info, (key,), {key: inner})
    return {key: inner}


def written_response(message: ir.ToolResultMessage, info: _records.Info, restore: dict[str, str]) -> dict[str, object]:
    """The `functionResponse` part of an IR result (`info`: what its format kept, as decoded from
    `meta`, whose keys are `str`s)."""
    response_info = _json.decoded_object(info.get("response")) or {}
    values: dict[str, object] = {}
    if response_info.get("no_id") is not True:
        values["id"] = restore.get(message.tool_call_id, message.tool_call_id)
    values["name"] = message.tool_name
    kept = _json.decoded_object(response_info.get("response"))
    text, is_error, _ = response_text(kept) if kept is not None else ("", False, False)
    if kept is not None and (text, is_error) == (message.content, message.is_error):
        if not (response_info.get("no_response") is True and not kept):
            values["response"] = kept  # as it was (absent when it was)
    else:
        values["response"] = response_value(message.content, message.is_error)
    part_info = _json.decoded_object(info.get("part")) or {}
    key = _RESPONSE[1] if part_info.get("snake") is True else _RESPONSE[0]
    # Nothing kept of the part or the response (the usual): `values` are in the usual order already.
    inner = _records.build_record(response_info, _RESPONSE_KEYS, values) if response_info else values
    return _records.build_record(part_info, (key,), {key: inner}) if part_info else {key: inner}


# --- load ---------------------------------------------------------------------------------


def _read(source: object, avoid: frozenset[str], trusted: bool) -> LoadState:
    state = LoadState(NAME, avoid)
    state.trusted = trusted
    records, prefix = _load_state.message_list(state, source, "contents", _SYSTEM, tools=_TOOLS)
    if state.body is not None:
        key = field(state.body, _SYSTEM)
        if key == _SYSTEM[1] and state.container_meta is not None:
            meta = _records.frozen_info(state.container_meta, NAME)
            meta["snake_system"] = True
            state.container_meta = freeze_info({NAME: meta})
        if key is not None and state.json_ok(state.body[key], f"$.{key}"):
            _system(state, state.body[key], key)
    pairing = Pairing("gemini_call")
    for path, record in state.objects(records, prefix, "a content object"):
        try:
            _content(state, pairing, record, path)
        except ir.ConstructionError as error:  # a parsed value the IR cannot hold
            state.problem(path, error.problem)
    return state


def _system(state: LoadState, value: object, key: str) -> None:
    path = f"$.{key}"
    if type(value) is str:
        state.instruction("system", value, path, freeze_info({NAME: {"string": True}}))
        return
    content = as_object(value)
    parts = None if content is None else read_parts(state, content.get("parts"), path + ".parts", outside=True)
    if content is None:
        state.problem(path, f"Expected `str` or a content object, got `{_json.kind(value)}`", outside=True)
    if content is None or parts is None:
        return
    text = parts_text(list[object](parts))
    meta = None if content == {"parts": [{"text": text}]} else _records.make_meta(NAME, {"content": content})
    state.instruction("system", text, path, None if meta is None else freeze_info(meta))


def _content(state: LoadState, pairing: Pairing, record: dict[str, object], path: str) -> None:
    role = record.get("role")
    parts = read_parts(state, record.get("parts"), path + ".parts")
    if parts is None:
        return
    info = _records.split_record(record, _CONTENT_KEYS, _CONTENT_KEYS)
    if role == "model":
        found = read_model_parts(state, pairing, parts, path + ".parts")
        if found is not None:
            message = ir.AssistantMessage(id=state.message_id(), content=tuple(found[0]), meta_json=_meta(info))
            state.add(message, path, found[1])
    elif role is None or role in _USER_ROLES:
        if "role" not in record:
            info["no_role"] = True
        elif role != "user":
            info["role"] = role  # `function`, or an explicit `null`: written back as it was
        read_user_parts(state, pairing, parts, path + ".parts", info)
    else:
        _load_state.role_problem(state, record, path, ("user", "model"))


def read_user_parts(
    state: LoadState, pairing: Pairing, parts: list[dict[str, object]], path: str, info: _records.Info
) -> None:
    """Read a user content's parts (at `path`) into `state`: a result per `functionResponse`,
    a user message per run of other parts; the first carries `info` (what the content keeps)."""
    info["first"] = True
    part = 0
    run: list[object] = []
    run_start = 0

    def flush() -> None:
        nonlocal part, run, info
        if not run:
            return
        run_info: _records.Info = {**info}
        text = parts_text(run)
        if run != [{"text": text}]:
            run_info["parts"] = run
        message = ir.UserMessage(id=state.message_id(part), content=text, meta_json=_meta(run_info))
        state.add(message, f"{path}[{run_start}]")
        part, run, info = part + 1, [], {}

    for number, item in enumerate(parts):
        if field(item, _RESPONSE) is None:
            if not run:
                run_start = number
            run.append(item)
            continue
        flush()
        part_path = f"{path}[{number}]"
        result = read_response(state, pairing, item, part_path, number, state.message_id(part), info)
        if result is None:
            return
        state.add(result, part_path)
        part, info = part + 1, {}
    flush()
    if part == 0:  # no parts: one empty user message keeps its place
        info["parts"] = []
        state.add(ir.UserMessage(id=state.message_id(), content="", meta_json=_meta(info)), path)


# --- dump ---------------------------------------------------------------------------------


def _dump(conversation: Conversation) -> object:
    records = render_contents(conversation.messages, {})
    others: dict[str, object] = {}
    info = _records.frozen_info(conversation.meta, NAME) if conversation.format == NAME else {}
    key = _SYSTEM[1] if info.get("snake_system") is True else _SYSTEM[0]
    system = _dump_system(conversation)
    if system is not None:
        others[key] = system
    return _writing.container(conversation, NAME, "contents", records, others)


def render_contents(messages: Sequence[ir.Message], restore: dict[str, str]) -> list[object]:
    """The Gemini contents of IR messages (consecutive user-side messages joined as they were
    loaded); `restore` maps renamed call IDs back, filled as calls are met."""
    records: list[object] = []
    open_record: tuple[_records.Info, list[object]] | None = None

    def close() -> None:
        nonlocal open_record
        if open_record is not None:
            info, parts = open_record
            values: dict[str, object] = {"role": info.get("role", "user"), "parts": parts}
            if info.get("no_role") is True:
                del values["role"]
            records.append(_records.build_record(info, _CONTENT_KEYS, values))
            open_record = None

    for message in messages:
        info = _records.format_info(message.meta_json, NAME)
        if type(message) is ir.AssistantMessage:
            close()
            parts = written_model_parts(message.content, restore)
            values: dict[str, object] = {"role": "model", "parts": parts}
            if "keys" in info or "extra" in info:  # else already in the order `build_record` gives
                values = _records.build_record(info, _CONTENT_KEYS, values)
            records.append(values)
            continue
        assert type(message) is ir.UserMessage or type(message) is ir.ToolResultMessage
        if info.get("first") is True or open_record is None:
            close()
            content_info: _records.Info = (
                {}
                if info.keys().isdisjoint(_CONTENT_INFO)
                else {name: info[name] for name in _CONTENT_INFO if name in info}
            )
            open_record = (content_info, [])
        if type(message) is ir.ToolResultMessage:
            open_record[1].append(written_response(message, info, restore))
        else:
            kept = as_array(info.get("parts"))
            if kept is not None and parts_text(kept) == message.content:
                open_record[1].extend(kept)
            else:
                open_record[1].append({"text": message.content})
    close()
    return records


def _dump_system(conversation: Conversation) -> object:
    """The `systemInstruction` field: the instructions' text (the kept content when it still
    says it), or `None`."""
    if not conversation.instructions:
        return None
    if len(conversation.instructions) == 1:
        entry = conversation.instructions[0]
        info = _records.frozen_info(entry.meta, NAME)
        if info.get("string") is True:
            return entry.text
        content = as_object(info.get("content"))
        if content is not None and parts_text(as_array(content.get("parts")) or []) == entry.text:
            return content
        return {"parts": [{"text": entry.text}]}
    return {"parts": [{"text": "\n\n".join(entry.text for entry in conversation.instructions)}]}


# --- provider rules -----------------------------------------------------------------------


def provider_rules(conversation: Conversation, origins: Origins) -> list[ir.Diagnostic]:
    """Gemini's rules beyond the IR's, on the merged turns."""
    found = _checks.adjacency(conversation, origins, merge_turns=True)
    found.extend(_checks.result_counts(conversation, origins, "Gemini"))
    return found


# --- the fast path of check-dataset -------------------------------------------------------


class _Call(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    id: str
    name: str
    args: msgspec.Raw


class _Response(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    id: str
    name: str
    response: msgspec.Raw


class _Part(msgspec.Struct, forbid_unknown_fields=True, gc=False, rename="camel"):
    text: str | msgspec.UnsetType = msgspec.UNSET
    function_call: _Call | msgspec.UnsetType = msgspec.UNSET
    function_response: _Response | msgspec.UnsetType = msgspec.UNSET
    thought_signature: str | msgspec.UnsetType = msgspec.UNSET


class _Content(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    role: str
    parts: list[_Part]


class _Text(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    text: str


class _System(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    parts: list[_Text]


class _Body(msgspec.Struct, forbid_unknown_fields=True, gc=False, rename="camel"):
    contents: list[_Content]
    system_instruction: _System | msgspec.UnsetType = msgspec.UNSET
    tools: msgspec.Raw = msgspec.Raw(b"null")


_body: Final = msgspec.json.Decoder(_Body).decode
_UNSET: Final = msgspec.UNSET


def _is_clean(line: bytes) -> bool:
    """The fast path of `check-dataset` (see `_fast_line`): a body of `contents` whose parts
    are `text`, `functionCall` or `functionResponse` (camelCase, IDs given), every call's
    responses first in the `user` content right after it, an optional `systemInstruction` of
    text parts, and `tools`."""
    try:
        body = _body(line)
    except _fast_line.REFUSED:
        return False
    linkage = _fast_line.linkage(_TOOLS, body.tools, _ID_RULE)
    if linkage is None:
        return False
    for content in body.contents:
        parts = content.parts
        if not parts:
            return False
        if content.role == "model":
            if not linkage.assistant():
                return False
            for part in parts:
                call = part.function_call
                if part.function_response is not _UNSET:
                    return False
                if type(call) is _Call:
                    if part.text is not _UNSET or not linkage.call(call.id, call.name, call.args):
                        return False
                elif type(part.text) is not str:
                    return False
        elif content.role == "user":
            for part in parts:
                response = part.function_response
                if part.function_call is not _UNSET:
                    return False
                if type(response) is _Response:
                    if part.text is not _UNSET or part.thought_signature is not _UNSET:
                        return False
                    if _fast_line.arguments_object(bytes(response.response)) is None:
                        return False
                    if not linkage.result(response.id, response.name):
                        return False
                elif type(part.text) is not str or not linkage.message():
                    return False
        else:
            return False
    return linkage.end()


def _recognizes_body(body: dict[str, object]) -> bool:
    return as_array(body.get("contents")) is not None


def _recognizes_record(record: dict[str, object]) -> bool:
    """`parts` and no `content`, the parts without a `type` (OpenTelemetry's GenAI parts have one)."""
    parts = as_array(record.get("parts"))
    first = as_object(parts[0]) if parts else None
    return "parts" in record and "content" not in record and (first is None or "type" not in first)


_WORDS: Final = provider_words(
    "Gemini `contents` (a list, or a request body with `systemInstruction`)",
    "Gemini `contents`",
    "Gemini would answer with a 400",
    "contents",
)
_FUNCTIONS: Final = format_functions(NAME, _read, _dump, provider_rules, _WORDS, json_lines=False, fast=_is_clean)


FORMAT: Final = Format(
    _FUNCTIONS,
    id_rule=_ID_RULE,
    recognize=Recognize(body=_recognizes_body, record=_recognizes_record),
    raw_arguments="args",
    system_field="systemInstruction",
    tools=_TOOLS,
    dataset_line=True,
    messages_key="contents",
    fast_path=_is_clean,
    structured_result=_structured_result,
)
"""The declaration of the format (`message_ir.adapters.FORMATS` lists it)."""

load, dump, dumps, check = _FUNCTIONS.unpacked()

__all__ = ["FORMAT", "NAME", "check", "dump", "dumps", "load"]
