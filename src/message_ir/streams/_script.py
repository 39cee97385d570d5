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
from collections.abc import Callable, Iterable, Iterator
from typing import Final

from message_ir import AssistantMessage, TextBlock, ToolCall

Events = list[dict[str, object]]


def _pieces(text: str, chunks: int | None, rng: random.Random | None) -> list[str]:
    """`text` split into deltas: of `chunks` characters, at random places, or whole."""
    if rng is not None:
        cuts = sorted(rng.sample(range(1, len(text)), min(len(text) - 1, rng.randint(0, 6)))) if len(text) > 1 else []
        bounds = [0, *cuts, len(text)]
        return [text[start:end] for start, end in itertools.pairwise(bounds)]
    if chunks is None or chunks <= 0 or not text:
        return [text]
    return [text[start : start + chunks] for start in range(0, len(text), chunks)]


def _arguments(call: ToolCall) -> str:
    return json.dumps(call.arguments.thaw(), ensure_ascii=False, separators=(",", ":"))


def _blocks(message: AssistantMessage) -> list[TextBlock | ToolCall]:
    blocks: list[TextBlock | ToolCall] = []
    for block in message.content:
        if type(block) is TextBlock or type(block) is ToolCall:
            blocks.append(block)
        else:
            raise ValueError(f"Only text and calls are scripted; the message holds a `{block.type}` block")
    return blocks


Split = Callable[[str], list[str]]


def _openai_chat(message: AssistantMessage, request_id: str, split: Split) -> tuple[Events, Events]:
    def chunk(delta: dict[str, object], finish: str | None = None) -> dict[str, object]:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return {"id": request_id, "object": "chat.completion.chunk", "model": "scripted", "choices": [choice]}

    events: Events = [chunk({"role": "assistant"})]
    index = 0
    has_calls = False
    for block in _blocks(message):
        if type(block) is TextBlock:
            events.extend(chunk({"content": piece}) for piece in split(block.text) if piece)
            continue
        assert type(block) is ToolCall
        has_calls = True
        first = {"index": index, "id": block.id, "type": "function", "function": {"name": block.name, "arguments": ""}}
        events.append(chunk({"tool_calls": [first]}))
        for piece in split(_arguments(block)):
            events.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
        index += 1
    end: Events = [chunk({}, "tool_calls" if has_calls else "stop")]
    return events, end


def _anthropic(message: AssistantMessage, request_id: str, split: Split) -> tuple[Events, Events]:
    start = {"id": request_id, "type": "message", "role": "assistant", "model": "scripted", "content": []}
    events: Events = [{"type": "message_start", "message": start}]
    has_calls = False
    for index, block in enumerate(_blocks(message)):
        if type(block) is TextBlock:
            events.append(
                {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}
            )
            for piece in split(block.text):
                if piece:
                    delta = {"type": "text_delta", "text": piece}
                    events.append({"type": "content_block_delta", "index": index, "delta": delta})
        else:
            assert type(block) is ToolCall
            has_calls = True
            use = {"type": "tool_use", "id": block.id, "name": block.name, "input": {}}
            events.append({"type": "content_block_start", "index": index, "content_block": use})
            for piece in split(_arguments(block)):
                delta = {"type": "input_json_delta", "partial_json": piece}
                events.append({"type": "content_block_delta", "index": index, "delta": delta})
        events.append({"type": "content_block_stop", "index": index})
    stop = {"stop_reason": "tool_use" if has_calls else "end_turn", "stop_sequence": None}
    end: Events = [{"type": "message_delta", "delta": stop, "usage": {"output_tokens": 0}}, {"type": "message_stop"}]
    return events, end


def _openai_responses(message: AssistantMessage, request_id: str, split: Split) -> tuple[Events, Events]:
    response = {"id": request_id, "object": "response", "model": "scripted", "status": "in_progress"}
    events: Events = [{"type": "response.created", "response": response}]
    for index, block in enumerate(_blocks(message)):
        if type(block) is TextBlock:
            item: dict[str, object] = {"type": "message", "id": f"msg_{index}", "role": "assistant", "content": []}
            events.append({"type": "response.output_item.added", "output_index": index, "item": item})
            for piece in split(block.text):
                if piece:
                    delta = {"type": "response.output_text.delta", "output_index": index, "content_index": 0}
                    events.append({**delta, "delta": piece})
            done = {**item, "content": [{"type": "output_text", "text": block.text, "annotations": []}]}
        else:
            assert type(block) is ToolCall
            item = {
                "type": "function_call",
                "id": f"fc_{index}",
                "call_id": block.id,
                "name": block.name,
                "arguments": "",
            }
            events.append({"type": "response.output_item.added", "output_index": index, "item": item})
            for piece in split(_arguments(block)):
                events.append({"type": "response.function_call_arguments.delta", "output_index": index, "delta": piece})
            done = {**item, "arguments": _arguments(block)}
        events.append({"type": "response.output_item.done", "output_index": index, "item": done})
    end: Events = [{"type": "response.completed", "response": {**response, "status": "completed"}}]
    return events, end


def _gemini(message: AssistantMessage, request_id: str, split: Split) -> tuple[Events, Events]:
    def chunk(parts: list[object], finish: str | None = None) -> dict[str, object]:
        candidate: dict[str, object] = {"content": {"role": "model", "parts": parts}, "index": 0}
        if finish is not None:
            candidate["finishReason"] = finish
        return {"candidates": [candidate], "modelVersion": "scripted", "responseId": request_id}

    events: Events = []
    for block in _blocks(message):
        if type(block) is TextBlock:
            events.extend(chunk([{"text": piece}]) for piece in split(block.text) if piece)
        else:
            assert type(block) is ToolCall
            call = {"id": block.id, "name": block.name, "args": block.arguments.thaw()}
            events.append(chunk([{"functionCall": call}]))
    end: Events = [chunk([], "STOP")]
    return events, end


_ERRORS: Final[dict[str, Callable[[str], dict[str, object]]]] = {
    "openai_chat": lambda text: {"error": {"message": text, "type": "server_error"}},
    "anthropic": lambda text: {"type": "error", "error": {"type": "api_error", "message": text}},
    "openai_responses": lambda text: {"type": "error", "code": "server_error", "message": text},
    "gemini": lambda text: {"error": {"code": 500, "message": text, "status": "INTERNAL"}},
}
_WRITERS: Final[dict[str, Callable[[AssistantMessage, str, Split], tuple[Events, Events]]]] = {
    "openai_chat": _openai_chat,
    "anthropic": _anthropic,
    "openai_responses": _openai_responses,
    "gemini": _gemini,
}


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
    if format not in _WRITERS:
        raise ValueError(f"No stream format {format!r}; expected one of {', '.join(_WRITERS)}")
    rng = None if seed is None else random.Random(seed)

    def split(text: str) -> list[str]:
        return _pieces(text, chunks, rng)

    events, end = _WRITERS[format](message, request_id or message.id, split)
    if error is not None:
        end = [_ERRORS[format](error)]
    events = [*events, *end]
    if cut_after is not None:
        events = events[: max(cut_after, 0)]
    pieces = [b"data: " + json.dumps(event, ensure_ascii=False).encode() + b"\n\n" for event in events]
    if format == "openai_chat" and error is None and (cut_after is None or cut_after >= len(events) + 1):
        pieces.append(b"data: [DONE]\n\n")
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
