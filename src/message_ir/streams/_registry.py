"""The registry of stream formats: each stream format's module, and the state of one stream.

The only list of them; a stream format is a module here and a line below (as the adapters'
formats are in `message_ir.adapters._registry`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Final, Protocol

from message_ir import Diagnostic
from message_ir.streams import anthropic, gemini, openai_chat, openai_responses
from message_ir.streams._assembled import Slot
from message_ir.streams._framing import Event


class Stream(Protocol):
    """The state of one stream as its events arrive (each stream format's `Stream`)."""

    slots: list[Slot]
    info: dict[str, object]
    found: list[Diagnostic]
    complete: bool
    message_id: str

    def event(self, event: Event) -> None: ...


STREAM_FORMATS: Final[Mapping[str, Callable[[], Stream]]] = MappingProxyType(
    {
        openai_chat.NAME: openai_chat.Stream,
        anthropic.NAME: anthropic.Stream,
        openai_responses.NAME: openai_responses.Stream,
        gemini.NAME: gemini.Stream,
    }
)
"""The formats whose streams can be assembled, each with the state of one stream."""
