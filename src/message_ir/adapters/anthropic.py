"""Anthropic Messages `messages`: in and out of the IR, losslessly, with Anthropic's rules.

`load` takes JSON text or the parsed value: the bare `messages` list, or a request body
`{"system": ..., "messages": [...], ...}`; `dump` gives back the same form. How each
message maps:

- a `user` message becomes, in order, one `ToolResultMessage` per `tool_result` block
  (`is_error` when set; the tool name is the call's) and one `UserMessage` per run of other
  blocks (their text blocks joined by a newline; the blocks kept in `meta`);
- an `assistant` message becomes one `AssistantMessage`: `text` → `TextBlock`, `tool_use`
  → `ToolCall`, anything else (`thinking`, `redacted_thinking`, server tools, ...) → an
  `OpaqueBlock` of format `anthropic`, in place;
- `system` (a string or text blocks) is the one `Instruction`.

The API merges consecutive messages of one role into one turn, so the rules are checked on
that merged view: the results of a turn's calls come in the next user turn
(`RESULT_NOT_ADJACENT`), before anything else in it (`RESULT_NOT_FIRST`); IDs match
`^[a-zA-Z0-9_-]+$` (`BAD_TOOL_CALL_ID_FORMAT`). Message IDs are made up from positions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Literal

import msgspec

import message_ir as ir
from message_ir.adapters import _checks, _fast_line, _json, _load_state, _records, _tools, _writing
from message_ir.adapters._build import meta_raw
from message_ir.adapters._calls import BlockShape, read_block, written_arguments
from message_ir.adapters._conversation import Conversation
from message_ir.adapters._format import Format, Recognize
from message_ir.adapters._functions import format_functions, provider_words
from message_ir.adapters._ids import WORD, IdRule
from message_ir.adapters._json import as_array, as_object, freeze_info
from message_ir.adapters._load_state import LoadState, Origins
from message_ir.adapters._tools import ToolDeclaration, ToolReader, arguments_value

NAME: Final = "anthropic"
ID_RULE: Final = IdRule(64, WORD, "Anthropic accepts `^[a-zA-Z0-9_-]+$`, at most 64 characters")
"""The tool-call IDs its provider accepts."""
_MESSAGE_KEYS: Final = ("role", "content")
_TEXT_KEYS: Final = ("type", "text")
_USE_KEYS: Final = ("type", "id", "name", "input")
_BLOCKS: Final = BlockShape(NAME, _TEXT_KEYS, "tool_use", _USE_KEYS, "input")
_RESULT_KEYS: Final = ("type", "tool_use_id", "content")
_RESULT_KNOWN: Final = ("type", "tool_use_id", "content", "is_error")
TEXT_SEPARATOR: Final = "\n"
"""How the text blocks of one run of user content are joined into the IR's `content`."""


def _declared_tool(tool: dict[str, object], path: str) -> list[ToolDeclaration]:
    """One item of a body's `tools`: a custom tool with `input_schema`, or a server tool
    (called by its name, if it has one)."""
    if "input_schema" in tool or tool.get("type") in (None, "custom"):
        return [_tools.function(tool, path, "input_schema")]
    return [_tools.named(tool, path)] if "name" in tool else []


_TOOLS: Final = ToolReader(_declared_tool, ".name", ".input")


# --- load ---------------------------------------------------------------------------------


def _read(source: object, avoid: frozenset[str], trusted: bool) -> LoadState:
    state = LoadState(NAME, avoid)
    state.trusted = trusted
    records, prefix = _load_state.message_list(state, source, "messages", ("system",), tools=_TOOLS)
    if state.body is not None and "system" in state.body and state.json_ok(state.body["system"], "$.system"):
        _system(state, state.body["system"])
    for path, record in state.objects(records, prefix, "a message object"):
        read_message(state, record, path)
    return state


def read_message(state: LoadState, record: dict[str, object], path: str) -> None:
    """Read one Anthropic message object at `path` into `state` (a session log's adapter
    calls this for each message line)."""
    role = record.get("role")
    try:
        if role == "user":
            _user(state, record, path)
        elif role == "assistant":
            _assistant(state, record, path)
        else:
            _load_state.role_problem(state, record, path, ("user", "assistant"))
    except ir.ConstructionError as error:  # a parsed value the IR cannot hold (NaN, a lone surrogate)
        state.problem(path, error.problem)


def _meta(info: _records.Info) -> msgspec.Raw:
    return meta_raw(NAME, info)


def _blocks(state: LoadState, content: object, path: str) -> list[dict[str, object]] | None:
    outside = path.startswith("$.system")  # the body's `system`, not a message
    items = as_array(content)
    if items is None:
        state.problem(path, f"Expected `str` or a list of content blocks, got `{_json.kind(content)}`", outside=outside)
        return None
    blocks: list[dict[str, object]] = []
    trusted = state.trusted
    for number, item in enumerate(items):
        # Parsed here, a `dict` is a JSON object: msgspec gives `str` keys only.
        block = item if trusted and type(item) is dict else as_object(item)
        block_type = None if block is None else block.get("type")
        if type(block_type) is not str or not block_type:
            state.problem(f"{path}[{number}]", "Expected a content block with a `type`", outside=outside)
            return None
        assert block is not None
        if block_type == "text" and type(block.get("text")) is not str:
            problem = f"Expected `str`, got `{_json.kind(block.get('text'))}`"
            state.problem(f"{path}[{number}].text", problem, outside=outside)
            return None
        blocks.append(block)
    return blocks


def blocks_text(blocks: list[object]) -> str:
    """The IR text of content blocks: their `text` blocks, joined."""
    return _load_state.typed_texts(blocks, TEXT_SEPARATOR)


def _system(state: LoadState, system: object) -> None:
    if type(system) is str:
        state.instruction("system", system, "$.system", None)
        return
    blocks = _blocks(state, system, "$.system")
    if blocks is not None:
        meta = _records.make_meta(NAME, {"content": list[object](blocks)})
        assert meta is not None
        state.instruction("system", blocks_text(list[object](blocks)), "$.system", freeze_info(meta))


def _user(state: LoadState, record: dict[str, object], path: str) -> None:
    info = _records.split_record(record, _MESSAGE_KEYS, _MESSAGE_KEYS)
    info["first"] = True
    content = record.get("content")
    if type(content) is str:
        info["string"] = True
        state.add(ir.UserMessage(id=state.message_id(), content=content, meta_json=_meta(info)), path)
        return
    blocks = _blocks(state, content, path + ".content")
    if blocks is None:
        return
    part = 0
    run: list[object] = []
    run_start = 0
    for number, block in enumerate(blocks):
        if block["type"] != "tool_result":
            if not run:
                run_start = number
            run.append(block)
            continue
        if run:
            _add_run(state, info, run, part, f"{path}.content[{run_start}]")
            part, run, info = part + 1, [], {}
        block_path = f"{path}.content[{number}]"
        result = _result(state, block, block_path, info, part)
        if result is None:
            return
        state.add(result, block_path)
        part, info = part + 1, {}
    if run:
        _add_run(state, info, run, part, f"{path}.content[{run_start}]")
        part += 1
    if part == 0:  # an empty list of blocks: one empty user message keeps its place
        info["blocks"] = []
        state.add(ir.UserMessage(id=state.message_id(), content="", meta_json=_meta(info)), path + ".content")


def _add_run(state: LoadState, info: _records.Info, run: list[object], part: int, path: str) -> None:
    """The `UserMessage` (part `part` of the record) of a run of blocks that are no results."""
    run_info: _records.Info = {**info, "blocks": run}
    state.add(ir.UserMessage(id=state.message_id(part), content=blocks_text(run), meta_json=_meta(run_info)), path)


def _result(
    state: LoadState, block: dict[str, object], path: str, info: _records.Info, part: int
) -> ir.ToolResultMessage | None:
    call_id = block.get("tool_use_id")
    if type(call_id) is not str or not call_id:
        state.problem(path + ".tool_use_id", "Expected a non-empty `str`")
        return None
    content = block.get("content", "")
    block_info = _records.split_record(block, _RESULT_KNOWN, _RESULT_KEYS)
    if type(content) is str:
        text = content
    else:
        parts = _blocks(state, content, path + ".content")
        if parts is None:
            return None
        text = blocks_text(list[object](parts))
        block_info["content"] = list[object](parts)
    if "content" not in block:
        block_info["no_content"] = True
    is_error = block.get("is_error", False)
    if type(is_error) is not bool:
        state.problem(path + ".is_error", f"Expected `bool`, got `{_json.kind(is_error)}`")
        return None
    ir_call_id, name = state.result_call(len(state.messages), call_id, None, path)
    return state.result(ir_call_id, name, text, is_error, _meta({**info, "block": block_info}), part)


def _assistant(state: LoadState, record: dict[str, object], path: str) -> None:
    info = _records.split_record(record, _MESSAGE_KEYS, _MESSAGE_KEYS)
    content = record.get("content")
    ir_blocks: list[ir.AssistantBlock] = []
    block_paths: list[str] = []
    message_index = len(state.messages)
    if type(content) is str:
        info["string"] = True
        ir_blocks.append(ir.TextBlock(text=content))
        block_paths.append(path + ".content")
    else:
        blocks = _blocks(state, content, path + ".content")
        if blocks is None:
            return
        for number, block in enumerate(blocks):
            block_path = f"{path}.content[{number}]"
            ir_block = read_block(state, message_index, block, block_path, _BLOCKS, _meta)
            if ir_block is None:
                return
            ir_blocks.append(ir_block)
            block_paths.append(block_path)
    if not info and type(content) is not str:
        info["list"] = True  # without it, a lone text block would be written back as a string
    message = ir.AssistantMessage(id=state.message_id(), content=tuple(ir_blocks), meta_json=_meta(info))
    state.add(message, path, block_paths)


# --- dump ---------------------------------------------------------------------------------


def _dump(conversation: Conversation) -> object:
    records = render_messages(conversation.messages, {})
    others: dict[str, object] = {}
    system = _dump_system(conversation)
    if system is not None:
        others["system"] = system
    return _writing.container(conversation, NAME, "messages", records, others)


def render_messages(
    messages: Sequence[ir.Message], restore: dict[str, str], infos: Sequence[_records.Info] | None = None
) -> list[object]:
    """The Anthropic message objects of IR messages (consecutive user-side messages joined
    as they were loaded); `restore` maps renamed call IDs back, filled as calls are met.
    `infos`, when given, is what this format kept of each message (its `meta` entry, decoded
    by the caller already)."""
    records: list[object] = []
    open_record: tuple[_records.Info, list[object], list[ir.UserMessage | ir.ToolResultMessage]] | None = None

    def close() -> None:
        nonlocal open_record
        if open_record is not None:
            records.append(_user_record(*open_record))
            open_record = None

    for number, message in enumerate(messages):
        info = _records.format_info(message.meta_json, NAME) if infos is None else infos[number]
        if type(message) is ir.AssistantMessage:
            close()
            records.append(render_assistant(message.content, info, restore))
            continue
        assert type(message) is ir.UserMessage or type(message) is ir.ToolResultMessage
        if info.get("first") is True or open_record is None:
            close()
            open_record = (info, [], [])
        open_record[2].append(message)
        if type(message) is ir.ToolResultMessage:
            open_record[1].append(_dump_result(message, info, restore))
        else:
            blocks = as_array(info.get("blocks"))
            if blocks is not None and blocks_text(blocks) == message.content:
                open_record[1].extend(blocks)
            else:
                open_record[1].append({"type": "text", "text": message.content})
    close()
    return records


def _user_record(
    info: _records.Info, blocks: list[object], parts: list[ir.UserMessage | ir.ToolResultMessage]
) -> dict[str, object]:
    content: object = blocks
    plain = info.get("string") is True or not info  # loaded as a string, or new
    if plain and len(parts) == 1 and type(parts[0]) is ir.UserMessage:
        content = parts[0].content
    return _records.build_record(info, _MESSAGE_KEYS, {"role": "user", "content": content})


def _dump_result(message: ir.ToolResultMessage, info: _records.Info, restore: dict[str, str]) -> dict[str, object]:
    block_info = _json.decoded_object(info.get("block")) or {}  # decoded `meta`: `str` keys
    parts = as_array(block_info.get("content"))
    values: dict[str, object] = {
        "type": "tool_result",
        "tool_use_id": restore.get(message.tool_call_id, message.tool_call_id),
    }
    if parts is not None and blocks_text(parts) == message.content:
        values["content"] = parts
    elif not (block_info.get("no_content") is True and message.content == ""):
        values["content"] = message.content
    if message.is_error or _records.has_key(block_info, "is_error", usual=False):
        values["is_error"] = message.is_error
    return _records.build_record(block_info, _RESULT_KEYS, values)


def render_assistant(
    content: Sequence[ir.AssistantBlock], info: _records.Info, restore: dict[str, str]
) -> dict[str, object]:
    """The Anthropic message object of an assistant message's blocks, with what this format
    kept of the message (`info`, its `meta` entry); `restore` as in `render_messages`."""
    blocks: list[object] = []
    for block in content:
        if type(block) is ir.TextBlock:
            values: dict[str, object] = {"type": "text", "text": block.text}
            if block.meta_json:  # else nothing kept: the usual block, or one made in the IR
                values = _records.build_record(_records.format_info(block.meta_json, NAME), _TEXT_KEYS, values)
            blocks.append(values)
        elif type(block) is ir.OpaqueBlock:
            if block.format == NAME:
                blocks.append(_json.opaque_data(block))
        elif type(block) is ir.ToolCall:
            blocks.append(_dump_call(block, restore))
    written: object = blocks
    only = content[0] if len(content) == 1 else None
    plain = info.get("string") is True or not info  # loaded as a string, or new
    if plain and type(only) is ir.TextBlock and not only.meta_json:
        written = only.text
    return _records.build_record(info, _MESSAGE_KEYS, {"role": "assistant", "content": written})


def _dump_call(call: ir.ToolCall, restore: dict[str, str]) -> dict[str, object]:
    if not call.meta_json:  # nothing kept (the usual block, or one made in the IR): the IR says it all
        return {"type": "tool_use", "id": call.id, "name": call.name, "input": arguments_value(call)}
    info = _records.format_info(call.meta_json, NAME)
    call_id = _writing.written_call_id(info, call.id, restore)
    values: dict[str, object] = {"type": "tool_use", "id": call_id, "name": call.name}
    written_arguments(info, "input", call, values)
    return _records.build_record(info, _USE_KEYS, values)


def _dump_system(conversation: Conversation) -> object:
    """The `system` field: the instructions' text (kept blocks when unchanged), or `None`."""
    if not conversation.instructions:
        return None
    if len(conversation.instructions) == 1:
        entry = conversation.instructions[0]
        blocks = as_array(_records.frozen_info(entry.meta, NAME).get("content"))
        if blocks is not None and blocks_text(blocks) == entry.text:
            return blocks
        return entry.text
    return "\n\n".join(entry.text for entry in conversation.instructions)


# --- provider rules -----------------------------------------------------------------------


def provider_rules(conversation: Conversation, origins: Origins) -> list[ir.Diagnostic]:
    """Anthropic's rules beyond the IR's, on the merged turns."""
    found = _checks.id_rule_problems(origins, ID_RULE)
    found.extend(_checks.adjacency(conversation, origins, merge_turns=True))
    found.extend(_results_first(conversation, origins))
    return found


def _results_first(conversation: Conversation, origins: Origins) -> list[ir.Diagnostic]:
    """`RESULT_NOT_FIRST` for a `tool_result` after other content in its (merged) user turn."""
    found: list[ir.Diagnostic] = []
    other_content = False
    for item in origins.items:
        if item.message_index is None:
            continue
        message = conversation.messages[item.message_index]
        if type(message) is ir.AssistantMessage:
            other_content = False
        elif type(message) is ir.UserMessage:
            other_content = True
        elif other_content and type(message) is ir.ToolResultMessage:
            found.append(
                ir.Diagnostic(
                    "RESULT_NOT_FIRST",
                    item.source_index,
                    item.path,
                    f"The result for {message.tool_call_id!r} comes after other content in its user turn",
                )
            )
    return found


# --- the fast path of check-dataset -------------------------------------------------------


_Scalar = _fast_line.Scalar


class _Text(msgspec.Struct, tag="text", forbid_unknown_fields=True, gc=False):
    text: str


class _TextOnly(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A text block where no other kind may stand (a result's content, `system`): its `type`
    a field, since msgspec asks for a tag only when it tells a union's members apart (`_Text`
    alone would take a block without one, which the careful path refuses)."""

    type: Literal["text"]
    text: str


class _Thinking(msgspec.Struct, tag="thinking", forbid_unknown_fields=True, gc=False):
    thinking: str
    signature: str | msgspec.UnsetType = msgspec.UNSET


class _Use(msgspec.Struct, tag="tool_use", forbid_unknown_fields=True, gc=False):
    id: str
    name: str
    input: msgspec.Raw
    caller: dict[str, _Scalar] | msgspec.UnsetType = msgspec.UNSET  # Claude Code's `{"type": "direct"}`


class _Result(msgspec.Struct, tag="tool_result", forbid_unknown_fields=True, gc=False):
    tool_use_id: str
    content: str | list[_TextOnly] = ""
    is_error: bool = False


class _Message(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    role: str
    content: str | list[_Text | _Thinking | _Use | _Result]
    # The fields of the API's response, which a stored assistant message keeps (in `meta`):
    # typed, so that msgspec refuses what the IR's JSON rule would (no value is only skipped).
    id: str | msgspec.UnsetType = msgspec.UNSET
    type: str | msgspec.UnsetType = msgspec.UNSET
    model: str | msgspec.UnsetType = msgspec.UNSET
    stop_reason: str | msgspec.UnsetType | None = msgspec.UNSET
    stop_sequence: str | msgspec.UnsetType | None = msgspec.UNSET
    stop_details: msgspec.UnsetType | None = msgspec.UNSET
    usage: dict[str, _Scalar | dict[str, _Scalar] | list[dict[str, _Scalar]]] | msgspec.UnsetType = msgspec.UNSET


class _Body(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    messages: list[_Message]
    system: str | list[_TextOnly] | msgspec.UnsetType = msgspec.UNSET
    tools: msgspec.Raw = msgspec.Raw(b"null")
    model: str | msgspec.UnsetType = msgspec.UNSET
    max_tokens: int | msgspec.UnsetType = msgspec.UNSET


_body: Final = msgspec.json.Decoder(_Body).decode


def _is_clean(line: bytes) -> bool:
    """The fast path of `check-dataset` (see `_fast_line`): a body of `messages` (string or
    `text` / `thinking` / `tool_use` / `tool_result` contents, results first in the user
    message right after their calls; a stored response's own fields), an optional `system`,
    `tools`, `model` and `max_tokens`."""
    try:
        body = _body(line)
    except _fast_line.REFUSED:
        return False
    linkage = _fast_line.linkage(_TOOLS, body.tools, ID_RULE)
    if linkage is None:
        return False
    for message in body.messages:
        content = message.content
        if message.role == "assistant":
            if not linkage.assistant() or not content:
                return False
            if type(content) is str:
                continue
            for block in content:
                if type(block) is _Use:
                    if not linkage.call(block.id, block.name, block.input):
                        return False
                elif type(block) is not _Text and type(block) is not _Thinking:
                    return False
        elif message.role == "user":
            if type(content) is str or not content:
                if not linkage.message():
                    return False
                continue
            for block in content:
                if type(block) is _Result:
                    if not linkage.result(block.tool_use_id):
                        return False
                elif type(block) is not _Text or not linkage.message():
                    return False
        else:
            return False
    return linkage.end()


def _recognizes_body(body: dict[str, object]) -> bool:
    """`messages` beside `system` or `max_tokens`, and no content block without a `type` (every
    Anthropic block has one; Bedrock's Converse blocks, in bodies of the same outline, none)."""
    records = as_array(body.get("messages"))
    if records is None or not ("system" in body or "max_tokens" in body):
        return False
    for item in records:
        record = as_object(item)
        for block in as_array(None if record is None else record.get("content")) or ():
            entry = as_object(block)
            return entry is None or "type" in entry  # the first block tells
    return True


_WORDS: Final = provider_words(
    "Anthropic Messages `messages` (a list, or a request body with `system`)",
    "Anthropic Messages data",
    "Anthropic would answer with a 400",
    "messages",
)
_FUNCTIONS: Final = format_functions(NAME, _read, _dump, provider_rules, _WORDS, json_lines=False, fast=_is_clean)


FORMAT: Final = Format(
    _FUNCTIONS,
    id_rule=ID_RULE,
    recognize=Recognize(
        body=_recognizes_body,
        block_types=frozenset({"tool_use", "tool_result", "thinking", "redacted_thinking", "image", "document"}),
    ),
    raw_arguments="input",
    refuses_empty_text=True,
    system_field="system",
    tools=_TOOLS,
    dataset_line=True,
    messages_key="messages",
    fast_path=_is_clean,
)
"""The declaration of the format (`message_ir.adapters.FORMATS` lists it)."""

load, dump, dumps, check = _FUNCTIONS.unpacked()

__all__ = ["FORMAT", "NAME", "check", "dump", "dumps", "load"]
