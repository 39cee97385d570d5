"""What any adapter loads saves in the IR's own JSON and JSON Lines, and reads back equal."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from message_ir.adapters import anthropic, claude_code, codex, gemini_cli, openai_chat, pi
from tests.adapters.real import anthropic_messages, ids, openai_chat_messages, real_files
from tests.support import assert_saves_in_the_ir

LOGS: list[tuple[Path, ModuleType]] = (
    [(path, claude_code) for path in real_files("anthropic", "*.jsonl")]
    + [(path, claude_code) for path in real_files("claude-code-inline-sidechain", "*.jsonl")]
    + [(path, codex) for path in real_files("openai-responses", "*.jsonl")]
    + [(path, pi) for path in real_files("pi", "*.jsonl")]
    + [(path, gemini_cli) for path in real_files("gemini", "*.json")]
)


@pytest.mark.parametrize(("path", "module"), LOGS, ids=ids([path for path, _ in LOGS]))
def test_a_loaded_real_log_saves_in_the_ir(path: Path, module: ModuleType) -> None:
    assert_saves_in_the_ir(module.load(path.read_bytes()).messages)


@pytest.mark.parametrize("path", real_files("openai-chat", "*.json"), ids=ids(real_files("openai-chat", "*.json")))
def test_a_loaded_real_openai_transcript_saves_in_the_ir(path: Path) -> None:
    assert_saves_in_the_ir(openai_chat.load(openai_chat_messages(path)).messages)


@pytest.mark.parametrize("path", real_files("anthropic", "*.jsonl"), ids=ids(real_files("anthropic", "*.jsonl")))
def test_a_loaded_real_anthropic_transcript_saves_in_the_ir(path: Path) -> None:
    assert_saves_in_the_ir(anthropic.load(anthropic_messages(path)).messages)
