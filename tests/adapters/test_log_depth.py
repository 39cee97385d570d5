"""A log line nested too deeply for the IR: a problem at that line in every log format, never
an exception from `load`'s insides, a traceback on the command line, or a line-less answer."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from message_ir import MAX_DEPTH, Diagnostic
from message_ir.adapters import FormatError, claude_code, codex, gemini_cli, pi


def _deep(levels: int = MAX_DEPTH + 6) -> dict[str, object]:
    value: dict[str, object] = {}
    for _ in range(levels):
        value = {"x": value}
    return value


def _lines(*values: object) -> bytes:
    return b"".join(json.dumps(value).encode() + b"\n" for value in values)


USER = {"type": "user", "uuid": "u1", "parentUuid": None, "message": {"role": "user", "content": "hi"}}
ASSISTANT = {
    "type": "assistant",
    "uuid": "a1",
    "parentUuid": "u1",
    "message": {"id": "m1", "role": "assistant", "content": [{"type": "text", "text": "yo"}]},
}
PI_SESSION = {"type": "session", "version": 3, "id": "s", "timestamp": "t", "cwd": "/"}
PI_USER = {
    "type": "message",
    "id": "1",
    "parentId": None,
    "timestamp": "t",
    "message": {"role": "user", "content": "hi"},
}
CODEX_META = {"timestamp": "t", "type": "session_meta", "payload": {"id": "s"}}
CODEX_USER = {
    "timestamp": "t",
    "type": "response_item",
    "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
}

CASES: list[tuple[str, ModuleType, bytes, Diagnostic]] = [
    (
        "claude_code: a message line",
        claude_code,
        _lines(USER, {**ASSISTANT, "extra": _deep()}),
        Diagnostic("BAD_FORMAT", 1, "$[1]", f"Nesting deeper than {MAX_DEPTH} levels"),
    ),
    (
        "claude_code: a line that is not a message",
        claude_code,
        _lines(USER, {"type": "progress", "data": _deep()}, ASSISTANT),
        Diagnostic("BAD_FORMAT", 1, "$[1]", f"Nesting deeper than {MAX_DEPTH} levels"),
    ),
    (
        "pi: a message line",
        pi,
        _lines(PI_SESSION, {**PI_USER, "extra": _deep()}),
        Diagnostic("BAD_FORMAT", 1, "$[1]", f"Nesting deeper than {MAX_DEPTH} levels"),
    ),
    (
        "pi: a line that is not a message",
        pi,
        _lines({**PI_SESSION, "extra": _deep()}, PI_USER),
        Diagnostic("BAD_FORMAT", 0, "$[0]", f"Nesting deeper than {MAX_DEPTH} levels"),
    ),
    (
        "codex: a message line",
        codex,
        _lines(CODEX_META, {**CODEX_USER, "extra": _deep()}),
        Diagnostic("BAD_FORMAT", 1, "$[1].payload", f"Nesting deeper than {MAX_DEPTH} levels"),
    ),
    (
        "codex: a line that is not a message",
        codex,
        _lines({**CODEX_META, "extra": _deep()}, CODEX_USER),
        Diagnostic("BAD_FORMAT", 0, "$[0]", f"Nesting deeper than {MAX_DEPTH} levels"),
    ),
    (
        "gemini_cli: a message record",
        gemini_cli,
        json.dumps(
            {"sessionId": "s", "messages": [{"id": "1", "type": "user", "content": "hi", "extra": _deep()}]}
        ).encode(),
        Diagnostic("BAD_FORMAT", 0, "$.messages[0]", f"Nesting deeper than {MAX_DEPTH} levels"),
    ),
    (
        "gemini_cli: a record that is not a message",
        gemini_cli,
        json.dumps(
            {
                "sessionId": "s",
                "messages": [{"id": "1", "type": "user", "content": "hi"}, {"type": "info", "content": _deep()}],
            }
        ).encode(),
        Diagnostic("BAD_FORMAT", 1, "$.messages[1]", f"Nesting deeper than {MAX_DEPTH} levels"),
    ),
]


@pytest.mark.parametrize(("module", "data", "expected"), [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_a_line_too_deep_is_a_problem_at_that_line(module: ModuleType, data: bytes, expected: Diagnostic) -> None:
    assert module.check(data) == (expected,)
    with pytest.raises(FormatError) as raised:
        module.load(data)
    assert raised.value.diagnostics == (expected,)


@pytest.mark.parametrize("command", ["validate", "repair", "convert"])
def test_the_command_line_names_the_line(command: str, tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    path.write_bytes(CASES[0][2])
    arguments = [command, "--from", "claude-code", str(path)]
    if command == "convert":
        arguments += ["--to", "anthropic"]
    completed = subprocess.run(
        [sys.executable, "-m", "message_ir", *arguments], capture_output=True, text=True, timeout=60, check=False
    )
    assert "Traceback" not in completed.stderr
    assert completed.returncode == 1
    line = f"{path}:2: BAD_FORMAT Nesting deeper than {MAX_DEPTH} levels (at $[1])"  # the 1-based line
    assert line in (completed.stdout + completed.stderr).splitlines()
