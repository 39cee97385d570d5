"""Building IR structs from JSON that is already known to follow the IR's JSON rule.

`load` reads either bytes it parsed itself with msgspec (whose values are always finite
numbers and UTF-8 strings of exact builtin types) or a parsed value whose records it has
checked with `is_json_value`. What is left to check is the nesting of the JSON objects the
structs keep as text (arguments, `data`, `meta`: at most `MAX_DEPTH` levels), which a count
of brackets answers for all but deep values. So the structs are made directly, without the
constructors' snapshot copy, and they still pass `validate_transcript`'s shape checks.
"""

from __future__ import annotations

from typing import Final

import msgspec

from message_ir import MAX_DEPTH, ConstructionError, TextBlock, is_json_value
from message_ir.adapters._json import encode
from message_ir.adapters._records import Info

NO_META: Final = TextBlock(text="").meta_json
"""The `meta_json` of a message or block without `meta`: the IR's own default, the one object
the encoder leaves out (msgspec omits a default by identity; another empty `Raw` is refused)."""


def object_raw(value: object, text: bytes | None = None) -> msgspec.Raw:
    """A JSON object (known to follow the JSON rule but for depth) as text for a struct.

    `text` is its compact encoding when the caller has it already. Raises
    `ConstructionError` when it nests deeper than `MAX_DEPTH`.
    """
    if text is None:
        text = encode(value)
    # Each level takes two characters at least, so short text is surely shallow enough; a
    # long one usually holds few containers (its strings hold most of its brackets), which
    # are fewer to look at than its bytes are to count.
    size = len(text)
    if (
        size > 2 * MAX_DEPTH
        and not (size > _LONG and _few_levels(value))
        and text.count(b"{") + text.count(b"[") > MAX_DEPTH
        and not is_json_value(value)
    ):
        raise ConstructionError("load", "$", f"Nesting deeper than {MAX_DEPTH} levels")
    return msgspec.Raw(text)


_LONG: Final = 1024
"""From how many bytes of text `_few_levels` is asked before the brackets are counted."""
_VISITS: Final = 16
"""How many containers `_few_levels` looks at before it leaves the question to a count: a
value holding no more below it nests at most `_VISITS + 1` levels, fewer than `MAX_DEPTH`."""


def _few_levels(value: object) -> bool:
    """Whether `value` holds at most `_VISITS` containers below it (so nests few levels), told
    without reading its strings; `False` when it holds more."""
    stack: list[object] = [value]
    visits = _VISITS
    while stack:
        container = stack.pop()
        children = container.values() if type(container) is dict else container if type(container) is list else ()
        for child in children:
            if type(child) is dict or type(child) is list:
                visits -= 1
                if visits < 0:
                    return False
                stack.append(child)
    return True


def meta_raw(format: str, info: Info) -> msgspec.Raw:
    """The `meta` text holding `info` under `format`; empty when there is nothing to keep."""
    if not info:
        return NO_META
    return object_raw({format: info})
