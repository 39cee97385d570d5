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

Which form a source is in — `ModelMessage` (v5 and later: `input` / `output`), v4
(`args` / `result`) or `UIMessage` — is said by a `SOURCE_FORM` note. v4's own UI messages
hold their calls in `toolInvocations`, beside the `content` text: each invocation is a call
(`args`), followed, once its `state` is `result`, by its result (`result`: a string as it is,
else its JSON text). A result `repair` adds goes back into its invocation (v4 has no error
flag there: an error's text is the result).

UIMessages (what `useChat` keeps: `id`, `role`, `parts`) are read as the SDK's
`convertToModelMessages` sends them. A system message's text parts, joined, are an
`Instruction`. A user message's text parts, joined by a newline, are a `UserMessage`. An
assistant message is one IR assistant message per step: a `step-start` part begins a new
one, and is kept in it as an opaque block. Each step is followed by the results its tool
parts hold. A tool part (`tool-<name>`, or `dynamic-tool` with `toolName`) is a call, and
its result is:

- `output-available`: the `output` (a string as it is, else its JSON text);
- `output-error`: the `errorText`, as an error (the input is `input`, else `rawInput`);
- `output-denied`: the approval's reason (else the SDK's "Tool call execution denied."),
  as an error; so is `approval-responded` when the user denied it;
- `input-available`, `approval-requested`, and `approval-responded` when approved: none
  yet (`MISSING_TOOL_RESULT`: the history cannot be sent until it has one).

A tool part still streaming its input, one the provider ran (`providerExecuted`), and every
other part (reasoning, files, sources, data) are kept in place as opaque blocks. Each record
is written back as it was read. A part is rewritten only where the IR says something else,
and a result `repair` adds goes into its call's part (`output-available`, or `output-error`
with `errorText` for an error).

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
from message_ir.adapters._calls import id_and_name, ir_call_id, object_arguments, written_arguments
from message_ir.adapters._conversation import Conversation, Instruction, Note
from message_ir.adapters._format import Format, Recognize
from message_ir.adapters._functions import format_functions, provider_words
from message_ir.adapters._ids import any_id
from message_ir.adapters._json import as_array, as_object, encode, parse, same_json
from message_ir.adapters._load_state import LoadState
from message_ir.adapters._unparsable import Unparsable

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
    records, prefix = _load_state.message_list(state, source, "messages", ("system",))
    if _is_ui(records):
        _read_ui(state, records, prefix)
        state.notes.insert(0, Note("SOURCE_FORM", None, prefix, "Read as Vercel AI SDK UIMessages (`parts`)"))
        info = _records.frozen_info(state.container_meta, NAME)
        state.container_meta = _json.freeze_info({NAME: {**info, "ui": True}})
        return state
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
    invocations = as_array(record.get("toolInvocations"))
    answered: list[tuple[int, dict[str, object], str, str]] = []
    if invocations is not None:  # v4's UI message: its calls, and their results, beside `content`
        forms.add("v4")
        message_index = len(state.messages)
        for number, item in enumerate(invocations):
            invocation_path = f"{path}.toolInvocations[{number}]"
            call = _invocation_call(state, message_index, item, invocation_path)
            if call is None:
                return
            blocks.append(call)
            paths.append(invocation_path)
            invocation = as_object(item) or {}
            if invocation.get("state") == "result":
                answered.append((number, invocation, str(invocation["toolCallId"]), call.name))
    message = ir.AssistantMessage(id=state.message_id(), content=tuple(blocks), meta_json=_meta(info))
    state.add(message, path, paths)
    for result_part, (number, invocation, call_id, name) in enumerate(answered, start=1):
        result = invocation.get("result")
        text = result if type(result) is str else encode(result).decode()
        invocation_path = f"{path}.toolInvocations[{number}]"
        ir_call, tool_name = state.result_call(len(state.messages), call_id, name, invocation_path)
        written = state.result(ir_call, tool_name, text, False, _meta({}), result_part)
        state.add(written, invocation_path)


def _invocation_call(state: LoadState, message_index: int, item: object, path: str) -> ir.ToolCall | None:
    """The call of one of v4's `toolInvocations` (`partial-call`, `call` or `result`: the SDK
    sends none without its result); `None` after a problem."""
    invocation = as_object(item)
    if invocation is None or invocation.get("state") not in ("partial-call", "call", "result"):
        state.problem(path, "Expected a tool invocation with a `state` (partial-call, call, result)")
        return None
    found = id_and_name(state, invocation, path, "toolCallId", "toolName")
    if found is None:
        return None
    call_id, name = found
    info: _records.Info = {"invocation": invocation}
    parsed = object_arguments(state, message_index, invocation, "args", path + ".args", info)
    ir_id = ir_call_id(state, message_index, call_id, name, path + ".toolCallId", info)
    return ir.ToolCall(id=ir_id, name=name, arguments_json=object_raw(parsed), meta_json=_meta(info))


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
    found = id_and_name(state, part, path, "toolCallId", "toolName")
    if found is None:
        return None
    call_id, name = found
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
        found = id_and_name(state, part, part_path, "toolCallId", "toolName")
        if found is None:
            return
        call_id, name = found
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


# --- UIMessage: the form `useChat` keeps (`parts`) ------------------------------------------

_UI_ROLES: Final = ("system", "user", "assistant")
_UI_WAITING: Final = ("input-available", "approval-requested", "approval-responded")
_UI_ANSWERED: Final = ("output-available", "output-error", "output-denied")
_DENIED: Final = "Tool call execution denied."
"""The error text the SDK sends for a call the user denied without a reason."""


def _is_ui(records: list[object]) -> bool:
    """Whether a message list is UIMessages: its first record has `parts` and no `content`."""
    first = as_object(records[0]) if records else None
    return first is not None and "parts" in first and "content" not in first


def _read_ui(state: LoadState, records: list[object], prefix: str) -> None:
    """Read UIMessages as the SDK's `convertToModelMessages` sends them, everything kept."""
    for path, record in state.objects(records, prefix, "a UIMessage object"):
        role = record.get("role")
        if type(role) is not str or role not in _UI_ROLES:
            _load_state.role_problem(state, record, path, _UI_ROLES)
            continue
        parts = as_array(record.get("parts"))
        if parts is None:
            state.problem(path + ".parts", f"Expected a list of parts, got `{_json.kind(record.get('parts'))}`")
            continue
        typed = _typed_parts(state, parts, path)
        if typed is None:
            continue
        envelope = {key: (None if key == "parts" else value) for key, value in record.items()}
        if role == "system":
            text = "".join(_text_part_texts(parts))  # as the SDK joins a system message's text parts
            meta = _records.make_meta(NAME, {"ui": envelope, "parts": parts})
            state.instruction("system", text, path, None if meta is None else _json.freeze_info(meta))
        elif role == "user":
            info: _records.Info = {"ui": envelope, "parts": parts}
            message = ir.UserMessage(
                id=state.message_id(), content=PART_SEPARATOR.join(_text_part_texts(parts)), meta_json=_meta(info)
            )
            state.add(message, path)
        else:
            _ui_assistant(state, typed, path, envelope)


def _typed_parts(state: LoadState, parts: list[object], path: str) -> list[dict[str, object]] | None:
    """The parts, each an object with a `type`; `None` after a problem."""
    typed: list[dict[str, object]] = []
    for number, item in enumerate(parts):
        part = as_object(item)
        if part is None or type(part.get("type")) is not str:
            state.problem(f"{path}.parts[{number}]", "Expected a part with a `type`")
            return None
        if part["type"] == "text" and type(part.get("text")) is not str:
            state.problem(f"{path}.parts[{number}].text", f"Expected `str`, got `{_json.kind(part.get('text'))}`")
            return None
        typed.append(part)
    return typed


def _ui_assistant(state: LoadState, parts: list[dict[str, object]], path: str, envelope: dict[str, object]) -> None:
    """One assistant UIMessage: an IR assistant message per step (a `step-start` part begins
    one, and is kept in it), each followed by the results its tool parts hold."""
    steps: list[list[int]] = [[]]
    for number, part in enumerate(parts):
        if part["type"] == "step-start" and steps[-1]:
            steps.append([])
        steps[-1].append(number)
    message_part = 0
    first = True
    for step in steps:
        if not step and parts:
            continue  # a `step-start` first: the step it starts is the first
        message_index = len(state.messages)
        blocks: list[ir.AssistantBlock] = []
        answered: list[tuple[int, dict[str, object], str, str]] = []  # part, the part, call ID, tool name
        for number in step:
            part, part_path = parts[number], f"{path}.parts[{number}]"
            block = _ui_block(state, message_index, part, part_path)
            if block is None:
                return
            blocks.append(block)
            if type(block) is ir.ToolCall and _answered(part):
                answered.append((number, part, str(part["toolCallId"]), block.name))
        info: _records.Info = {"ui": envelope} if first else {"step": True}
        message = ir.AssistantMessage(id=state.message_id(message_part), content=tuple(blocks), meta_json=_meta(info))
        state.add(
            message, path if first else f"{path}.parts[{step[0]}]", [f"{path}.parts[{number}]" for number in step]
        )
        message_part, first = message_part + 1, False
        for number, part, call_id, name in answered:
            text, is_error = _ui_result(part)
            part_path = f"{path}.parts[{number}]"
            ir_call, tool_name = state.result_call(len(state.messages), call_id, name, part_path)
            result = state.result(ir_call, tool_name, text, is_error, _meta({}), message_part)
            state.add(result, part_path)
            message_part += 1


def _ui_block(state: LoadState, message_index: int, part: dict[str, object], path: str) -> ir.AssistantBlock | None:
    """The IR block of an assistant's part: a text block, a call (a tool part the SDK sends:
    not still streaming its input, not run by the provider), else the part kept in place."""
    part_type = part["type"]
    assert type(part_type) is str
    if part_type == "text":
        return ir.TextBlock(
            text=str(part["text"]), meta_json=_meta(_records.split_record(part, _TEXT_KEYS, _TEXT_KEYS))
        )
    name = part.get("toolName") if part_type == "dynamic-tool" else part_type.removeprefix("tool-")
    tool = part_type == "dynamic-tool" or part_type.startswith("tool-")
    if not tool or part.get("providerExecuted") is True or part.get("state") == "input-streaming":
        return ir.OpaqueBlock(format=NAME, kind=part_type, data_json=object_raw(part))
    call_id, tool_state = part.get("toolCallId"), part.get("state")
    if type(call_id) is not str or not call_id:
        state.problem(path + ".toolCallId", "Expected a non-empty `str`")
        return None
    if type(name) is not str or not name:
        state.problem(path + (".toolName" if part_type == "dynamic-tool" else ".type"), "Expected a tool's name")
        return None
    if tool_state not in _UI_WAITING and tool_state not in _UI_ANSWERED:
        known = ", ".join(("input-streaming", *_UI_WAITING, *_UI_ANSWERED))
        got = repr(tool_state) if type(tool_state) is str else f"`{_json.kind(tool_state)}`"
        state.problem(path + ".state", f"Expected a tool part's `state` ({known}), got {got}")
        return None
    info: _records.Info = {"ui": part}
    key = "rawInput" if "input" not in part and "rawInput" in part else "input"  # an input that did not parse
    if key == "rawInput":
        info["key"] = key
    parsed = object_arguments(state, message_index, part, key, f"{path}.{key}", info)
    ir_id = ir_call_id(state, message_index, call_id, name, path + ".toolCallId", info)
    return ir.ToolCall(id=ir_id, name=name, arguments_json=object_raw(parsed), meta_json=_meta(info))


def _answered(part: dict[str, object]) -> bool:
    """Whether a tool part holds its call's result: an output, an error, a denial."""
    if part.get("state") == "approval-responded":
        return (as_object(part.get("approval")) or {}).get("approved") is False  # the SDK sends the denial
    return part.get("state") in _UI_ANSWERED


def _ui_result(part: dict[str, object]) -> tuple[str, bool]:
    """The IR result a tool part holds, as the SDK sends it: the output (a string as it is,
    else its JSON text), the error text, or the denial's reason."""
    tool_state = part.get("state")
    if tool_state == "output-available":
        output = part.get("output")
        return (output if type(output) is str else encode(output).decode()), False
    if tool_state == "output-error":
        error = part.get("errorText")
        return (error if type(error) is str else encode(error).decode()), True
    approval = as_object(part.get("approval")) or {}
    reason = approval.get("reason")
    if tool_state == "output-denied":
        return (reason if type(reason) is str else _DENIED), True
    return (reason if type(reason) is str else ""), True  # approval-responded, denied


def _dump_ui(conversation: Conversation) -> object:
    """UIMessages back: each record as it was read, its parts rewritten where the IR says
    something else (a result `repair` added goes into its call's tool part)."""
    records: list[object] = []
    parts_of: list[object] | None = None  # the parts of the assistant UIMessage being written
    calls: dict[str, list[dict[str, object]]] = {}  # IR call ID -> its tool parts not answered yet, in order
    restore: dict[str, str] = {}

    def new_record(info: _records.Info, role: str, fallback_id: str, parts: list[object]) -> dict[str, object]:
        envelope = as_object(info.get("ui")) or {"id": fallback_id, "role": role, "parts": None}
        return {key: (parts if key == "parts" else value) for key, value in envelope.items()}

    def render(message: ir.Message) -> None:
        nonlocal parts_of
        info = _records.format_info(message.meta_json, NAME)
        if type(message) is ir.AssistantMessage:
            if info.get("step") is not True or parts_of is None:
                parts_of = []
                records.append(new_record(info, "assistant", message.id, parts_of))
            for block in message.content:
                written = _ui_part(block, restore)
                if written is not None:
                    parts_of.append(written)
                    if type(block) is ir.ToolCall:
                        calls.setdefault(block.id, []).append(written)
        elif type(message) is ir.ToolResultMessage:
            waiting = calls.get(message.tool_call_id) or []
            holding = [number for number, each in enumerate(waiting) if _answered(each)]  # a result read from it
            part = waiting.pop(holding[0] if holding else 0) if waiting else None
            if part is None:  # no tool part to hold it: one of its own
                part = {"type": "dynamic-tool", "toolName": message.tool_name, "toolCallId": message.tool_call_id}
                part.update({"state": "input-available", "input": {}})
                if parts_of is None:
                    parts_of = []
                    records.append(new_record({}, "assistant", message.id, parts_of))
                parts_of.append(part)
            _answer(part, message)
        else:
            parts_of = None
            parts = as_array(info.get("parts"))
            if parts is None or PART_SEPARATOR.join(_text_part_texts(parts)) != message.content:
                parts = [{"type": "text", "text": message.content}]
            records.append(new_record(info, "user", message.id, parts))

    def instruction(entry: Instruction) -> None:
        nonlocal parts_of
        parts_of = None
        info = _records.frozen_info(entry.meta, NAME)
        parts = as_array(info.get("parts"))
        if parts is None or "".join(_text_part_texts(parts)) != entry.text:
            parts = [{"type": "text", "text": entry.text}]
        records.append(new_record(info, "system", "system", parts))

    _writing.interleave(conversation, render, instruction)
    for part in (part for waiting in calls.values() for part in waiting):
        if part.get("state") in _UI_ANSWERED:  # its result is gone
            part["state"] = "input-available"
            part.pop("output", None)
            part.pop("errorText", None)
    return _writing.container(conversation, NAME, "messages", records, {})


def _ui_part(block: ir.AssistantBlock, restore: dict[str, str]) -> dict[str, object] | None:
    """The part of an assistant block (`None`: another format's opaque block, not written)."""
    if type(block) is ir.TextBlock:
        block_info = _records.format_info(block.meta_json, NAME)
        return _records.build_record(block_info, _TEXT_KEYS, {"type": "text", "text": block.text})
    if type(block) is ir.OpaqueBlock:
        return _json.opaque_data(block) if block.format == NAME else None
    assert type(block) is ir.ToolCall
    call_info = _records.format_info(block.meta_json, NAME)
    kept = as_object(call_info.get("ui"))
    part: dict[str, object] = (
        dict(kept) if kept is not None else {"type": "dynamic-tool", "toolName": block.name, "state": "input-available"}
    )
    part["toolCallId"] = _writing.written_call_id(call_info, block.id, restore)
    part_type = part.get("type")
    if part_type == "dynamic-tool":
        part["toolName"] = block.name
    elif type(part_type) is str and part_type.removeprefix("tool-") != block.name:
        part["type"] = f"tool-{block.name}"
    key = call_info.get("key")
    written_arguments(call_info, "rawInput" if key == "rawInput" else "input", block, part)
    return part


def _answer(part: dict[str, object], result: ir.ToolResultMessage) -> None:
    """Put a result into its call's tool part, unless the part says it already."""
    if _answered(part) and _ui_result(part) == (result.content, result.is_error):
        return
    part.pop("output", None)
    part.pop("errorText", None)
    if result.is_error:
        part["state"], part["errorText"] = "output-error", result.content
    else:
        part["state"], part["output"] = "output-available", result.content


# --- dump ---------------------------------------------------------------------------------


def _dump(conversation: Conversation) -> object:
    if conversation.format == NAME and _records.frozen_info(conversation.meta, NAME).get("ui") is True:
        return _dump_ui(conversation)
    records: list[object] = []
    open_tool: tuple[_records.Info, list[object]] | None = None
    restore: dict[str, str] = {}
    invoked: dict[str, list[dict[str, object]]] = {}  # IR call ID -> its v4 invocations not answered yet

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
        waiting = invoked.get(message.tool_call_id) if type(message) is ir.ToolResultMessage else None
        if type(message) is ir.ToolResultMessage and waiting:  # a v4 invocation's: back into it
            _invocation_result(waiting.pop(0), message)
            return
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
            records.append(_written_assistant(message, info, restore, invoked))

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
    for invocation in (invocation for waiting in invoked.values() for invocation in waiting):
        if invocation.get("state") == "result":  # its result is gone
            invocation["state"] = "call"
            invocation.pop("result", None)
    others: dict[str, object] = {"system": body_system[0].text} if body_system else {}
    return _writing.container(conversation, NAME, "messages", records, others)


def _written_user(message: ir.UserMessage, info: _records.Info) -> dict[str, object]:
    parts = as_array(info.get("parts"))
    content: object = message.content
    if parts is not None and PART_SEPARATOR.join(_text_part_texts(parts)) == message.content:
        content = parts
    elif info.get("string") is not True and info:
        content = [{"type": "text", "text": message.content}]
    return _records.build_record(info, _MESSAGE_KEYS, {"role": "user", "content": content})


def _text_part_texts(parts: list[object]) -> list[str]:
    """The `text` of each `text` part, in order (a message's or a UIMessage's parts)."""
    return [
        str(part["text"])
        for part in map(as_object, parts)
        if part is not None and part.get("type") == "text" and type(part.get("text")) is str
    ]


def _written_assistant(
    message: ir.AssistantMessage,
    info: _records.Info,
    restore: dict[str, str],
    invoked: dict[str, list[dict[str, object]]],
) -> dict[str, object]:
    """An assistant `ModelMessage` (or v4 UI message: its invocations' calls back in
    `toolInvocations`, each put on `invoked` for its result)."""
    blocks: list[ir.AssistantBlock] = []
    invocations: list[object] = []
    for block in message.content:
        call_info = _records.format_info(block.meta_json, NAME) if type(block) is ir.ToolCall else {}
        kept = as_object(call_info.get("invocation"))
        if kept is None or type(block) is not ir.ToolCall:
            blocks.append(block)
            continue
        invocation = dict(kept)
        invocation["toolCallId"] = _writing.written_call_id(call_info, block.id, restore)
        invocation["toolName"] = block.name
        written_arguments(call_info, "args", block, invocation)
        invocations.append(invocation)
        invoked.setdefault(block.id, []).append(invocation)
    had = "toolInvocations" in (as_object(info.get("extra")) or {})
    extra: dict[str, object] = {"toolInvocations": invocations} if invocations or had else {}
    only = blocks[0] if len(blocks) == 1 else None
    if info.get("string") is True and type(only) is ir.TextBlock and not only.meta_json:
        return _records.build_record(info, _MESSAGE_KEYS, {"role": "assistant", "content": only.text, **extra})
    parts: list[object] = []
    for block in blocks:
        if type(block) is ir.TextBlock:
            block_info = _records.format_info(block.meta_json, NAME)
            parts.append(_records.build_record(block_info, _TEXT_KEYS, {"type": "text", "text": block.text}))
        elif type(block) is ir.OpaqueBlock:
            if block.format == NAME:
                parts.append(_json.opaque_data(block))
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
    return _records.build_record(info, _MESSAGE_KEYS, {"role": "assistant", "content": parts, **extra})


def _invocation_result(invocation: dict[str, object], result: ir.ToolResultMessage) -> None:
    """Put a result into its v4 invocation (`state: "result"`), unless it says it already."""
    if invocation.get("state") == "result" and not result.is_error:
        kept = invocation.get("result")
        if (kept if type(kept) is str else encode(kept).decode()) == result.content:
            return
    invocation["state"], invocation["result"] = "result", result.content


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
    """A `tool` message of `tool-result` parts, or an assistant part of type `tool-call`; a
    UIMessage (`parts`, no `content`) with a `text` part holding `text` (OpenTelemetry's
    GenAI parts hold `content`), a tool part or a `step-start`."""
    for item in as_array(record.get("content")) or ():
        part = as_object(item)
        if part is not None and part.get("type") in ("tool-call", "tool-result"):
            return True
    if "content" in record or record.get("role") not in _UI_ROLES:
        return False
    for item in as_array(record.get("parts")) or ():
        part = as_object(item)
        kind = None if part is None else part.get("type")
        if type(kind) is not str or part is None:
            continue
        if (kind == "text" and "text" in part) or kind.startswith("tool-") or kind in ("dynamic-tool", "step-start"):
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
