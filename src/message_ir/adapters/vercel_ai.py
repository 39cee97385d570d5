"""Vercel AI SDK messages (`ModelMessage`, and the v4 `CoreMessage` form): in and out of the
IR, losslessly.

`load` takes JSON text or the parsed value: the bare list of messages, or an object with
`messages` (and `system`, as `generateText` takes them); `dump` gives back the same form.
How each message maps:

- `system` (its `content` a string) → an `Instruction`, in place;
- `user` → `UserMessage` (a string `content`, or its `text` parts joined by a newline; the
  parts kept in `meta`);
- `assistant` → `AssistantMessage`: `text` parts → `TextBlock`s, `tool-call` parts → `ToolCall`s
  (`input`; v4's `args`), anything else (`reasoning`, `file`, a provider-executed call and its
  result, ...) → an `OpaqueBlock` of format `vercel_ai`, in place;
- `tool` → one `ToolResultMessage` per `tool-result` part. Its `output` (v5 and later) says
  what the text is: `text` and `error-text` its `value`, `json` and `error-json` the JSON text
  of its `value`, `content` its `text` parts joined, `execution-denied` its `reason`; the error
  variants and a denial are `is_error`. v4's `result` is the text when it is a string, else its
  JSON text, and `isError` says the rest. The `output` is kept, and written back while the
  result still says the same.

Which form a source is in — `ModelMessage` (v5 and later: `input` / `output`) or v4
(`args` / `result`) — is said by a `SOURCE_FORM` note. A UI message list (`UIMessage`, with
`parts` instead of `content`) is not one: `load` refuses it, naming it (the SDK's
`convertToModelMessages` turns it into `ModelMessage`s).

Rules: the IR's own (a call without a result is the SDK's `AI_MissingToolResultsError`);
tool-call IDs are any non-empty string.
"""

from __future__ import annotations

import contextlib
from typing import Final

import msgspec

import message_ir as ir
from message_ir.adapters import _checks, _json, _load_state, _records, _writing
from message_ir.adapters._build import meta_raw, object_raw
from message_ir.adapters._calls import ir_call_id, object_arguments, written_arguments
from message_ir.adapters._conversation import Conversation, FormatError, Instruction, Note
from message_ir.adapters._format import Format, Recognize
from message_ir.adapters._functions import format_functions, provider_words
from message_ir.adapters._ids import any_id
from message_ir.adapters._json import Unparsable, as_array, as_object, encode, parse, same_json
from message_ir.adapters._load_state import LoadState

NAME: Final = "vercel_ai"
_ROLES: Final = ("system", "user", "assistant", "tool")
_MESSAGE_KEYS: Final = ("role", "content")
_TEXT_KEYS: Final = ("type", "text")
_CALL_KEYS: Final = ("type", "toolCallId", "toolName", "input")
_V4_CALL_KEYS: Final = ("type", "toolCallId", "toolName", "args")
_RESULT_KEYS: Final = ("type", "toolCallId", "toolName", "output")
_V4_RESULT_KEYS: Final = ("type", "toolCallId", "toolName", "result")
_V4_RESULT_KNOWN: Final = ("type", "toolCallId", "toolName", "result", "isError")
_ERRORS: Final = ("error-text", "error-json", "execution-denied")
PART_SEPARATOR: Final = "\n"
"""How the text parts of a user message (or of a `content` output) are joined."""


# --- load ---------------------------------------------------------------------------------


def _read(source: object, avoid: frozenset[str], trusted: bool) -> LoadState:
    state = LoadState(NAME, avoid)
    state.trusted = trusted
    _refuse_ui_messages(source)
    records, prefix = _load_state.message_list(state, source, "messages", ("system",))
    if state.body is not None and "system" in state.body:
        system = state.body["system"]
        if type(system) is str:
            state.instruction("system", system, "$.system", None)
        else:
            state.problem("$.system", f"Expected `str`, got `{_json.kind(system)}`", outside=True)
    forms: set[str] = set()
    for path, record in state.objects(records, prefix, "a message object"):
        role = record.get("role")
        if type(role) is not str or role not in _ROLES:
            _load_state.role_problem(state, record, path, _ROLES)
            continue
        try:
            if role == "system":
                _system(state, record, path)
            elif role == "user":
                _user(state, record, path)
            elif role == "assistant":
                _assistant(state, record, path, forms)
            else:
                _tool(state, record, path, forms)
        except ir.ConstructionError as error:  # a parsed value the IR cannot hold
            state.problem(path, error.problem)
    form = "the v4 form (`args` / `result`)" if "v4" in forms else "ModelMessage (v5 or later: `input` / `output`)"
    state.notes.insert(0, Note("SOURCE_FORM", None, prefix, f"Read as Vercel AI SDK {form}"))
    return state


def _refuse_ui_messages(source: object) -> None:
    body = as_object(source)
    records = as_array(source) if body is None else as_array(body.get("messages"))
    first = as_object(records[0]) if records else None
    if first is not None and "parts" in first and "content" not in first:
        problem = (
            "Expected ModelMessages (`content`), got UIMessages (`parts`): the SDK's"
            " `convertToModelMessages` turns them into ModelMessages"
        )
        raise FormatError(NAME, (ir.Diagnostic("BAD_FORMAT", 0, "$[0]" if body is None else "$.messages[0]", problem),))


def _meta(info: _records.Info) -> msgspec.Raw:
    return meta_raw(NAME, info)


def _system(state: LoadState, record: dict[str, object], path: str) -> None:
    content = record.get("content")
    if type(content) is not str:
        state.problem(path + ".content", f"Expected `str`, got `{_json.kind(content)}`")
        return
    info = _records.split_record(record, _MESSAGE_KEYS, _MESSAGE_KEYS)
    meta = _records.make_meta(NAME, info)
    state.instruction("system", content, path, None if meta is None else _json.freeze_info(meta))


def _user(state: LoadState, record: dict[str, object], path: str) -> None:
    content = record.get("content")
    info = _records.split_record(record, _MESSAGE_KEYS, _MESSAGE_KEYS)
    if type(content) is str:
        text = content
        info["string"] = True
    else:
        found = _load_state.part_texts(state, content, path + ".content", ("text",))
        if found is None:
            return
        text = PART_SEPARATOR.join(found[0])
        info["parts"] = found[1]
    state.add(ir.UserMessage(id=state.message_id(), content=text, meta_json=_meta(info)), path)


def _assistant(state: LoadState, record: dict[str, object], path: str, forms: set[str]) -> None:
    content = record.get("content")
    info = _records.split_record(record, _MESSAGE_KEYS, _MESSAGE_KEYS)
    blocks: list[ir.AssistantBlock] = []
    paths: list[str] = []
    if type(content) is str:
        info["string"] = True
        blocks.append(ir.TextBlock(text=content))
        paths.append(path + ".content")
    else:
        parts = as_array(content)
        if parts is None:
            state.problem(path + ".content", f"Expected `str` or a list of parts, got `{_json.kind(content)}`")
            return
        message_index = len(state.messages)
        for number, item in enumerate(parts):
            part_path = f"{path}.content[{number}]"
            part = as_object(item)
            if part is None or type(part.get("type")) is not str:
                state.problem(part_path, "Expected a content part with a `type`")
                return
            block = _assistant_part(state, message_index, part, part_path, forms)
            if block is None:
                return
            blocks.append(block)
            paths.append(part_path)
    message = ir.AssistantMessage(id=state.message_id(), content=tuple(blocks), meta_json=_meta(info))
    state.add(message, path, paths)


def _assistant_part(
    state: LoadState, message_index: int, part: dict[str, object], path: str, forms: set[str]
) -> ir.AssistantBlock | None:
    part_type = part["type"]
    assert type(part_type) is str
    text = part.get("text")
    if part_type == "text" and type(text) is str:
        return ir.TextBlock(text=text, meta_json=_meta(_records.split_record(part, _TEXT_KEYS, _TEXT_KEYS)))
    if part_type != "tool-call" or part.get("providerExecuted") is True:  # the provider ran it: kept
        return ir.OpaqueBlock(format=NAME, kind=part_type, data_json=object_raw(part))
    call_id, name = part.get("toolCallId"), part.get("toolName")
    if type(call_id) is not str or not call_id:
        state.problem(path + ".toolCallId", "Expected a non-empty `str`")
        return None
    if type(name) is not str or not name:
        state.problem(path + ".toolName", "Expected a non-empty `str`")
        return None
    key = "args" if "args" in part and "input" not in part else "input"
    if key == "args":
        forms.add("v4")
    usual = _V4_CALL_KEYS if key == "args" else _CALL_KEYS
    info = _records.split_record(part, usual, usual)
    if key == "args":
        info["v4"] = True
    parsed = object_arguments(state, message_index, part, key, f"{path}.{key}", info)
    ir_id = ir_call_id(state, message_index, call_id, name, path + ".toolCallId", info)
    return ir.ToolCall(id=ir_id, name=name, arguments_json=object_raw(parsed), meta_json=_meta(info))


def _tool(state: LoadState, record: dict[str, object], path: str, forms: set[str]) -> None:
    parts = as_array(record.get("content"))
    if parts == []:
        state.problem(path + ".content", "Expected at least one `tool-result` part, got none")
        return
    if parts is None:
        state.problem(
            path + ".content", f"Expected a list of `tool-result` parts, got `{_json.kind(record.get('content'))}`"
        )
        return
    info = _records.split_record(record, _MESSAGE_KEYS, _MESSAGE_KEYS)
    info["first"] = True
    for number, item in enumerate(parts):
        part_path = f"{path}.content[{number}]"
        part = as_object(item)
        if part is None or part.get("type") != "tool-result":
            state.problem(part_path, "Expected a `tool-result` part")
            return
        call_id, name = part.get("toolCallId"), part.get("toolName")
        if type(call_id) is not str or not call_id:
            state.problem(part_path + ".toolCallId", "Expected a non-empty `str`")
            return
        if type(name) is not str or not name:
            state.problem(part_path + ".toolName", "Expected a non-empty `str`")
            return
        said = _said(state, part, part_path, forms)
        if said is None:
            return
        text, is_error, part_info = said
        message_info = {**info, "part": part_info}
        ir_call, tool_name = state.result_call(len(state.messages), call_id, name, part_path)
        state.add(state.result(ir_call, tool_name, text, is_error, _meta(message_info), number), part_path)
        info = {}


def _said(
    state: LoadState, part: dict[str, object], path: str, forms: set[str]
) -> tuple[str, bool, _records.Info] | None:
    """A `tool-result` part's text, whether it is an error, and what writes it back."""
    if "result" in part and "output" not in part:  # v4
        forms.add("v4")
        is_error = part.get("isError", False)
        if type(is_error) is not bool:
            state.problem(path + ".isError", f"Expected `bool`, got `{_json.kind(is_error)}`")
            return None
        info = _records.split_record(part, _V4_RESULT_KNOWN, _V4_RESULT_KEYS)
        info["result"] = part["result"]
        result = part["result"]
        return (result if type(result) is str else encode(result).decode()), is_error, info
    output = as_object(part.get("output"))
    if output is None or type(output.get("type")) is not str:
        state.problem(path + ".output", "Expected an output object with a `type`")
        return None
    info = _records.split_record(part, _RESULT_KEYS, _RESULT_KEYS)
    said = output_text(output)
    if said is None:
        state.problem(path + ".output", f"Expected an output of a known type, got {output.get('type')!r}")
        return None
    if output != written_output(*said):
        info["output"] = output
    return said[0], said[1], info


def output_text(output: dict[str, object]) -> tuple[str, bool] | None:
    """The IR text of a v5 `output`, and whether it is an error; `None` for an unknown type."""
    kind, value = output.get("type"), output.get("value")
    if kind in ("text", "error-text") and type(value) is str:
        return value, kind == "error-text"
    if kind in ("json", "error-json") and "value" in output:
        return encode(value).decode(), kind == "error-json"
    if kind == "content":
        texts = [
            str(entry["text"])
            for entry in map(as_object, as_array(value) or [])
            if entry is not None and entry.get("type") == "text" and type(entry.get("text")) is str
        ]
        return PART_SEPARATOR.join(texts), False
    if kind == "execution-denied":
        reason = output.get("reason")
        return (reason if type(reason) is str else ""), True
    return None


def written_output(text: str, is_error: bool) -> dict[str, object]:
    """The `output` that says `text`: `text`, or `error-text` for an error."""
    return {"type": "error-text" if is_error else "text", "value": text}


# --- dump ---------------------------------------------------------------------------------


def _dump(conversation: Conversation) -> object:
    records: list[object] = []
    open_tool: tuple[_records.Info, list[object]] | None = None
    restore: dict[str, str] = {}

    def close() -> None:
        nonlocal open_tool
        if open_tool is not None:
            records.append(
                _records.build_record(open_tool[0], _MESSAGE_KEYS, {"role": "tool", "content": open_tool[1]})
            )
            open_tool = None

    def render(message: ir.Message) -> None:
        nonlocal open_tool
        info = _records.format_info(message.meta_json, NAME)
        if type(message) is ir.ToolResultMessage:
            if info.get("first") is True or open_tool is None:
                close()
                open_tool = ({key: value for key, value in info.items() if key in ("keys", "extra")}, [])
            open_tool[1].append(_written_result(message, info, restore))
            return
        close()
        if type(message) is ir.UserMessage:
            records.append(_written_user(message, info))
        elif type(message) is ir.AssistantMessage:
            records.append(_written_assistant(message, info, restore))

    def instruction(entry: Instruction) -> None:
        if entry in body_system:
            return  # the body's `system` field, written beside the messages
        close()
        info = _records.frozen_info(entry.meta, NAME)
        records.append(_records.build_record(info, _MESSAGE_KEYS, {"role": "system", "content": entry.text}))

    own = conversation.format == NAME
    body_system = [entry for entry in conversation.instructions if own and entry.path == "$.system"]
    _writing.interleave(conversation, render, instruction)
    close()
    others: dict[str, object] = {"system": body_system[0].text} if body_system else {}
    return _writing.container(conversation, NAME, "messages", records, others)


def _written_user(message: ir.UserMessage, info: _records.Info) -> dict[str, object]:
    parts = as_array(info.get("parts"))
    content: object = message.content
    if parts is not None and PART_SEPARATOR.join(_load_state_texts(parts)) == message.content:
        content = parts
    elif info.get("string") is not True and info:
        content = [{"type": "text", "text": message.content}]
    return _records.build_record(info, _MESSAGE_KEYS, {"role": "user", "content": content})


def _load_state_texts(parts: list[object]) -> list[str]:
    return [
        str(part["text"])
        for part in map(as_object, parts)
        if part is not None and part.get("type") == "text" and type(part.get("text")) is str
    ]


def _written_assistant(message: ir.AssistantMessage, info: _records.Info, restore: dict[str, str]) -> dict[str, object]:
    only = message.content[0] if len(message.content) == 1 else None
    if info.get("string") is True and type(only) is ir.TextBlock and not only.meta_json:
        return _records.build_record(info, _MESSAGE_KEYS, {"role": "assistant", "content": only.text})
    parts: list[object] = []
    for block in message.content:
        if type(block) is ir.TextBlock:
            block_info = _records.format_info(block.meta_json, NAME)
            parts.append(_records.build_record(block_info, _TEXT_KEYS, {"type": "text", "text": block.text}))
        elif type(block) is ir.OpaqueBlock:
            if block.format == NAME:
                parts.append(block.data.thaw())
        elif type(block) is ir.ToolCall:
            call_info = _records.format_info(block.meta_json, NAME)
            v4 = call_info.get("v4") is True
            values: dict[str, object] = {
                "type": "tool-call",
                "toolCallId": _writing.written_call_id(call_info, block.id, restore),
                "toolName": block.name,
            }
            written_arguments(call_info, "args" if v4 else "input", block, values)
            parts.append(_records.build_record(call_info, _V4_CALL_KEYS if v4 else _CALL_KEYS, values))
    return _records.build_record(info, _MESSAGE_KEYS, {"role": "assistant", "content": parts})


def _written_result(message: ir.ToolResultMessage, info: _records.Info, restore: dict[str, str]) -> dict[str, object]:
    part_info = as_object(info.get("part")) or {}
    values: dict[str, object] = {
        "type": "tool-result",
        "toolCallId": restore.get(message.tool_call_id, message.tool_call_id),
        "toolName": message.tool_name,
    }
    if "result" in part_info:  # v4
        result = part_info["result"]
        said = result if type(result) is str else encode(result).decode()
        values["result"] = result if said == message.content else message.content
        if message.is_error or _records.has_key(part_info, "isError", usual=False):
            values["isError"] = message.is_error
        return _records.build_record(part_info, _V4_RESULT_KEYS, values)
    kept = as_object(part_info.get("output"))
    values["output"] = (
        kept if kept is not None and output_text(kept) == (message.content, message.is_error) else None
    ) or written_output(message.content, message.is_error)
    return _records.build_record(part_info, _RESULT_KEYS, values)


def _structured_result(message: ir.ToolResultMessage, structured: object) -> ir.ToolResultMessage | None:
    """An MCP result's structured content as a `json` output (`error-json` for an error), when
    its text is that structure's JSON; the text becomes its compact form."""
    if not same_json(message.content, structured):
        return None
    output = {"type": "error-json" if message.is_error else "json", "value": structured}
    text = encode(structured).decode()
    return msgspec.structs.replace(message, content=text, meta_json=_meta({"part": {"output": output}}))


PROMPT_ATTRIBUTE: Final = "ai.prompt.messages"
"""The span attribute of the AI SDK's telemetry that holds the messages sent (JSON text)."""


def _span_messages(attributes: dict[str, object]) -> object | None:
    """An AI SDK span's prompt (the messages it sent to the model, JSON text) and, after it,
    the model's reply as an assistant message (`ai.response.text`, `ai.response.toolCalls`)."""
    prompt = attributes.get(PROMPT_ATTRIBUTE)
    reply = _span_reply(attributes)
    if type(prompt) is not str or reply is None:
        return prompt
    try:
        messages = as_array(parse(prompt))
    except Unparsable:
        return prompt  # `load` says why
    return prompt if messages is None else [*messages, reply]


def _span_reply(attributes: dict[str, object]) -> dict[str, object] | None:
    """The reply an AI SDK span recorded, as an assistant `ModelMessage`; `None` when it has
    none, or one this cannot read whole."""
    parts: list[object] = []
    text = attributes.get("ai.response.text")
    if type(text) is str and text:
        parts.append({"type": "text", "text": text})
    calls = attributes.get("ai.response.toolCalls")
    if type(calls) is str:
        try:
            listed = as_array(parse(calls))
        except Unparsable:
            return None
        for item in listed or []:
            call = as_object(item)
            if call is None or type(call.get("toolCallId")) is not str or type(call.get("toolName")) is not str:
                return None
            arguments = call.get("input")
            if type(arguments) is str:  # JSON text; kept as sent when it is not JSON (`load` notes it)
                with contextlib.suppress(Unparsable):
                    arguments = parse(arguments)
            part = {"type": "tool-call", "toolCallId": call["toolCallId"], "toolName": call["toolName"]}
            parts.append({**part, "input": arguments})
    return {"role": "assistant", "content": parts} if parts else None


def _recognizes_record(record: dict[str, object]) -> bool:
    """A `tool` message of `tool-result` parts, or an assistant part of type `tool-call`."""
    for item in as_array(record.get("content")) or ():
        part = as_object(item)
        if part is not None and part.get("type") in ("tool-call", "tool-result"):
            return True
    return False


_WORDS: Final = provider_words(
    "Vercel AI SDK messages (`ModelMessage`, or v4's `CoreMessage`): a list, or an object with `messages`",
    "Vercel AI SDK messages",
    "the AI SDK would refuse",
    "messages",
)
_FUNCTIONS: Final = format_functions(NAME, _read, _dump, _checks.no_rules, _WORDS, json_lines=False)


FORMAT: Final = Format(
    _FUNCTIONS,
    id_rule=any_id("the AI SDK takes any non-empty ID"),
    recognize=Recognize(record=_recognizes_record),
    raw_arguments="input",
    system_field="",
    span_messages=_span_messages,
    structured_result=_structured_result,
)
"""The declaration of the format (`message_ir.adapters.FORMATS` lists it)."""

load, dump, dumps, check = _FUNCTIONS.unpacked()

__all__ = ["FORMAT", "NAME", "check", "dump", "dumps", "load"]
