"""Parquet datasets (the `[parquet]` extra, pyarrow): rows read one row group at a time, and
what Arrow does to them (`PADDED_BY_ARROW`).

A Parquet row is one conversation: its columns are the keys of the record the format's
`check` reads (`messages` and `tools` for `hf_chat`, `conversations` for `sharegpt`). Arrow
stores a column of objects as one struct type holding every key any row had, so a row read
back has the keys of every other row, as `null`s: a call's arguments `{"city": "Paris",
"unit": null}` where the call sent `{"city": "Paris"}`, a tool schema whose `properties`
hold `"unit": null`. Chat templates then render keys the model never saw, or fail on them.
`padded_by_arrow` reports each such key: a `null` argument its tool does not declare, and a
`null` property schema.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Final

import msgspec

from message_ir import Diagnostic
from message_ir.adapters import FORMATS

if TYPE_CHECKING:  # imported when a Parquet file is read: pyarrow is an extra
    import pyarrow.parquet

EXTRA: Final = "message-ir[parquet]"
"""The extra that installs pyarrow."""


def _opened(path: str) -> pyarrow.parquet.ParquetFile:
    """The Parquet file at `path`; `ValueError` without pyarrow, or for a file it cannot read."""
    try:
        import pyarrow.parquet
    except ImportError:
        raise ValueError(f"reading Parquet ({path}) needs pyarrow: install `{EXTRA}`") from None
    try:
        return pyarrow.parquet.ParquetFile(path)
    except pyarrow.ArrowException as error:
        raise ValueError(f"{path} is not a Parquet file pyarrow can read: {error}") from None


def row_group_parts(path: str, processes: int, format: str) -> list[tuple[int, int]]:
    """One part per row group; `ValueError` when the file lacks the format's messages column."""
    opened = _opened(path)
    key = FORMATS[format].messages_key
    columns = opened.schema_arrow.names
    if key not in columns:
        shown = ", ".join(f"`{name}`" for name in columns) or "none"
        raise ValueError(f"{path} has no `{key}` column, which {format} rows need (its columns: {shown})")
    groups = opened.metadata.num_row_groups
    return [(group, group + 1) for group in range(groups)] or [(0, 0)]


def _encoded(value: object) -> bytes:
    return msgspec.json.encode(value, enc_hook=str)


def row_group_rows(path: str, start: int, end: int | None, format: str) -> Iterator[bytes]:
    """The rows of row groups `[start, end)` as JSON bytes, one group in memory at a time."""
    opened = _opened(path)
    last = opened.metadata.num_row_groups if end is None else end
    for group in range(start, last):
        for row in opened.read_row_group(group).to_pylist():
            yield _encoded(row)


def first_row(path: str, start: int) -> int:
    """The 1-based number of the first row of row group `start`."""
    metadata = _opened(path).metadata
    return sum(metadata.row_group(group).num_rows for group in range(start)) + 1


# --- what Arrow did to a row ---------------------------------------------------------------------


def _object(value: object) -> dict[str, object] | None:
    return value if type(value) is dict else None


def _array(value: object) -> list[object] | None:
    return value if type(value) is list else None


def _declared(row: dict[str, object]) -> tuple[dict[str, set[str]], list[Diagnostic]]:
    """The argument names each tool declares (its non-null `properties`), and a diagnostic for
    each `null` property schema."""
    declared: dict[str, set[str]] = {}
    found: list[Diagnostic] = []
    for number, item in enumerate(_array(row.get("tools")) or []):
        tool = _object(item)
        function = _object(tool.get("function")) if tool is not None else None
        where = f"$.tools[{number}].function" if function is not None else f"$.tools[{number}]"
        function = function if function is not None else tool
        if function is None or type(function.get("name")) is not str:
            continue
        parameters = _object(function.get("parameters"))
        properties = _object(parameters.get("properties")) if parameters is not None else None
        names = declared.setdefault(str(function["name"]), set())
        for key, schema in (properties or {}).items():
            if schema is None:
                found.append(_padded(f"{where}.parameters.properties.{key}", f"Property `{key}` has no schema"))
            else:
                names.add(key)
    return declared, found


def _padded(path: str, what: str) -> Diagnostic:
    return Diagnostic("PADDED_BY_ARROW", None, path, f"{what}: `null` where Arrow gave this row a key of another row's")


def padded_by_arrow(row_bytes: bytes, format: str) -> list[Diagnostic]:
    """The keys of a row read from Parquet that Arrow added: `null` arguments its tool does not
    declare (a call of an undeclared tool: any `null` argument), and `null` property schemas."""
    try:
        value: object = msgspec.json.decode(row_bytes)
    except msgspec.DecodeError:
        return []
    row = _object(value)
    if row is None:
        return []
    declared, found = _declared(row)
    key = FORMATS[format].messages_key
    for index, item in enumerate(_array(row.get(key)) or []):
        message = _object(item)
        calls = _array(message.get("tool_calls")) if message is not None else None
        for number, call_item in enumerate(calls or []):
            call = _object(call_item)
            function = _object(call.get("function")) if call is not None else None
            arguments = _object(function.get("arguments")) if function is not None else None
            if function is None or arguments is None:
                continue
            names = declared.get(str(function.get("name")), set())
            for name, value in arguments.items():
                if value is None and name not in names:
                    path = f"$.{key}[{index}].tool_calls[{number}].function.arguments.{name}"
                    found.append(
                        Diagnostic(
                            "PADDED_BY_ARROW",
                            index,
                            path,
                            f"Argument `{name}` is `null` and its tool does not declare it: Arrow gave this"
                            " call a key of another row's",
                        )
                    )
    return found
