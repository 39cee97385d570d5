"""Claude Code logs as trees: the branch Claude Code resumes, other branches kept, repair on
the live branch, and broken links. Every log here is a real one from `../shared/real`,
changed only where a test says (a branch appended, a parent link edited)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from unittest import mock

import msgspec
import pytest

from message_ir import repair_transcript
from message_ir.adapters import FormatError, _build, claude_code

REAL = Path(__file__).resolve().parents[3] / "shared" / "real"
INLINE_SIDECHAIN = (
    REAL / "claude-code-inline-sidechain" / "d-kimuson-claude-code-viewer_claude-code-1.0.108_session-5c0375b4.jsonl"
)
SUBAGENT_LOG = REAL / "anthropic" / "spotter_claude-code_sidechain_agent-a7be2f0.jsonl"


def lines_of(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def jsonl(lines: list[dict[str, object]]) -> bytes:
    return b"".join(msgspec.json.encode(line) + b"\n" for line in lines)


def tree_notes(data: bytes) -> list[str]:
    codes = ("OFF_BRANCH", "BROKEN_PARENT_LINK", "SIDECHAIN_BRANCH")
    return [str(note) for note in claude_code.load(data).notes if note.code in codes]


def test_inline_sub_agent_lines_are_off_the_branch_and_written_back() -> None:
    data = INLINE_SIDECHAIN.read_bytes()
    conversation = claude_code.load(data)
    assert claude_code.check(data) == ()  # three results were "not adjacent" when read in file order
    assert tree_notes(data) == [
        "OFF_BRANCH: Message lines 16-22 not on the resumed branch: a sub-agent's lines (isSidechain); kept as is"
        " - at `$[15]`",
        "OFF_BRANCH: Message lines 26-40 not on the resumed branch: a sub-agent's lines (isSidechain); kept as is"
        " - at `$[25]`",
    ]
    lines = lines_of(INLINE_SIDECHAIN)
    read = {msgspec.json.decode(m.meta_json)["claude_code"].get("line") for m in conversation.messages}
    assert not any(lines[number].get("isSidechain") for number in read if type(number) is int)
    assert claude_code.dumps(conversation) == data
    assert [(branch.line, branch.sidechain, branch.resumed) for branch in claude_code.branches(data)] == [
        (21, True, False),
        (39, True, False),
        (52, False, True),
    ]


def with_rewind(lines: list[dict[str, object]], at: int) -> list[dict[str, object]]:
    """The log with a new branch appended: line `at` (a user line) asked again, differently,
    and answered, as Claude Code writes a rewind to that prompt."""
    prompt = dict(lines[at])
    prompt["uuid"] = "rewound-prompt"
    prompt["message"] = {"role": "user", "content": "Do it another way."}
    answer = dict(next(line for line in lines[at:] if line.get("type") == "assistant"))
    answer["uuid"] = "rewound-answer"
    answer["parentUuid"] = "rewound-prompt"
    answer["message"] = {
        "id": "msg_rewound",
        "type": "message",
        "role": "assistant",
        "model": "claude",
        "content": [{"type": "text", "text": "Done another way."}],
    }
    return [*lines, prompt, answer]


def test_a_rewind_reads_the_new_branch_and_keeps_the_old_one() -> None:
    lines = lines_of(INLINE_SIDECHAIN)
    data = jsonl(with_rewind(lines, 1))
    conversation = claude_code.load(data)
    assert [message.content for message in conversation.messages if message.role == "user"][-1] == "Do it another way."
    assert len(conversation.messages) == 3  # the first prompt, the prompt asked again, its answer
    assert claude_code.check(data) == ()
    assert claude_code.dumps(conversation) == data
    assert tree_notes(data) == [
        "OFF_BRANCH: Message lines 2-15 not on the resumed branch: another branch (a rewind or an edited prompt); "
        "kept as is - at `$[1]`",
        "OFF_BRANCH: Message lines 16-22 not on the resumed branch: a sub-agent's lines (isSidechain); kept as is"
        " - at `$[15]`",
        "OFF_BRANCH: Message lines 23-25 not on the resumed branch: another branch (a rewind or an edited prompt); "
        "kept as is - at `$[22]`",
        "OFF_BRANCH: Message lines 26-40 not on the resumed branch: a sub-agent's lines (isSidechain); kept as is"
        " - at `$[25]`",
        "OFF_BRANCH: Message lines 41-53 not on the resumed branch: another branch (a rewind or an edited prompt); "
        "kept as is - at `$[40]`",
    ]
    branches = claude_code.branches(data)
    assert [(branch.leaf, branch.resumed) for branch in branches][-2:] == [
        (lines[52]["uuid"], False),
        ("rewound-answer", True),
    ]
    old = claude_code.load(data, leaf=str(lines[52]["uuid"]))
    assert old.messages == claude_code.load(jsonl(lines)).messages[: len(old.messages)]
    assert len(old.messages) == len(claude_code.load(jsonl(lines)).messages)
    assert claude_code.dumps(old) == data


def test_a_leaf_no_line_has_is_a_value_error() -> None:
    with pytest.raises(ValueError, match=r"^No line of this log has the ID 'nope'$"):
        claude_code.load(INLINE_SIDECHAIN.read_bytes(), leaf="nope")


def test_repair_of_a_mid_log_result_puts_it_on_the_live_branch() -> None:
    lines = lines_of(INLINE_SIDECHAIN)
    call_line, result_line = lines[41], lines[42]
    assert result_line["parentUuid"] == call_line["uuid"]
    broken = [line for number, line in enumerate(lines) if number != 42]
    broken[42] = {**broken[42], "parentUuid": call_line["uuid"]}  # the result was lost on Ctrl+C
    data = jsonl(broken)
    assert [d.code for d in claude_code.check(data)] == ["MISSING_TOOL_RESULT"]
    conversation = claude_code.load(data)
    repaired = repair_transcript(conversation.messages)
    written = claude_code.dumps(msgspec.structs.replace(conversation, messages=repaired.messages))
    after = [json.loads(line) for line in written.splitlines()]
    assert len(after) == len(broken) + 1
    new = after[42]
    assert new["parentUuid"] == call_line["uuid"]
    changed = [(number, line) for number, line in enumerate(broken) if line not in after]
    assert [number for number, _ in changed] == [42]
    moved = after[43]
    assert {key: value for key, value in moved.items() if key != "parentUuid"} == {
        key: value for key, value in broken[42].items() if key != "parentUuid"
    }
    assert moved["parentUuid"] == new["uuid"]
    assert claude_code.check(written) == ()
    assert len(claude_code.load(written).messages) == len(repaired.messages)


def test_a_line_that_is_no_message_moves_onto_a_repaired_result_in_dumps_as_in_dump() -> None:
    """`dumps` writes the lines that are no messages from their JSON text; a new result line
    still takes over the child of its call's line when that child is such a line (a
    `progress` line here), as `dump` gives it."""
    lines = lines_of(INLINE_SIDECHAIN)
    call_line = lines[41]
    progress = {"parentUuid": call_line["uuid"], "type": "progress", "uuid": "p-1", "data": {"step": 1}}
    broken = [*lines[:42], progress, {**lines[43], "parentUuid": "p-1"}, *lines[44:]]  # the result lost
    conversation = claude_code.load(jsonl(broken))
    repaired = msgspec.structs.replace(conversation, messages=repair_transcript(conversation.messages).messages)
    written = claude_code.dumps(repaired)
    assert written == b"".join(msgspec.json.encode(line) + b"\n" for line in claude_code.dump(repaired))
    after = [json.loads(line) for line in written.splitlines()]
    assert (after[42]["parentUuid"], after[43]) == (call_line["uuid"], {**progress, "parentUuid": after[42]["uuid"]})


def test_repair_that_drops_a_result_line_keeps_the_branch_whole() -> None:
    """A dropped result's line was the parent of the next line of the branch: that line now
    hangs from the line the dropped one hung from, so the log resumes the whole conversation
    (it hung from no line, and the branch read back ended there)."""
    lines = lines_of(INLINE_SIDECHAIN)
    call_line, result_line, after_result = lines[41], lines[42], lines[43]
    assert (result_line["parentUuid"], after_result["parentUuid"]) == (call_line["uuid"], result_line["uuid"])
    message = result_line["message"]
    assert isinstance(message, dict)
    blocks = message["content"]
    assert isinstance(blocks, list)
    call_id = blocks[0]["tool_use_id"]
    lines[42] = json.loads(json.dumps(result_line).replace(call_id, "toolu_compacted_away"))
    data = jsonl(lines)
    assert [d.code for d in claude_code.check(data)] == ["MISSING_TOOL_RESULT", "ORPHAN_TOOL_RESULT"]
    conversation = claude_code.load(data)
    repaired = repair_transcript(conversation.messages)
    assert [fix.action for fix in repaired.fixes] == ["inserted_result", "dropped_result"]
    written = claude_code.dumps(msgspec.structs.replace(conversation, messages=repaired.messages))
    after = [json.loads(line) for line in written.splitlines()]
    assert len(after) == len(lines)  # one line dropped, one inserted
    new = after[42]
    assert (new["parentUuid"], after[43]["uuid"], after[43]["parentUuid"]) == (
        call_line["uuid"],
        after_result["uuid"],
        new["uuid"],
    )
    assert [line for number, line in enumerate(after) if number not in (42, 43)] == [
        line for number, line in enumerate(lines) if number not in (42, 43)
    ]
    assert claude_code.check(written) == ()
    assert tree_notes(written) == tree_notes(data)
    back = claude_code.load(written).messages
    assert [type(message) for message in back] == [type(message) for message in repaired.messages]


def test_a_parent_no_line_has_ends_the_branch_there() -> None:
    lines = lines_of(INLINE_SIDECHAIN)
    lines[41] = {**lines[41], "parentUuid": "gone"}
    data = jsonl(lines)
    assert tree_notes(data)[-1] == "BROKEN_PARENT_LINK: line 42's parent 'gone' is no line of this log - at `$[41]`"
    assert len(claude_code.load(data).messages) == 11  # lines 42-53
    assert claude_code.dumps(claude_code.load(data)) == data


def test_a_cycle_of_parent_links_ends_the_walk() -> None:
    lines = lines_of(INLINE_SIDECHAIN)
    lines[41] = {**lines[41], "parentUuid": lines[50]["uuid"]}
    data = jsonl(lines)
    notes = tree_notes(data)
    # the walk from line 53 goes back to line 42, then to line 51 again
    assert notes[-1] == "BROKEN_PARENT_LINK: line 51's parent links make a cycle; the walk stops there - at `$[50]`"
    assert claude_code.dumps(claude_code.load(data)) == data
    assert len(claude_code.branches(data)) >= 1


def test_two_roots_read_the_one_of_the_last_line() -> None:
    lines = lines_of(INLINE_SIDECHAIN)
    lines[43] = {**lines[43], "parentUuid": None}
    data = jsonl(lines)
    assert len(claude_code.load(data).messages) == 9  # lines 44-53, two of them one message
    assert tree_notes(data)[-1] == (
        "OFF_BRANCH: Message lines 41-43 not on the resumed branch: another branch (a rewind or an edited prompt); "
        "kept as is - at `$[40]`"
    )
    assert claude_code.dumps(claude_code.load(data)) == data


def test_a_sub_agent_log_reads_its_own_branch() -> None:
    data = SUBAGENT_LOG.read_bytes()
    assert tree_notes(data) == [
        "SIDECHAIN_BRANCH: Every message line is a sub-agent's: the branch read is a sidechain - at `$`"
    ]
    assert claude_code.check(data) == ()  # each parallel call's result hangs off its own call line
    assert [(branch.line, branch.sidechain, branch.resumed) for branch in claude_code.branches(data)] == [
        (130, True, True)
    ]


def test_a_log_without_parent_links_reads_in_file_order() -> None:
    lines = [{key: value for key, value in line.items() if key != "parentUuid"} for line in lines_of(INLINE_SIDECHAIN)]
    data = jsonl(lines)
    assert tree_notes(data) == []
    assert claude_code.branches(data) == ()
    assert len(claude_code.load(data).messages) > len(claude_code.load(INLINE_SIDECHAIN.read_bytes()).messages)


def test_lines_with_unusual_types_are_read_loosely() -> None:
    lines = lines_of(INLINE_SIDECHAIN)
    lines[52] = {**lines[52], "isSidechain": "no"}  # not a bool: not a sidechain
    data = jsonl(lines)
    assert claude_code.load(data).messages == claude_code.load(lines).messages
    with pytest.raises(FormatError):
        claude_code.branches(42)


def run(*arguments: str) -> subprocess.CompletedProcess[str]:
    completed = subprocess.run(
        [sys.executable, "-m", "message_ir", *arguments], capture_output=True, text=True, timeout=60, check=False
    )
    assert "Traceback" not in completed.stderr
    return completed


def test_validate_checks_one_branch_or_every_branch(tmp_path: Path) -> None:
    lines = lines_of(INLINE_SIDECHAIN)
    path = tmp_path / "session.jsonl"
    path.write_bytes(jsonl(with_rewind(lines_of(INLINE_SIDECHAIN), 1)))
    assert run("validate", "--branch", "rewound-answer", str(path)).stdout == f"{path}: valid\n"
    every = run("validate", "--all-branches", str(path))
    assert every.returncode == 0
    assert every.stdout.splitlines() == [
        f"{path} (branch {lines[21]['uuid']}): valid",
        f"{path} (branch {lines[39]['uuid']}): valid",
        f"{path} (branch {lines[52]['uuid']}): valid",
        f"{path} (branch rewound-answer): valid",
    ]
    missing = run("validate", "--branch", "nope", str(path))
    assert (missing.returncode, missing.stderr) == (
        2,
        f"message-ir: error: {path}: No line of this log has the ID 'nope'\n",
    )
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([{"role": "user", "content": "hi"}]))
    refused = run("validate", "--all-branches", str(chat))
    assert refused.returncode == 2
    assert refused.stderr == (
        f"message-ir: error: {chat}: --branch and --all-branches read a log whose lines form a tree (claude-code, pi)\n"
    )


def _split_message_log(lines: int) -> bytes:
    """A prompt, then one assistant message split over `lines` lines sharing its `message.id`."""
    records: list[object] = [
        {"type": "user", "uuid": "u0", "parentUuid": None, "message": {"role": "user", "content": "go"}}
    ]
    for number in range(lines):
        parent = f"a{number - 1}" if number else "u0"
        message = {"id": "msg_1", "role": "assistant", "content": [{"type": "text", "text": "x" * 300}]}
        records.append({"type": "assistant", "uuid": f"a{number}", "parentUuid": parent, "message": message})
    return b"\n".join(json.dumps(record, separators=(",", ":")).encode() for record in records)


@pytest.mark.skipif(
    (_build.__file__ or "").endswith(".so"),
    reason="the compiled build reads `_json.encode` directly: patching `_build.encode` counts nothing",
)
def test_a_message_split_over_many_lines_loads_in_linear_work() -> None:
    """The bytes `load` encodes for `meta` grow with the lines, not with their square: each
    line's part of the message's `meta` is written once (it was rewritten on every line: 32 s
    for 1,600 lines). Counted, not timed: 4 times the lines, about 4 times the bytes."""
    from message_ir.adapters._json import encode as real

    encoded = []
    for lines in (400, 1600):
        total = 0

        def counting(value: object) -> bytes:
            nonlocal total
            text = real(value)
            total += len(text)
            return text

        data = _split_message_log(lines)
        with mock.patch("message_ir.adapters._build.encode", counting):
            conversation = claude_code.load(data)
        assert claude_code.dumps(conversation) == data + b"\n"
        encoded.append(total)
    assert encoded[1] < 5 * encoded[0], encoded
