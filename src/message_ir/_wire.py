"""The wire table: for each role and block type, its Struct, its fields and their wire names.

Derived once from the Structs (`msgspec.structs.fields` and each Struct's tag), so that the
shape check, the fast paths and the constructors read one table: a new block type or field
is one Struct, and nothing else spells the schema out by hand.
"""

from __future__ import annotations

from typing import Final, NamedTuple

import msgspec

from message_ir._model import (
    AssistantMessage,
    OpaqueBlock,
    TextBlock,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)


class WireField(NamedTuple):
    """One field of a record: its wire (JSON) name, its Python attribute, and if it must be there."""

    wire_name: str
    attribute: str
    required: bool


class WireRecord(NamedTuple):
    """A tagged record: a message (tagged by `role`) or a block (tagged by `type`)."""

    tag_field: str
    tag: str
    struct: type[msgspec.Struct]
    fields: tuple[WireField, ...]  # in wire order, the tag excluded
    keys: frozenset[str]  # every key the JSON form may have, the tag included
    required_keys: int  # the number of keys a record without optional fields has, the tag included


def _record(struct: type[msgspec.Struct]) -> WireRecord:
    config = struct.__struct_config__
    tag_field, tag = config.tag_field, config.tag
    assert type(tag_field) is str  # every IR Struct is tagged
    assert type(tag) is str
    fields = tuple(WireField(info.encode_name, info.name, info.required) for info in msgspec.structs.fields(struct))
    keys = frozenset({tag_field, *(field.wire_name for field in fields)})
    return WireRecord(tag_field, tag, struct, fields, keys, 1 + sum(field.required for field in fields))


MESSAGES: Final[dict[str, WireRecord]] = {
    record.tag: record for record in (_record(UserMessage), _record(AssistantMessage), _record(ToolResultMessage))
}
"""Message records by `role`."""

BLOCKS: Final[dict[str, WireRecord]] = {
    record.tag: record for record in (_record(TextBlock), _record(ToolCall), _record(OpaqueBlock))
}
"""Assistant block records by `type`."""

META: Final = "meta"
"""The wire name of the one optional field every record has."""

ROLE_NAMES: Final = ", ".join(f"`{role}`" for role in MESSAGES)
BLOCK_NAMES: Final = ", ".join(f"`{block_type}`" for block_type in BLOCKS)
