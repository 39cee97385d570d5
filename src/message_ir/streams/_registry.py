"""The registry of stream formats: each stream format's module, and the state of one stream.

The only list of them; a stream format is a module here and a line below (as the adapters'
formats are in `message_ir.adapters._registry`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Final, NamedTuple

from message_ir import AssistantMessage
from message_ir.streams import anthropic, gemini, openai_chat, openai_responses
from message_ir.streams._assembled import StreamState
from message_ir.streams._scripting import Events, Split


class StreamFormat(NamedTuple):
    """One stream format: how a stream of it is read, and how the double writes one."""

    stream: Callable[[], StreamState]
    """The state of one stream, fed its events."""
    script: Callable[[AssistantMessage, str, Split], tuple[Events, Events]]
    """The events of a message (its texts cut into deltas as asked), and the last ones."""
    error: Callable[[str], dict[str, object]]
    """The error event that ends a failed stream, saying a text."""
    closing: bytes = b""
    """What a whole stream sends after its last event (OpenAI Chat's `data: [DONE]`)."""


STREAM_FORMATS: Final[Mapping[str, StreamFormat]] = MappingProxyType(
    {
        openai_chat.NAME: StreamFormat(
            openai_chat.Stream, openai_chat.script_events, openai_chat.error_event, openai_chat.CLOSING
        ),
        anthropic.NAME: StreamFormat(anthropic.Stream, anthropic.script_events, anthropic.error_event),
        openai_responses.NAME: StreamFormat(
            openai_responses.Stream, openai_responses.script_events, openai_responses.error_event
        ),
        gemini.NAME: StreamFormat(gemini.Stream, gemini.script_events, gemini.error_event),
    }
)
"""The formats whose streams can be assembled, each with the state of one stream (and how the
double writes one)."""
