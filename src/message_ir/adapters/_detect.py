"""`detect`: which registered format is this? Asked of each format's declared `Recognize`.

In order: the first lines of a session log (each format's `line` test, line by line); a
whole JSON object (each format's `body` test); then the records of a list of messages (or of
a body's `messages`), record by record: the first record a format's `record` test claims, or
whose content holds a block `type` only one format uses, decides. The IR's own records (a
`toolResult`, a `toolCall` or `opaque` block, `toolCallId`) are no format: `None`. A plain
list that nothing claims is the format declared as the fallback.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from message_ir.adapters._format import Recognize
from message_ir.adapters._json import as_array, as_object, parse
from message_ir.adapters._registry import FORMATS
from message_ir.adapters._unparsable import Unparsable

Test = Callable[[dict[str, object]], bool]
"""One of a `Recognize`'s tests of a parsed JSON object."""

_LOG_LINES: Final = 5
"""How many lines of a log `detect` reads."""
_IR_BLOCKS: Final = ("toolCall", "opaque")


def detect(source: bytes | str | object) -> str | None:
    """The name of the format `source` (JSON text or a parsed value) is in, or `None`.

    `None` when it is the IR's own wire format or nothing known. A plain conversation that
    fits several formats (only user and assistant messages with string content) is the
    fallback format, `openai_chat`.
    """
    if type(source) is bytes or type(source) is str:
        text = source
        try:
            source = parse(text)
        except Unparsable:
            return _log_format(_first_lines(text))
    records = as_array(source)
    body = as_object(source)
    log = _log_format([source] if body is not None else (records or [])[:_LOG_LINES])
    if log is not None:
        return log
    if body is not None:
        claimed = _claimed(lambda recognize: recognize.body, body)
        if claimed is not None:
            return claimed
        records = as_array(body.get("messages"))
    return None if records is None else _records_format(records)


def _first_lines(source: bytes | str) -> list[object]:
    """The values of the first lines of JSON Lines text (those that parse)."""
    data = source.encode("utf-8", "surrogatepass") if type(source) is str else source
    assert type(data) is bytes
    values: list[object] = []
    for line in data.split(b"\n", _LOG_LINES)[:_LOG_LINES]:
        try:
            values.append(parse(line))
        except Unparsable:
            continue
    return values


def _log_format(lines: list[object]) -> str | None:
    """The session-log format whose lines these are, or `None`."""
    for value in lines:
        line = as_object(value)
        if line is None:
            return None
        claimed = _claimed(lambda recognize: recognize.line, line)
        if claimed is not None:
            return claimed
    return None


def _claimed(test: Callable[[Recognize], Test | None], value: dict[str, object]) -> str | None:
    """The first format (in the registry's order) whose `test` of its `Recognize` claims `value`."""
    for declared in FORMATS.values():
        recognizes = test(declared.recognize)
        if recognizes is not None and recognizes(value):
            return declared.name
    return None


def _records_format(records: list[object]) -> str | None:
    ir = True
    for item in records:
        record = as_object(item)
        if record is None:
            return None
        claimed = _claimed(lambda recognize: recognize.record, record)
        if claimed is not None:
            return claimed
        role = record.get("role")
        if role == "toolResult" or "toolCallId" in record:
            return None  # the IR's own
        for block_item in as_array(record.get("content")) or ():
            block = as_object(block_item)
            block_type = None if block is None else block.get("type")
            if block_type in _IR_BLOCKS:
                return None
            for declared in FORMATS.values():
                if block_type in declared.recognize.block_types:
                    return declared.name
        ir = ir and type(record.get("id")) is str and role in ("user", "assistant")
    if ir and records:
        return None
    fallback = [declared.name for declared in FORMATS.values() if declared.recognize.fallback]
    return fallback[0] if records and fallback else None
