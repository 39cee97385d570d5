"""Amazon Bedrock Converse `messages`: in and out of the IR, losslessly, with Bedrock's rules.

`load` takes JSON text or the parsed value: the bare `messages` list, or a Converse request
body `{"messages": [...], "system": [...], "toolConfig": {...}, ...}`; `dump` gives back the
same form. A content block is an object with one key saying what it is (`text`, `toolUse`,
`toolResult`, `reasoningContent`, `image`, `document`, ...). How each message maps:

- a `user` message becomes, in order, one `ToolResultMessage` per `toolResult` block (its
  `text` content blocks joined by a newline, the others kept in `meta`; `status: "error"` is
  `is_error`) and one `UserMessage` per run of other blocks (their `text` joined by a newline;
  the blocks kept in `meta`);
- an `assistant` message becomes one `AssistantMessage`: `text` → `TextBlock`, `toolUse` →
  `ToolCall`, anything else → an `OpaqueBlock` of format `bedrock`, in place: reasoning, and a
  server tool's own `toolUse` (with a `type`, such as `server_tool_use`) and its `toolResult`,
  which the service ran and answered inside the assistant's message;
- `system` (a list of blocks, their `text` joined by a newline) is the one `Instruction`.

Rules (`check`), each one Bedrock answers with a `ValidationException`: a turn's `toolUse`
blocks are answered in the next user turn (`RESULT_NOT_ADJACENT`), by as many `toolResult`
blocks (`RESULT_COUNT_MISMATCH`: "The number of toolResult blocks at messages.2.content
exceeds the number of toolUse blocks of previous turn."); IDs match `^[a-zA-Z0-9_-]+$`, at most
64 characters (`BAD_TOOL_CALL_ID_FORMAT`, the documented pattern: some models' IDs break it
and are taken); an error result says something (`EMPTY_ERROR_RESULT`: a result with
`status: "error"` and no content fails every later request). Tools are read from
`toolConfig.tools` (`toolSpec` with `inputSchema.json`; a `systemTool` by its name).

A Converse *response* (`{"output": {"message": ...}, "stopReason": ...}`) is not a
conversation: `load` refuses it, saying so; its `output.message` is one message to put in a
list.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import msgspec

import message_ir as ir
from message_ir.adapters import _checks, _json, _load_state, _records, _tools, _writing
from message_ir.adapters._build import meta_raw, object_raw
from message_ir.adapters._calls import id_and_name, ir_call_id, object_arguments, written_arguments
from message_ir.adapters._conversation import Conversation, FormatError
from message_ir.adapters._format import Format, Recognize
from message_ir.adapters._functions import format_functions, provider_words
from message_ir.adapters._ids import WORD, IdRule
from message_ir.adapters._json import as_array, as_object, freeze_info
from message_ir.adapters._load_state import LoadState, Origins
from message_ir.adapters._tools import ToolDeclaration, ToolReader

NAME: Final = "bedrock"
ID_RULE: Final = IdRule(64, WORD, "Bedrock accepts `^[a-zA-Z0-9_-]+$`, at most 64 characters")
"""The tool-call IDs its provider documents."""
_MESSAGE_KEYS: Final = ("role", "content")
_USE_KEYS: Final = ("toolUseId", "name", "input")
_RESULT_KEYS: Final = ("toolUseId", "content", "status")
_RESULT_KNOWN: Final = ("toolUseId", "content", "status")
_KINDS: Final = ("text", "toolUse", "toolResult")
TEXT_SEPARATOR: Final = "\n"
"""How the text blocks of one run of user content (or of a result, or of `system`) are joined."""


def _declared_tool(tool: dict[str, object], path: str) -> list[ToolDeclaration]:
    """One item of `toolConfig.tools`: a `toolSpec` (its schema under `inputSchema.json`), or a
    `systemTool` (called by its name); a `cachePoint` declares nothing."""
    spec = as_object(tool.get("toolSpec"))
    if spec is not None:
        declared = _tools.named(spec, path + ".toolSpec")
        schema = as_object(spec.get("inputSchema"))
        if declared.problem is not None or schema is None or schema.get("json") is None:
            return [declared]
        parameters = as_object(schema["json"])
        where = path + ".toolSpec.inputSchema.json"
        if parameters is None:
            return [ToolDeclaration(declared.name, None, where, "Expected the input's JSON Schema object")]
        return [_tools.tool_declaration(declared.name, parameters, path=where)]
    system = as_object(tool.get("systemTool"))
    return [_tools.named(system, path + ".systemTool")] if system is not None else []


_TOOLS: Final = ToolReader(_declared_tool, ".toolUse.name", ".toolUse.input", at=("toolConfig", "tools"))


# --- load ---------------------------------------------------------------------------------


def _read(source: object, avoid: frozenset[str], trusted: bool) -> LoadState:
    state = LoadState(NAME, avoid)
    state.trusted = trusted
    body = as_object(source)
    if body is not None and "messages" not in body and as_object(body.get("output")) is not None:
        raise FormatError(
            NAME,
            (
                ir.Diagnostic(
                    "BAD_FORMAT",
                    None,
                    "$",
                    "Expected a Converse request or its messages, got a Converse response"
                    " (its `output.message` is one message)",
                ),
            ),
        )
    records, prefix = _load_state.message_list(state, source, "messages", ("system",), tools=_TOOLS)
    if state.body is not None and "system" in state.body and state.json_ok(state.body["system"], "$.system"):
        _system(state, state.body["system"])
    for path, record in state.objects(records, prefix, "a message object"):
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
    return state


def _meta(info: _records.Info) -> msgspec.Raw:
    return meta_raw(NAME, info)


def _blocks(state: LoadState, content: object, path: str, *, outside: bool = False) -> list[dict[str, object]] | None:
    """The content blocks at `path`: objects, a `text` block's text a string; `None` after a problem."""
    items = as_array(content)
    if items is None:
        state.problem(path, f"Expected a list of content blocks, got `{_json.kind(content)}`", outside=outside)
        return None
    blocks: list[dict[str, object]] = []
    for number, item in enumerate(items):
        block = as_object(item)
        if block is None or not block:
            state.problem(f"{path}[{number}]", "Expected a content block object", outside=outside)
            return None
        if "text" in block and type(block["text"]) is not str:
            problem = f"Expected `str`, got `{_json.kind(block['text'])}`"
            state.problem(f"{path}[{number}].text", problem, outside=outside)
            return None
        blocks.append(block)
    return blocks


def blocks_text(blocks: Sequence[object]) -> str:
    """The IR text of content blocks: their `text` blocks' texts, joined."""
    texts: list[str] = []
    for item in blocks:
        block = as_object(item)
        if block is not None and type(block.get("text")) is str:
            texts.append(str(block["text"]))
    return TEXT_SEPARATOR.join(texts)


def _system(state: LoadState, system: object) -> None:
    blocks = _blocks(state, system, "$.system", outside=True)
    if blocks is None:
        return
    text = blocks_text(list[object](blocks))
    plain = blocks == [{"text": text}]
    meta = None if plain else _records.make_meta(NAME, {"content": list[object](blocks)})
    state.instruction("system", text, "$.system", None if meta is None else freeze_info(meta))


def _user(state: LoadState, record: dict[str, object], path: str) -> None:
    blocks = _blocks(state, record.get("content"), path + ".content")
    if blocks is None:
        return
    info = _records.split_record(record, _MESSAGE_KEYS, _MESSAGE_KEYS)
    info["first"] = True
    part = 0
    run: list[object] = []
    run_start = 0

    def flush() -> None:
        nonlocal part, run, info
        if not run:
            return
        run_info: _records.Info = {**info, "blocks": run}
        message = ir.UserMessage(id=state.message_id(part), content=blocks_text(run), meta_json=_meta(run_info))
        state.add(message, f"{path}.content[{run_start}]")
        part, run, info = part + 1, [], {}

    for number, block in enumerate(blocks):
        result = as_object(block.get("toolResult")) if list(block) == ["toolResult"] else None
        if result is None:
            if not run:
                run_start = number
            run.append(block)
            continue
        flush()
        block_path = f"{path}.content[{number}]"
        message = _result(state, result, block_path, info, part)
        if message is None:
            return
        state.add(message, block_path)
        part, info = part + 1, {}
    flush()
    if part == 0:  # an empty list of blocks: one empty user message keeps its place
        info["blocks"] = []
        state.add(ir.UserMessage(id=state.message_id(), content="", meta_json=_meta(info)), path + ".content")


def _result(
    state: LoadState, result: dict[str, object], path: str, info: _records.Info, part: int
) -> ir.ToolResultMessage | None:
    result_path = path + ".toolResult"
    call_id = result.get("toolUseId")
    if type(call_id) is not str or not call_id:
        state.problem(result_path + ".toolUseId", "Expected a non-empty `str`")
        return None
    status = result.get("status")
    if status is not None and status not in ("success", "error"):
        state.problem(
            result_path + ".status",
            f"Expected `success` or `error`, got {status!r}"
            if type(status) is str
            else f"Expected `success` or `error`, got `{_json.kind(status)}`",
        )
        return None
    content = result.get("content", [])
    parts = _blocks(state, content, result_path + ".content")
    if parts is None:
        return None
    result_info = _records.split_record(result, _RESULT_KNOWN, _RESULT_KEYS)
    text = blocks_text(list[object](parts))
    if parts != [{"text": text}]:
        result_info["content"] = list[object](parts)
    if "content" not in result:
        result_info["no_content"] = True
    ir_call, name = state.result_call(len(state.messages), call_id, None, result_path)
    return state.result(ir_call, name, text, status == "error", _meta({**info, "result": result_info}), part)


def _assistant(state: LoadState, record: dict[str, object], path: str) -> None:
    blocks = _blocks(state, record.get("content"), path + ".content")
    if blocks is None:
        return
    info = _records.split_record(record, _MESSAGE_KEYS, _MESSAGE_KEYS)
    ir_blocks: list[ir.AssistantBlock] = []
    block_paths: list[str] = []
    message_index = len(state.messages)
    for number, block in enumerate(blocks):
        block_path = f"{path}.content[{number}]"
        kind = next(iter(block))
        use = as_object(block.get("toolUse")) if list(block) == ["toolUse"] else None
        if list(block) == ["text"]:
            text = block["text"]
            assert type(text) is str  # `_blocks` checked it
            ir_blocks.append(ir.TextBlock(text=text))
        elif use is not None and "type" not in use:
            call = _call(state, message_index, use, block_path + ".toolUse")
            if call is None:
                return
            ir_blocks.append(call)
        else:  # reasoning, a server tool's use and result, anything else: kept in place
            ir_blocks.append(ir.OpaqueBlock(format=NAME, kind=kind, data_json=object_raw(block)))
        block_paths.append(block_path)
    message = ir.AssistantMessage(id=state.message_id(), content=tuple(ir_blocks), meta_json=_meta(info))
    state.add(message, path, block_paths)


def _call(state: LoadState, message_index: int, use: dict[str, object], path: str) -> ir.ToolCall | None:
    found = id_and_name(state, use, path, "toolUseId")
    if found is None:
        return None
    call_id, name = found
    info = _records.split_record(use, _USE_KEYS, _USE_KEYS)
    parsed = object_arguments(state, message_index, use, "input", path + ".input", info)
    ir_id = ir_call_id(state, message_index, call_id, name, path + ".toolUseId", info)
    return ir.ToolCall(id=ir_id, name=name, arguments_json=object_raw(parsed), meta_json=_meta(info))


# --- dump ---------------------------------------------------------------------------------


def _dump(conversation: Conversation) -> object:
    records: list[object] = []
    open_record: tuple[_records.Info, list[object]] | None = None
    restore: dict[str, str] = {}

    def close() -> None:
        nonlocal open_record
        if open_record is not None:
            info, blocks = open_record
            records.append(_records.build_record(info, _MESSAGE_KEYS, {"role": "user", "content": blocks}))
            open_record = None

    for message in conversation.messages:
        info = _records.format_info(message.meta_json, NAME)
        if type(message) is ir.AssistantMessage:
            close()
            records.append(_records.build_record(info, _MESSAGE_KEYS, _assistant_values(message, restore)))
            continue
        if info.get("first") is True or open_record is None:
            close()
            open_record = (info, [])
        if type(message) is ir.ToolResultMessage:
            open_record[1].append({"toolResult": _written_result(message, info, restore)})
            continue
        assert type(message) is ir.UserMessage
        kept = as_array(info.get("blocks"))
        if kept is not None and blocks_text(kept) == message.content:
            open_record[1].extend(kept)
        else:
            open_record[1].append({"text": message.content})
    close()
    others: dict[str, object] = {}
    system = _dump_system(conversation)
    if system is not None:
        others["system"] = system
    return _writing.container(conversation, NAME, "messages", records, others)


def _assistant_values(message: ir.AssistantMessage, restore: dict[str, str]) -> dict[str, object]:
    blocks: list[object] = []
    for block in message.content:
        if type(block) is ir.TextBlock:
            blocks.append({"text": block.text})
        elif type(block) is ir.OpaqueBlock:
            if block.format == NAME:
                blocks.append(_json.opaque_data(block))
        elif type(block) is ir.ToolCall:
            info = _records.format_info(block.meta_json, NAME)
            values: dict[str, object] = {
                "toolUseId": _writing.written_call_id(info, block.id, restore),
                "name": block.name,
            }
            written_arguments(info, "input", block, values)
            blocks.append({"toolUse": _records.build_record(info, _USE_KEYS, values)})
    return {"role": "assistant", "content": blocks}


def _written_result(message: ir.ToolResultMessage, info: _records.Info, restore: dict[str, str]) -> dict[str, object]:
    result_info = as_object(info.get("result")) or {}
    values: dict[str, object] = {"toolUseId": restore.get(message.tool_call_id, message.tool_call_id)}
    kept = as_array(result_info.get("content"))
    if kept is not None and blocks_text(kept) == message.content:
        values["content"] = kept
    elif not (result_info.get("no_content") is True and message.content == ""):
        values["content"] = [{"text": message.content}] if message.content else []  # Bedrock refuses blank text
    if message.is_error or _records.has_key(result_info, "status", usual=True):
        values["status"] = "error" if message.is_error else "success"
    return _records.build_record(result_info, _RESULT_KEYS, values)


def _structured_result(message: ir.ToolResultMessage, structured: object) -> ir.ToolResultMessage | None:
    """An MCP result's structured content as a `json` block after its text."""
    if type(structured) is not dict:
        return None
    content: list[object] = [{"text": message.content}] if message.content else []
    content.append({"json": structured})
    return msgspec.structs.replace(message, meta_json=_meta({"result": {"content": content}}))


def _dump_system(conversation: Conversation) -> object:
    """The `system` field: the instructions' text as one block (the kept blocks when they
    still say it), or `None`."""
    if not conversation.instructions:
        return None
    if len(conversation.instructions) == 1:
        entry = conversation.instructions[0]
        kept = as_array(_records.frozen_info(entry.meta, NAME).get("content"))
        if kept is not None and blocks_text(kept) == entry.text:
            return kept
        return [{"text": entry.text}]
    return [{"text": "\n\n".join(entry.text for entry in conversation.instructions)}]


# --- provider rules -----------------------------------------------------------------------


def provider_rules(conversation: Conversation, origins: Origins) -> list[ir.Diagnostic]:
    """Bedrock's rules beyond the IR's, on the merged turns."""
    found = _checks.id_rule_problems(origins, ID_RULE)
    found.extend(_checks.adjacency(conversation, origins, merge_turns=True))
    found.extend(_checks.result_counts(conversation, origins, "Bedrock"))
    for item in origins.items:
        if item.message_index is None:
            continue
        message = conversation.messages[item.message_index]
        if type(message) is ir.ToolResultMessage and message.is_error and not message.content.strip():
            found.append(
                ir.Diagnostic(
                    "EMPTY_ERROR_RESULT",
                    item.source_index,
                    item.path + ".toolResult.content",
                    f"The error result for {message.tool_call_id!r} says nothing; Bedrock refuses"
                    " an error result without content",
                )
            )
    return found


_EVENT_ROLES: Final = {"gen_ai.user.message": "user", "gen_ai.assistant.message": "assistant"}


def _event_messages(events: list[tuple[str, dict[str, object]]]) -> object | None:
    """A Converse body from one span's per-message events, when their `content` is Bedrock's
    blocks (as the botocore instrumentation logs a Converse request): `gen_ai.system.message`
    the `system`, user and assistant messages as they are, `gen_ai.choice` the reply, and
    `gen_ai.tool.message` a user message: its `toolResult` blocks, or its content as the
    `toolResult` of its `id` (else of the earliest call still waiting), left out when the
    next user message holds the same result already (the instrumentation logs a result both
    ways)."""
    if not events or not all(_bedrock_blocks(_event_content(name, body)) for name, body in events):
        return None
    system: list[object] = []
    messages: list[dict[str, object]] = []
    waiting: list[str] = []  # calls not answered yet, in order
    for number, (name, body) in enumerate(events):
        content = _event_content(name, body) or []
        if name == "gen_ai.system.message":
            system.extend(content)
            continue
        if name == "gen_ai.tool.message" and not all("toolResult" in (as_object(item) or {}) for item in content):
            call_id = body.get("id")
            answers = call_id if type(call_id) is str else (waiting[0] if waiting else "")
            if _answered_next(events, number, answers):
                continue
            content = [{"toolResult": {"toolUseId": answers, "content": content}}]
        role = "assistant" if name in ("gen_ai.assistant.message", "gen_ai.choice") else "user"
        for block in content:
            entry = as_object(block) or {}
            use, result = as_object(entry.get("toolUse")), as_object(entry.get("toolResult"))
            if use is not None and type(use.get("toolUseId")) is str:
                waiting.append(str(use["toolUseId"]))
            if result is not None and result.get("toolUseId") in waiting:
                waiting.remove(str(result["toolUseId"]))
        messages.append({"role": role, "content": content})
    return {"messages": messages, "system": system} if system else {"messages": messages}


def _event_content(name: str, body: dict[str, object]) -> list[object] | None:
    """The content blocks of an event's body (a choice's message's), if it is a message event."""
    if name == "gen_ai.choice":
        return as_array((as_object(body.get("message")) or {}).get("content"))
    if name in ("gen_ai.system.message", "gen_ai.tool.message", *_EVENT_ROLES):
        return as_array(body.get("content"))
    return None


def _bedrock_blocks(content: list[object] | None) -> bool:
    """Whether content is Bedrock's blocks: objects of one key each, none a `type`."""
    if content is None:
        return False
    for item in content:
        block = as_object(item)
        if block is None or len(block) != 1 or "type" in block:
            return False
    return True


def _answered_next(events: list[tuple[str, dict[str, object]]], number: int, call_id: str) -> bool:
    """Whether the user message event right after the tool events holds a result for `call_id`."""
    for name, body in events[number + 1 :]:
        if name == "gen_ai.tool.message":
            continue
        if name != "gen_ai.user.message":
            return False
        for item in as_array(body.get("content")) or []:
            result = as_object((as_object(item) or {}).get("toolResult"))
            if result is not None and result.get("toolUseId") == call_id:
                return True
        return False
    return False


def _recognizes_body(body: dict[str, object]) -> bool:
    return as_array(body.get("messages")) is not None and ("toolConfig" in body or "inferenceConfig" in body)


def _recognizes_record(record: dict[str, object]) -> bool:
    """A message whose content blocks are objects keyed by their kind (`{"toolUse": ...}`),
    without the `type` every Anthropic block has."""
    blocks = as_array(record.get("content"))
    if not blocks or "role" not in record:
        return False
    for item in blocks:
        block = as_object(item)
        if (
            block is None
            or "type" in block
            or len(block) != 1
            or next(iter(block)) not in (*_KINDS, "reasoningContent")
        ):
            return False
    return any(next(iter(block)) != "text" for block in map(as_object, blocks) if block is not None)


_WORDS: Final = provider_words(
    "Amazon Bedrock Converse `messages` (a list, or a request body with `system` and `toolConfig`)",
    "Bedrock Converse data",
    "Bedrock would answer with a ValidationException",
    "messages",
)
_FUNCTIONS: Final = format_functions(NAME, _read, _dump, provider_rules, _WORDS, json_lines=False)


FORMAT: Final = Format(
    _FUNCTIONS,
    event_messages=_event_messages,
    id_rule=ID_RULE,
    recognize=Recognize(body=_recognizes_body, record=_recognizes_record),
    raw_arguments="input",
    refuses_empty_text=True,
    system_field="system",
    tools=_TOOLS,
    structured_result=_structured_result,
)
"""The declaration of the format (`message_ir.adapters.FORMATS` lists it)."""

load, dump, dumps, check = _FUNCTIONS.unpacked()

__all__ = ["FORMAT", "ID_RULE", "NAME", "check", "dump", "dumps", "load"]
