"""The first pass's record of a log's lines (`_first_pass.record`): what it keeps of each line
is what the line's head says, in its compact tables (`LineDigests`).

The branch, the cuts and the segments found on that record are held to a whole-log load by
`test_segments.py`; here, the tables themselves, on every real Claude Code and pi log."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

from message_ir.adapters import _first_pass, _tree, claude_code, detect, pi

REAL = Path(__file__).resolve().parents[3] / "shared" / "real"
MODULES: dict[str, ModuleType] = {claude_code.NAME: claude_code, pi.NAME: pi}
LOGS = sorted(path for path in REAL.glob("**/*.jsonl") if detect(path.read_bytes()) in MODULES)


def module_of(path: Path) -> ModuleType:
    return MODULES[str(detect(path.read_bytes()))]


def expected_tables(data: bytes, keys: _tree.Keys) -> tuple[list[list[int]], list[list[int]], list[list[int]]]:
    """Per line, the digests of its API message, its calls and the calls it answers, from the
    line's head as the tree reads it."""
    groups: list[list[int]] = []
    calls: list[list[int]] = []
    answers: list[list[int]] = []
    for head in _tree.heads(data, (), keys):
        facts = None if head is None else keys.facts(head)
        groups.append([] if facts is None or facts.group is None else [_first_pass.digest(facts.group)])
        calls.append([] if facts is None else [_first_pass.digest(each) for each in facts.calls])
        answers.append([] if facts is None else [_first_pass.digest(each) for each in facts.answers])
    return groups, calls, answers


@pytest.mark.parametrize("path", LOGS, ids=lambda path: path.name)
def test_each_line_holds_the_digests_its_head_names(path: Path) -> None:
    data = path.read_bytes()
    keys: _tree.Keys = module_of(path)._KEYS
    lines = _first_pass.record(data, keys)
    expected = expected_tables(data, keys)
    assert len(lines.flags) == len(expected[0])
    for table, wanted in zip((lines.groups, lines.calls, lines.answers), expected, strict=True):
        assert [table.get(number) for number in range(len(wanted))] == wanted
        assert [table.holds(number) for number in range(len(wanted))] == [bool(each) for each in wanted]
        assert [table.one(number) for number in range(len(wanted))] == [each[0] if each else None for each in wanted]
        assert list(table.items()) == [(number, each) for number, each in enumerate(wanted) if each]


def test_the_real_logs_hold_calls_answers_and_api_messages() -> None:
    """The test above is not empty: some real log's lines make calls, answer them and share an
    API message."""
    found = [0, 0, 0]
    for path in LOGS:
        lines = _first_pass.record(path.read_bytes(), module_of(path)._KEYS)
        for index, table in enumerate((lines.groups, lines.calls, lines.answers)):
            found[index] += len(list(table.items()))
    assert all(count > 0 for count in found), found


def test_the_lines_of_one_api_message_share_one_digest_object() -> None:
    """Claude Code writes each block of an API message on a line of its own: the lines keep
    one digest between them (8 bytes a line, not a number of their own)."""

    def line(uid: str, parent: str | None, message: dict[str, object]) -> bytes:
        kind = message["role"]
        return json.dumps({"type": kind, "uuid": uid, "parentUuid": parent, "message": message}).encode()

    call = {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}
    data = b"\n".join(
        [
            line("u0", None, {"role": "user", "content": "Go."}),
            line("a0", "u0", {"role": "assistant", "id": "msg_1", "content": [{"type": "text", "text": "I will."}]}),
            line("a1", "a0", {"role": "assistant", "id": "msg_1", "content": [call]}),
            line("r0", "a1", {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1"}]}),
            line("a2", "r0", {"role": "assistant", "id": "msg_2", "content": [{"type": "text", "text": "Done."}]}),
        ]
    )
    lines = _first_pass.record(data, claude_code._KEYS)
    first, second, other = lines.groups.one(1), lines.groups.one(2), lines.groups.one(4)
    assert first is not None
    assert first is second
    assert first == _first_pass.digest("msg_1")
    assert other == _first_pass.digest("msg_2")
    assert [lines.calls.holds(number) for number in range(5)] == [False, False, True, False, False]
    assert lines.answers.get(3) == lines.calls.get(2) == [_first_pass.digest("toolu_1")]
