"""Lone surrogate escapes: found exactly, named by `parse`, replaced line by line by `repair`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from message_ir import Diagnostic
from message_ir.adapters import claude_code
from message_ir.adapters._surrogates import lone_surrogate_escapes, replaced


@pytest.mark.parametrize(
    ("text", "lone"),
    [
        (rb'"a\ud83d"', [(2, 8)]),  # a high half alone
        (rb'"\ude00"', [(1, 7)]),  # a low half alone
        (rb'"\ud83d\ude00"', []),  # a pair: one character
        (rb'"\\ud83d"', []),  # an escaped backslash, then text
        (rb'"\\\ud83d x"', [(3, 9)]),  # an escaped backslash, then a lone escape
        (rb'"\ud83d\ud83d\ude00"', [(1, 7)]),  # the first high half has no low half
        (rb'"\uD83D"', [(1, 7)]),  # upper case
        (rb'"\u00e9"', []),
    ],
)
def test_lone_surrogate_escapes_are_found_exactly(text: bytes, lone: list[tuple[int, int]]) -> None:
    assert lone_surrogate_escapes(text) == lone
    fixed, count = replaced(text)
    assert count == len(lone)
    json.loads(fixed)  # still JSON
    assert lone_surrogate_escapes(fixed) == []


@given(st.text())
def test_text_json_writes_has_none_and_replacing_keeps_it(text: str) -> None:
    data = json.dumps(text).encode()  # ASCII escapes, pairs for astral characters
    assert lone_surrogate_escapes(data) == []
    assert replaced(data) == (data, 0)


def test_parse_names_the_escape_instead_of_calling_the_line_truncated() -> None:
    data = b'{"type":"user","message":{"role":"user","content":"cut \\ud83d"}}\n'
    assert claude_code.check(data) == (
        Diagnostic(
            "INVALID_JSON",
            0,
            "$[0]",
            "Invalid JSON: A lone surrogate escape `\\ud83d` at byte 55: half of a UTF-16 pair, which is no text",
        ),
    )


def test_repair_replaces_the_escape_on_its_line_and_repairs_the_rest(tmp_path: Path) -> None:
    lines = [
        {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "hi"}},
        {
            "type": "assistant",
            "uuid": "a1",
            "message": {
                "id": "m1",
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}],
            },
        },
        {
            "type": "user",
            "uuid": "u2",
            "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "X"}]},
        },
        {
            "type": "assistant",
            "uuid": "a2",
            "message": {
                "id": "m2",
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "toolu_2", "name": "Read", "input": {}}],
            },
        },
    ]
    text = "".join(json.dumps(line) + "\n" for line in lines).replace('"X"', '"cut \\ud83d"')
    path = tmp_path / "session.jsonl"
    path.write_text(text)
    out = tmp_path / "out.jsonl"
    completed = subprocess.run(
        [sys.executable, "-m", "message_ir", "repair", str(path), "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (completed.returncode, completed.stderr) == (
        0,
        f"{path}:3: INVALID_JSON replaced_surrogate: Replaced 1 lone surrogate escape with U+FFFD\n"
        f"{path}:4: MISSING_TOOL_RESULT inserted_result: Inserted an error result for 'toolu_2', which had none\n",
    )
    written = [json.loads(line) for line in out.read_bytes().splitlines()]
    assert written[2]["message"]["content"][0]["content"] == "cut \ufffd"
    assert written[:2] == lines[:2]
    assert len(written) == 5
    assert claude_code.check(out.read_bytes()) == ()


def test_repair_of_only_an_escape_keeps_every_other_byte(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    path.write_bytes(b'{"type": "user", "message": {"role": "user", "content": "a \\ud83d b",  "n": 0.000009}}\n')
    subprocess.run(
        [sys.executable, "-m", "message_ir", "repair", "--from", "claude-code", str(path), "-o", str(path)],
        timeout=60,
        check=True,
    )
    assert (
        path.read_bytes()
        == b'{"type": "user", "message": {"role": "user", "content": "a \\ufffd b",  "n": 0.000009}}\n'
    )
