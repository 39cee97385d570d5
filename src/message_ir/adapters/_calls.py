"""A tool-call record whose arguments are a JSON object, read into a `ToolCall` and written back.

Anthropic's `tool_use` block (`input`) and pi's `toolCall` block (`arguments`) have this
shape: an `id`, a `name` and the arguments object under a key of the format's own. Arguments
that are not an object are kept as they were sent (and are `BAD_TOOL_ARGUMENTS`); arguments
that were absent stay absent; a call ID the IR had to rename is kept to be written back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, NamedTuple

import msgspec

from message_ir import AssistantBlock, OpaqueBlock, TextBlock, ToolCall
from message_ir.adapters._build import object_raw
from message_ir.adapters._json import as_object, encode
from message_ir.adapters._load_state import LoadState, arguments_object
from message_ir.adapters._records import Info, split_record
from message_ir.adapters._tools import arguments_value

NO_ARGUMENTS: Final = "no_arguments"
"""The `meta` flag of a call record that had no arguments at all (written back without them)."""


def read_call(
    state: LoadState,
    message_index: int,
    record: dict[str, object],
    path: str,
    usual: tuple[str, ...],
    arguments_key: str,
    meta: Callable[[Info], msgspec.Raw],
) -> ToolCall | None:
    """The `ToolCall` of a call record (`usual`: its usual keys, in order); `None` after a
    problem (no `id` or `name` string)."""
    named = id_and_name(state, record, path)
    if named is None:
        return None
    call_id, name = named
    info = split_record(record, usual, usual)
    parsed = object_arguments(state, message_index, record, arguments_key, f"{path}.{arguments_key}", info)
    ir_id = ir_call_id(state, message_index, call_id, name, path + ".id", info)
    return ToolCall(id=ir_id, name=name, arguments_json=object_raw(parsed), meta_json=meta(info))


def object_arguments(
    state: LoadState, message_index: int, record: dict[str, object], key: str, path: str, info: Info
) -> dict[str, object]:
    """The arguments object under `key` of a call record (at `path`): `{}` when it is no object,
    the value kept in `info` (and its absence: absent stays absent), with a note and a
    `BAD_TOOL_ARGUMENTS` for `check`."""
    arguments = record.get(key)
    # Parsed here, a `dict` is a JSON object: msgspec gives `str` keys only (its keys not walked).
    parsed: dict[str, object] | None = arguments if state.trusted and type(arguments) is dict else as_object(arguments)
    if parsed is not None:
        return parsed
    info[key] = arguments
    if key not in record:
        info[NO_ARGUMENTS] = True
    state.bad_arguments(message_index, path, encode(arguments).decode())
    return {}


class BlockShape(NamedTuple):
    """How a format writes an assistant message's content blocks, each with a `type`."""

    format_name: str
    """The format whose opaque blocks the others become."""
    text_keys: tuple[str, ...]
    """A text block's usual keys, in order (`type`, `text`)."""
    call_type: str
    """The `type` of a call block."""
    call_keys: tuple[str, ...]
    """A call block's usual keys, in order."""
    arguments_key: str
    """The key of a call block's arguments."""


def read_block(
    state: LoadState,
    message_index: int,
    block: dict[str, object],
    path: str,
    shape: BlockShape,
    meta: Callable[[Info], msgspec.Raw],
) -> AssistantBlock | None:
    """The IR block of an assistant content block whose `type` is a string: a text block (with
    a `str` text) a `TextBlock`, a call a `ToolCall` (see `read_call`), any other an
    `OpaqueBlock` in place; `None` after a problem."""
    block_type = block.get("type")
    assert type(block_type) is str  # the caller's check
    text = block.get("text")
    if block_type == "text" and type(text) is str:
        return TextBlock(text=text, meta_json=meta(split_record(block, shape.text_keys, shape.text_keys)))
    if block_type == shape.call_type:
        return read_call(state, message_index, block, path, shape.call_keys, shape.arguments_key, meta)
    return OpaqueBlock(format=shape.format_name, kind=block_type, data_json=object_raw(block))


def ir_call_id(state: LoadState, message_index: int, call_id: str, name: str, path: str, info: Info) -> str:
    """The IR's ID for the call `call_id` (see `LoadState.call_id`); when the IR had to rename
    it, `info` keeps the ID as sent (`id`) and the new one (`as`), to write the call back."""
    ir_id = state.call_id(message_index, call_id, name, path)
    if ir_id != call_id:
        info["id"] = call_id
        info["as"] = ir_id
    return ir_id


def arguments_from_text(
    state: LoadState, message_index: int, arguments: str, path: str, info: Info
) -> tuple[dict[str, object], bytes]:
    """The object and compact JSON text of arguments sent as JSON text (at `path`): `{}` when
    the text holds no object (a note; the text kept under `arguments`), and the text kept too
    when it is not the compact text of its object."""
    parsed = arguments_object(arguments)
    if parsed is None:
        info["arguments"] = arguments
        state.bad_arguments(message_index, path, arguments)
        return {}, b"{}"
    text = encode(parsed)
    if text != arguments.encode("utf-8", "surrogatepass"):
        info["arguments"] = arguments
    return parsed, text


def id_and_name(
    state: LoadState, record: dict[str, object], path: str, id_key: str = "id", name_key: str = "name"
) -> tuple[str, str] | None:
    """A call record's ID (under `id_key`) and tool name (under `name_key`), each a non-empty
    string; `None` after a problem."""
    call_id, name = record.get(id_key), record.get(name_key)
    if type(call_id) is not str or not call_id:
        state.problem(f"{path}.{id_key}", "Expected a non-empty `str`")
        return None
    if type(name) is not str or not name:
        state.problem(f"{path}.{name_key}", "Expected a non-empty `str`")
        return None
    return call_id, name


def written_arguments(info: Info, arguments_key: str, call: ToolCall, values: dict[str, object]) -> None:
    """Put a call's arguments into `values` under `arguments_key`: as they were sent when the
    IR holds none (`{}`) and the source kept others, and not at all when the source had none."""
    arguments: object = arguments_value(call)
    if arguments_key in info and arguments == {}:
        if info.get(NO_ARGUMENTS) is True:
            return
        arguments = info[arguments_key]
    values[arguments_key] = arguments


def written_argument_text(info: Info, call: ToolCall) -> str:
    """A call's arguments as JSON text, for formats that send them as a string: the text as it
    was sent (kept under `arguments`) when it stands for the IR's object, or when it was no
    object and the IR holds `{}`; else the IR's own text."""
    text = bytes(call.arguments_json)
    sent = info.get("arguments")
    if type(sent) is str:
        parsed = arguments_object(sent)
        if (parsed is None and text == b"{}") or (parsed is not None and encode(parsed) == text):
            return sent
    return text.decode()
