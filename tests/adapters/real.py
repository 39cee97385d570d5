"""The real transcripts of `../shared/real/`, read in place (never copied into the repository)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

REAL = Path(__file__).resolve().parents[3] / "shared" / "real"
"""`../shared/real` beside the checkout."""


def real_files(folder: str, pattern: str) -> list[Path]:
    """The real files of one folder, sorted; the test is skipped where `../shared` is absent."""
    if not REAL.is_dir():
        pytest.skip(f"the real transcripts are not here ({REAL} is absent)", allow_module_level=True)
    return sorted((REAL / folder).glob(pattern))


def ids(paths: list[Path]) -> list[str]:
    return [path.name for path in paths]


def openai_chat_messages(path: Path) -> list[object]:
    """The messages of a tau-bench record (`traj`) or an SWE-agent trajectory (`history`)."""
    record = json.loads(path.read_bytes())
    assert type(record) is dict
    messages = record["traj"] if "traj" in record else record["history"]
    assert type(messages) is list
    return messages


def anthropic_messages(path: Path) -> list[dict[str, object]]:
    """The API messages a Claude Code log stands for.

    Each `user` / `assistant` line wraps one Anthropic message; all lines sharing one
    `message.id` are one assistant message (their content blocks in file order), even when
    tool-result lines come between them. The first line's message gives the other fields.
    """
    messages: list[dict[str, object]] = []
    by_id: dict[str, dict[str, object]] = {}
    for line in path.read_bytes().splitlines():
        entry = json.loads(line)
        if type(entry) is not dict or entry.get("type") not in ("user", "assistant"):
            continue
        message = entry["message"]
        assert type(message) is dict
        message_id = message.get("id") if message.get("role") == "assistant" else None
        if type(message_id) is str and message_id in by_id:
            merged = by_id[message_id]
            content = merged["content"]
            assert type(content) is list
            more = message["content"]
            assert type(more) is list
            content.extend(more)
            continue
        copy = dict(message)
        if type(copy.get("content")) is list:
            content = copy["content"]
            assert type(content) is list
            copy["content"] = list(content)
        if type(message_id) is str:
            by_id[message_id] = copy
        messages.append(copy)
    return messages
