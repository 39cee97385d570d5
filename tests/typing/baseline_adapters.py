"""The typing baseline for the extension points and `message_ir.adapters` (no ignores)."""

from __future__ import annotations

from typing_extensions import assert_type

from message_ir import (
    Diagnostic,
    FrozenJsonObject,
    OpaqueBlock,
    OpaqueBlockJson,
    assistant_message,
    frozen_json_object,
    is_opaque_block_json,
    opaque_block,
    user_message,
)
from message_ir.adapters import Conversation, FormatError, Instruction, Note, anthropic, convert, detect, openai_chat

block = opaque_block(format="anthropic", kind="thinking", data={"thinking": "...", "signature": "s"}, meta={"k": 1})
assert_type(block, OpaqueBlock)
assert_type(block.data, FrozenJsonObject)
assert_type(block.meta, FrozenJsonObject | None)
message = assistant_message(id="a", content=[block, {"type": "opaque", "format": "f", "kind": "k", "data": {}}])
assert_type(user_message(id="u", content="x", meta={"source": {"line": 3}}).meta, FrozenJsonObject | None)
assert_type(frozen_json_object({"a": [1, 2]}), FrozenJsonObject)


def opaque_kind(value: object) -> str:
    """Narrowing parsed JSON to an opaque block's shape."""
    if is_opaque_block_json(value):
        assert_type(value, OpaqueBlockJson)
        return value["kind"]
    return ""


conversation = openai_chat.load(b"[]")
assert_type(conversation, Conversation)
assert_type(conversation.instructions, tuple[Instruction, ...])
assert_type(conversation.notes, tuple[Note, ...])
assert_type(anthropic.dumps(convert(conversation, to="anthropic")), bytes)
assert_type(anthropic.dump(conversation.messages), object)
assert_type(openai_chat.check("[]"), tuple[Diagnostic, ...])
assert_type(detect(b"[]"), str | None)
assert_type(FormatError("openai_chat", ()).diagnostics, tuple[Diagnostic, ...])
