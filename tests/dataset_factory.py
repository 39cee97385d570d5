"""A generated fine-tuning dataset: deterministic, valid lines and every kind of broken line, mixed.

Each line is an OpenAI Chat fine-tuning record `{"messages": [...], "tools": [...],
"parallel_tool_calls": ...}` of a weather-and-calendar assistant. `KINDS` names the kinds
of line, each with the diagnostic codes `message_ir.datasets` must give it; `write_dataset`
writes a file of them in a seeded random mix and returns how many of each it wrote. Never
committed as a file: tests and benchmarks write what they need.

    python -m tests.dataset_factory OUT.jsonl --lines 100000 [--seed 0] [--valid 0.9]
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Final

TOOLS: Final[list[object]] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "The weather in a city.",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string", "minLength": 1},
                    "unit": {"enum": ["celsius", "fahrenheit"]},
                    "days": {"type": "integer", "minimum": 1, "maximum": 14},
                },
                "required": ["city"],
                "additionalProperties": False,
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "add_event",
            "description": "Add an event to the calendar.",
            "parameters": {
                "type": "object",
                "properties": {
                    "title": {"type": "string"},
                    "start": {"type": "string"},
                    "attendees": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["title", "start"],
            },
        },
    },
]
_CITIES: Final = ["Paris", "Rome", "Lagos", "Lima", "Osaka", "Oslo", "Quito", "Perth"]

Record = dict[str, object]


def _call(rng: random.Random, number: int) -> tuple[dict[str, object], str]:
    """A valid call (its record) and the text of its result."""
    call_id = f"call_{rng.getrandbits(64):016x}{number}"
    if rng.random() < 0.6:
        arguments: dict[str, object] = {"city": rng.choice(_CITIES)}
        if rng.random() < 0.5:
            arguments["unit"] = rng.choice(["celsius", "fahrenheit"])
        if rng.random() < 0.3:
            arguments["days"] = rng.randint(1, 14)
        name, result = "get_weather", f"{rng.randint(-5, 35)} degrees, {rng.choice(['sun', 'rain', 'wind'])}"
    else:
        arguments = {"title": f"Meeting {rng.randint(1, 999)}", "start": f"2026-12-{rng.randint(1, 28):02d}T10:00"}
        if rng.random() < 0.4:
            arguments["attendees"] = [f"person{rng.randint(1, 50)}@example.com" for _ in range(rng.randint(1, 4))]
        name, result = "add_event", "Added."
    record: dict[str, object] = {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }
    return record, result


def valid(rng: random.Random) -> Record:
    """A conversation of one to three tool turns, every call answered right after it."""
    messages: list[object] = [
        {"role": "system", "content": "You are a helpful assistant with weather and calendar tools."},
        {"role": "user", "content": f"What is the weather in {rng.choice(_CITIES)}, and book a meeting?"},
    ]
    for turn in range(rng.randint(1, 3)):
        calls = [_call(rng, number) for number in range(rng.randint(1, 3))]
        messages.append({"role": "assistant", "content": None, "tool_calls": [call for call, _ in calls]})
        for call, result in calls:
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
        if turn == 0 and rng.random() < 0.5:
            messages.append({"role": "assistant", "content": "Anything else?"})
            messages.append({"role": "user", "content": "Yes, one more thing."})
    messages.append({"role": "assistant", "content": "Done: " + "all set. " * rng.randint(1, 20), "weight": 1})
    return {"messages": messages, "tools": TOOLS, "parallel_tool_calls": True}


def _messages(record: Record) -> list[dict[str, object]]:
    messages = record["messages"]
    assert type(messages) is list
    return messages


def _first_call(record: Record) -> tuple[int, dict[str, object]]:
    for index, message in enumerate(_messages(record)):
        calls = message.get("tool_calls")
        if type(calls) is list:
            call = calls[0]
            assert type(call) is dict
            return index, call
    raise AssertionError("a valid record has a call")


def _function(call: dict[str, object]) -> dict[str, object]:
    function = call["function"]
    assert type(function) is dict
    return function


def missing_result(rng: random.Random) -> Record:
    record = valid(rng)
    index, _ = _first_call(record)
    del _messages(record)[index + 1]
    return record


def orphan_result(rng: random.Random) -> Record:
    record = valid(rng)
    _messages(record).insert(2, {"role": "tool", "tool_call_id": "call_gone", "content": "compacted away"})
    return record


def duplicate_call_id(rng: random.Random) -> Record:
    record = valid(rng)
    index, call = _first_call(record)
    messages = _messages(record)
    copy = json.loads(json.dumps(call))
    calls = messages[index]["tool_calls"]
    assert type(calls) is list
    calls.insert(1, copy)
    messages.insert(index + 1, {"role": "tool", "tool_call_id": call["id"], "content": "again"})
    return record


def result_not_adjacent(rng: random.Random) -> Record:
    record = valid(rng)
    index, _ = _first_call(record)
    _messages(record).insert(index + 1, {"role": "user", "content": "hurry up"})
    return record


def undeclared_tool(rng: random.Random) -> Record:
    record = valid(rng)
    _, call = _first_call(record)
    _function(call)["name"] = "send_email"
    return record


def arguments_mismatch(rng: random.Random) -> Record:
    record = valid(rng)
    _, call = _first_call(record)
    function = _function(call)
    function["arguments"] = (
        json.dumps({"city": 7}) if function["name"] == "get_weather" else json.dumps({"title": "no start"})
    )
    return record


def arguments_not_json(rng: random.Random) -> Record:
    record = valid(rng)
    _, call = _first_call(record)
    _function(call)["arguments"] = '{"city": "Par'  # cut off mid-stream
    return record


def bad_declaration(rng: random.Random) -> Record:
    record = valid(rng)
    tools = json.loads(json.dumps(TOOLS))
    tools[1]["function"]["parameters"] = {"type": "nonsense"}
    record["tools"] = tools
    return record


def long_call_id(rng: random.Random) -> Record:
    record = valid(rng)
    index, call = _first_call(record)
    messages = _messages(record)
    old = call["id"]
    call["id"] = "call_" + "x" * 60
    for message in messages[index + 1 :]:
        if message.get("tool_call_id") == old:
            message["tool_call_id"] = call["id"]
    return record


def not_json(rng: random.Random) -> str:
    return json.dumps(valid(rng))[: rng.randint(10, 60)]


def not_a_conversation(rng: random.Random) -> str:
    return json.dumps(rng.choice([[1, 2], {"messages": "hi"}, "text", {"messages": [{"role": "robot"}]}]))


KINDS: Final[dict[str, tuple[Callable[[random.Random], Record | str], frozenset[str]]]] = {
    "valid": (valid, frozenset()),
    "missing_result": (missing_result, frozenset({"MISSING_TOOL_RESULT"})),
    "orphan_result": (orphan_result, frozenset({"ORPHAN_TOOL_RESULT"})),
    "duplicate_call_id": (duplicate_call_id, frozenset({"DUPLICATE_TOOL_CALL_ID"})),
    "result_not_adjacent": (result_not_adjacent, frozenset({"RESULT_NOT_ADJACENT"})),
    "undeclared_tool": (undeclared_tool, frozenset({"UNDECLARED_TOOL"})),
    "arguments_mismatch": (arguments_mismatch, frozenset({"ARGUMENTS_DO_NOT_MATCH_SCHEMA"})),
    "arguments_not_json": (arguments_not_json, frozenset({"BAD_TOOL_ARGUMENTS"})),
    "bad_declaration": (bad_declaration, frozenset({"BAD_TOOL_DECLARATION"})),
    "long_call_id": (long_call_id, frozenset({"BAD_TOOL_CALL_ID_FORMAT"})),
    "not_json": (not_json, frozenset({"INVALID_JSON"})),
    "not_a_conversation": (not_a_conversation, frozenset({"BAD_FORMAT"})),
}
"""Each kind of line: how it is made, and the exact set of codes its line gives."""


def line(kind: str, rng: random.Random) -> bytes:
    made = KINDS[kind][0](rng)
    text = made if type(made) is str else json.dumps(made, separators=(",", ":"))
    assert type(text) is str
    return text.encode()


def single_calls(data: bytes) -> bytes:
    """A line with only the first call of each assistant message (and only its results): the
    shape of ShareGPT rows, whose position rule leaves no room for parallel calls. A line
    that is no record is given back as it was."""
    try:
        record = json.loads(data)
    except ValueError:
        return data
    if type(record) is not dict or type(record.get("messages")) is not list:
        return data
    dropped: set[object] = set()
    kept: list[object] = []
    for message in record["messages"]:
        if type(message) is dict and type(message.get("tool_calls")) is list and message["tool_calls"]:
            calls = message["tool_calls"]
            dropped.update(call.get("id") for call in calls[1:] if type(call) is dict)
            kept.append({**message, "tool_calls": calls[:1]})
        elif not (type(message) is dict and message.get("role") == "tool" and message.get("tool_call_id") in dropped):
            kept.append(message)
    return json.dumps({**record, "messages": kept}, separators=(",", ":")).encode()


def _functions() -> list[dict[str, object]]:
    found = []
    for tool in TOOLS:
        assert type(tool) is dict
        function = tool["function"]
        assert type(function) is dict
        found.append(function)
    return found


def tools_in(format: str) -> object:
    """`TOOLS` as a record of `format` declares them (`convert` carries no declarations)."""
    functions = _functions()
    if format == "anthropic":
        return [
            {"name": f["name"], "description": f["description"], "input_schema": f["parameters"]} for f in functions
        ]
    if format == "openai_responses":
        return [{"type": "function", **f} for f in functions]
    if format == "gemini":
        declarations = [
            {"name": f["name"], "description": f["description"], "parametersJsonSchema": f["parameters"]}
            for f in functions
        ]
        return [{"functionDeclarations": declarations}]
    if format == "sharegpt":
        return json.dumps(functions, ensure_ascii=False)  # LLaMA-Factory keeps them as JSON text
    return TOOLS


def with_tools(data: bytes, format: str) -> bytes:
    """A converted line with `TOOLS` declared in its format's terms (as it was, when it is no
    record or declares tools already)."""
    try:
        record = json.loads(data)
    except ValueError:
        return data
    if type(record) is not dict or "tools" in record:
        return data
    return json.dumps({**record, "tools": tools_in(format)}, separators=(",", ":"), ensure_ascii=False).encode()


def write_dataset(path: Path, lines: int, *, seed: int = 0, valid_share: float = 0.9) -> Counter[str]:
    """Write `lines` lines to `path`: about `valid_share` valid, the rest every broken kind in
    turn, shuffled by `seed`. Returns the kind of each line, counted; the same arguments
    always write the same bytes."""
    rng = random.Random(seed)
    broken = [kind for kind in KINDS if kind != "valid"]
    kinds: Counter[str] = Counter()
    with path.open("wb") as stream:
        for number in range(lines):
            kind = "valid" if rng.random() < valid_share else broken[number % len(broken)]
            kinds[kind] += 1
            stream.write(line(kind, rng) + b"\n")
    return kinds


def kinds_of(lines: int, *, seed: int = 0, valid_share: float = 0.9) -> list[str]:
    """The kind of each line `write_dataset` writes with these arguments, in order."""
    rng = random.Random(seed)
    broken = [kind for kind in KINDS if kind != "valid"]
    found: list[str] = []
    for number in range(lines):
        kind = "valid" if rng.random() < valid_share else broken[number % len(broken)]
        found.append(kind)
        line(kind, rng)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description="Write a generated fine-tuning dataset.")
    parser.add_argument("output", type=Path)
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--valid", type=float, default=0.9, help="the share of valid lines")
    arguments = parser.parse_args()
    kinds = write_dataset(arguments.output, arguments.lines, seed=arguments.seed, valid_share=arguments.valid)
    print(f"{arguments.output}: {arguments.lines:,} lines, {arguments.output.stat().st_size / 1e6:,.1f} MB")
    for kind, count in sorted(kinds.items()):
        print(f"  {kind:<22} {count:,}")


if __name__ == "__main__":
    main()
