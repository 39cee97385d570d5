"""`check` of a session log a segment at a time (`_segments`) says what `check` of the whole
log says, and the Claude Code fast path is never more lenient than its careful path.

The logs are the real Claude Code, pi and Codex logs of `../shared/real`, and mutations of
them (lines dropped, repeated, swapped, cut short, IDs renamed, record numbers changed): a
segment size of one byte cuts at every place a segment may end, so every cut is exercised."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from message_ir import AssistantMessage, Diagnostic, ToolCall
from message_ir.adapters import (
    Conversation,
    FormatError,
    LogFile,
    _checks,
    _first_pass,
    _load_state,
    _log_file,
    _segments,
    _tree,
    anthropic,
    claude_code,
    codex,
    detect,
    openai_responses,
    pi,
)
from message_ir.adapters._checks import Rules

REAL = Path(__file__).resolve().parents[3] / "shared" / "real"
CLAUDE_CODE_LOGS = sorted(
    [
        *REAL.glob("anthropic/*.jsonl"),
        *REAL.glob("claude-code-inline-sidechain/*.jsonl"),
        *REAL.glob("broken/*claude*.jsonl"),
    ]
)
PI_LOGS = sorted([*REAL.glob("pi/*.jsonl"), *REAL.glob("broken/*pi*.jsonl")])
CODEX_LOGS = sorted(path for path in REAL.glob("**/*.jsonl") if detect(path.read_bytes()) == "codex")
RULES: dict[str, Rules] = {
    claude_code.NAME: anthropic.provider_rules,
    pi.NAME: _checks.no_rules,
    codex.NAME: openai_responses.provider_rules,
}


ALONE: dict[str, Callable[[Iterable[bytes]], int | _segments.CleanUntil | None]] = {
    claude_code.NAME: claude_code._clean_alone,
    pi.NAME: pi._clean_alone,
    codex.NAME: codex._clean_alone,
}
"""The fast path each format asks of a log shorter than a segment, before any first pass."""


def module_of(path: Path) -> ModuleType:
    return pi if path in PI_LOGS else codex if path in CODEX_LOGS else claude_code


def whole_check(module: ModuleType, data: bytes, leaf: str | None = None) -> tuple[Diagnostic, ...]:
    """`check` as it was before segments: the whole log loaded, then checked."""

    def read(source: object, avoid: frozenset[str], trusted: bool) -> _load_state.LoadState:
        state: _load_state.LoadState = (
            module._read(source, avoid, trusted, leaf) if leaf else module._read(source, avoid, trusted)
        )
        return state

    rules = RULES[module.NAME]
    return _checks.checked(
        module.NAME, data, lambda value: _load_state.read_source(module.NAME, value, read, lines=True), rules
    )


def segmented(
    module: ModuleType, data: bytes, size: int, *, fast: bool, leaf: str | None = None
) -> tuple[Diagnostic, ...]:
    rules = RULES[module.NAME]
    clean: Callable[[bytes, frozenset[int] | None], int | None] | None = (
        getattr(module, "_clean", None) if fast else None
    )
    alone: Callable[[Iterable[bytes]], int | _segments.CleanUntil | None] | None = (
        ALONE.get(module.NAME) if fast else None
    )
    streams = module is claude_code  # pi's as a format that does not stream (Codex's) would read it
    return _segments.check_segments(
        data, module._read, module._KEYS, rules, leaf, size, clean=clean, alone=alone, streams=streams
    )


@pytest.mark.parametrize("path", CLAUDE_CODE_LOGS + PI_LOGS + CODEX_LOGS, ids=lambda path: path.name)
def test_every_real_log_checks_the_same_in_segments(path: Path) -> None:
    data = path.read_bytes()
    module = module_of(path)
    expected = whole_check(module, data)
    for size in (1, 2_000, 10**9):
        assert segmented(module, data, size, fast=False) == expected
        assert segmented(module, data, size, fast=True) == expected
    assert module.check(data) == expected
    assert module.check(LogFile(path)) == expected


def test_the_real_logs_are_cut_into_several_segments() -> None:
    """Not a test that cannot fail: the real logs have places to cut, and the fast path takes
    some of their segments (whatever logs the folders gain)."""
    cuts = clean = segments = 0
    for path in CLAUDE_CODE_LOGS:
        data = path.read_bytes()
        found = _first_pass.plan(data, claude_code._KEYS, None)
        cuts += len(found.cuts)
        for segment in _segments._segments(data, found, 1):
            segments += 1
            clean += claude_code._clean(segment.data, segment.on) is not None
    assert cuts > 0
    assert 0 < clean <= segments


def mutated(lines: list[bytes], operations: list[tuple[int, int, int]]) -> bytes:
    """`lines` changed by each `(kind, i, j)`: a line dropped, repeated, swapped, cut short,
    given a reused ID's rename (`~2`), its type changed, a parent link broken, every call
    ID numbered afresh (IDs used again and again), or a call ID made an array or an object."""
    lines = list(lines)
    for kind, first, second in operations:
        if not lines:
            break
        i, j = first % len(lines), second % len(lines)
        if kind == 0:
            del lines[i]
        elif kind == 1:
            lines.insert(j, lines[i])
        elif kind == 2:
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == 3:
            lines[i] = lines[i][: second % (len(lines[i]) + 1)]
        elif kind == 4:
            lines[i] = lines[i].replace(b'"toolu_', b'"toolu_x~2', 1).replace(b'"call_', b'"call_x~2', 1)
        elif kind == 5:
            lines[i] = lines[i].replace(b'"type":"user"', b'"type":"assistant"', 1)
        elif kind == 6:
            lines[i] = (
                lines[i].replace(b'"parentUuid":"', b'"parentUuid":"x', 1).replace(b'"parentId":"', b'"parentId":"x', 1)
            )
        elif kind == 7:
            lines = numbered_afresh(lines, second % 3 + 1)
        else:
            replacement = rb"[\g<0>]" if second % 2 else rb'{"id":\g<0>}'
            lines[i] = _CALL_ID.sub(replacement, lines[i], count=1)
    return b"".join(line + b"\n" for line in lines)


_CALL_ID = re.compile(rb'"((?:toolu|call)_[A-Za-z0-9_-]+)"')


def numbered_afresh(lines: list[bytes], count: int) -> list[bytes]:
    """The lines with every call ID replaced by one of `count` (`toolu_0`, ...), in the order
    they first appear: IDs used again and again, as a harness that numbers calls each turn."""
    names: dict[bytes, bytes] = {}

    def renamed(found: re.Match[bytes]) -> bytes:
        name = names.setdefault(found.group(1), b"toolu_%d" % (len(names) % count))
        return b'"' + name + b'"'

    return [_CALL_ID.sub(renamed, line) for line in lines]


OPERATIONS = st.lists(
    st.tuples(st.integers(0, 8), st.integers(0, 10**6), st.integers(0, 10**6)), min_size=1, max_size=5
)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(CLAUDE_CODE_LOGS + PI_LOGS + CODEX_LOGS), OPERATIONS, st.sampled_from([1, 700, 10**9]))
def test_a_mutated_log_checks_the_same_in_segments(
    path: Path, operations: list[tuple[int, int, int]], size: int
) -> None:
    module = module_of(path)
    data = mutated(path.read_bytes().splitlines(), operations)
    expected = whole_check(module, data)
    assert segmented(module, data, size, fast=True) == expected


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(CLAUDE_CODE_LOGS + PI_LOGS), OPERATIONS)
def test_the_branch_ending_at_any_line_checks_the_same_in_segments(
    path: Path, operations: list[tuple[int, int, int]]
) -> None:
    module = pi if path in PI_LOGS else claude_code
    data = mutated(path.read_bytes().splitlines(), operations)
    for leaf in _ids(data, "uuid" if module is claude_code else "id")[:3]:
        assert segmented(module, data, 1, fast=module is claude_code, leaf=leaf) == whole_check(module, data, leaf)


def _ids(data: bytes, key: str) -> list[str]:
    found: list[str] = []
    for raw in data.splitlines():
        try:
            value = json.loads(raw)
        except ValueError:
            continue
        if isinstance(value, dict) and isinstance(value.get(key), str):
            found.append(value[key])
    return found[::-7]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(CLAUDE_CODE_LOGS + PI_LOGS), OPERATIONS)
def test_the_first_pass_finds_the_branch_the_walk_finds(path: Path, operations: list[tuple[int, int, int]]) -> None:
    module = pi if path in PI_LOGS else claude_code
    data = mutated(path.read_bytes().splitlines(), operations)
    nodes, messages = _tree.read_nodes(data, (), module._KEYS)
    found = _first_pass.plan(data, module._KEYS, None).on
    if not _tree.is_tree(nodes, messages):
        assert found is None
    else:
        assert found is not None
        assert {number for number, on in enumerate(found) if on} == set(_tree.walk(nodes).on)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(CLAUDE_CODE_LOGS + PI_LOGS + CODEX_LOGS), OPERATIONS)
def test_a_log_shorter_than_a_segment_is_planned_without_cuts(
    path: Path, operations: list[tuple[int, int, int]]
) -> None:
    """The plan of a log read as one segment is the plan of cuts without them: the same branch,
    notes, call IDs used again (renamed) and call IDs that hold a `~` (found by a pass of their
    own here, in the pass that finds the cuts there)."""
    module = module_of(path)
    data = mutated(path.read_bytes().splitlines(), operations)
    cut = _first_pass.plan(data, module._KEYS, None, with_notes=True)
    whole = _first_pass.plan(data, module._KEYS, None, with_notes=True, size=len(data) + 1)
    assert (whole.on, whole.reused, whole.avoid, whole.notes) == (cut.on, cut.reused, cut.avoid, cut.notes)
    assert list(whole.cuts) == list(whole.starts) == []


def test_the_mutations_use_call_ids_again_and_give_them_a_tilde() -> None:
    """The test above is not empty: the mutations make both kinds of call IDs it compares."""
    lines = max(CLAUDE_CODE_LOGS, key=lambda path: path.read_bytes().count(b'"tool_use"')).read_bytes().splitlines()
    data = mutated(lines, [(7, 0, 0)])  # every call ID made `toolu_0`
    assert _first_pass.plan(data, claude_code._KEYS, None, size=len(data) + 1).reused
    data = mutated(lines, [(4, number, 0) for number in range(len(lines))])
    assert _first_pass.plan(data, claude_code._KEYS, None, size=len(data) + 1).avoid


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(CLAUDE_CODE_LOGS + PI_LOGS), OPERATIONS)
def test_the_fast_path_is_never_more_lenient(path: Path, operations: list[tuple[int, int, int]]) -> None:
    """A segment the fast path calls clean is clean to the careful path, with as many messages."""
    module = module_of(path)
    data = mutated(path.read_bytes().splitlines(), operations)
    found = _first_pass.plan(data, module._KEYS, None)
    for segment in _segments._segments(data, found, 1):
        count = module._clean(segment.data, segment.on)
        if count is None:
            continue
        state = module._read(segment.data, frozenset(), True, _tree.OnBranch(segment.on))
        assert state.problems == []
        conversation, origins = state.finish(state.container_meta)
        assert len(conversation.messages) == count
        assert _checks.found_parts(conversation, origins, RULES[module.NAME], example=False) == ([], [], [], [])


def test_the_fast_path_leaves_a_call_id_used_again_to_the_careful_path() -> None:
    """A call ID used again by an API message split over lines, its result written between
    them: `load` names the result by the call read so far (the first, answered already) and
    renames the later call, left unanswered. (Found by the test above; `check` of such a log
    never asked the fast path, since the plan lists the IDs used again.)"""
    call = {"type": "tool_use", "id": "toolu_a", "name": "Read", "input": {}}
    result = {"type": "tool_result", "tool_use_id": "toolu_a", "content": "ok"}
    lines = [
        claude_line("user", "u0", None, "Go."),
        claude_line("assistant", "a1", "u0", [call]),
        claude_line("user", "r1", "a1", [result]),
        claude_line("assistant", "a2", "r1", [{"type": "text", "text": "Again."}]),
        claude_line("user", "r2", "a3", [result]),  # the answer to the line below, written first
        claude_line("assistant", "a3", "a2", [call]),  # the same API message as `a2`'s line
        claude_line("assistant", "a4", "r2", [{"type": "text", "text": "Done."}]),
    ]
    lines[5] = lines[5].replace(b"msg_a3", b"msg_a2")
    data = b"".join(line + b"\n" for line in lines)
    assert claude_code._clean(data, None) is None
    codes = [diagnostic.code for diagnostic in whole_check(claude_code, data)]
    assert codes == ["DUPLICATE_TOOL_RESULT", "RESULT_NOT_ADJACENT", "MISSING_TOOL_RESULT"]


def claude_line(kind: str, uid: str, parent: str | None, content: object, **more: object) -> bytes:
    message: dict[str, object] = {"role": kind, "content": content}
    if kind == "assistant":
        message["id"] = "msg_" + uid
    return json.dumps({"type": kind, "uuid": uid, "parentUuid": parent, "message": message, **more}).encode()


def conversation_lines(turns: int) -> list[bytes]:
    """A user prompt, then `turns` turns of a call and its result, each line hanging from the one before."""
    lines = [claude_line("user", "u0", None, "Go.")]
    for turn in range(turns):
        call = {"type": "tool_use", "id": f"toolu_{turn}", "name": "Read", "input": {"path": f"{turn}.py"}}
        result = {"type": "tool_result", "tool_use_id": f"toolu_{turn}", "content": "ok"}
        lines.append(claude_line("assistant", f"a{turn}", "u0" if turn == 0 else f"r{turn - 1}", [call]))
        lines.append(claude_line("user", f"r{turn}", f"a{turn}", [result]))
    return lines


def in_file_order(lines: list[bytes]) -> list[bytes]:
    """The lines without parent links: a log read in file order."""
    return [json.dumps({**json.loads(line), "parentUuid": None}).encode() for line in lines]


def test_a_result_far_from_its_call_keeps_both_in_one_segment() -> None:
    lines = in_file_order(conversation_lines(6))
    late = lines.pop(4)  # the result of the second call, moved to the end
    lines.append(late)
    data = b"".join(line + b"\n" for line in lines)
    found = _first_pass.plan(data, claude_code._KEYS, None)
    assert found.on is None
    assert list(found.cuts) == [1, 3]  # no cut while the moved result's call is open
    expected = whole_check(claude_code, data)
    assert [diagnostic.code for diagnostic in expected] == ["RESULT_NOT_ADJACENT"]
    assert segmented(claude_code, data, 1, fast=True) == expected


def test_a_result_before_its_call_names_the_message_as_the_whole_log_does() -> None:
    lines = in_file_order(conversation_lines(4))
    lines[7], lines[8] = lines[8], lines[7]  # the last result before its call
    data = b"".join(line + b"\n" for line in lines)
    expected = whole_check(claude_code, data)
    assert "in message 8" in " ".join(diagnostic.message for diagnostic in expected)
    assert list(_first_pass.plan(data, claude_code._KEYS, None).cuts) == [1, 3, 5]  # the last turn a segment of its own
    assert segmented(claude_code, data, 1, fast=True) == expected


@pytest.mark.parametrize("depth", [50, 56, 57, 59, 60, 61, 64])
def test_a_deep_line_is_judged_as_the_careful_path_judges_it(depth: int) -> None:
    lines = conversation_lines(2)
    nested: object = "deep"
    for _ in range(depth):
        nested = [nested]
    lines.insert(2, json.dumps({"type": "progress", "uuid": "p", "parentUuid": "a0", "data": nested}).encode())
    lines[3] = lines[3].replace(b'"parentUuid": "a0"', b'"parentUuid": "p"')
    data = b"".join(line + b"\n" for line in lines)
    assert segmented(claude_code, data, 1, fast=True) == whole_check(claude_code, data)


@pytest.mark.parametrize("digits", [4300, 4301])
def test_a_long_integer_is_judged_as_the_careful_path_judges_it(digits: int) -> None:
    lines = conversation_lines(1)
    lines[1] = lines[1].replace(b'"path": "0.py"', b'"limit": ' + b"9" * digits)
    data = b"".join(line + b"\n" for line in lines)
    assert segmented(claude_code, data, 1, fast=True) == whole_check(claude_code, data)


@pytest.mark.parametrize(
    "change",
    [
        lambda lines: [*lines[:3], lines[3].replace(b'"parentUuid": "r0"', b'"parentUuid": "nowhere"'), *lines[4:]],
        lambda lines: [lines[0].replace(b'"parentUuid": null', b'"parentUuid": "r2"'), *lines[1:]],
        lambda lines: [*lines, claude_line("user", "root2", None, "Again.")],
        lambda lines: [line.replace(b'"parentUuid"', b'"isSidechain": true, "parentUuid"') for line in lines],
    ],
    ids=["missing-parent", "cycle", "two-roots", "sidechain-only"],
)
def test_broken_trees_check_the_same_in_segments(change: Callable[[list[bytes]], list[bytes]]) -> None:
    data = b"".join(line + b"\n" for line in change(conversation_lines(3)))
    assert segmented(claude_code, data, 1, fast=True) == whole_check(claude_code, data)


def test_problems_anywhere_are_all_that_is_reported_in_line_order() -> None:
    lines = conversation_lines(4)
    lines[1] = lines[1].replace(b'"input": {', b'"input": [{', 1)[:-1] + b"]}"  # still JSON, an odd one
    lines[8] = b"{not json"
    lines[3] = b""
    data = b"".join(line + b"\n" for line in lines)
    expected = whole_check(claude_code, data)
    assert [diagnostic.message_index for diagnostic in expected] == sorted(
        diagnostic.message_index or -1 for diagnostic in expected
    )
    assert {diagnostic.code for diagnostic in expected} <= {"BAD_FORMAT", "INVALID_JSON"}
    assert segmented(claude_code, data, 1, fast=True) == expected


def test_an_unreadable_log_file_is_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        claude_code.check(LogFile(tmp_path / "missing.jsonl"))


def numbered(path: Path) -> list[bytes]:
    """A real rollout as Codex's paginated layout writes it: every line's `ordinal` after its
    `timestamp`, the session marked paginated."""
    lines = []
    for ordinal, raw in enumerate(path.read_bytes().splitlines()):
        line = json.loads(raw)
        entry = {"timestamp": line.get("timestamp"), "ordinal": ordinal}
        entry.update((key, value) for key, value in line.items() if key != "timestamp")
        payload = entry.get("payload")
        if ordinal == 0 and isinstance(payload, dict):
            payload["history_mode"] = "paginated"
        lines.append(json.dumps(entry).encode())
    return lines


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(CODEX_LOGS), st.lists(st.integers(0, 10**6), max_size=3), st.integers(0, 10**6))
def test_record_numbers_are_checked_across_segments(path: Path, dropped: list[int], repeated: int) -> None:
    """A gap in a paginated rollout's record numbers is found wherever it falls, a cut included:
    each segment starts from the number the one before expects."""
    lines = numbered(path)
    for position in dropped:
        if len(lines) > 1:
            del lines[position % len(lines)]
    lines.insert(repeated % len(lines), lines[repeated % len(lines)])
    data = b"".join(line + b"\n" for line in lines)
    expected = whole_check(codex, data)
    assert segmented(codex, data, 1, fast=False) == expected
    assert segmented(codex, data, 1, fast=True) == expected
    assert codex.check(data) == expected


def test_lines_without_record_numbers_after_numbered_ones_are_never_taken_by_the_fast_path() -> None:
    """Once a segment's lines carry record numbers, each later line must too: the fast path,
    which takes only lines without one, is not asked of the segments after such a segment."""
    path = next(path for path in CODEX_LOGS if "019e1625" in path.name)
    plain = path.read_bytes().splitlines()
    lines = numbered(path)[: len(plain) // 2] + plain[len(plain) // 2 :]
    data = b"".join(line + b"\n" for line in lines)
    expected = whole_check(codex, data)
    assert {diagnostic.code for diagnostic in expected} == {"LOG_RECORD_GAP"}
    assert len(expected) == len(plain) - len(plain) // 2  # one per line without its number
    assert segmented(codex, data, 1, fast=True) == expected
    assert codex.check(data) == expected


# --- the Codex fast path ------------------------------------------------------------------


def codex_changed(data: bytes, changes: list[tuple[int, int]]) -> bytes:
    """A rollout with each `(kind, n)` applied at the n-th place it can be: a user message made
    the assistant's, an output made a call, a call's arguments made no JSON, an unknown key put
    in an item, a record number put on a line, a line made to nest deeply, a reasoning item's
    summary made text, a part's type changed."""
    edits = [
        (b'"role":"user"', b'"role":"assistant"'),
        (b'"type":"function_call_output"', b'"type":"function_call"'),
        (b'"arguments":"{', b'"arguments":"{oops'),
        (b'"payload":{"type":', b'"payload":{"extra":1,"type":'),
        (b'{"timestamp":', b'{"ordinal":7,"timestamp":'),
        (b'"payload":{', b'"payload":' + b"[" * 60 + b"1" + b"]" * 60 + b',"more":{'),
        (b'"summary":[', b'"summary":"text","was":['),
        (b'"type":"input_text"', b'"type":"output_text"'),
    ]
    for kind, place in changes:
        old, new = edits[kind % len(edits)]
        found = [index for index in range(len(data)) if data.startswith(old, index)]
        if found:
            at = found[place % len(found)]
            data = data[:at] + new + data[at + len(old) :]
    return data


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(CODEX_LOGS),
    st.lists(st.tuples(st.integers(0, 8), st.integers(0, 10**6), st.integers(0, 10**6)), max_size=3),
    st.lists(st.tuples(st.integers(0, 7), st.integers(0, 10**6)), max_size=3),
)
def test_the_codex_fast_path_is_never_more_lenient(
    path: Path, operations: list[tuple[int, int, int]], changes: list[tuple[int, int]]
) -> None:
    """A segment (or a whole rollout) the fast path calls clean is clean to the careful path,
    with as many messages."""
    data = codex_changed(mutated(path.read_bytes().splitlines(), operations), changes)
    found = _first_pass.plan(data, codex._KEYS, None)
    for part in [data, *(segment.data for segment in _segments._segments(data, found, 1))]:
        count = codex._clean(part)
        if count is None:
            continue
        state = codex._read(part, frozenset(), True, _tree.OnBranch(None))
        assert state.problems == []
        conversation, origins = state.finish(state.container_meta)
        assert len(conversation.messages) == count
        assert _checks.found_parts(conversation, origins, openai_responses.provider_rules, example=False) == (
            [],
            [],
            [],
            [],
        )


def test_the_codex_fast_path_takes_the_clean_real_rollouts() -> None:
    """Not a test that cannot fail: a real rollout the fast path takes whole is clean, with its
    count of messages, and some segments of the real rollouts are taken (whatever rollouts the
    folders gain)."""
    taken = segments = 0
    for path in CODEX_LOGS:
        data = path.read_bytes()
        count = codex._clean(data)
        if count is not None:
            assert count == len(codex.load(data).messages)
            assert codex.check(data) == ()
        found = _first_pass.plan(data, codex._KEYS, None)
        for segment in _segments._segments(data, found, 1):
            segments += 1
            taken += codex._clean(segment.data) is not None
    assert 0 < taken <= segments


def codex_lines(turns: int) -> list[bytes]:
    """A rollout: its session line, a user prompt, then `turns` turns of a call and its output."""

    def line(kind: str, payload: dict[str, object]) -> bytes:
        return json.dumps({"timestamp": "2026-01-01T00:00:00.000Z", "type": kind, "payload": payload}).encode()

    lines = [
        line("session_meta", {"id": "s"}),
        line("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Go."}]}),
    ]
    for turn in range(turns):
        lines.append(
            line("response_item", {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": f"c{turn}"})
        )
        lines.append(line("response_item", {"type": "function_call_output", "call_id": f"c{turn}", "output": "ok"}))
    return lines


def test_the_codex_fast_path_reads_lines_as_the_careful_path_reads_them() -> None:
    lines = codex_lines(2)
    data = b"".join(line + b"\n" for line in lines)
    assert codex._clean(data) == 5 == len(codex.load(data).messages)
    assert codex._clean(data.rstrip(b"\n")) == 5  # a last line without its newline
    late = [line.replace(b'"2026-01-01T00:00:00.000Z"', b'"' + b"9" * 80 + b'"') for line in lines]
    assert codex._clean(b"".join(line + b"\n" for line in late)) is None  # an item line it does not spot: left
    assert codex.check(b"".join(line + b"\n" for line in late)) == ()
    for broken in (b"{oops", b"[]", b"", b'{"type":"response_item","payload":[]}'):
        assert codex._clean(data + broken + b"\n") is None
    for value in (b"1e400", b'"\xff"'):  # what a decode that skips a key would let through
        unread = lines[-1].replace(b'{"timestamp"', b'{"x": ' + value + b', "timestamp"', 1)
        changed = b"".join(line + b"\n" for line in [*lines[:-1], unread])
        assert codex._clean(changed) is None
        assert [diagnostic.code for diagnostic in codex.check(changed)] == ["INVALID_JSON"]


def test_a_codex_line_with_a_record_number_is_left_to_the_careful_path() -> None:
    """The lines after one with a record number must have one too: a line that is no item
    with a number is the careful path's, which says so of the lines after it."""
    lines = codex_lines(1)
    lines[0] = lines[0].replace(b'{"timestamp"', b'{"ordinal": 0, "timestamp"', 1)
    data = b"".join(line + b"\n" for line in lines)
    assert [diagnostic.code for diagnostic in codex.check(data)] == ["LOG_RECORD_GAP"] * 3
    assert codex._clean(data) is None
    assert segmented(codex, data, 1, fast=True) == whole_check(codex, data) == codex.check(data)


@pytest.mark.parametrize("depth", [50, 56, 57, 59, 60, 61, 64])
def test_a_deep_codex_line_is_judged_as_the_careful_path_judges_it(depth: int) -> None:
    lines = codex_lines(2)
    nested: object = "deep"
    for _ in range(depth):
        nested = [nested]
    lines.insert(3, json.dumps({"timestamp": "t", "type": "event_msg", "payload": {"deep": nested}}).encode())
    data = b"".join(line + b"\n" for line in lines)
    expected = whole_check(codex, data)
    assert segmented(codex, data, 1, fast=True) == expected
    assert codex.check(data) == expected
    assert (codex._clean(data) is not None) == (depth <= 54)  # the line nests two levels below its payload


@pytest.mark.parametrize("digits", [4300, 4301])
def test_a_long_integer_in_a_codex_line_is_judged_as_the_careful_path_judges_it(digits: int) -> None:
    lines = codex_lines(1)
    lines.insert(2, b'{"timestamp":"t","type":"event_msg","payload":{"n":' + b"9" * digits + b"}}")
    data = b"".join(line + b"\n" for line in lines)
    assert segmented(codex, data, 1, fast=True) == whole_check(codex, data)
    assert codex.check(data) == whole_check(codex, data)


def test_a_codex_rollout_is_cut_before_the_assistant_answers_a_user() -> None:
    path = next(path for path in CODEX_LOGS if "019e1625" in path.name)
    data = path.read_bytes()
    found = _first_pass.plan(data, codex._KEYS, None)
    assert found.on is None  # a rollout is no tree
    lines = [json.loads(line) for line in data.splitlines()]
    for cut in found.cuts:  # each cut is an output item; the item before it on the log is an input
        assert lines[cut]["payload"].get("role", "") != "user"
        before = [line for line in lines[:cut] if line["type"] == "response_item"][-1]["payload"]
        assert before.get("role") in ("user", "developer") or before["type"].endswith("_output")
    assert len(found.cuts) > 3


# --- `Format.segments`: `load_checked` a segment at a time -------------------------------


def whole_loaded(module: ModuleType, data: bytes, leaf: str | None = None) -> _checks.Checked:
    """`load_checked` of the whole log (what `render` of its bytes reads)."""

    def read(source: object, avoid: frozenset[str], trusted: bool) -> _load_state.LoadState:
        state: _load_state.LoadState = (
            module._read(source, avoid, trusted, leaf) if leaf else module._read(source, avoid, trusted)
        )
        return state

    return _checks.loaded_and_checked(
        data, lambda value: _load_state.read_source(module.NAME, value, read, lines=True), RULES[module.NAME]
    )


def joined(segments: list[_segments.Segment]) -> _checks.Checked:
    """The segments as one `Checked`: their messages, notes and places in turn, their
    diagnostics sorted as `check` sorts them."""
    assert [segment.first_message for segment in segments] == [
        sum(len(segment.conversation.messages) for segment in segments[:number]) for number in range(len(segments))
    ]
    places: dict[str, int] = {}
    for segment in segments:
        places.update(segment.places)
    conversation = segments[0].conversation
    return _checks.Checked(
        Conversation(
            conversation.format,
            tuple(message for segment in segments for message in segment.conversation.messages),
            tuple(instruction for segment in segments for instruction in segment.conversation.instructions),
            tuple(note for segment in segments for note in segment.conversation.notes),
        ),
        tuple(sorted((found for segment in segments for found in segment.diagnostics), key=_checks.by_index)),
        places,
    )


def loaded(module: ModuleType, data: bytes | LogFile, size: int, leaf: str | None = None) -> list[_segments.Segment]:
    return list(
        _segments.loaded_segments(module.NAME, data, module._read, module._KEYS, RULES[module.NAME], leaf, size)
    )


def same_load(got: _checks.Checked, expected: _checks.Checked) -> None:
    assert got.conversation.messages == expected.conversation.messages
    assert got.conversation.instructions == expected.conversation.instructions
    assert got.conversation.notes == expected.conversation.notes
    assert got.diagnostics == expected.diagnostics
    assert got.places == expected.places


@pytest.mark.parametrize("path", CLAUDE_CODE_LOGS + PI_LOGS + CODEX_LOGS, ids=lambda path: path.name)
def test_every_real_log_loads_the_same_in_segments(path: Path) -> None:
    """Message IDs made up from line numbers, `meta`'s line numbers, paths, notes on the
    branch: what the whole log's load gives, at every place a segment may end."""
    data = path.read_bytes()
    module = module_of(path)
    expected = whole_loaded(module, data)
    for size in (1, 2_000, 10**9):
        same_load(joined(loaded(module, data, size)), expected)
    declared = module.FORMAT
    assert declared.segments is not None
    same_load(joined(list(declared.segments(LogFile(path), None))), expected)
    values = [json.loads(line) for line in data.splitlines()]
    (alone,) = declared.segments(values, None)  # parsed values: one segment
    assert alone.first_line == alone.first_message == 0
    assert alone.conversation.messages == expected.conversation.messages


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(CLAUDE_CODE_LOGS + PI_LOGS + CODEX_LOGS), OPERATIONS, st.sampled_from([1, 700]))
def test_a_mutated_log_loads_the_same_in_segments(
    path: Path, operations: list[tuple[int, int, int]], size: int
) -> None:
    module = module_of(path)
    data = mutated(path.read_bytes().splitlines(), operations)
    try:
        expected = whole_loaded(module, data)
    except FormatError:
        with pytest.raises(FormatError):
            loaded(module, data, size)
        return
    same_load(joined(loaded(module, data, size)), expected)


def test_a_rename_avoids_a_call_id_with_a_tilde_from_a_later_segment() -> None:
    """A call ID used again is renamed `~2`, unless a later line's source ID is that name: a
    whole load then renames it `~3`, and so does a load a segment at a time (the later ID is
    in another segment)."""
    lines = [
        line.replace(b"toolu_0", b"toolu_a").replace(b"toolu_1", b"toolu_a").replace(b"toolu_3", b"toolu_a~2")
        for line in conversation_lines(4)
    ]
    data = b"".join(line + b"\n" for line in lines)
    expected = whole_loaded(claude_code, data)
    calls = [
        block.id
        for message in expected.conversation.messages
        if type(message) is AssistantMessage
        for block in message.content
        if type(block) is ToolCall
    ]
    assert calls == ["toolu_a", "toolu_a~3", "toolu_2", "toolu_a~2"]
    segments = loaded(claude_code, data, 1)
    assert len(segments) > 2  # the later ID is in a segment of its own
    same_load(joined(segments), expected)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(CLAUDE_CODE_LOGS + PI_LOGS), OPERATIONS)
def test_the_branch_ending_at_any_line_loads_the_same_in_segments(
    path: Path, operations: list[tuple[int, int, int]]
) -> None:
    module = pi if path in PI_LOGS else claude_code
    data = mutated(path.read_bytes().splitlines(), operations)
    for leaf in _ids(data, "uuid" if module is claude_code else "id")[:3]:
        try:
            expected = whole_loaded(module, data, leaf)
        except FormatError:
            continue
        same_load(joined(loaded(module, data, 1, leaf)), expected)


def test_segments_raise_as_load_does() -> None:
    path = CLAUDE_CODE_LOGS[0]
    lines = path.read_bytes().splitlines()
    declared = claude_code.FORMAT
    assert declared.segments is not None
    with pytest.raises(ValueError, match="No line of this log has the ID 'nowhere'"):
        next(iter(declared.segments(path.read_bytes(), "nowhere")))
    broken = b"\n".join([*lines[:3], b"{not json", *lines[3:]]) + b"\n"
    with pytest.raises(FormatError) as raised:
        loaded(claude_code, broken, 1)
    assert [(found.code, found.message_index, found.path) for found in raised.value.diagnostics] == [
        ("INVALID_JSON", 3, "$[3]")
    ]
    rollout = codex.FORMAT.segments
    assert rollout is not None
    with pytest.raises(ValueError, match="codex logs have no branches"):
        next(iter(rollout(CODEX_LOGS[0].read_bytes(), "a-leaf")))


def test_no_segment_starts_where_an_earlier_line_hangs_from_a_later_one() -> None:
    """A log written parents first has no such line; one that has keeps the lines between
    in one segment, so that what a segment's lines hang from is in it or before it."""
    lines = conversation_lines(4)  # a tree: each line hangs from the one before
    data = b"".join(line + b"\n" for line in lines)
    assert list(_first_pass.plan(data, claude_code._KEYS, None).cuts) == [1, 3, 5, 7]
    summary = json.dumps({"type": "summary", "uuid": "s0", "parentUuid": "a2"}).encode()  # hangs from line 6
    data = b"".join(line + b"\n" for line in [*lines[:2], summary, *lines[2:]])
    assert list(_first_pass.plan(data, claude_code._KEYS, None).cuts) == [1, 8]  # none in lines 3-6
    assert segmented(claude_code, data, 1, fast=True) == whole_check(claude_code, data)


def test_a_line_of_the_assistant_type_holding_a_user_message_starts_no_segment() -> None:
    lines = in_file_order(conversation_lines(3))
    value = json.loads(lines[3])  # the second call's line
    value["message"] = {"role": "user", "content": "Go on."}
    lines[3] = json.dumps(value).encode()
    data = b"".join(line + b"\n" for line in lines)
    assert list(_first_pass.plan(data, claude_code._KEYS, None).cuts) == [1, 5]  # none at line 3
    assert segmented(claude_code, data, 1, fast=True) == whole_check(claude_code, data)


@pytest.mark.parametrize(
    ("line", "key", "path"),
    [(1, "id", "$[1].message.content[0].id"), (2, "tool_use_id", "$[2].message.content[0].tool_use_id")],
)
@pytest.mark.parametrize("value", [["toolu_0"], {"id": "toolu_0"}])
def test_a_call_id_that_is_an_array_or_an_object_is_a_format_problem(
    line: int, key: str, path: str, value: object
) -> None:
    """The fast path put each call ID in a set: one that is not a string raised `TypeError`,
    and `check` said "a bug in message-ir" instead of what the careful path says."""
    lines = [json.loads(each) for each in conversation_lines(1)]
    lines[line]["message"]["content"][0][key] = value
    data = b"".join(json.dumps(each).encode() + b"\n" for each in lines)
    expected = (Diagnostic("BAD_FORMAT", line, path, "Expected a non-empty `str`"),)
    assert claude_code.check(data) == expected
    assert whole_check(claude_code, data) == expected
    assert claude_code._clean(data, None) is None


# --- a log shorter than a segment, judged in one pass --------------------------------------


def _planned_alone(data: bytes, module: ModuleType = claude_code) -> int | None:
    """What the fast path says of a log read as one segment, given the first pass's branch."""
    found = _first_pass.plan(data, module._KEYS, None, size=len(data) + 2)
    if found.reused:
        return None  # `check` does not ask the fast path
    (segment,) = _segments._segments(data, found, len(data) + 2)
    count: int | None = module._clean(segment.data, segment.on)
    return count


@settings(max_examples=250, deadline=None)
@given(st.sampled_from(CLAUDE_CODE_LOGS + PI_LOGS), OPERATIONS)
def test_a_log_taken_without_the_first_pass_is_taken_with_it(
    path: Path, operations: list[tuple[int, int, int]]
) -> None:
    """The fast path of a whole log read once (`_clean_alone`) takes only what it takes given
    the first pass's branch, with as many messages, and the careful path finds it clean."""
    module = module_of(path)
    data = mutated(path.read_bytes().splitlines(), operations)
    count = module._clean_alone((data,))
    if type(count) is int:  # (not where its clean lines end: see the tests below)
        assert _planned_alone(data, module) == count
        assert whole_check(module, data) == ()


def test_the_real_logs_taken_without_the_first_pass_are_the_linear_ones() -> None:
    """The test above is not empty: real logs are taken alone, and a log with a sub-agent's
    lines inline, or a rewind, is left to the first pass."""
    taken = {path.name for path in CLAUDE_CODE_LOGS if claude_code._clean_alone((path.read_bytes(),)) is not None}
    assert taken
    planned = {path.name for path in CLAUDE_CODE_LOGS if _planned_alone(path.read_bytes()) is not None}
    assert taken < planned  # some clean logs have lines off their branch


@settings(max_examples=250, deadline=None)
@given(st.sampled_from(CLAUDE_CODE_LOGS), OPERATIONS, st.integers(1, 4096), st.integers(1, 8))
def test_a_log_streamed_in_blocks_is_taken_only_as_it_is_taken_whole(
    path: Path, operations: list[tuple[int, int, int]], block: int, walk_after: int
) -> None:
    """Claude Code's fast path of a whole log, given in blocks of a few lines and walking its
    turns a few at a time (as it reads a log of any size), takes only what it takes of the
    log given at once with every turn held, with as many messages (which the test above holds
    to the first pass's branch and the careful path)."""
    data = mutated(path.read_bytes().splitlines(), operations)
    whole = claude_code._clean_lines((data,), None, alone=True, walk_after=10**9)
    streamed = claude_code._clean_lines(_log_file.text_blocks(data, block), None, alone=True, walk_after=walk_after)
    assert type(streamed) is not int or streamed == whole  # (or where its clean lines end: see below)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(PI_LOGS), OPERATIONS, st.integers(1, 4096))
def test_a_pi_log_streamed_in_blocks_is_judged_as_it_is_whole(
    path: Path, operations: list[tuple[int, int, int]], block: int
) -> None:
    """pi's one pass judges each entry as it reads it: given in blocks, it says what it says
    of the log given at once (where its clean lines end too)."""
    data = mutated(path.read_bytes().splitlines(), operations)
    whole = pi._clean_lines((data,), None, alone=True)
    assert pi._clean_lines(_log_file.text_blocks(data, block), None, alone=True) == whole


def test_the_real_logs_taken_whole_are_taken_streamed() -> None:
    """The test above is not empty: every real log taken whole is taken a line and a turn at a
    time too, but for one whose lines of an API message lie further apart than a walk."""
    taken = streamed = 0
    for path in CLAUDE_CODE_LOGS:
        data = path.read_bytes()
        whole = claude_code._clean_lines((data,), None, alone=True, walk_after=10**9)
        if whole is not None:
            taken += 1
            count = claude_code._clean_lines(_log_file.text_blocks(data, 1), None, alone=True, walk_after=1)
            streamed += count == whole
    assert taken > 0
    assert streamed > 0


def test_a_line_of_an_api_message_walked_already_is_left_to_the_careful_path() -> None:
    """A line joining an API message whose turn was walked goes to the careful path (`load`
    joins it there); held unwalked, it is joined as `load` joins it."""
    lines = in_file_order(conversation_lines(3))
    text = claude_line("assistant", "a0", None, [{"type": "text", "text": "Reading."}])  # message `msg_a0` again
    lines.insert(5, text)  # after the second result: its message was walked at the second call
    data = b"".join(line + b"\n" for line in lines)
    expected = whole_check(claude_code, data)
    assert [diagnostic.code for diagnostic in expected] == []
    assert (
        claude_code._clean_lines((data,), None, alone=True, walk_after=10**9)
        == 7
        == len(claude_code.load(data).messages)
    )
    assert claude_code._clean_lines((data,), None, alone=True, walk_after=1) is None
    assert segmented(claude_code, data, 1, fast=True) == expected


def one_pass(
    module: ModuleType, block: int, walk_after: int
) -> Callable[[Iterable[bytes]], int | _segments.CleanUntil | None]:
    """The fast path of a whole log of a format that streams it (Claude Code, pi), given the
    text again in blocks of about `block` bytes; Claude Code's walks its turns `walk_after` at
    a time (so that it says where the clean lines of small logs end)."""

    def alone(blocks: Iterable[bytes]) -> int | _segments.CleanUntil | None:
        again = _log_file.text_blocks(b"".join(blocks), block)
        if module is claude_code:
            return claude_code._clean_lines(again, None, alone=True, walk_after=walk_after)
        found: int | _segments.CleanUntil | None = module._clean_alone(again)
        return found

    return alone


def streamed_check(
    data: bytes, block: int, walk_after: int, module: ModuleType = claude_code
) -> tuple[Diagnostic, ...]:
    """`check` of a log whose one pass is `one_pass`'s."""
    alone = one_pass(module, block, walk_after)
    rules = RULES[module.NAME]
    return _segments.check_segments(
        data, module._read, module._KEYS, rules, None, 10**9, clean=module._clean, alone=alone, streams=True
    )


@settings(max_examples=250, deadline=None)
@given(
    st.sampled_from(CLAUDE_CODE_LOGS + PI_LOGS),
    OPERATIONS,
    st.integers(1, 10**6),
    st.integers(1, 4096),
    st.integers(1, 4),
)
def test_a_log_whose_last_lines_are_checked_alone_checks_as_a_whole(
    path: Path, operations: list[tuple[int, int, int]], keep: int, block: int, walk_after: int
) -> None:
    """Where the one pass says its clean lines end (`CleanUntil`: every line read, only the last
    turns not clean, as in a session cut off), the rest checked alone says what `check` of the
    whole log says: real logs cut short, mutated or not."""
    module = module_of(path)
    lines = path.read_bytes().splitlines()
    kept = lines[: keep % len(lines) + 1]
    data = mutated(kept, operations) if operations[0][0] % 2 else b"".join(line + b"\n" for line in kept)
    assert streamed_check(data, block, walk_after, module) == whole_check(module, data)


@pytest.mark.parametrize("module", [claude_code, pi], ids=lambda module: str(module.NAME))
def test_the_real_logs_cut_short_are_checked_in_one_pass_and_a_tail(module: ModuleType) -> None:
    """The test above is not empty: real logs cut short after a call say where their clean lines
    end, and their checks hold the call's `MISSING_TOOL_RESULT`; a log given whole to the fast
    path (one block, as a format that does not stream gives it) is checked the same way."""
    until = missing = 0
    for path in CLAUDE_CODE_LOGS if module is claude_code else PI_LOGS:
        lines = path.read_bytes().splitlines(keepends=True)
        for keep in range(1, len(lines) + 1, 3):
            data = b"".join(lines[:keep])
            found = one_pass(module, 4096, 1)((data,))
            if type(found) is _segments.CleanUntil:
                until += 1
                expected = whole_check(module, data)
                missing += "MISSING_TOOL_RESULT" in {diagnostic.code for diagnostic in expected}
                assert streamed_check(data, 4096, 1, module) == expected
                rules, alone = RULES[module.NAME], ALONE[module.NAME]
                whole = _segments.check_segments(data, module._read, module._KEYS, rules, None, alone=alone)
                assert whole == expected
    assert until > 0
    assert missing > 0


def test_a_result_after_the_clean_lines_end_answering_a_call_before_is_never_checked_alone() -> None:
    """A result that answers a call made before where the clean lines would end (a second
    result for it) takes that end away: the rest checked alone would not know the call."""
    lines = in_file_order(conversation_lines(4))
    again = claude_line("user", "r-again", None, [{"type": "tool_result", "tool_use_id": "toolu_0", "content": "ok"}])
    data = b"".join(line + b"\n" for line in [*lines, again])
    expected = whole_check(claude_code, data)
    assert expected
    assert claude_code._clean_lines((data,), None, alone=True, walk_after=1) is None
    assert streamed_check(data, 4096, 1) == expected
    cut = b"".join(line + b"\n" for line in lines[:-1])  # the last call without its result
    found = claude_code._clean_lines((cut,), None, alone=True, walk_after=1)
    assert found == _segments.CleanUntil(7, cut.index(lines[7]), 7)
    assert streamed_check(cut, 4096, 1) == whole_check(claude_code, cut)


def test_last_lines_with_a_format_problem_are_reported_as_a_whole_load_reports_them() -> None:
    """The one pass takes the lines whose shape it does not judge to its last walk; when they
    are the careful path's format problems, only those are reported, as `check` of the whole
    log reports them."""
    lines = in_file_order(conversation_lines(3))
    nameless = {"type": "tool_use", "id": "toolu_9", "input": {}}  # a call without its tool's name
    lines.append(claude_line("assistant", "a9", None, [nameless]))
    data = b"".join(line + b"\n" for line in lines)
    expected = whole_check(claude_code, data)
    assert [diagnostic.code for diagnostic in expected] == ["BAD_FORMAT"]
    assert type(claude_code._clean_lines((data,), None, alone=True, walk_after=1)) is _segments.CleanUntil
    assert streamed_check(data, 4096, 1) == expected == claude_code.check(data)


def test_the_clean_lines_never_end_while_a_call_waits() -> None:
    """Two calls, one result, then the assistant again: the clean lines do not end before that
    last message (the call still waiting is a problem of the lines before it)."""
    calls = [{"type": "tool_use", "id": f"toolu_{n}", "name": "Read", "input": {"path": f"{n}.py"}} for n in (8, 9)]
    result = {"type": "tool_result", "tool_use_id": "toolu_8", "content": "ok"}
    lines = [
        *in_file_order(conversation_lines(2)),
        claude_line("assistant", "a8", None, calls),
        claude_line("user", "r8", None, [result]),
        claude_line("assistant", "a9", None, [{"type": "text", "text": "Done."}]),
    ]
    data = b"".join(line + b"\n" for line in lines)
    expected = whole_check(claude_code, data)
    assert [diagnostic.code for diagnostic in expected] == ["MISSING_TOOL_RESULT"]
    found = claude_code._clean_lines((data,), None, alone=True, walk_after=1)
    assert found == _segments.CleanUntil(5, data.index(lines[5]), 5)  # before the two calls, not after
    assert streamed_check(data, 4096, 1) == expected


def test_a_log_longer_than_a_segment_is_checked_in_one_pass_when_clean(
    monkeypatch: pytest.MonkeyPatch, planned: list[object]
) -> None:
    """`check` of a clean Claude Code log of any size reads it once (no first pass), a block
    at a time; a log the fast path gives up on is planned and checked as before."""
    lines = in_file_order(conversation_lines(400))
    data = b"".join(line + b"\n" for line in lines)
    monkeypatch.setattr(_segments, "STREAMED_BLOCK", 512)  # many blocks
    assert segmented(claude_code, data, 1000, fast=True) == ()
    assert claude_code.check(data) == ()
    assert planned == []
    cut = data[: data.rindex(b"\n", 0, len(data) - 1) + 1]  # the last result lost: a session cut off
    expected = whole_check(claude_code, cut)
    assert [diagnostic.code for diagnostic in expected] == ["MISSING_TOOL_RESULT"]
    assert segmented(claude_code, cut, 10**6, fast=True) == expected == claude_code.check(cut)
    assert planned == []  # the clean lines in one pass, the last turns alone (shorter than a segment)
    assert segmented(claude_code, cut, 1000, fast=True) == expected
    assert planned == [cut]  # the last turns longer than a segment: planned
    for call in (b'"toolu_0"', b'"toolu_399"'):  # a call's ID changed, the first's or the last's
        broken = data.replace(call, call[:-1] + b'x"', 1)
        expected = whole_check(claude_code, broken)
        assert [diagnostic.code for diagnostic in expected] == ["MISSING_TOOL_RESULT", "ORPHAN_TOOL_RESULT"]
        assert segmented(claude_code, broken, 1000, fast=True) == expected == claude_code.check(broken)
    broken = data.replace(b'"toolu_0"', b'"toolu 0"')  # the first call's ID, in its call and its result
    expected = whole_check(claude_code, broken)
    assert [diagnostic.code for diagnostic in expected] == ["BAD_TOOL_CALL_ID_FORMAT"]
    assert segmented(claude_code, broken, 1000, fast=True) == expected == claude_code.check(broken)
    assert len(planned) == 7  # the cut log once, each broken log twice


@pytest.mark.parametrize(
    "change",
    [
        lambda lines: [lines[0], lines[1].replace(b'"parentUuid": "u0"', b'"parentUuid": null'), *lines[2:]],
        lambda lines: [*lines, claude_line("user", "u0", "r2", "Again.")],
        lambda lines: [*lines[:5], lines[5].replace(b'"parentUuid": "r1"', b'"parentUuid": "a1"'), *lines[6:]],
        lambda lines: [*lines[:3], claude_line("user", "side", "r0", "Aside.", isSidechain=True), *lines[3:]],
        lambda lines: [*lines, claude_line("user", "side", "r2", "Aside.", isSidechain=True)],
        lambda lines: [lines[0].replace(b'"parentUuid": null', b'"parentUuid": "r2"'), *lines[1:]],
    ],
    ids=["second-root", "id-twice", "rewind", "sub-agent-inline", "sub-agent-last", "first-hangs-from-a-later-line"],
)
def test_a_log_whose_lines_may_leave_the_branch_is_left_to_the_first_pass(
    change: Callable[[list[bytes]], list[bytes]],
) -> None:
    lines = conversation_lines(3)
    assert claude_code._clean_alone((b"".join(line + b"\n" for line in lines),)) == 7
    data = b"".join(line + b"\n" for line in change(lines))
    assert claude_code._clean_alone((data,)) is None
    assert segmented(claude_code, data, 10**9, fast=True) == whole_check(claude_code, data)


# --- the pi fast path ----------------------------------------------------------------------


def pi_entry(uid: str, parent: str | None, kind: str = "message", **fields: object) -> bytes:
    return json.dumps({"type": kind, "id": uid, "parentId": parent, "timestamp": "t", **fields}).encode()


def pi_lines(turns: int) -> list[bytes]:
    """A pi session (format v3): its session line, a user prompt, then `turns` turns of a call
    and its result, each entry hanging from the one before."""
    lines = [
        json.dumps({"type": "session", "version": 3, "id": "session-uuid", "timestamp": "t", "cwd": "/"}).encode(),
        pi_entry("u0", None, message={"role": "user", "content": [{"type": "text", "text": "Go."}]}),
    ]
    for turn in range(turns):
        call = {"type": "toolCall", "id": f"call_{turn}", "name": "read", "arguments": {"path": f"{turn}.py"}}
        result = {"role": "toolResult", "toolCallId": f"call_{turn}", "toolName": "read", "content": "ok"}
        lines.append(
            pi_entry(
                f"a{turn}", "u0" if turn == 0 else f"r{turn - 1}", message={"role": "assistant", "content": [call]}
            )
        )
        lines.append(pi_entry(f"r{turn}", f"a{turn}", message={**result, "isError": False}))
    return lines


def test_a_plain_pi_session_is_taken_in_one_pass() -> None:
    """Its session line hangs from nothing and nothing hangs from it: the entries' chain starts
    again after it."""
    lines = pi_lines(3)
    data = b"".join(line + b"\n" for line in lines)
    assert pi._clean_alone((data,)) == 7 == _planned_alone(data, pi) == len(pi.load(data).messages)
    assert pi.check(data) == ()
    lines[1] = lines[1].replace(b'"parentId": null', b'"parentId": "session-uuid"')  # one chain from the session line
    data = b"".join(line + b"\n" for line in lines)
    assert pi._clean_alone((data,)) == 7 == _planned_alone(data, pi)
    lines[0] = lines[0].replace(b'"id": "session-uuid"', b'"id": "session-uuid", "parentId": "elsewhere"')
    data = b"".join(line + b"\n" for line in lines)
    assert pi._clean_alone((data,)) == 7 == _planned_alone(data, pi)  # (the first from an ID no line has)


@pytest.mark.parametrize(
    "change",
    [
        lambda lines: [*lines[:2], pi_entry("side", "u0", message={"role": "user", "content": "Aside."}), *lines[2:]],
        lambda lines: [*lines[:4], lines[4].replace(b'"parentId": "r0"', b'"parentId": "u0"'), *lines[5:]],
        lambda lines: [*lines, pi_entry("c", "r2", "compaction", summary="Done so far.", firstKeptEntryId="a2")],
        lambda lines: [
            *lines[:6],
            pi_entry("c", "r1", "compaction", summary="So far.", firstKeptEntryId="a2"),
            lines[6].replace(b'"parentId": "r1"', b'"parentId": "c"'),
            *lines[7:],
        ],
        lambda lines: [lines[0], lines[1].replace(b'"parentId": null', b'"parentId": "r2"'), *lines[2:]],
    ],
    ids=["second-child", "rewind", "compaction-last", "compaction", "first-hangs-from-a-later-line"],
)
def test_a_pi_session_whose_lines_may_leave_the_branch_is_left_to_the_first_pass(
    change: Callable[[list[bytes]], list[bytes]],
) -> None:
    data = b"".join(line + b"\n" for line in change(pi_lines(3)))
    assert pi._clean_alone((data,)) is None
    assert segmented(pi, data, 10**9, fast=True) == whole_check(pi, data) == pi.check(data)


def test_a_pi_session_whose_call_ids_are_used_again_is_left_to_the_first_pass() -> None:
    """`load` renames a call ID used again, and `check` then reads every segment: the fast path
    of a whole log leaves such a log to it too."""
    data = b"".join(line + b"\n" for line in pi_lines(3))
    again = re.sub(rb'"call_\d"', b'"call_0"', data)
    assert again.count(b'"call_0"') == 6
    assert pi._clean_alone((again,)) is None
    assert _first_pass.plan(again, pi._KEYS, None).reused
    assert pi.check(again) == whole_check(pi, again) == ()


def test_a_compaction_moves_where_the_branch_starts() -> None:
    """What the test above leaves to the first pass is so: after a compaction that keeps from
    the last turn, the turns before it are no longer sent, and the branch counts fewer messages."""
    lines = pi_lines(3)
    lines = [
        *lines[:6],
        pi_entry("c", "r1", "compaction", summary="So far.", firstKeptEntryId="a2"),
        lines[6].replace(b'"parentId": "r1"', b'"parentId": "c"'),
        *lines[7:],
    ]
    data = b"".join(line + b"\n" for line in lines)
    assert _planned_alone(data, pi) == 2 == len(pi.load(data).messages)
    assert pi._clean(data, None) == 7  # every message line read as if on the branch


@pytest.mark.parametrize(
    ("field", "value"),
    [("toolName", None), ("toolName", ""), ("toolName", "write"), ("isError", "no"), ("content", [{"type": "image"}])],
)
def test_a_pi_result_the_fast_path_does_not_take_is_judged_as_the_careful_path_judges_it(
    field: str, value: object
) -> None:
    lines = pi_lines(2)
    entry = json.loads(lines[3])
    entry["message"][field] = value
    lines[3] = json.dumps(entry).encode()
    data = b"".join(line + b"\n" for line in lines)
    assert pi._clean(data, None) is None
    assert segmented(pi, data, 1, fast=True) == whole_check(pi, data) == pi.check(data)


@pytest.mark.parametrize("depth", [50, 56, 57, 59, 60, 61, 64])
def test_a_deep_pi_line_is_judged_as_the_careful_path_judges_it(depth: int) -> None:
    lines = pi_lines(2)
    nested: object = "deep"
    for _ in range(depth):
        nested = [nested]
    lines.insert(3, pi_entry("deep", "r0", "custom", data=nested))
    lines[4] = lines[4].replace(b'"parentId": "r0"', b'"parentId": "deep"')
    data = b"".join(line + b"\n" for line in lines)
    assert segmented(pi, data, 1, fast=True) == whole_check(pi, data) == pi.check(data)


@pytest.mark.parametrize("digits", [4300, 4301])
def test_a_long_integer_in_a_pi_call_is_judged_as_the_careful_path_judges_it(digits: int) -> None:
    lines = pi_lines(1)
    lines[2] = lines[2].replace(b'"path": "0.py"', b'"limit": ' + b"9" * digits)
    data = b"".join(line + b"\n" for line in lines)
    assert segmented(pi, data, 1, fast=True) == whole_check(pi, data) == pi.check(data)


def test_check_of_a_short_clean_pi_session_runs_no_first_pass(planned: list[object]) -> None:
    data = b"".join(line + b"\n" for line in pi_lines(3))
    assert pi.check(data) == ()
    assert planned == []
    rewound = data.replace(b'"parentId": "r1"', b'"parentId": "a1"')  # the first pass says what is on the branch
    assert pi.check(rewound) == ()
    assert planned == [rewound]


def test_check_of_a_short_clean_log_runs_no_first_pass(planned: list[object], tmp_path: Path) -> None:
    data = b"".join(line + b"\n" for line in conversation_lines(3))
    log = tmp_path / "session.jsonl"
    log.write_bytes(data.rstrip(b"\n"))  # a last line without its newline too
    assert claude_code.check(data) == ()
    assert claude_code.check(data.decode()) == ()
    assert claude_code.check(LogFile(log)) == ()
    assert planned == []
    rewound = data.replace(b'"parentUuid": "r1"', b'"parentUuid": "a1"')  # the first pass says what is on the branch
    assert claude_code.check(rewound) == ()
    assert planned == [rewound]


def test_check_of_a_short_clean_rollout_runs_no_first_pass(planned: list[object]) -> None:
    data = b"".join(line + b"\n" for line in codex_lines(3))
    assert codex.check(data) == ()
    assert planned == []
    unanswered = data.rsplit(b"\n", 2)[0] + b"\n"  # the last output dropped
    assert [diagnostic.code for diagnostic in codex.check(unanswered)] == ["MISSING_TOOL_RESULT"]
    assert planned == [unanswered]


def test_a_log_whose_lines_form_no_tree_is_taken_in_one_pass() -> None:
    data = b"".join(line + b"\n" for line in in_file_order(conversation_lines(3)))
    assert claude_code._clean_alone((data,)) == _planned_alone(data) == 7


def test_only_a_log_the_plan_reads_as_one_segment_is_read_in_one_pass(tmp_path: Path) -> None:
    def short(source: bytes | LogFile, size: int) -> bytes | None:
        return _segments._tail(source, 0, size)  # (`check_segments` gives a `str` as its UTF-8)

    assert short(b"ab", 4) == b"ab\n"  # a last line without its newline: the plan counts 3 bytes
    assert short(b"ab\n", 4) == b"ab\n"
    assert short(b"abc", 4) is None
    assert short("é\n".encode(), 5) == "é\n".encode()  # its UTF-8, 3 bytes
    assert short("éé".encode(), 5) is None  # 4 bytes, and the newline the plan counts
    log = tmp_path / "session.jsonl"
    log.write_bytes(b"ab\ncd")
    assert short(LogFile(log), 7) == b"ab\ncd\n"
    assert short(LogFile(log), 6) is None
    assert short(LogFile(log, end=3), 6) == b"ab\n"
    assert short(b"", 4) == b""


def test_the_fast_path_reads_a_last_line_without_its_newline() -> None:
    data = b"".join(line + b"\n" for line in conversation_lines(3))
    assert claude_code._clean(data.rstrip(b"\n"), None) == claude_code._clean(data, None) == 7
    assert claude_code._clean(data + b"{oops", None) is None
    deep = b'{"type": "progress", "data": ' + b"[" * 70 + b"]" * 70 + b"}"  # too deep for `meta`
    assert claude_code._clean(data + deep, None) is None
    assert claude_code._clean(data + deep + b"\n", None) is None
