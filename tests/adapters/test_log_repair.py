"""What `repair` of a session log fixes, found a segment at a time (`_log_repair`), is what
a repair of the whole branch fixes, on the real Claude Code, pi and Codex logs and on
mutations of them (a segment size of one byte cuts at every place a segment may end); and
`repair` on the command line writes a log it changes nothing in back as read."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from message_ir import Fix, repair_transcript
from message_ir._repair import DEFAULT_MISSING_RESULT_CONTENT
from message_ir.adapters import FormatError, Segment, _segments, claude_code
from message_ir.adapters._log_repair import changed, segment_fixes
from tests.adapters.test_segments import (
    CLAUDE_CODE_LOGS,
    CODEX_LOGS,
    OPERATIONS,
    PI_LOGS,
    RULES,
    conversation_lines,
    in_file_order,
    module_of,
    mutated,
)


def whole_fixes(module: ModuleType, data: bytes) -> tuple[Fix, ...] | None:
    """What a repair of the whole log fixes; `None` for a log not of its format."""
    try:
        conversation = module.load(data)
    except FormatError:
        return None
    return repair_transcript(conversation.messages).fixes


def segments_of(module: ModuleType, source: object, size: int) -> Iterator[Segment]:
    return _segments.loaded_segments(module.NAME, source, module._read, module._KEYS, RULES[module.NAME], None, size)


def fixes_in_segments(module: ModuleType, data: bytes, size: int) -> tuple[Fix, ...] | None:
    done = segment_fixes(segments_of(module, data, size), missing_result_content=DEFAULT_MISSING_RESULT_CONTENT)
    try:
        return tuple(fix for segment in done for fix in segment.fixes)
    except FormatError:
        return None


def assert_same_repair(module: ModuleType, data: bytes, size: int) -> None:
    expected = whole_fixes(module, data)
    assert fixes_in_segments(module, data, size) == expected
    if expected is not None and not changed(expected):
        # Written back as read, and checked so: what checking it written by `dumps` says.
        assert module.check(module.dumps(module.load(data))) == module.check(data)


@pytest.mark.parametrize("path", CLAUDE_CODE_LOGS + PI_LOGS + CODEX_LOGS, ids=lambda path: path.name)
def test_every_real_log_repairs_the_same_in_segments(path: Path) -> None:
    data = path.read_bytes()
    for size in (1, 2_000, 10**9):
        assert_same_repair(module_of(path), data, size)


def test_the_real_logs_hold_fixes_made_in_segments() -> None:
    """Not a test that cannot fail: some real logs need repair, in several segments."""
    fixed = 0
    for path in PI_LOGS + CODEX_LOGS:
        module = module_of(path)
        found = fixes_in_segments(module, path.read_bytes(), 1)
        assert found is not None
        fixed += len(found)
    assert fixed >= 20


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(CLAUDE_CODE_LOGS + PI_LOGS + CODEX_LOGS), OPERATIONS, st.sampled_from([1, 700]))
def test_a_mutated_log_repairs_the_same_in_segments(
    path: Path, operations: list[tuple[int, int, int]], size: int
) -> None:
    module = module_of(path)
    assert_same_repair(module, mutated(path.read_bytes().splitlines(), operations), size)


def links_whole(module: ModuleType, data: bytes) -> bool:
    """Whether every parent link of a log names one of its lines."""
    uid, parent = ("uuid", "parentUuid") if module is claude_code else ("id", "parentId")
    lines: list[dict[str, object]] = []
    for raw in data.splitlines():
        try:
            value = json.loads(raw)
        except ValueError:
            continue
        if isinstance(value, dict):
            lines.append(value)
    ids = {line.get(uid) for line in lines}
    return all(not isinstance(line.get(parent), str) or line.get(parent) in ids for line in lines)


TREE_OPERATIONS = st.lists(
    st.tuples(st.sampled_from([0, 3, 4, 5, 7]), st.integers(0, 10**6), st.integers(0, 10**6)), min_size=1, max_size=4
)
"""Lines dropped or cut short, call IDs renamed or numbered afresh, a line's type changed:
what leaves the lines in the order their links give (no line repeated nor swapped)."""


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(CLAUDE_CODE_LOGS + PI_LOGS), TREE_OPERATIONS)
def test_a_repaired_tree_log_reads_back_as_the_repaired_branch(
    path: Path, operations: list[tuple[int, int, int]]
) -> None:
    """A result line repair drops was the parent of the next line of the branch: the log
    written back must still resume every message of the repaired branch."""
    module = module_of(path)
    data = mutated(path.read_bytes().splitlines(), operations)
    try:
        conversation = module.load(data)
    except FormatError:
        return
    if not links_whole(module, data):
        return  # a branch that ended at a broken link may be read otherwise once lines go
    repaired = repair_transcript(conversation.messages)
    back = module.load(module.dumps(conversation.replace(messages=repaired.messages)))
    assert [type(message) for message in back.messages] == [type(message) for message in repaired.messages]
    assert not any(note.code == "BROKEN_PARENT_LINK" for note in back.notes)


def test_a_result_moved_before_its_call_is_placed_in_the_whole_branchs_terms() -> None:
    lines = in_file_order(conversation_lines(4))
    lines.insert(5, lines.pop(6))  # the third call's result before its call, after two turns
    data = b"".join(line + b"\n" for line in lines)
    expected = whole_fixes(claude_code, data)
    assert expected is not None
    assert [(fix.code, fix.message_index, fix.message) for fix in expected] == [
        ("TOOL_RESULT_BEFORE_CALL", 5, "Moved the result for 'toolu_2' after its call in message 6"),
        ("TOOL_NAME_MISMATCH", 5, "Renamed the result's tool from 'unknown_tool' to 'Read'"),
    ]
    assert fixes_in_segments(claude_code, data, 1) == expected


def run_repair(*arguments: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "message_ir", "repair", *arguments], capture_output=True, timeout=120, check=False
    )


def test_repair_of_a_log_that_needs_none_writes_it_back_as_read(tmp_path: Path) -> None:
    lines = in_file_order(conversation_lines(3))
    lines[1] = lines[1].replace(b'"input": {', b'"input":  {')  # a space no writer would put back
    path = tmp_path / "session.jsonl"
    data = b"".join(line + b"\n" for line in lines)[:-1]  # no last newline
    path.write_bytes(data)
    out = tmp_path / "out.jsonl"
    completed = run_repair(str(path), "-o", str(out))
    assert (completed.returncode, completed.stderr) == (0, b"")
    assert out.read_bytes() == data
    assert sorted(name.name for name in tmp_path.iterdir()) == ["out.jsonl", "session.jsonl"]
    to_stdout = run_repair(str(path))
    assert (to_stdout.returncode, to_stdout.stdout, to_stdout.stderr) == (0, data, b"")
    in_place = run_repair(str(path), "-o", str(path))
    assert (in_place.returncode, path.read_bytes()) == (0, data)


def test_repair_of_a_log_it_changes_is_the_repair_of_the_whole_log(tmp_path: Path) -> None:
    lines = in_file_order(conversation_lines(3))
    del lines[4]  # the second call's result
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    out = tmp_path / "out.jsonl"
    completed = run_repair(str(path), "-o", str(out))
    assert (completed.returncode, completed.stderr.decode()) == (
        0,
        f"{path}:4: MISSING_TOOL_RESULT inserted_result: Inserted an error result for 'toolu_1', which had none\n",
    )
    conversation = claude_code.load(path.read_bytes())
    repaired = repair_transcript(conversation.messages)
    assert out.read_bytes() == claude_code.dumps(conversation.replace(messages=repaired.messages))


def test_repair_of_a_log_not_of_its_format_writes_nothing_and_names_every_problem(tmp_path: Path) -> None:
    lines = [*conversation_lines(2), b"not json", *conversation_lines(1)[1:], b"{"]
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    out = tmp_path / "out.jsonl"
    completed = run_repair("--from", "claude-code", str(path), "-o", str(out))
    expected = (
        f"{path}:6: INVALID_JSON Invalid JSON: JSON is malformed: invalid character (byte 4) (at $[5])\n"
        f"{path}:9: INVALID_JSON Invalid JSON: Input data was truncated (at $[8])\n"
    )
    assert (completed.returncode, completed.stdout, completed.stderr.decode()) == (
        1,
        b"",
        expected + f"message-ir: {path}: not repaired: not claude-code data\n",
    )
    assert not out.exists()
    assert sorted(name.name for name in tmp_path.iterdir()) == ["session.jsonl"]
