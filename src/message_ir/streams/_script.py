"""The scripted model double: the stream a provider would send for an assistant message, and
a model that replays queued streams, one per request.

`script` writes the message's text and calls as the provider's events (SSE bytes, one event a
piece), each text and arguments delta at most `chunks` characters long (or split at places a
`seed` picks), with the request ID given; `cut_after` stops after that many events (no last
event: what a dropped connection or a Ctrl+C leaves), `error` ends it with the provider's
error event instead. A message holding other blocks (reasoning, a server tool's) is refused:
only text and calls are scripted.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterable, Iterator

from message_ir import AssistantMessage
from message_ir.streams._registry import STREAM_FORMATS


def _pieces(text: str, chunks: int | None, rng: random.Random | None) -> list[str]:
    """`text` split into deltas: of `chunks` characters, at random places, or whole."""
    if rng is not None:
        cuts = sorted(rng.sample(range(1, len(text)), min(len(text) - 1, rng.randint(0, 6)))) if len(text) > 1 else []
        bounds = [0, *cuts, len(text)]
        return [text[start:end] for start, end in itertools.pairwise(bounds)]
    if chunks is None or chunks <= 0 or not text:
        return [text]
    return [text[start : start + chunks] for start in range(0, len(text), chunks)]


def script(
    message: AssistantMessage,
    format: str,
    *,
    chunks: int | None = None,
    seed: int | None = None,
    request_id: str | None = None,
    cut_after: int | None = None,
    error: str | None = None,
) -> list[bytes]:
    """The stream a provider of `format` would send for `message`, as SSE bytes, one event
    a piece: text and arguments split into deltas of `chunks` characters (or at places
    `seed` picks), the response ID `request_id` (else the message's ID); only the first
    `cut_after` events (no last event) when given; ending in an error event saying `error`
    when given. Raises `ValueError` for a message with other blocks than text and calls."""
    if format not in STREAM_FORMATS:
        raise ValueError(f"No stream format {format!r}; expected one of {', '.join(STREAM_FORMATS)}")
    declared = STREAM_FORMATS[format]
    rng = None if seed is None else random.Random(seed)

    def split(text: str) -> list[str]:
        return _pieces(text, chunks, rng)

    events, end = declared.script(message, request_id or message.id, split)
    if error is not None:
        end = [declared.error(error)]
    events = [*events, *end]
    whole = cut_after is None or cut_after > len(events)
    if cut_after is not None:
        events = events[: max(cut_after, 0)]
    pieces = [b"data: " + json.dumps(event, ensure_ascii=False).encode() + b"\n\n" for event in events]
    if whole and error is None and declared.closing:
        pieces.append(declared.closing)
    return pieces


class QueueExhausted(LookupError):
    """A `ScriptedModel` was asked for more responses than it was given."""


class ScriptedModel:
    """A model double: each request gets the next queued stream (`script`'s pieces), in
    order; the requests are kept (`requests`). Asked once more than it has responses, it
    raises `QueueExhausted` saying how many it was given."""

    def __init__(self, responses: Iterable[list[bytes]]) -> None:
        self._responses: list[list[bytes]] = list(responses)
        self._next = 0
        self.requests: list[object] = []

    def stream(self, request: object = None) -> Iterator[bytes]:
        """The next queued stream, a piece at a time; `request` is kept in `requests`."""
        self.requests.append(request)
        if self._next >= len(self._responses):
            raise QueueExhausted(
                f"No scripted response left for request {len(self.requests)}: {len(self._responses)} were queued"
            )
        pieces = self._responses[self._next]
        self._next += 1
        return iter(pieces)

    @property
    def remaining(self) -> int:
        """How many queued responses no request has taken yet."""
        return len(self._responses) - self._next
