"""A deterministic generator of valid transcripts, for the round-trip session."""

from __future__ import annotations

import random

from message_ir import (
    JsonInput,
    Message,
    assistant_message,
    tool_result_message,
    user_message,
)

_TEXT = ["plain", "héllo", "日本語", "emoji 😀", 'quote " and \\ backslash', "line\nbreak", "\u2028", ""]


def json_value(rng: random.Random, depth: int, *, js_safe: bool) -> JsonInput:
    """A random JSON value; `js_safe` keeps to what JavaScript's one number type preserves."""
    kind = rng.randrange(8 if depth < 4 else 5)
    if kind == 0:
        return rng.choice(_TEXT)
    if kind == 1:
        if js_safe:
            return rng.randrange(-(2**53) + 1, 2**53)
        return rng.choice([0, -1, 2**63, -(10**30), rng.randrange(-1000, 1000)])
    if kind == 2:
        if js_safe:
            return rng.choice([0.5, -2.25, 1e-7, 3.141592653589793, 1.5e300])
        return rng.choice([-0.0, 0.0, 1.0, 5e-324, 1.7976931348623157e308, rng.uniform(-1e6, 1e6)])
    if kind == 3:
        return rng.choice([True, False])
    if kind == 4:
        return None
    if kind == 5:
        return [json_value(rng, depth + 1, js_safe=js_safe) for _ in range(rng.randrange(4))]
    return json_object(rng, depth + 1, js_safe=js_safe)


def json_object(rng: random.Random, depth: int, *, js_safe: bool) -> dict[str, JsonInput]:
    # JavaScript moves integer-like keys ("1") to the front of an object: not js_safe.
    prefixes = ["path", "z", "a", "ключ", "with space", "n"] + ([] if js_safe else [""])
    keys = [rng.choice(prefixes) + str(i) for i in range(rng.randrange(5))]
    return {key: json_value(rng, depth, js_safe=js_safe) for key in keys}


def transcript(seed: int, *, js_safe: bool = False) -> tuple[Message, ...]:
    """A valid transcript of a few rounds: user, assistant with text and calls, results."""
    rng = random.Random(seed)
    messages: list[Message] = []
    for turn in range(rng.randrange(1, 5)):
        messages.append(user_message(id=f"u{seed}-{turn}", content=rng.choice(_TEXT)))
        calls = [f"c{seed}-{turn}-{index}" for index in range(rng.randrange(4))]
        blocks: list[dict[str, object]] = []
        for call_id in calls:
            if rng.random() < 0.5:
                blocks.append({"type": "text", "text": rng.choice(_TEXT)})
            arguments = json_object(rng, 1, js_safe=js_safe)
            blocks.append(
                {"type": "toolCall", "id": call_id, "name": rng.choice(["read", "write"]), "arguments": arguments}
            )
        blocks.append({"type": "text", "text": rng.choice(_TEXT)})
        assistant = assistant_message(id=f"a{seed}-{turn}", content=blocks)  # type: ignore[arg-type]  # built loosely above
        messages.append(assistant)
        for block in assistant.content:
            if block.type == "toolCall":
                messages.append(
                    tool_result_message(
                        id=f"r-{block.id}",
                        tool_call_id=block.id,
                        tool_name=block.name,
                        content=rng.choice(_TEXT) * rng.randrange(1, 3),
                        is_error=rng.random() < 0.2,
                    )
                )
    return tuple(messages)
