"""`_log_branches`: a log's branches found on the first pass's compact arrays, in one pass
over the tree, are what `_tree.branches` finds walking each leaf over the whole log's nodes:
on every real tree log, and on mutations of them (lines dropped, repeated, swapped, cut,
parents broken: leaves sharing an ID, cycles and missing parents take the walk of their own)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from message_ir.adapters import LogFile, claude_code, pi
from message_ir.adapters._log_branches import text_branches
from message_ir.adapters._tree import branches
from tests.adapters.test_segments import CLAUDE_CODE_LOGS, OPERATIONS, PI_LOGS, mutated


@pytest.mark.parametrize("path", CLAUDE_CODE_LOGS + PI_LOGS, ids=lambda path: path.name)
def test_every_real_log_has_the_branches_the_walks_find(path: Path) -> None:
    module = pi if path in PI_LOGS else claude_code
    data = path.read_bytes()
    expected = branches(module.NAME, data, module._KEYS)
    assert text_branches(data, module._KEYS) == expected
    assert module.branches(LogFile(path)) == expected
    values = [json.loads(line) for line in data.splitlines()]
    assert module.branches(values) == expected  # parsed values: the walks themselves


def test_the_real_logs_have_several_branches() -> None:
    """Not a test that cannot fail: some real logs branch (sub-agents, rewinds)."""
    counts = [len(claude_code.branches(path.read_bytes())) for path in CLAUDE_CODE_LOGS]
    assert max(counts) > 1


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(CLAUDE_CODE_LOGS + PI_LOGS), OPERATIONS)
def test_a_mutated_log_has_the_branches_the_walks_find(path: Path, operations: list[tuple[int, int, int]]) -> None:
    module = pi if path in PI_LOGS else claude_code
    data = mutated(path.read_bytes().splitlines(), operations)
    assert text_branches(data, module._KEYS) == branches(module.NAME, data, module._KEYS)


def test_a_leaf_whose_id_an_earlier_line_has_is_listed() -> None:
    """`_tree.branches` raised `KeyError` here: the walk to such a leaf starts at the earlier
    line (which both walks hold: it ends no branch), so the leaf's own line is on no walk."""
    lines = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "message": {"role": "user", "content": "hi"}},
        {"type": "user", "uuid": "u2", "parentUuid": "u1", "message": {"role": "user", "content": "again"}},
        {"type": "user", "uuid": "u2", "parentUuid": "u1", "message": {"role": "user", "content": "once more"}},
    ]
    data = "".join(json.dumps(line) + "\n" for line in lines).encode()
    expected = branches(claude_code.NAME, data, claude_code._KEYS)
    assert [(branch.leaf, branch.line, branch.resumed) for branch in expected] == [("u2", 2, True)]
    assert text_branches(data, claude_code._KEYS) == expected


LINE = st.tuples(
    st.integers(0, 40),  # the parent: that many lines back (0: none)
    st.booleans(),  # a sub-agent's line
    st.sampled_from(["user", "assistant"]),
    st.integers(0, 3),  # the API message of an assistant line (0: none)
    st.lists(st.integers(0, 5), max_size=2),  # the calls an assistant line makes, or a user line answers
    st.lists(st.integers(0, 5), max_size=1),  # the calls a user line makes too (a line both answering and calling)
)


def tree_log(lines: list[tuple[int, bool, str, int, list[int], list[int]]]) -> bytes:
    """A Claude Code log of lines shaped as given: parents, sides, split API messages, calls
    and results, all drawn from small pools so that they meet (a user line may make calls
    too: the lines answering them are then in a ring beyond the first)."""
    written: list[str] = []
    for number, (back, sidechain, kind, group, calls, more_calls) in enumerate(lines):
        parent = f"u{number - back}" if 0 < back <= number else None
        if kind == "assistant":
            content: list[dict[str, object]] = [
                {"type": "tool_use", "id": f"toolu_{call}", "name": "run", "input": {}} for call in calls
            ] or [{"type": "text", "text": "ok"}]
            message: dict[str, object] = {"role": "assistant", "content": content}
            if group:
                message["id"] = f"msg_{group}"
        else:
            answers: list[dict[str, object]] = [
                {"type": "tool_result", "tool_use_id": f"toolu_{call}", "content": "done"} for call in calls
            ]
            answers += [{"type": "tool_use", "id": f"toolu_{call}", "name": "run", "input": {}} for call in more_calls]
            message = {"role": "user", "content": answers or "go on"}
        line = {"type": kind, "uuid": f"u{number}", "parentUuid": parent, "isSidechain": sidechain, "message": message}
        written.append(json.dumps(line))
    return "".join(line + "\n" for line in written).encode()


# Results that make calls too, whose own results lie beyond the first ring: a leaf's walk adds
# them only when the pass watches the lines that make calls (found by the generator; kept).
_CALLS_BEYOND_THE_RING: list[tuple[int, bool, str, int, list[int], list[int]]] = [
    (0, False, "user", 0, [], []),
    (0, False, "user", 0, [], []),
    (0, False, "user", 0, [], [0]),
    (0, False, "user", 0, [0], [2]),
    (0, False, "user", 0, [2], [1]),
    *[(0, False, "user", 0, [], [])] * 6,
    (0, False, "user", 0, [1], []),
    (8, False, "user", 0, [], []),
]


@settings(max_examples=500, deadline=None)
@given(st.lists(LINE, min_size=1, max_size=60))
@example(_CALLS_BEYOND_THE_RING)
def test_any_tree_has_the_branches_the_walks_find(
    lines: list[tuple[int, bool, str, int, list[int], list[int]]],
) -> None:
    """Trees with many leaves, turns completed off the path (split messages, results hanging
    elsewhere, calls made off the path whose results hang elsewhere still): the counts the
    pass keeps as it goes are the walks' own."""
    data = tree_log(lines)
    assert text_branches(data, claude_code._KEYS) == branches(claude_code.NAME, data, claude_code._KEYS)
