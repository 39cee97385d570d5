"""pi sessions (format v2 and later) as trees: `id` / `parentId` followed from the last message
entry, other branches kept, compaction's `firstKeptEntryId`, repair on the live branch. The
session is pi's own real v3 file, with entries appended where a test says."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec

from message_ir import repair_transcript
from message_ir.adapters import pi

REAL = Path(__file__).resolve().parents[3] / "shared" / "real" / "pi"
SESSION = REAL / "kvsankar-agent-history_pi-v3_real-smoke-session-01.jsonl"


def entries() -> list[dict[str, object]]:
    return [json.loads(line) for line in SESSION.read_bytes().splitlines()]


def jsonl(lines: list[dict[str, object]]) -> bytes:
    return b"".join(msgspec.json.encode(line) + b"\n" for line in lines)


def message(entry_id: str, parent: str, body: dict[str, object]) -> dict[str, object]:
    return {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": "2026-06-05T05:25:00.000Z",
        "message": body,
    }


def user(text: str) -> dict[str, object]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1}


def call(call_id: str) -> dict[str, object]:
    block = {"type": "toolCall", "id": call_id, "name": "read", "arguments": {"path": "a"}}
    return {"role": "assistant", "content": [block], "stopReason": "toolUse", "timestamp": 2}


def notes(data: bytes) -> list[str]:
    return [str(note) for note in pi.load(data).notes if note.code in ("OFF_BRANCH", "BROKEN_PARENT_LINK")]


def test_the_real_session_is_one_branch() -> None:
    data = SESSION.read_bytes()
    assert notes(data) == []
    assert [(branch.line, branch.messages, branch.resumed) for branch in pi.branches(data)] == [(5, 2, True)]
    assert pi.dumps(pi.load(data)) == data


def test_a_branch_from_an_earlier_entry_is_the_one_read() -> None:
    lines = entries()
    lines.append(message("b1", "4e3d2034", user("Ask again")))  # a new prompt from before line 5's
    data = jsonl(lines)
    conversation = pi.load(data)
    assert [m.content for m in conversation.messages] == ["Ask again"]
    assert notes(data) == [
        "OFF_BRANCH: Message lines 5-6 not on the resumed branch: another branch (a rewind or an edited prompt); "
        "kept as is - at `$[4]`"
    ]
    assert pi.dumps(conversation) == data
    old = pi.load(data, leaf="65697c71")
    assert len(old.messages) == 2
    assert pi.dumps(old) == data
    assert [(branch.leaf, branch.resumed) for branch in pi.branches(data)] == [("65697c71", False), ("b1", True)]


def test_a_compaction_leaves_what_it_summarized_off_the_branch() -> None:
    lines = entries()
    lines.append(message("u2", "65697c71", user("Next")))
    lines.append(
        {"type": "compaction", "id": "c1", "parentId": "u2", "timestamp": "t", "summary": "s", "firstKeptEntryId": "u2"}
    )
    lines.append(message("u3", "c1", user("After")))
    data = jsonl(lines)
    assert [m.content for m in pi.load(data).messages] == ["Next", "After"]
    assert notes(data) == [
        "OFF_BRANCH: Message lines 5-6 not on the resumed branch: before a compaction boundary (no longer sent); "
        "kept as is - at `$[4]`"
    ]


def test_repair_of_a_lost_result_puts_it_on_the_live_branch() -> None:
    lines = entries()
    lines.append(message("a2", "65697c71", call("call_1")))
    lines.append(message("u2", "a2", user("Where is the result?")))  # the result was never written
    data = jsonl(lines)
    assert [d.code for d in pi.check(data)] == ["MISSING_TOOL_RESULT"]
    conversation = pi.load(data)
    repaired = repair_transcript(conversation.messages)
    written = pi.dumps(conversation.replace(messages=repaired.messages))
    after = [json.loads(line) for line in written.splitlines()]
    assert after[:7] == lines[:7]
    new = after[7]
    assert (new["type"], new["parentId"], new["message"]["role"]) == ("message", "a2", "toolResult")
    assert type(new["id"]) is str
    assert len(new["id"]) == 8
    assert after[8] == {**lines[7], "parentId": new["id"]}
    assert pi.check(written) == ()
    assert len(pi.load(written).messages) == len(repaired.messages)


def test_a_session_without_ids_reads_in_file_order_and_gets_none() -> None:
    lines = [{key: value for key, value in line.items() if key not in ("id", "parentId")} for line in entries()]
    lines.append({"type": "message", "timestamp": "t", "message": call("call_1")})
    data = jsonl(lines)
    conversation = pi.load(data)
    repaired = repair_transcript(conversation.messages)
    written = [json.loads(line) for line in pi.dumps(conversation.replace(messages=repaired.messages)).splitlines()]
    assert "id" not in written[-1]
    assert "parentId" not in written[-1]
    assert pi.branches(data) == ()
