"""What every stream format's part of the scripted double shares: the blocks a message's
stream says, a call's arguments as the JSON text its deltas carry, and the types of the events."""

from __future__ import annotations

import json
from collections.abc import Callable

from message_ir import AssistantMessage, TextBlock, ToolCall

Events = list[dict[str, object]]
"""A stream's events, as parsed JSON."""
Split = Callable[[str], list[str]]
"""How a text is cut into deltas."""


def said_blocks(message: AssistantMessage) -> list[TextBlock | ToolCall]:
    """The blocks of `message` a script says; `ValueError` for any other block."""
    blocks: list[TextBlock | ToolCall] = []
    for block in message.content:
        if type(block) is TextBlock or type(block) is ToolCall:
            blocks.append(block)
        else:
            raise ValueError(f"Only text and calls are scripted; the message holds a `{block.type}` block")
    return blocks


def arguments_text(call: ToolCall) -> str:
    """A call's arguments as compact JSON text."""
    return json.dumps(call.arguments.thaw(), ensure_ascii=False, separators=(",", ":"))
