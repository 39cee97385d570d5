"""The session-log adapters on the real logs of `../shared/real/` (read in place, never copied).

Every log loads, writes back line for line (values and key order), and checks clean, but for
the documented defects of `broken/` and the redacted Codex logs, whose `arguments` are
placeholders that are not JSON (`BAD_TOOL_ARGUMENTS` at each call, and nothing else).
Repairing a broken log gives a file its own `check` accepts that keeps every original line.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from types import ModuleType

import msgspec
import pytest

from message_ir import AssistantMessage, ToolCall, repair_transcript, validate_transcript
from message_ir.adapters import claude_code, codex, convert, detect, openai_chat, openai_responses, pi
from tests.adapters.real import ids, openai_chat_messages, real_files

CLAUDE_CODE = real_files("anthropic", "*.jsonl")
CODEX = real_files("openai-responses", "*.jsonl")
PI = real_files("pi", "*.jsonl")
BROKEN = real_files("broken", "*.jsonl")
OPENAI = real_files("openai-chat", "*.json")

LOGS: list[tuple[Path, ModuleType]] = (
    [(path, claude_code) for path in CLAUDE_CODE]
    + [(path, codex) for path in CODEX]
    + [(path, pi) for path in PI]
    + [(path, codex if "codex" in path.name else pi) for path in BROKEN]
)

BROKEN_EXPECTED: dict[str, list[tuple[str, int, str]]] = {
    # (code, 0-based line, path) of every diagnostic PROVENANCE.md documents, BAD_TOOL_ARGUMENTS aside
    "pi-mono_large-session_lines0-35_error-terminated-16-calls-no-results.jsonl": [
        ("MISSING_TOOL_RESULT", 32, f"$[32].message.content[{number}]") for number in range(1, 17)
    ],
    "pi-mono_before-compaction_lines0+360-391_aborted-calls-no-results.jsonl": [
        ("MISSING_TOOL_RESULT", 14, "$[14].message.content[1]"),
        ("MISSING_TOOL_RESULT", 26, "$[26].message.content[0]"),
        ("MISSING_TOOL_RESULT", 26, "$[26].message.content[1]"),
        ("MISSING_TOOL_RESULT", 26, "$[26].message.content[2]"),
    ],
    "pi-mono_before-compaction_lines0+618-640_call-lost-at-compaction.jsonl": [
        ("MISSING_TOOL_RESULT", 10, "$[10].message.content[1]"),
    ],
    "localpush_codex-desktop_rollout-019c8a70_ends-with-pending-call_redacted.jsonl": [
        ("MISSING_TOOL_RESULT", 17, "$[17].payload"),
    ],
    "localpush_codex-desktop_rollout-019c8a53_lines0+800-836_call-never-answered_redacted.jsonl": [
        ("MISSING_TOOL_RESULT", 26, "$[26].payload"),
    ],
}


def _lines(data: bytes) -> list[object]:
    return [json.loads(line) for line in data.splitlines()]


def _same(left: list[object], right: list[object]) -> bool:
    """Equal values, and every object's keys in the same order."""
    return json.dumps(left) == json.dumps(right)


@pytest.mark.parametrize(("path", "module"), LOGS, ids=ids([path for path, _ in LOGS]))
def test_every_real_log_loads_and_writes_back_line_for_line(path: Path, module: ModuleType) -> None:
    data = path.read_bytes()
    conversation = module.load(data)
    linkage = ("MISSING_TOOL_RESULT", "ORPHAN_TOOL_RESULT", "DUPLICATE_TOOL_CALL_ID", "DUPLICATE_TOOL_RESULT")
    shape = [d for d in validate_transcript(conversation.messages) if d.code not in linkage]
    assert shape == []
    assert _same(_lines(module.dumps(conversation)), _lines(data))
    assert module.dump(conversation) == _lines(data)
    assert _same(_lines(module.dumps(module.load(_lines(data)))), _lines(data))  # the parsed lines too
    assert detect(data) == module.NAME


@pytest.mark.parametrize(("path", "module"), LOGS, ids=ids([path for path, _ in LOGS]))
def test_dumps_writes_the_lines_dump_gives(path: Path, module: ModuleType) -> None:
    """`dumps` writes the lines that are no messages from their JSON text (not thawed first):
    still `dump`'s lines, encoded, with every message, with each second one dropped (a tree's
    lines relinked) and repaired (lines added); `dump` gives plain data only."""
    conversation = module.load(path.read_bytes())
    dropped = conversation.messages[::2]
    for messages in (conversation.messages, dropped, repair_transcript(dropped).messages):
        changed = conversation.replace(messages=messages)
        lines = module.dump(changed)
        assert module.dumps(changed) == b"".join(msgspec.json.encode(line) + b"\n" for line in lines)
        assert json.loads(json.dumps(lines)) == lines  # plain data: no JSON text left in place


@pytest.mark.parametrize(("path", "module"), LOGS, ids=ids([path for path, _ in LOGS]))
def test_real_logs_check_clean_but_for_their_documented_defects(path: Path, module: ModuleType) -> None:
    found = module.check(path.read_bytes())
    expected = BROKEN_EXPECTED.get(path.name, [])
    assert [(d.code, d.message_index, d.path) for d in found if d.code != "BAD_TOOL_ARGUMENTS"] == expected
    redacted = [d for d in found if d.code == "BAD_TOOL_ARGUMENTS"]
    if "redacted" in path.name:
        assert redacted
        assert all(d.message == "Expected a JSON object as the arguments text" for d in redacted)
        assert all(d.path.endswith(".payload.arguments") for d in redacted)
    else:
        assert redacted == []


@pytest.mark.parametrize("path", BROKEN, ids=ids(BROKEN))
def test_a_repaired_broken_log_checks_clean_and_keeps_every_line(path: Path) -> None:
    module = codex if "codex" in path.name else pi
    data = path.read_bytes()
    conversation = module.load(data)
    repaired = repair_transcript(conversation.messages)
    assert Counter(fix.action for fix in repaired.fixes) == {"inserted_result": len(BROKEN_EXPECTED[path.name])}
    written = module.dumps(conversation.replace(messages=repaired.messages))
    assert [d.code for d in module.check(written) if d.code != "BAD_TOOL_ARGUMENTS"] == []
    original = [json.dumps(line) for line in _lines(data)]
    new = [json.dumps(line) for line in _lines(written)]
    assert len(new) == len(original) + len(BROKEN_EXPECTED[path.name])
    remaining = iter(new)
    assert all(line in remaining for line in original)  # every original line, in order


def test_a_repaired_pi_result_is_written_as_pi_writes_one() -> None:
    path = next(path for path in BROKEN if "call-lost-at-compaction" in path.name)
    conversation = pi.load(path.read_bytes())
    written = _lines(pi.dumps(conversation.replace(messages=repair_transcript(conversation.messages).messages)))
    assert json.dumps(written[11]) == json.dumps(  # right after the call; stamped as the line before it
        {
            "type": "message",
            "timestamp": "2025-12-08T23:54:00.604Z",
            "message": {
                "role": "toolResult",
                "toolCallId": "toolu_01571BXn2nSXvrR7sxVHAXXE",
                "toolName": "bash",
                "content": [{"type": "text", "text": "Tool call was interrupted before it returned a result."}],
                "isError": True,
                "timestamp": 1765238036367,
            },
        }
    )


def test_a_repaired_codex_output_is_written_as_codex_writes_one() -> None:
    path = next(path for path in BROKEN if "ends-with-pending-call" in path.name)
    conversation = codex.load(path.read_bytes())
    written = _lines(codex.dumps(conversation.replace(messages=repair_transcript(conversation.messages).messages)))
    call = next(n for n, line in enumerate(written) if "call_UtYwHmwWekzvq83m8Rb9K8jJ" in json.dumps(line))
    new = written[call + 1]  # right after the call, stamped as the line before it
    assert type(new) is dict
    assert list(new) == ["timestamp", "type", "payload"]
    assert new["type"] == "response_item"
    assert new["timestamp"] == "2026-02-23T12:19:52.620Z"
    assert new["payload"] == {
        "type": "function_call_output",
        "call_id": "call_UtYwHmwWekzvq83m8Rb9K8jJ",
        "output": "Tool call was interrupted before it returned a result.",
    }


@pytest.mark.parametrize("path", CLAUDE_CODE, ids=ids(CLAUDE_CODE))
def test_a_claude_code_log_with_a_lost_result_is_diagnosed_and_repaired(path: Path) -> None:
    lines = path.read_bytes().splitlines()
    on_branch = {  # the lines of the conversation (a line before a compaction is not one)
        msgspec.json.decode(message.meta_json)["claude_code"]["line"]
        for message in claude_code.load(path.read_bytes()).messages
    }
    results = [
        number
        for number, line in enumerate(lines)
        if '"tool_result"' in line.decode() and json.loads(line).get("type") == "user" and number in on_branch
    ]
    if not results:
        pytest.skip("no tool result in this log")
    dropped = results[0]
    # the result was never written: the line after it hangs from what it hung from
    lost = json.loads(lines[dropped])
    kept = [json.loads(line) for line in lines[:dropped] + lines[dropped + 1 :]]
    for line in kept:
        if "uuid" in lost and line.get("parentUuid") == lost["uuid"]:
            line["parentUuid"] = lost["parentUuid"]
    broken = b"".join(json.dumps(line).encode() + b"\n" for line in kept)
    found = claude_code.check(broken)
    assert [d.code for d in found] == ["MISSING_TOOL_RESULT"] * len(found)
    assert found
    conversation = claude_code.load(broken)
    repaired = repair_transcript(conversation.messages)
    written = claude_code.dumps(conversation.replace(messages=repaired.messages))
    assert claude_code.check(written) == ()
    # every line kept in order; in a tree, one line's `parentUuid` now names the new result
    original = [json.dumps({**json.loads(line), "parentUuid": None}) for line in broken.splitlines()]
    new = [json.dumps({**(line if type(line) is dict else {}), "parentUuid": None}) for line in _lines(written)]
    remaining = iter(new)
    assert all(line in remaining for line in original)
    assert len(new) == len(original) + len(found)


def test_lines_sharing_a_message_id_are_one_assistant_message() -> None:
    path = next(path for path in CLAUDE_CODE if "tool_heavy" in path.name)
    data = path.read_bytes()
    ids_by_line = [
        line["message"].get("id") for line in map(json.loads, data.splitlines()) if line.get("type") == "assistant"
    ]
    conversation = claude_code.load(data)
    assistants = [message for message in conversation.messages if type(message) is AssistantMessage]
    assert len(assistants) == len(set(ids_by_line)) < len(ids_by_line)


@pytest.mark.parametrize("path", OPENAI, ids=ids(OPENAI))
def test_openai_chat_converts_to_responses_and_back_to_codex(path: Path) -> None:
    conversation = openai_chat.load(openai_chat_messages(path))
    if validate_transcript(conversation.messages):
        pytest.skip("reuses call IDs: linkage not valid in the IR")
    converted = convert(conversation, "openai_responses")
    assert openai_responses.check(openai_responses.dumps(converted)) == ()
    as_codex = convert(conversation, "codex")
    assert codex.check(codex.dumps(as_codex)) == ()
    calls = [block for message in converted.messages if type(message) is AssistantMessage for block in message.content]
    assert sum(type(block) is ToolCall for block in calls) == sum(
        len(message.get("tool_calls") or []) for message in openai_chat_messages(path) if type(message) is dict
    )
