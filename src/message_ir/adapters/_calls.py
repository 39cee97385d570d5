"""A tool-call record whose arguments are a JSON object, read into a `ToolCall` and written back.

Anthropic's `tool_use` block (`input`) and pi's `toolCall` block (`arguments`) have this
shape: an `id`, a `name` and the arguments object under a key of the format's own. Arguments
that are not an object are kept as they were sent (and are `BAD_TOOL_ARGUMENTS`); arguments
that were absent stay absent; a call ID the IR had to rename is kept to be written back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

import msgspec

from message_ir import ToolCall
from message_ir.adapters._build import object_raw
from message_ir.adapters._json import as_object, encode
from message_ir.adapters._load_state import LoadState
from message_ir.adapters._records import Info, split_record

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
    arguments = record.get(arguments_key)
    info = split_record(record, usual, usual)
    parsed = as_object(arguments)
    if parsed is None:
        info[arguments_key] = arguments
        if arguments_key not in record:
            info[NO_ARGUMENTS] = True  # absent stays absent
        state.bad_arguments(message_index, f"{path}.{arguments_key}", encode(arguments).decode())
        parsed = {}
    ir_id = state.call_id(message_index, call_id, name, path + ".id")
    if ir_id != call_id:
        info["id"] = call_id
        info["as"] = ir_id
    return ToolCall(id=ir_id, name=name, arguments_json=object_raw(parsed), meta_json=meta(info))


def id_and_name(state: LoadState, record: dict[str, object], path: str, id_key: str = "id") -> tuple[str, str] | None:
    """A call record's ID (under `id_key`) and `name`, each a non-empty string; `None` after
    a problem."""
    call_id, name = record.get(id_key), record.get("name")
    if type(call_id) is not str or not call_id:
        state.problem(f"{path}.{id_key}", "Expected a non-empty `str`")
        return None
    if type(name) is not str or not name:
        state.problem(path + ".name", "Expected a non-empty `str`")
        return None
    return call_id, name


def written_arguments(info: Info, arguments_key: str, call: ToolCall, values: dict[str, object]) -> None:
    """Put a call's arguments into `values` under `arguments_key`: as they were sent when the
    IR holds none (`{}`) and the source kept others, and not at all when the source had none."""
    arguments: object = call.arguments.thaw()
    if arguments_key in info and arguments == {}:
        if info.get(NO_ARGUMENTS) is True:
            return
        arguments = info[arguments_key]
    values[arguments_key] = arguments
