"""OpenAI Responses `input` items: in and out of the IR, losslessly, with the Responses rules.

`load` takes JSON text or the parsed value: the bare list of items, or a request body
`{"instructions": ..., "input": [...], ...}` (`input` may also be one string, a user
message). How the items map:

- a `message` of role `user` → `UserMessage` (its `input_text` parts joined by a newline;
  other parts kept in `meta`); of role `system` or `developer` → an `Instruction`;
- output items — an assistant `message` (→ `TextBlock`, its `output_text` parts joined),
  `function_call` (→ `ToolCall`; `arguments` is a JSON string), `custom_tool_call` (→
  `ToolCall` whose arguments are `{"input": <its text>}`), `reasoning` and any other item
  type (→ an `OpaqueBlock` of format `openai_responses`, in place) — make one
  `AssistantMessage` per run of consecutive output items;
- `function_call_output` and `custom_tool_call_output` → `ToolResultMessage` (the tool name
  is the call's; an `output` given as parts keeps them in `meta`).

Rules (`check`): a call's output exists and comes after it (the IR's linkage); a reasoning
item is followed by an output item of its turn, never by an input item, and is never last
(`REASONING_ITEM_MISPLACED`); `call_id` is at most 64 characters (`BAD_TOOL_CALL_ID_FORMAT`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

import msgspec

import message_ir as ir
from message_ir.adapters import _checks, _fast_line, _json, _load_state, _records, _tools, _writing
from message_ir.adapters._build import NO_META, object_raw
from message_ir.adapters._calls import (
    arguments_from_text,
    id_and_name,
    ir_call_id,
    written_argument_text,
)
from message_ir.adapters._conversation import Conversation, Instruction
from message_ir.adapters._format import Format, Recognize
from message_ir.adapters._functions import format_functions, provider_words
from message_ir.adapters._ids import ANY, IdRule
from message_ir.adapters._json import as_array, as_object, encode, freeze_info
from message_ir.adapters._load_state import LoadState, Origins
from message_ir.adapters._tools import ToolDeclaration, ToolReader, arguments_value

NAME: Final = "openai_responses"
ID_RULE: Final = IdRule(64, ANY, "the Responses API accepts a `call_id` of at most 64")
"""The tool-call IDs its provider accepts."""
_MESSAGE_KEYS: Final = ("type", "role", "content")
_CALL_KEYS: Final = ("type", "name", "arguments", "call_id")
_CUSTOM_KEYS: Final = ("type", "name", "input", "call_id")
_OUTPUT_KEYS: Final = ("type", "call_id", "output")
_INPUT_TEXT: Final = "input_text"
_OUTPUT_TEXT: Final = "output_text"
_INSTRUCTION_ROLES: Final = ("system", "developer")
INPUT_SEPARATOR: Final = "\n"
"""How the text parts of a user or developer message are joined into the IR's text."""
_INDEX: Final = re.compile(r"\[(\d+)\]")

Tag = tuple[str, _records.Info] | None
"""What a session log adds to the `meta` of what one item becomes: its format and info."""


def _declared_tool(tool: dict[str, object], path: str) -> list[ToolDeclaration]:
    """One item of a body's `tools`: a function, or a custom or built-in tool (by name)."""
    if tool.get("type") == "function":
        return [_tools.function(tool, path, "parameters")]
    return [_tools.named(tool, path)] if "name" in tool else []


_TOOLS: Final = ToolReader(_declared_tool, ".name", ".arguments")


# --- load ---------------------------------------------------------------------------------


class Run:
    """The output items read since the last input item: one assistant message when closed."""

    def __init__(self) -> None:
        self.blocks: list[ir.AssistantBlock] = []
        self.paths: list[str] = []
        self.start: tuple[int, str] = (0, "$")  # the source index and path of its first item

    def close(self, state: LoadState) -> None:
        """Add the assistant message of the items so far (if any) to `state`."""
        if not self.blocks:
            return
        index = state.index
        state.at(self.start[0])
        message = ir.AssistantMessage(id=state.message_id(), content=tuple(self.blocks))
        state.add(message, self.start[1], self.paths)
        state.at(index)
        self.blocks, self.paths = [], []


def _read(source: object, avoid: frozenset[str], trusted: bool) -> LoadState:
    state = LoadState(NAME, avoid)
    state.trusted = trusted
    body = as_object(source)
    if body is not None and type(body.get("input")) is str:
        source = {**body, "input": [{"role": "user", "content": body["input"]}]}
    records, prefix = _load_state.message_list(state, source, "input", ("instructions",), tools=_TOOLS)
    if body is not None and type(body.get("input")) is str and state.container_meta is not None:
        meta = _records.frozen_info(state.container_meta, NAME)
        meta["string_input"] = True
        state.container_meta = freeze_info({NAME: meta})
    if state.body is not None and "instructions" in state.body:
        instructions = state.body["instructions"]
        if type(instructions) is str:
            state.instruction("instructions", instructions, "$.instructions", None)
        elif instructions is not None:
            state.problem("$.instructions", f"Expected `str`, got `{_json.kind(instructions)}`", outside=True)
    run = Run()
    for path, item in state.objects(records, prefix, "an item object"):
        read_item(state, run, item, path, None)
    run.close(state)
    return state


def _meta(info: _records.Info, tag: Tag) -> msgspec.Raw:
    entries: dict[str, object] = {}
    if info:
        entries[NAME] = info
    if tag is not None:
        entries[tag[0]] = tag[1]
    return object_raw(entries) if entries else NO_META


def read_item(state: LoadState, run: Run, item: dict[str, object], path: str, tag: Tag) -> None:
    """Read one item at `path` into `state` (output items into `run`); `tag` goes into the
    `meta` of what it becomes (a session log's line)."""
    item_type = item.get("type", "message" if "role" in item else None)
    try:
        if item_type == "message":
            role = item.get("role")
            if role == "assistant":
                _output(state, run, _text_block(state, item, path, tag), path)
            elif role == "user" or role in _INSTRUCTION_ROLES:
                run.close(state)
                _input_message(state, item, path, tag)
            else:
                _load_state.role_problem(state, item, path, ("user", "assistant", "system", "developer"))
        elif item_type in ("function_call", "custom_tool_call"):
            _output(state, run, _call(state, item, path, tag), path)
        elif item_type in ("function_call_output", "custom_tool_call_output"):
            run.close(state)
            _result(state, item, path, tag)
        elif type(item_type) is str and item_type:
            _output(
                state,
                run,
                ir.OpaqueBlock(format=NAME, kind=item_type, data_json=object_raw(item), meta_json=_meta({}, tag)),
                path,
            )
        else:
            state.problem(path + ".type", "Expected an item `type`")
    except ir.ConstructionError as error:  # a parsed value the IR cannot hold
        state.problem(path, error.problem)


def _output(state: LoadState, run: Run, block: ir.AssistantBlock | None, path: str) -> None:
    if block is None:
        return
    if not run.blocks:
        run.start = (state.index, path)
    run.blocks.append(block)
    run.paths.append(path)


def _parts_text(
    state: LoadState, content: object, path: str, part_type: str, separator: str
) -> tuple[str, bool] | None:
    """The IR text of a message's `content` (a string, or parts), and whether the parts are
    exactly one plain part of `part_type` (which the text alone writes back)."""
    if type(content) is str:
        return content, False
    found = _load_state.part_texts(state, content, path, (_INPUT_TEXT, _OUTPUT_TEXT))
    if found is None:
        return None
    texts, parts = found
    plain = len(parts) == 1 and parts[0] == {"type": part_type, "text": texts[0] if texts else None}
    plain = plain and list(as_object(parts[0]) or {}) == ["type", "text"]
    return separator.join(texts), plain


def _content_info(item: dict[str, object], text_plain: bool, info: _records.Info) -> None:
    if "type" not in item:
        info["no_type"] = True  # a message written without `"type": "message"`
    content = item.get("content")
    if type(content) is str:
        info["string"] = True
    elif not text_plain:
        info["content"] = content


def _written_content(info: _records.Info, text: str, part_type: str, separator: str) -> object:
    if info.get("string") is True:
        return text
    parts = as_array(info.get("content"))
    if parts is not None:
        texts = [  # the text parts as `_parts_text` read them: either kind, whatever the role
            part.get("text")
            for part in map(as_object, parts)
            if part is not None and part.get("type") in (_INPUT_TEXT, _OUTPUT_TEXT)
        ]
        if separator.join(str(value) for value in texts) == text:
            return parts
    return [{"type": part_type, "text": text}]


def _input_message(state: LoadState, item: dict[str, object], path: str, tag: Tag) -> None:
    found = _parts_text(state, item.get("content"), path + ".content", _INPUT_TEXT, INPUT_SEPARATOR)
    if found is None:
        return
    text, plain = found
    info = _records.split_record(item, _MESSAGE_KEYS, _MESSAGE_KEYS)
    _content_info(item, plain, info)
    role = item.get("role")
    assert type(role) is str
    if role in _INSTRUCTION_ROLES:
        entries: dict[str, object] = {NAME: {**info, "item": True}}
        if tag is not None:
            entries[tag[0]] = tag[1]
        state.instruction(role, text, path, freeze_info(entries))
        return
    state.add(ir.UserMessage(id=state.message_id(), content=text, meta_json=_meta(info, tag)), path)


def _text_block(state: LoadState, item: dict[str, object], path: str, tag: Tag) -> ir.TextBlock | None:
    found = _parts_text(state, item.get("content"), path + ".content", _OUTPUT_TEXT, "")
    if found is None:
        return None
    text, plain = found
    info = _records.split_record(item, _MESSAGE_KEYS, _MESSAGE_KEYS)
    _content_info(item, plain, info)
    info["item"] = True
    return ir.TextBlock(text=text, meta_json=_meta(info, tag))


def _call(state: LoadState, item: dict[str, object], path: str, tag: Tag) -> ir.ToolCall | None:
    custom = item.get("type") == "custom_tool_call"
    named = id_and_name(state, item, path, "call_id")
    if named is None:
        return None
    call_id, name = named
    usual = _CUSTOM_KEYS if custom else _CALL_KEYS
    info = _records.split_record(item, usual, usual)
    if custom:
        info["custom"] = True
    message_index = len(state.messages)
    if custom:
        text_input = item.get("input")
        if type(text_input) is not str:
            state.problem(path + ".input", f"Expected `str`, got `{_json.kind(text_input)}`")
            return None
        parsed: dict[str, object] = {"input": text_input}
        text = encode(parsed)
    else:
        arguments = item.get("arguments")
        if type(arguments) is not str:
            state.problem(path + ".arguments", f"Expected `str`, got `{_json.kind(arguments)}`")
            return None
        parsed, text = arguments_from_text(state, message_index, arguments, path + ".arguments", info)
    ir_id = ir_call_id(state, message_index, call_id, name, path + ".call_id", info)
    return ir.ToolCall(id=ir_id, name=name, arguments_json=object_raw(parsed, text), meta_json=_meta(info, tag))


def _result(state: LoadState, item: dict[str, object], path: str, tag: Tag) -> None:
    call_id = item.get("call_id")
    if type(call_id) is not str or not call_id:
        state.problem(path + ".call_id", "Expected a non-empty `str`")
        return
    found = _parts_text(state, item.get("output"), path + ".output", _INPUT_TEXT, INPUT_SEPARATOR)
    if found is None:
        return
    text = found[0]
    info = _records.split_record(item, _OUTPUT_KEYS, _OUTPUT_KEYS)
    if type(item.get("output")) is not str:
        info["output"] = item.get("output")
    if item.get("type") == "custom_tool_call_output":
        info["custom"] = True
    state.add(state.answer(call_id, None, text, False, _meta(info, tag), path), path)


# --- dump ---------------------------------------------------------------------------------

Rendered = list[tuple[dict[str, object], msgspec.Raw]]
"""Items, each with the `meta` of what it was read into (a session log finds its line there)."""


def _text_item(meta_json: msgspec.Raw, role: str, text: str, part_type: str, separator: str) -> dict[str, object]:
    """The message item of a user message or an assistant's text block."""
    if not meta_json:  # nothing kept (the usual item, or one made in the IR): the IR says it all
        return {"type": "message", "role": role, "content": [{"type": part_type, "text": text}]}
    info = _records.format_info(meta_json, NAME)
    values: dict[str, object] = {
        "type": "message",
        "role": role,
        "content": _written_content(info, text, part_type, separator),
    }
    if info.get("no_type") is True:
        del values["type"]
    return _records.build_record(info, _MESSAGE_KEYS, values)


class Renderer:
    """Writes IR messages as items, restoring renamed call IDs and the kind of each call."""

    def __init__(self) -> None:
        self.restore: dict[str, str] = {}
        self.custom: set[str] = set()  # IR IDs of calls that were `custom_tool_call`s

    def message(self, message: ir.Message) -> Rendered:
        """The items of one IR message."""
        if type(message) is ir.ToolResultMessage:
            return [(self._result(message), message.meta_json)]
        if type(message) is ir.UserMessage:
            item = _text_item(message.meta_json, "user", message.content, _INPUT_TEXT, INPUT_SEPARATOR)
            return [(item, message.meta_json)]
        assert type(message) is ir.AssistantMessage
        items: Rendered = []
        for block in message.content:
            if type(block) is ir.TextBlock:
                items.append((_text_item(block.meta_json, "assistant", block.text, _OUTPUT_TEXT, ""), block.meta_json))
            elif type(block) is ir.ToolCall:
                items.append((self._call(block), block.meta_json))
            elif type(block) is ir.OpaqueBlock and block.format == NAME:
                items.append((_json.opaque_data(block), block.meta_json))
        return items

    def instruction(self, entry: Instruction) -> dict[str, object]:
        """A system or developer message item."""
        info = _records.frozen_info(entry.meta, NAME)
        info.pop("item", None)
        content = _written_content(info, entry.text, _INPUT_TEXT, INPUT_SEPARATOR)
        role = entry.role if entry.role in _INSTRUCTION_ROLES else "developer"
        values: dict[str, object] = {"type": "message", "role": role, "content": content}
        if info.get("no_type") is True:
            del values["type"]
        return _records.build_record(info, _MESSAGE_KEYS, values)

    def _call(self, call: ir.ToolCall) -> dict[str, object]:
        if not call.meta_json:  # nothing kept (the usual item, or one made in the IR): the IR says it all
            text = str(call.arguments_json, "utf-8")
            return {"type": "function_call", "name": call.name, "arguments": text, "call_id": call.id}
        info = _records.format_info(call.meta_json, NAME)
        call_id = _writing.written_call_id(info, call.id, self.restore)
        if info.get("custom") is True:
            self.custom.add(call.id)
            arguments = arguments_value(call)
            text_input = arguments.get("input")
            values: dict[str, object] = {
                "type": "custom_tool_call",
                "name": call.name,
                "input": text_input if type(text_input) is str else encode(arguments).decode(),
                "call_id": call_id,
            }
            return _records.build_record(info, _CUSTOM_KEYS, values)
        arguments_text = written_argument_text(info, call)
        values = {"type": "function_call", "name": call.name, "arguments": arguments_text, "call_id": call_id}
        return _records.build_record(info, _CALL_KEYS, values)

    def _result(self, message: ir.ToolResultMessage) -> dict[str, object]:
        call_id = message.tool_call_id
        if not message.meta_json:  # as `_call`
            kind = "custom_tool_call_output" if call_id in self.custom else "function_call_output"
            return {"type": kind, "call_id": self.restore.get(call_id, call_id), "output": message.content}
        info = _records.format_info(message.meta_json, NAME)
        custom = info.get("custom") is True or message.tool_call_id in self.custom
        output: object = message.content
        kept = info.get("output")
        if (
            kept is not None
            and _written_content({"content": kept}, message.content, _INPUT_TEXT, INPUT_SEPARATOR) is kept
        ):
            output = kept
        values: dict[str, object] = {
            "type": "custom_tool_call_output" if custom else "function_call_output",
            "call_id": self.restore.get(message.tool_call_id, message.tool_call_id),
            "output": output,
        }
        return _records.build_record(info, _OUTPUT_KEYS, values)


def _dump(conversation: Conversation) -> object:
    renderer = Renderer()
    items: list[object] = []
    info = _records.frozen_info(conversation.meta, NAME) if conversation.format == NAME else {}
    system: list[str] = []

    def message(entry: ir.Message) -> None:
        for item, _ in renderer.message(entry):
            items.append(item)

    def instruction(entry: Instruction) -> None:
        if entry.path == "$.instructions":
            system.append(entry.text)
        else:
            items.append(renderer.instruction(entry))

    _writing.interleave(conversation, message, instruction)
    others: dict[str, object] = {}
    if system:
        others["instructions"] = "\n\n".join(system)
    written = _writing.container(conversation, NAME, "input", items, others)
    body = as_object(written)
    only = as_object(items[0]) if len(items) == 1 else None
    plain = only is not None and list(only) == ["role", "content"] and only.get("role") == "user"
    if info.get("string_input") is True and body is not None and only is not None and plain:
        text = only.get("content")
        if type(text) is str:
            body["input"] = text  # loaded from a string `input`: written back as one
    return written


# --- provider rules -----------------------------------------------------------------------


def provider_rules(conversation: Conversation, origins: Origins) -> list[ir.Diagnostic]:
    """The Responses rules beyond the IR's: `call_id` length, and reasoning items' places."""
    found = _checks.id_rule_problems(origins, ID_RULE)
    for index, message in enumerate(conversation.messages):
        if type(message) is not ir.AssistantMessage or not message.content:
            continue
        last = message.content[-1]
        if type(last) is ir.OpaqueBlock and last.format == NAME and last.kind == "reasoning":
            path = origins.blocks.get((index, len(message.content) - 1), origins.messages[index][1])
            number = _INDEX.search(path)
            source = int(number.group(1)) if number is not None else origins.messages[index][0]
            found.append(
                ir.Diagnostic(
                    "REASONING_ITEM_MISPLACED",
                    source,
                    path,
                    "A reasoning item must be followed by an output item of its turn (a message or a call)",
                )
            )
    return found


# --- the fast path of check-dataset -------------------------------------------------------


class _InputText(msgspec.Struct, tag=_INPUT_TEXT, forbid_unknown_fields=True, gc=False):
    text: str


class _OutputText(msgspec.Struct, tag=_OUTPUT_TEXT, forbid_unknown_fields=True, gc=False):
    text: str


class _Message(msgspec.Struct, tag="message", forbid_unknown_fields=True, gc=False):
    role: str
    content: str | list[_InputText | _OutputText]
    phase: str | msgspec.UnsetType = msgspec.UNSET  # Codex's assistant messages: `commentary`, `final_answer`


class _FunctionCall(msgspec.Struct, tag="function_call", forbid_unknown_fields=True, gc=False):
    call_id: str
    name: str
    arguments: str


class _FunctionCallOutput(msgspec.Struct, tag="function_call_output", forbid_unknown_fields=True, gc=False):
    call_id: str
    output: str


class _CustomCall(msgspec.Struct, tag="custom_tool_call", forbid_unknown_fields=True, gc=False):
    call_id: str
    name: str
    input: str  # the IR's arguments are `{"input": <it>}`
    status: str | msgspec.UnsetType = msgspec.UNSET


class _CustomOutput(msgspec.Struct, tag="custom_tool_call_output", forbid_unknown_fields=True, gc=False):
    call_id: str
    output: str


class _SummaryText(msgspec.Struct, tag="summary_text", forbid_unknown_fields=True, gc=False):
    text: str


class _Reasoning(msgspec.Struct, tag="reasoning", forbid_unknown_fields=True, gc=False):
    summary: list[_SummaryText]
    content: msgspec.UnsetType | None = msgspec.UNSET
    encrypted_content: str | msgspec.UnsetType | None = msgspec.UNSET


TypedItem = _Message | _FunctionCall | _FunctionCallOutput | _CustomCall | _CustomOutput | _Reasoning
"""An input item of the plain shape, as the fast paths decode it (every field named: an item
with any other field, or of any other type, fails the decode)."""


class _Body(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    input: list[TypedItem]
    instructions: str | None = None
    tools: msgspec.Raw = msgspec.Raw(b"null")


_body: Final = msgspec.json.Decoder(_Body).decode
_NO_TOOLS: Final = msgspec.Raw(b"null")


_INPUT_ROLES: Final = ("user", *_INSTRUCTION_ROLES)


def _is_clean(line: bytes) -> bool:
    """The fast path of `check-dataset` (see `_fast_line`): a body of `input` items that
    `clean_items` takes, with `instructions` and `tools`."""
    try:
        body = _body(line)
    except _fast_line.REFUSED:
        return False
    linkage = _fast_line.linkage(_TOOLS, body.tools, ID_RULE)
    return linkage is not None and clean_items(body.input, linkage, custom=body.tools == _NO_TOOLS) is not None


def clean_items(items: Iterable[TypedItem], linkage: _fast_line.Linkage, *, custom: bool) -> int | None:
    """How many IR messages input items hold when they are surely clean (`check` of them would
    say nothing), else `None`: messages (`input_text` parts for the user, system and
    developer, `output_text` for the assistant), `function_call`s and their
    `function_call_output`s right after the run of output items holding them (custom calls
    and outputs too, when `custom`: no tools are declared), and reasoning items, each followed
    by an output item of its turn. A run of output items is one assistant message; a system or
    developer message is an instruction, no message."""
    count = 0
    in_run = False  # within a run of output items: one assistant message
    reasoning = False  # the run's last item is a reasoning item (which must not end it)
    for item in items:
        kind = type(item)
        if kind is _FunctionCall or kind is _CustomCall or kind is _Reasoning:
            if not in_run:
                if not linkage.assistant():
                    return None
                in_run, count = True, count + 1
            reasoning = kind is _Reasoning
            if type(item) is _FunctionCall:
                if not linkage.call(item.call_id, item.name, item.arguments):
                    return None
            elif type(item) is _CustomCall and (  # declared tools are the careful path's to judge for it
                not custom or not linkage.call(item.call_id, item.name, {"input": item.input})
            ):
                return None
            continue
        if type(item) is _FunctionCallOutput or type(item) is _CustomOutput:
            if reasoning or not linkage.result(item.call_id):  # a reasoning item before an input item
                return None
            in_run, count = False, count + 1
            continue
        assert type(item) is _Message
        part: type[_InputText | _OutputText]
        if item.role == "assistant":
            if not in_run:
                if not linkage.assistant():
                    return None
                in_run, count = True, count + 1
            reasoning, part = False, _OutputText
        else:
            if reasoning or item.role not in _INPUT_ROLES or not linkage.message():
                return None
            in_run, part = False, _InputText
            if item.role == "user":  # (a system or developer message: an instruction)
                count += 1
        content = item.content
        if type(content) is not str:
            for entry in content:
                if type(entry) is not part:
                    return None
    return count if not reasoning and linkage.end() else None


_ITEM_TYPES: Final = (
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "reasoning",
)
"""Item types only the Responses API has."""


def _recognizes_body(body: dict[str, object]) -> bool:
    """`input` (a list, or a string), and no OpenTelemetry `gen_ai.` attribute beside it (a
    span's attributes may hold an `input` too)."""
    if any(key.startswith("gen_ai.") for key in body):
        return False
    return as_array(body.get("input")) is not None or type(body.get("input")) is str


def _recognizes_record(record: dict[str, object]) -> bool:
    return record.get("type") in _ITEM_TYPES


_WORDS: Final = provider_words(
    "OpenAI Responses `input` items (a list, or a request body with `instructions`)",
    "Responses input",
    "the Responses API would refuse",
    "input",
    source="JSON text, or the parsed list of items or request body",
)
_FUNCTIONS: Final = format_functions(NAME, _read, _dump, provider_rules, _WORDS, json_lines=False, fast=_is_clean)


FORMAT: Final = Format(
    _FUNCTIONS,
    id_rule=ID_RULE,
    recognize=Recognize(
        body=_recognizes_body,
        record=_recognizes_record,
        block_types=frozenset({"input_text", "output_text", "input_image", "input_file"}),
    ),
    raw_arguments="arguments",
    arguments_as_text=True,
    tools=_TOOLS,
    dataset_line=True,
    messages_key="input",
    fast_path=_is_clean,
)
"""The declaration of the format (`message_ir.adapters.FORMATS` lists it)."""

load, dump, dumps, check = _FUNCTIONS.unpacked()

__all__ = ["FORMAT", "NAME", "check", "dump", "dumps", "load"]
