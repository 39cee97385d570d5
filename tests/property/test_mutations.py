"""The mutation fuzz: the real files, changed a little, load and write back exactly, or are refused.

Each example takes a real file of `../shared/real` (or one line of a real log), changes it
one to three times at random places — a key inserted, deleted or moved, items of a list
swapped, duplicated or deleted, a scalar replaced — and then asks of the format's adapter
what it promises: `check` never raises; `load` either refuses with a `FormatError` or gives
a conversation whose `dump` is the input again, values and key order alike; and what it
loaded saves in the IR's own JSON and reads back equal.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from types import ModuleType

from hypothesis import given
from hypothesis import strategies as st

from message_ir.adapters import FormatError, anthropic, claude_code, codex, gemini_cli, openai_chat, pi
from tests.adapters.real import anthropic_messages, openai_chat_messages, real_files
from tests.support import assert_saves_in_the_ir


def _jsonl(path: Path) -> list[object]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def _sources() -> list[tuple[str, ModuleType, object]]:
    found: list[tuple[str, ModuleType, object]] = []
    for path in real_files("openai-chat", "*.json"):
        found.append((path.name, openai_chat, openai_chat_messages(path)))
    for path in real_files("anthropic", "*.jsonl"):
        found.append((path.name, anthropic, anthropic_messages(path)))
        found.append((path.name, claude_code, _jsonl(path)))
    for path in real_files("claude-code-inline-sidechain", "*.jsonl"):
        found.append((path.name, claude_code, _jsonl(path)))
    for path in real_files("openai-responses", "*.jsonl"):
        found.append((path.name, codex, _jsonl(path)))
    for path in real_files("pi", "*.jsonl"):
        found.append((path.name, pi, _jsonl(path)))
    for path in real_files("gemini", "*.json"):
        found.append((path.name, gemini_cli, json.loads(path.read_bytes())))
    return found


SOURCES = _sources()
_SCALARS = st.sampled_from([None, True, False, 0, 1, -1, 1.5, "", "x", "user", "assistant", "text", "tool_use"])
_KEYS = st.sampled_from(["id", "type", "role", "content", "text", "input", "arguments", "name", "extra", "x"])


def _places(value: object, path: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """Every place in a JSON value, as a path of keys and indexes."""
    places = [path]
    if type(value) is dict:
        for key, item in value.items():
            places.extend(_places(item, (*path, key)))
    elif type(value) is list:
        for index, item in enumerate(value):
            places.extend(_places(item, (*path, index)))
    return places


def _at(value: object, path: tuple[object, ...]) -> object:
    for step in path:
        value = value[step]  # type: ignore[index]  # a path `_places` found in this value
    return value


def _replace(root: object, path: tuple[object, ...], new: object) -> object:
    if not path:
        return new
    parent = _at(root, path[:-1])
    parent[path[-1]] = new  # type: ignore[index]  # as above
    return root


@st.composite
def mutated(draw: st.DrawFn, value: object) -> object:
    value = copy.deepcopy(value)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(_places(value)))
        node = _at(value, path)
        if type(node) is dict:
            keys = list(node)
            operation = draw(st.sampled_from(["insert", "delete", "reorder"] if keys else ["insert"]))
            if operation == "insert":
                node[draw(_KEYS)] = draw(_SCALARS)
            elif operation == "delete":
                del node[draw(st.sampled_from(keys))]
            else:
                order = draw(st.permutations(keys))
                value = _replace(value, path, {key: node[key] for key in order})
        elif type(node) is list and node:
            operation = draw(st.sampled_from(["swap", "duplicate", "delete"]))
            first = draw(st.integers(0, len(node) - 1))
            if operation == "swap":
                second = draw(st.integers(0, len(node) - 1))
                node[first], node[second] = node[second], node[first]
            elif operation == "duplicate":
                node.insert(first, copy.deepcopy(node[first]))
            else:
                del node[first]
        else:
            value = _replace(value, path, draw(_SCALARS))
    return value


@st.composite
def mutated_sources(draw: st.DrawFn) -> tuple[str, ModuleType, object]:
    name, module, value = draw(st.sampled_from(SOURCES))
    if module in (claude_code, codex, pi):  # a log: change one line or two, keep the others
        lines = list(value)  # type: ignore[call-overload]  # a log's lines are a list
        for _ in range(draw(st.integers(1, 2))):
            index = draw(st.integers(0, len(lines) - 1))
            lines[index] = draw(mutated(lines[index]))
        return name, module, lines
    return name, module, draw(mutated(value))


@given(mutated_sources())
def test_a_mutated_real_file_loads_and_writes_back_exactly_or_is_refused(
    source: tuple[str, ModuleType, object],
) -> None:
    _, module, value = source
    assert type(module.check(value)) is tuple
    try:
        conversation = module.load(value)
    except FormatError:
        return
    assert json.dumps(module.dump(conversation)) == json.dumps(value)
    assert_saves_in_the_ir(conversation.messages)
