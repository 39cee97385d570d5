"""OpenAI Chat Completions `messages`: in and out of the IR, losslessly, with OpenAI's rules.

`load` takes JSON text or the parsed value: the bare `messages` list, or a request body
`{"messages": [...], ...}`; `dump` gives back the same form. How each record maps:

- `system` / `developer` messages become `Conversation.instructions`, put back in place;
- `user` → `UserMessage` (text parts joined by a newline; the parts kept in `meta`);
- `assistant` → `AssistantMessage`: its text (`content`) first, then its `tool_calls` as
  `ToolCall`s (content parts other than text become `OpaqueBlock`s in place);
- `tool` → `ToolResultMessage` answering `tool_call_id` (SWE-agent's one-element
  `tool_call_ids` is read too); without a `name`, the tool name is the call's.

`arguments` is a JSON *string* on the wire: the IR holds the object, and `meta` keeps the
string when it is not msgspec's compact encoding of that object. A string that is not a JSON
object loads as `{}` with the string kept, a `Note`, and `BAD_TOOL_ARGUMENTS` from `check`.
A call ID used again in a later turn (pairing is by adjacency there) is renamed on load with
a `Note` and restored by `dump`. Message IDs are made up from positions (`m0`, `m1`, ...).
"""

from __future__ import annotations

from typing import Final

import msgspec

import message_ir as ir
from message_ir.adapters import _checks, _json, _load_state, _records, _tools, _writing
from message_ir.adapters._build import meta_raw, object_raw
from message_ir.adapters._calls import arguments_from_text, ir_call_id, written_argument_text
from message_ir.adapters._conversation import Conversation, Instruction
from message_ir.adapters._fast_dataset_line import is_clean
from message_ir.adapters._format import Format, Recognize
from message_ir.adapters._functions import format_functions, provider_words
from message_ir.adapters._ids import ANY, IdRule
from message_ir.adapters._json import as_array, as_object, freeze_info
from message_ir.adapters._load_state import LoadState, Origins
from message_ir.adapters._tools import ToolDeclaration, ToolReader

NAME: Final = "openai_chat"
ID_RULE: Final = IdRule(40, ANY, "OpenAI Chat accepts at most 40")
"""The tool-call IDs its provider accepts."""
_ROLES: Final = ("system", "developer", "user", "assistant", "tool")
_USER_KEYS: Final = ("role", "content")
_ASSISTANT_KEYS: Final = ("role", "content", "tool_calls")
_TOOL_KEYS: Final = ("role", "tool_call_id", "content")
_CALL_KEYS: Final = ("id", "type", "function")
_FUNCTION_KEYS: Final = ("name", "arguments")
_PART_KEYS: Final = ("type", "text")
PART_SEPARATOR: Final = "\n"
"""How the text parts of one message are joined into the IR's `content`."""


def _declared_tool(tool: dict[str, object], path: str) -> list[ToolDeclaration]:
    """One item of a body's `tools`: a function, or a custom tool (free input)."""
    if tool.get("type") == "function" or "function" in tool:
        return [_tools.function(as_object(tool.get("function")), path + ".function", "parameters")]
    custom = as_object(tool.get("custom"))
    return [_tools.named(custom, path + ".custom")] if custom is not None else []


_TOOLS: Final = ToolReader(_declared_tool, ".function.name", ".function.arguments", functions=True)


# --- load ---------------------------------------------------------------------------------


def _read(source: object, avoid: frozenset[str], trusted: bool) -> LoadState:
    state = LoadState(NAME, avoid)
    state.trusted = trusted
    records, prefix = _load_state.message_list(state, source, "messages", tools=_TOOLS)
    for path, record in state.objects(records, prefix, "a message object"):
        role = record.get("role")
        if type(role) is not str or role not in _ROLES:
            _load_state.role_problem(state, record, path, _ROLES)
            continue
        try:
            if role in ("system", "developer"):
                _instruction(state, role, record, path)
            elif role == "user":
                _user(state, record, path)
            elif role == "assistant":
                _assistant(state, record, path)
            else:
                _tool(state, record, path)
        except ir.ConstructionError as error:  # a parsed value the IR cannot hold (NaN, a lone surrogate)
            state.problem(path, error.problem)
    return state


def _parts_text(state: LoadState, content: object, path: str) -> tuple[str, list[object] | None] | None:
    """The text of a `content` (a `str`, or a list of parts) and the parts; `None` after a problem."""
    if type(content) is str:
        return content, None
    found = _load_state.part_texts(state, content, path, ("text",))
    if found is None:
        return None
    texts, parts = found
    return PART_SEPARATOR.join(texts), parts


def parts_text(parts: list[object]) -> str:
    """The IR text of content parts already read by `load` (their `text` parts, joined)."""
    texts: list[str] = []
    for item in parts:
        part = as_object(item)
        if part is not None and part.get("type") == "text":
            text = part.get("text")
            if type(text) is str:
                texts.append(text)
    return PART_SEPARATOR.join(texts)


def _instruction(state: LoadState, role: str, record: dict[str, object], path: str) -> None:
    read = _parts_text(state, record.get("content"), path + ".content")
    if read is None:
        return
    text, parts = read
    info = _records.split_record(record, ("role", "content"), _USER_KEYS)
    if parts is not None:
        info["content"] = parts
    meta = _records.make_meta(NAME, info)
    state.instruction(role, text, path, None if meta is None else freeze_info(meta))


def _user(state: LoadState, record: dict[str, object], path: str) -> None:
    read = _parts_text(state, record.get("content"), path + ".content")
    if read is None:
        return
    text, parts = read
    info = _records.split_record(record, ("role", "content"), _USER_KEYS)
    if parts is not None:
        info["content"] = parts
    message = ir.UserMessage(id=state.message_id(), content=text, meta_json=_meta(info))
    state.add(message, path)


def _meta(info: _records.Info) -> msgspec.Raw:
    return meta_raw(NAME, info)


def _assistant(state: LoadState, record: dict[str, object], path: str) -> None:
    info = _records.split_record(record, _ASSISTANT_KEYS, _ASSISTANT_KEYS)
    if "content" not in record:
        info["no_content"] = True  # absent stays absent (fine-tuning files leave it out beside calls)
    blocks: list[ir.AssistantBlock] = []
    block_paths: list[str] = []
    content = record.get("content")
    if type(content) is str:
        blocks.append(ir.TextBlock(text=content))
        block_paths.append(path + ".content")
    elif content is not None:
        parts = as_array(content)
        if parts is None:
            state.problem(path + ".content", f"Expected `str`, `null` or a list of parts, got `{_json.kind(content)}`")
            return
        info["parts"] = True
        for number, item in enumerate(parts):
            part = as_object(item)
            part_path = f"{path}.content[{number}]"
            if part is None or type(part.get("type")) is not str:
                state.problem(part_path, "Expected a content part with a `type`")
                return
            part_type = part["type"]
            text = part.get("text")
            if part_type == "text" and type(text) is str:
                blocks.append(
                    ir.TextBlock(text=text, meta_json=_meta(_records.split_record(part, _PART_KEYS, _PART_KEYS)))
                )
            else:
                assert type(part_type) is str
                blocks.append(ir.OpaqueBlock(format=NAME, kind=part_type or "part", data_json=object_raw(part)))
            block_paths.append(part_path)
    calls_value = record.get("tool_calls")
    calls = as_array(calls_value)
    if "tool_calls" in record and (calls is None or not calls):
        if calls_value is not None and calls is None:
            state.problem(path + ".tool_calls", f"Expected a list of tool calls, got `{_json.kind(calls_value)}`")
            return
        info["tool_calls"] = calls_value  # `null` or `[]`, written back as it was
    message_index = len(state.messages)
    for number, item in enumerate(calls or ()):
        call_path = f"{path}.tool_calls[{number}]"
        call = _call(state, message_index, item, call_path)
        if call is None:
            return
        blocks.append(call)
        block_paths.append(call_path)
    message = ir.AssistantMessage(id=state.message_id(), content=tuple(blocks), meta_json=_meta(info))
    state.add(message, path, block_paths)


def _call(state: LoadState, message_index: int, item: object, path: str) -> ir.ToolCall | None:
    record = as_object(item)
    if record is None:
        state.problem(path, f"Expected a tool call object, got `{_json.kind(item)}`")
        return None
    function = as_object(record.get("function"))
    call_id, call_type = record.get("id"), record.get("type")
    if type(call_id) is not str or not call_id:
        state.problem(path + ".id", "Expected a non-empty `str`")
        return None
    if call_type != "function" or function is None:
        state.problem(path, "Expected a function tool call (`type` `function` with a `function` object)")
        return None
    name, arguments = function.get("name"), function.get("arguments")
    if type(name) is not str or not name:
        state.problem(path + ".function.name", "Expected a non-empty `str`")
        return None
    if type(arguments) is not str:
        state.problem(path + ".function.arguments", f"Expected `str`, got `{_json.kind(arguments)}`")
        return None
    info = _records.split_record(record, _CALL_KEYS, _CALL_KEYS)
    function_info = _records.split_record(function, _FUNCTION_KEYS, _FUNCTION_KEYS)
    if function_info:
        info["function"] = function_info
    parsed, text = arguments_from_text(state, message_index, arguments, path + ".function.arguments", info)
    ir_id = ir_call_id(state, message_index, call_id, name, path + ".id", info)
    return ir.ToolCall(id=ir_id, name=name, arguments_json=object_raw(parsed, text), meta_json=_meta(info))


def _tool(state: LoadState, record: dict[str, object], path: str) -> None:
    known = ["role", "tool_call_id", "content", "name"]
    call_id = record.get("tool_call_id")
    if call_id is None and "tool_call_id" not in record:
        listed = as_array(record.get("tool_call_ids"))  # SWE-agent's trajectories
        if listed is not None and len(listed) == 1:
            call_id = listed[0]
            known.append("tool_call_ids")
    if type(call_id) is not str or not call_id:
        state.problem(path + ".tool_call_id", "Expected a non-empty `str`")
        return
    read = _parts_text(state, record.get("content"), path + ".content")
    if read is None:
        return
    text, parts = read
    name = record.get("name")
    if type(name) is not str or not name:
        name = None
        known.remove("name")  # an odd `name` is kept as it was, not read
    info = _records.split_record(record, known, _TOOL_KEYS)
    if parts is not None:
        info["content"] = parts
    if "tool_call_ids" in known:
        info["ids"] = True
    state.add(state.answer(call_id, name, text, False, _meta(info), path), path)


# --- dump ---------------------------------------------------------------------------------


def _dump(conversation: Conversation) -> object:
    restore: dict[str, str] = {}  # renamed call ID -> the ID the source had
    records: list[object] = []

    def render(message: ir.Message) -> None:
        if type(message) is ir.UserMessage:
            records.append(_dump_text_record(message.content, _records.format_info(message.meta_json, NAME), "user"))
        elif type(message) is ir.AssistantMessage:
            records.append(_dump_assistant(message, restore))
        elif type(message) is ir.ToolResultMessage:
            records.append(_dump_tool(message, restore))

    def instruction(entry: Instruction) -> None:
        records.append(_dump_text_record(entry.text, _records.frozen_info(entry.meta, NAME), entry.role))

    _writing.interleave(conversation, render, instruction)
    return _writing.container(conversation, NAME, "messages", records, {})


def _dump_text_record(text: str, info: _records.Info, role: str) -> dict[str, object]:
    parts = as_array(info.get("content"))
    content: object = parts if parts is not None and parts_text(parts) == text else text
    usual = _USER_KEYS if role != "tool" else _TOOL_KEYS
    return _records.build_record(info, usual, {"role": role, "content": content})


def _dump_assistant(message: ir.AssistantMessage, restore: dict[str, str]) -> dict[str, object]:
    info = _records.format_info(message.meta_json, NAME)
    texts: list[str] = []
    parts: list[object] = []
    calls: list[object] = []
    for block in message.content:
        if type(block) is ir.TextBlock:
            texts.append(block.text)
            parts.append(
                _records.build_record(
                    _records.format_info(block.meta_json, NAME), _PART_KEYS, {"type": "text", "text": block.text}
                )
            )
        elif type(block) is ir.OpaqueBlock:
            if block.format == NAME:
                parts.append(block.data.thaw())
        elif type(block) is ir.ToolCall:
            calls.append(_dump_call(block, restore))
    values: dict[str, object] = {"role": "assistant"}
    if info.get("parts") is True:
        values["content"] = parts
    elif texts:
        values["content"] = "".join(texts)
    elif info.get("no_content") is not True and _records.has_key(info, "content", usual=True):
        values["content"] = None
    if calls:
        values["tool_calls"] = calls
    elif "tool_calls" in info:
        values["tool_calls"] = info["tool_calls"]
    return _records.build_record(info, _ASSISTANT_KEYS, values)


def _dump_call(call: ir.ToolCall, restore: dict[str, str]) -> dict[str, object]:
    info = _records.format_info(call.meta_json, NAME)
    call_id = _writing.written_call_id(info, call.id, restore)
    arguments = written_argument_text(info, call)
    function_info = as_object(info.get("function")) or {}
    function = _records.build_record(function_info, _FUNCTION_KEYS, {"name": call.name, "arguments": arguments})
    return _records.build_record(info, _CALL_KEYS, {"id": call_id, "type": "function", "function": function})


def _dump_tool(message: ir.ToolResultMessage, restore: dict[str, str]) -> dict[str, object]:
    info = _records.format_info(message.meta_json, NAME)
    parts = as_array(info.get("content"))
    content: object = parts if parts is not None and parts_text(parts) == message.content else message.content
    call_id = restore.get(message.tool_call_id, message.tool_call_id)
    values: dict[str, object] = {"role": "tool", "content": content}
    if info.get("ids") is True:
        values["tool_call_ids"] = [call_id]
    else:
        values["tool_call_id"] = call_id
    if _records.has_key(info, "name", usual=False) and "name" not in (as_object(info.get("extra")) or {}):
        values["name"] = message.tool_name
    return _records.build_record(info, _TOOL_KEYS, values)


# --- provider rules -----------------------------------------------------------------------


def _provider_rules(conversation: Conversation, origins: Origins) -> list[ir.Diagnostic]:
    """OpenAI's rules beyond the IR's: results right after their call, and the ID length."""
    found = _checks.id_rule_problems(origins, ID_RULE)
    found.extend(_checks.adjacency(conversation, origins, merge_turns=False))
    return found


def _recognizes_record(record: dict[str, object]) -> bool:
    return record.get("role") in ("tool", "system", "developer") or "tool_calls" in record or "tool_call_id" in record


_WORDS: Final = provider_words(
    "OpenAI Chat Completions `messages` (a list, or a request body)",
    "OpenAI Chat data",
    "OpenAI would answer with a 400",
    "messages",
)
_TRAINER_RECORD_KEYS: Final = ("messages", "tools", "functions", "parallel_tool_calls")
_TRAINER_MESSAGE_KEYS: Final = ("role", "content", "name", "tool_calls", "tool_call_id", "function_call", "weight")


def _fine_tuning_keys(source: object) -> list[ir.Diagnostic]:
    """Keys of a training example (a dataset line) that OpenAI's fine-tuning does not take:
    the record's, and each message's (`weight` it takes: whether to learn from a message)."""
    value = _load_state.parsed(NAME, source) if type(source) is bytes or type(source) is str else source
    record = as_object(value)
    if record is None:
        return []  # a bare list of messages: no record keys to judge
    found = [
        ir.Diagnostic("UNKNOWN_KEY", None, f"$.{key}", f"`{key}` is not a key OpenAI fine-tuning takes in a record")
        for key in record
        if key not in _TRAINER_RECORD_KEYS
    ]
    for index, message in enumerate(as_array(record.get("messages")) or []):
        found.extend(
            ir.Diagnostic(
                "UNKNOWN_KEY",
                index,
                f"$.messages[{index}].{key}",
                f"`{key}` is not a key OpenAI fine-tuning takes in a message",
            )
            for key in as_object(message) or {}
            if key not in _TRAINER_MESSAGE_KEYS
        )
    return found


_FUNCTIONS: Final = format_functions(
    NAME, _read, _dump, _provider_rules, _WORDS, json_lines=False, trainer=_fine_tuning_keys
)


FORMAT: Final = Format(
    _FUNCTIONS,
    id_rule=ID_RULE,
    recognize=Recognize(
        record=_recognizes_record, block_types=frozenset({"image_url", "input_audio", "refusal", "file"}), fallback=True
    ),
    raw_arguments="arguments",
    tools=_TOOLS,
    dataset_line=True,
    fast_path=is_clean,
)
"""The declaration of the format (`message_ir.adapters.FORMATS` lists it)."""

load, dump, dumps, check = _FUNCTIONS.unpacked()

__all__ = ["FORMAT", "NAME", "check", "dump", "dumps", "load"]
