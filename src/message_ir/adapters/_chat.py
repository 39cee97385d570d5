"""The message shape OpenAI Chat Completions made common, read and written for any format that
shares it: `role` / `content` records, an assistant's `tool_calls`, `tool` records answering
them, in a bare list or a request body's `messages`.

Formats of this shape differ in two ways, which a `Dialect` says: whether a call's
`arguments` are JSON text (OpenAI) or the object itself (Hugging Face chat templates), and
whether call IDs are required or optional (then a call without one gets one made up, and a
`tool` record without `tool_call_id` answers the earliest unanswered call, by order and name;
see `_pairing`).

How each record maps: `system` / `developer` become `Instruction`s, put back in place; `user`
→ `UserMessage` (text parts joined by a newline; the parts kept in `meta`); `assistant` →
`AssistantMessage` (its text first, then its calls; content parts other than text become
`OpaqueBlock`s in place); `tool` → `ToolResultMessage` (SWE-agent's one-element
`tool_call_ids` is read too; without a `name`, the tool name is the call's).
"""

from __future__ import annotations

from typing import Final, NamedTuple

import msgspec

import message_ir as ir
from message_ir.adapters import _json, _load_state, _records, _writing
from message_ir.adapters._build import meta_raw, object_raw
from message_ir.adapters._calls import (
    arguments_from_text,
    ir_call_id,
    object_arguments,
    written_argument_text,
    written_arguments,
)
from message_ir.adapters._conversation import Conversation, Instruction
from message_ir.adapters._json import as_array, as_object
from message_ir.adapters._load_state import LoadState
from message_ir.adapters._pairing import MADE_UP_INFO, Pairing
from message_ir.adapters._tools import ToolReader

ROLES: Final = ("system", "developer", "user", "assistant", "tool")
"""The roles of a chat message."""
_USER_KEYS: Final = ("role", "content")
_ASSISTANT_KEYS: Final = ("role", "content", "tool_calls")
_TOOL_KEYS: Final = ("role", "tool_call_id", "content")
_TOOL_KNOWN: Final[dict[tuple[bool, bool], tuple[str, ...]]] = {
    (named, listed): _TOOL_KEYS + ("name",) * named + ("tool_call_ids",) * listed
    for named in (False, True)
    for listed in (False, True)
}
"""The keys a `tool` record's reader takes: with a `name` read or not, with a listed ID or not."""
_CALL_KEYS: Final = ("id", "type", "function")
_FUNCTION_KEYS: Final = ("name", "arguments")
_PART_KEYS: Final = ("type", "text")
PART_SEPARATOR: Final = "\n"
"""How the text parts of one message are joined into the IR's `content`."""
_AS_TEXT: Final = "as_text"
"""The `meta` flag of a call whose arguments were JSON text where an object is usual."""
_AS_OBJECT: Final = "as_object"
"""The `meta` flag of a call whose arguments were the object where JSON text is usual."""


class Dialect(NamedTuple):
    """Where one format of the chat shape differs from the others."""

    name: str
    """The format's name: the key of its `meta` entries and opaque blocks."""
    text_arguments: bool
    """Whether `arguments` is JSON text (else the object; text is then kept, and reported)."""
    optional_ids: bool
    """Whether a call may come without an `id` (results then pair by order and name)."""
    tools: ToolReader
    """How a request body's `tools` are read."""
    object_arguments_too: bool = False
    """With `text_arguments`: whether the object itself is taken too (Mistral takes both),
    and written back so."""

    def meta(self, info: _records.Info) -> msgspec.Raw:
        return meta_raw(self.name, info)


# --- load ---------------------------------------------------------------------------------


def read(dialect: Dialect, source: object, avoid: frozenset[str], trusted: bool) -> LoadState:
    """One pass of `load` over a chat-shaped source."""
    state = LoadState(dialect.name, avoid)
    state.trusted = trusted
    records, prefix = _load_state.message_list(state, source, "messages", tools=dialect.tools)
    pairing = Pairing(f"{dialect.name}_call")
    for path, record in state.objects(records, prefix, "a message object"):
        role = record.get("role")
        if type(role) is not str or role not in ROLES:
            _load_state.role_problem(state, record, path, ROLES)
            continue
        try:
            if role in ("system", "developer"):
                _instruction(dialect, state, role, record, path)
            elif role == "user":
                _user(dialect, state, record, path)
            elif role == "assistant":
                _assistant(dialect, state, pairing, record, path)
            else:
                _tool(dialect, state, pairing, record, path)
        except ir.ConstructionError as error:  # a parsed value the IR cannot hold (NaN, a lone surrogate)
            state.problem(path, error.problem)
    return state


def _content_text(state: LoadState, record: dict[str, object], path: str) -> tuple[str, list[object] | None] | None:
    """The text of a record's `content` (a `str`, or a list of parts) and the parts; `None`
    after a problem (`path`: the record's)."""
    content = record.get("content")
    if type(content) is str:
        return content, None
    found = _load_state.part_texts(state, content, path + ".content", ("text",))
    if found is None:
        return None
    texts, parts = found
    return PART_SEPARATOR.join(texts), parts


def parts_text(parts: list[object]) -> str:
    """The IR text of content parts already read by `load` (their `text` parts, joined)."""
    return _load_state.typed_texts(parts, PART_SEPARATOR)


def _read_text(state: LoadState, record: dict[str, object], path: str) -> tuple[str, _records.Info] | None:
    """The text of a `system`, `developer` or `user` record and what its format keeps (its
    parts, its other keys); `None` after a problem."""
    read = _content_text(state, record, path)
    if read is None:
        return None
    text, parts = read
    info = _records.split_record(record, ("role", "content"), _USER_KEYS)
    if parts is not None:
        info["content"] = parts
    return text, info


def _instruction(dialect: Dialect, state: LoadState, role: str, record: dict[str, object], path: str) -> None:
    read = _read_text(state, record, path)
    if read is not None:
        meta = _records.make_meta(dialect.name, read[1])
        state.instruction(role, read[0], path, None if meta is None else _json.freeze_info(meta))


def _user(dialect: Dialect, state: LoadState, record: dict[str, object], path: str) -> None:
    read = _read_text(state, record, path)
    if read is not None:
        message = ir.UserMessage(id=state.message_id(), content=read[0], meta_json=dialect.meta(read[1]))
        state.add(message, path)


def _assistant(dialect: Dialect, state: LoadState, pairing: Pairing, record: dict[str, object], path: str) -> None:
    info = _records.split_record(record, _ASSISTANT_KEYS, _ASSISTANT_KEYS)
    if "content" not in record:
        info["no_content"] = True  # absent stays absent (training rows leave it out beside calls)
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
                part_info = _records.split_record(part, _PART_KEYS, _PART_KEYS)
                blocks.append(ir.TextBlock(text=text, meta_json=dialect.meta(part_info)))
            else:
                assert type(part_type) is str
                blocks.append(ir.OpaqueBlock(format=dialect.name, kind=part_type or "part", data_json=object_raw(part)))
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
        call = _call(dialect, state, pairing, message_index, item, call_path, number)
        if call is None:
            return
        blocks.append(call)
        block_paths.append(call_path)
    message = ir.AssistantMessage(id=state.message_id(), content=tuple(blocks), meta_json=dialect.meta(info))
    state.add(message, path, block_paths)


def _call(
    dialect: Dialect, state: LoadState, pairing: Pairing, message_index: int, item: object, path: str, number: int
) -> ir.ToolCall | None:
    trusted = state.trusted  # parsed here, a `dict` is a JSON object: msgspec gives `str` keys only
    record: dict[str, object] | None = item if trusted and type(item) is dict else as_object(item)
    if record is None:
        state.problem(path, f"Expected a tool call object, got `{_json.kind(item)}`")
        return None
    function_value = record.get("function")
    function: dict[str, object] | None = (
        function_value if trusted and type(function_value) is dict else as_object(function_value)
    )
    call_id, call_type = record.get("id"), record.get("type")
    made_up = dialect.optional_ids and call_id is None  # absent, or `null` (Arrow pads rows so)
    if not made_up and (type(call_id) is not str or not call_id):
        state.problem(path + ".id", "Expected a non-empty `str`")
        return None
    if (call_type != "function" and not (dialect.optional_ids and call_type is None)) or function is None:
        state.problem(path, "Expected a function tool call (`type` `function` with a `function` object)")
        return None
    name = function.get("name")
    if type(name) is not str or not name:
        state.problem(path + ".function.name", "Expected a non-empty `str`")
        return None
    info = _records.split_record(record, _CALL_KEYS, _CALL_KEYS)
    function_info = _records.split_record(function, _FUNCTION_KEYS, _FUNCTION_KEYS)
    if function_info:
        info["function"] = function_info
    arguments = _arguments(dialect, state, message_index, function, path + ".function.arguments", info)
    if arguments is None:
        return None
    parsed, text = arguments
    if call_type is None:
        info["no_type"] = "null" if "type" in record else "none"
    if made_up:
        info["no_id"] = "null" if "id" in record else "none"
        ir_id = pairing.made_up(state, message_index, name, path, number)
        meta = object_raw(_records.make_meta(dialect.name, info, MADE_UP_INFO))
    else:
        assert type(call_id) is str
        ir_id = ir_call_id(state, message_index, call_id, name, path + ".id", info)
        meta = dialect.meta(info)
    return ir.ToolCall(id=ir_id, name=name, arguments_json=object_raw(parsed, text), meta_json=meta)


def _arguments(
    dialect: Dialect, state: LoadState, message_index: int, function: dict[str, object], path: str, info: _records.Info
) -> tuple[dict[str, object], bytes | None] | None:
    """A call's arguments object (and its compact text when known); what the IR cannot hold as
    it was sent is kept in the call's `info`; `None` after a problem."""
    arguments = function.get("arguments")
    if type(arguments) is str:
        if not dialect.text_arguments:
            info[_AS_TEXT] = True
            state.origins.extra.append(
                ir.Diagnostic(
                    "BAD_TOOL_ARGUMENTS",
                    state.index,
                    path,
                    "Expected the arguments as a JSON object, got JSON text (a chat template would encode it again)",
                )
            )
        return arguments_from_text(state, message_index, arguments, path, info)
    if dialect.text_arguments and not (dialect.object_arguments_too and as_object(arguments) is not None):
        state.problem(path, f"Expected `str`, got `{_json.kind(arguments)}`")
        return None
    if dialect.text_arguments:
        info[_AS_OBJECT] = True
    return object_arguments(state, message_index, function, "arguments", path, info), None


def _tool(dialect: Dialect, state: LoadState, pairing: Pairing, record: dict[str, object], path: str) -> None:
    listed_id = False  # SWE-agent's trajectories: a one-element `tool_call_ids`
    call_id = record.get("tool_call_id")
    if call_id is None and "tool_call_id" not in record:
        listed = as_array(record.get("tool_call_ids"))
        if listed is not None and len(listed) == 1:
            call_id = listed[0]
            listed_id = True
    by_order = dialect.optional_ids and call_id is None and not listed_id
    if not by_order and (type(call_id) is not str or not call_id):
        state.problem(path + ".tool_call_id", "Expected a non-empty `str`")
        return
    read = _content_text(state, record, path)
    if read is None:
        return
    text, parts = read
    name = record.get("name")
    if type(name) is not str or not name:
        name = None  # an odd `name` is kept as it was, not read
    info = _records.split_record(record, _TOOL_KNOWN[name is not None, listed_id], _TOOL_KEYS)
    if parts is not None:
        info["content"] = parts
    if listed_id:
        info["ids"] = True
    if by_order:
        info["no_id"] = "null" if "tool_call_id" in record else "none"
        answered = pairing.answer(name)
        call_id = answered if answered is not None else f"no_call_before_message_{state.index}"
    assert type(call_id) is str
    state.add(state.answer(call_id, name, text, False, dialect.meta(info), path), path)


# --- dump ---------------------------------------------------------------------------------


def write(dialect: Dialect, conversation: Conversation) -> object:
    """The chat-shaped form of a conversation: the form it was loaded from, else a body."""
    restore: dict[str, str] = {}  # renamed call ID -> the ID the source had
    records: list[object] = []

    def render(message: ir.Message) -> None:
        orders, info = _records.kept_orders(message.meta_json, dialect.name)
        if type(message) is ir.UserMessage:
            records.append(_text_record(message.content, info, "user", orders))
        elif type(message) is ir.AssistantMessage:
            if orders is not None:  # nothing kept but the key order: text and calls
                records.append(_ordered_assistant(dialect, message, restore, orders.get("")))
            else:
                records.append(_written_assistant(dialect, message, info, restore))
        elif type(message) is ir.ToolResultMessage:
            records.append(_written_tool(message, info, restore, orders))

    def instruction(entry: Instruction) -> None:
        records.append(_text_record(entry.text, _records.frozen_info(entry.meta, dialect.name), entry.role))

    _writing.interleave(conversation, render, instruction)
    return _writing.container(conversation, dialect.name, "messages", records, {})


def _text_record(text: str, info: _records.Info, role: str, orders: _records.Orders | None = None) -> dict[str, object]:
    if orders is not None:  # nothing kept but the key order
        return _records.in_order({"role": role, "content": text}, orders.get(""), _USER_KEYS)
    parts = as_array(info.get("content"))
    content: object = parts if parts is not None and parts_text(parts) == text else text
    return _records.build_record(info, _USER_KEYS, {"role": role, "content": content})


def _written_assistant(
    dialect: Dialect, message: ir.AssistantMessage, info: _records.Info, restore: dict[str, str]
) -> dict[str, object]:
    texts: list[str] = []
    parts: list[object] | None = [] if info.get("parts") is True else None  # content parts, when loaded as such
    calls: list[object] = []
    for block in message.content:
        if type(block) is ir.TextBlock:
            texts.append(block.text)
            if parts is not None:
                block_info = _records.format_info(block.meta_json, dialect.name)
                parts.append(_records.build_record(block_info, _PART_KEYS, {"type": "text", "text": block.text}))
        elif type(block) is ir.OpaqueBlock:
            if parts is not None and block.format == dialect.name:
                parts.append(_json.opaque_data(block))
        elif type(block) is ir.ToolCall:
            calls.append(_written_call(dialect, block, restore))
    values: dict[str, object] = {"role": "assistant"}
    if parts is not None:
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


def _ordered_assistant(
    dialect: Dialect, message: ir.AssistantMessage, restore: dict[str, str], order: tuple[str, ...] | None
) -> dict[str, object]:
    """An assistant record whose `meta` kept its key `order` alone (`None`: nothing)."""
    texts: list[str] = []
    calls: list[object] = []
    for block in message.content:
        if type(block) is ir.TextBlock:
            texts.append(block.text)
        elif type(block) is ir.ToolCall:
            calls.append(_written_call(dialect, block, restore))
    values: dict[str, object] = {"role": "assistant"}
    if texts:
        values["content"] = "".join(texts)
    elif order is None or "content" in order:
        values["content"] = None
    if calls:
        values["tool_calls"] = calls
    return _records.in_order(values, order, _ASSISTANT_KEYS)


_CALL_NESTED: Final = ("function",)
_CALL_TEXT_PLAIN: Final = ("id", "as", "arguments")
"""What a call's `meta` may keep beside its key orders for the shortest way to write it (a
renamed ID, the arguments' text as sent), with arguments sent as text."""
_CALL_OBJECT_PLAIN: Final = ("id", "as")
"""The same, with arguments sent as the object."""


def _written_call(dialect: Dialect, call: ir.ToolCall, restore: dict[str, str]) -> dict[str, object]:
    plain = _CALL_TEXT_PLAIN if dialect.text_arguments else _CALL_OBJECT_PLAIN
    orders, info = _records.kept_orders(call.meta_json, dialect.name, _CALL_NESTED, plain)
    function_values: dict[str, object] = {"name": call.name}
    if (dialect.text_arguments and info.get(_AS_OBJECT) is not True) or info.get(_AS_TEXT) is True:
        function_values["arguments"] = written_argument_text(info, call)
    else:
        written_arguments(info, "arguments", call, function_values)
    if orders is not None:  # nothing kept but key orders, a renamed ID, the arguments' text
        function = _records.in_order(function_values, orders.get("function"), _FUNCTION_KEYS)
        call_id = _writing.written_call_id(info, call.id, restore)
        return _records.in_order({"id": call_id, "type": "function", "function": function}, orders.get(""), _CALL_KEYS)
    function = _records.build_record(_json.decoded_object(info.get("function")) or {}, _FUNCTION_KEYS, function_values)
    values: dict[str, object] = {"type": _absent_or_null(info.get("no_type"), "function"), "function": function}
    values["id"] = _absent_or_null(info.get("no_id"), _writing.written_call_id(info, call.id, restore))
    kept = {key: value for key, value in values.items() if value is not _ABSENT}
    return _records.build_record(info, _CALL_KEYS, kept)


_ABSENT: Final = object()
"""What `_absent_or_null` gives for a key the source did not have."""


def _absent_or_null(kept: object, value: object) -> object:
    """A key's value as the source had it: absent (`"none"`), `null` (`"null"`), else `value`."""
    if kept == "none":
        return _ABSENT
    return None if kept == "null" else value


def _written_tool(
    message: ir.ToolResultMessage, info: _records.Info, restore: dict[str, str], orders: _records.Orders | None
) -> dict[str, object]:
    call_id = restore.get(message.tool_call_id, message.tool_call_id)
    if orders is not None:  # nothing kept but the key order
        order = orders.get("")
        ordered: dict[str, object] = {"role": "tool", "tool_call_id": call_id, "content": message.content}
        if order is not None and "name" in order:
            ordered["name"] = message.tool_name
        return _records.in_order(ordered, order, _TOOL_KEYS)
    parts = as_array(info.get("content"))
    content: object = parts if parts is not None and parts_text(parts) == message.content else message.content
    values: dict[str, object] = {"role": "tool", "content": content}
    if info.get("ids") is True:
        values["tool_call_ids"] = [call_id]
    elif info.get("no_id") != "none":
        values["tool_call_id"] = None if info.get("no_id") == "null" else call_id
    if _records.has_key(info, "name", usual=False) and "name" not in (as_object(info.get("extra")) or {}):
        values["name"] = message.tool_name
    return _records.build_record(info, _TOOL_KEYS, values)
