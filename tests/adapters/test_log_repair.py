"""What `repair` of a session log fixes, found a segment at a time (`_log_repair`), is what
a repair of the whole branch fixes, on the real Claude Code, pi and Codex logs and on
mutations of them (a segment size of one byte cuts at every place a segment may end); and
`repair` on the command line writes a log it changes nothing in back as read."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from message_ir import Fix, _cli, repair_transcript
from message_ir._cli import main
from message_ir._repair import DEFAULT_MISSING_RESULT_CONTENT
from message_ir.adapters import (
    FORMATS,
    FormatError,
    LogFile,
    Segment,
    _segments,
    claude_code,
    codex,
    pi,
)
from message_ir.adapters._log_repair import changed, repair_log, segment_fixes, write_repaired
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
    one_pass,
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


def units_of(module: ModuleType, source: object, size: int) -> Iterator[Segment | int]:
    """What `repair_units` gives `repair` (a clean segment as its count of messages), in
    segments of about `size` bytes; a format without a fast path loads every segment."""
    clean = getattr(module, "_clean", None)
    return _segments._segments_alone(
        module.NAME, source, module._read, module._KEYS, RULES[module.NAME], None, size, clean
    )


def repaired_by(units: Iterator[Segment | int], data: bytes, module: ModuleType) -> object:
    """What `repair` of a log makes of these segments: the fixes said, and the log written
    (as read, with its last segment repaired, or `whole`); `FormatError` for a log not of the format."""
    said: list[Fix] = []
    try:
        found = repair_log(
            units, missing_result_content=DEFAULT_MISSING_RESULT_CONTENT, each=lambda done: said.extend(done.fixes)
        )
    except FormatError:
        return FormatError
    if found is None:
        return "whole", tuple(said)
    if found.clean:
        assert not said
        assert module.check(data) == ()  # what the command line says without checking again
    written: list[bytes] = []
    if found.changed is not None:
        write_repaired(data, found.changed, module.dumps, written.append)
    return tuple(said), b"".join(written) if written else data


def fixes_in_segments(module: ModuleType, data: bytes, size: int) -> tuple[Fix, ...] | None:
    done = segment_fixes(segments_of(module, data, size), missing_result_content=DEFAULT_MISSING_RESULT_CONTENT)
    try:
        return tuple(fix for segment in done for fix in segment.fixes)
    except FormatError:
        return None


def written_in_segments(module: ModuleType, data: bytes, size: int) -> bytes | None:
    """What `repair` writes of a log when it repairs it a segment at a time (as read, or with
    its last segment repaired); `None` when it repairs it whole."""
    found = repair_log(
        segments_of(module, data, size), missing_result_content=DEFAULT_MISSING_RESULT_CONTENT, each=lambda _: None
    )
    if found is None:
        return None
    if found.changed is None:
        return data
    written: list[bytes] = []
    write_repaired(data, found.changed, module.dumps, written.append)
    return b"".join(written)


def assert_same_repair(module: ModuleType, data: bytes, size: int) -> None:
    expected = whole_fixes(module, data)
    assert fixes_in_segments(module, data, size) == expected
    if expected is None:
        return
    conversation = module.load(data)
    repaired = repair_transcript(conversation.messages)
    whole: bytes = module.dumps(conversation.replace(messages=repaired.messages)) if changed(expected) else data
    written = written_in_segments(module, data, size)
    if written is None:
        assert changed(expected)  # repaired whole
    elif module.dumps(conversation) == data:
        assert written == whole
    else:
        # The format writes some of these lines its own way (pi's escapes, a line with spaces):
        # the lines before the repaired segment are written as read, where a whole repair
        # rewrites them; the log read is the same.
        assert module.load(written) == module.load(whole)
    if not changed(expected):
        # Written back as read, and checked so: what checking it written by `dumps` says.
        assert module.check(module.dumps(conversation)) == module.check(data)
    # Skipping the segments `check`'s fast path finds clean makes the same repair.
    assert repaired_by(units_of(module, data, size), data, module) == repaired_by(
        segments_of(module, data, size), data, module
    )


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


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(CLAUDE_CODE_LOGS + PI_LOGS + CODEX_LOGS), st.integers(1, 10**6), st.sampled_from([1, 700]))
def test_a_log_cut_short_repairs_its_last_segment_alone(path: Path, keep: int, size: int) -> None:
    """An agent stopped mid-turn leaves a call without its result at the end of its log: the
    last segment is repaired alone, as a repair of the whole log repairs it."""
    module = module_of(path)
    lines = path.read_bytes().splitlines(keepends=True)
    data = b"".join(lines[: keep % len(lines) + 1])
    assert_same_repair(module, data, size)


def test_the_real_logs_cut_short_are_repaired_in_their_last_segment() -> None:
    """Not a test that cannot fail: cutting real logs short gives logs whose last segment
    only repair changes, written in segments, for every log format."""
    formats: set[str] = set()
    for path in CLAUDE_CODE_LOGS + PI_LOGS + CODEX_LOGS:
        module = module_of(path)
        if module.NAME in formats:
            continue
        lines = path.read_bytes().splitlines(keepends=True)
        for keep in range(1, len(lines) + 1):
            data = b"".join(lines[:keep])
            found = repair_log(
                segments_of(module, data, 1), missing_result_content=DEFAULT_MISSING_RESULT_CONTENT, each=lambda _: None
            )
            if found is not None and found.changed is not None:
                formats.add(module.NAME)
                break
    assert formats == {claude_code.NAME, pi.NAME, codex.NAME}


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


def repair_in_process(path: Path, out: Path) -> tuple[int, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    status = main(["repair", str(path), "-o", str(out)], stdout=stdout, stderr=stderr)
    return status, stderr.getvalue()


@pytest.mark.parametrize("keep", [None, "last turn", "middle turn"])
def test_the_command_line_in_segments_writes_what_it_writes_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keep: str | None
) -> None:
    """The same fix lines, exit status and file from one-byte segments (a log repaired as
    read, in its last segment, or whole) as from one segment holding the whole log."""
    lines = in_file_order(conversation_lines(6))
    if keep == "last turn":
        del lines[-1]  # the last call's result, lost on Ctrl+C
    elif keep == "middle turn":
        del lines[4]  # the second call's result
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    whole = repair_in_process(path, tmp_path / "whole.jsonl")
    declared = FORMATS[claude_code.NAME]
    read = declared.segments
    assert read is not None

    def small(source: object, leaf: str | None = None) -> Iterator[Segment]:
        assert leaf is None
        return segments_of(claude_code, source, 1)

    monkeypatch.setattr(_cli, "FORMATS", {**FORMATS, claude_code.NAME: declared._replace(segments=small)})
    assert repair_in_process(path, tmp_path / "segments.jsonl") == whole
    written, expected = (tmp_path / "segments.jsonl").read_bytes(), (tmp_path / "whole.jsonl").read_bytes()
    if keep == "last turn":  # the lines before the last segment as read (with their spaces)
        assert written.splitlines()[:-2] == lines[:-1]  # then the last call and its new result
        assert claude_code.load(written) == claude_code.load(expected)
    else:
        assert written == expected
    found = repair_log(small(path.read_bytes()), missing_result_content=DEFAULT_MISSING_RESULT_CONTENT, each=print)
    assert (found is None, found is not None and found.changed is not None) == {
        None: (False, False),
        "last turn": (False, True),
        "middle turn": (True, False),
    }[keep]
    assert whole[0] == 0
    assert sorted(name.name for name in tmp_path.iterdir()) == ["segments.jsonl", "session.jsonl", "whole.jsonl"]


def test_repair_of_an_empty_log_writes_it_empty_and_says_nothing(tmp_path: Path) -> None:
    """It said `BAD_FORMAT not fixed` of an empty line, which it checked and never wrote."""
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"")
    out = tmp_path / "out.jsonl"
    completed = run_repair("--from", "claude-code", str(path), "-o", str(out))
    assert (completed.returncode, completed.stderr, out.read_bytes()) == (0, b"", b"")


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (OSError(28, "No space left on device"), "cannot write a temporary file: No space left on device"),
        (OSError(5, "Input/output error", "session.jsonl"), "cannot read {path}: Input/output error"),
    ],
)
def test_a_failure_while_the_last_segment_is_written_is_said_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: OSError, said: str
) -> None:
    lines = in_file_order(conversation_lines(2))
    del lines[-1]  # the last call's result
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in lines))

    def failing(*_: object) -> None:
        raise error

    monkeypatch.setattr(_cli, "write_repaired", failing)
    out = tmp_path / "out.jsonl"
    stdout, stderr = io.StringIO(), io.StringIO()
    status = main(["repair", str(path), "-o", str(out)], stdout=stdout, stderr=stderr)
    fix = f"{path}:4: MISSING_TOOL_RESULT inserted_result: Inserted an error result for 'toolu_1', which had none\n"
    assert (status, stderr.getvalue()) == (2, f"{fix}message-ir: error: {said.format(path=path)}\n")
    assert sorted(name.name for name in tmp_path.iterdir()) == ["session.jsonl"]


def cut_after_a_call(tmp_path: Path) -> Path:
    """A log whose last call has no result (its last segment is repaired alone)."""
    lines = in_file_order(conversation_lines(2))
    del lines[-1]
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return path


def test_the_repaired_log_is_spooled_beside_an_output_file_else_in_the_temporary_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = cut_after_a_call(tmp_path)
    folders: list[str | None] = []
    mkstemp = tempfile.mkstemp

    def recorded(prefix: str, suffix: str, dir: str | None) -> tuple[int, str]:  # mkstemp's own names
        if prefix == ".message-ir-repair-":  # (the safe write makes one of its own)
            folders.append(dir)
        return mkstemp(prefix=prefix, suffix=suffix, dir=dir)

    monkeypatch.setattr(tempfile, "mkstemp", recorded)
    link = tmp_path / "elsewhere" / "link.jsonl"
    link.parent.mkdir()
    target = tmp_path / "target.jsonl"
    target.write_bytes(b"")
    link.symlink_to(target)
    for output in ("/dev/null", str(tmp_path / "new.jsonl"), str(link)):
        stdout, stderr = io.StringIO(), io.StringIO()
        assert main(["repair", str(path), "-o", output], stdout=stdout, stderr=stderr) == 0
    assert folders == [None, str(tmp_path), str(tmp_path)]  # a device; a new file; a link's target
    assert target.read_bytes() == (tmp_path / "new.jsonl").read_bytes()


def test_an_output_in_a_folder_that_is_not_there_is_said_and_leaves_nothing(tmp_path: Path) -> None:
    path = cut_after_a_call(tmp_path)
    out = tmp_path / "missing" / "out.jsonl"
    completed = run_repair(str(path), "-o", str(out))
    fix = f"{path}:4: MISSING_TOOL_RESULT inserted_result: Inserted an error result for 'toolu_1', which had none\n"
    assert (completed.returncode, completed.stderr.decode()) == (
        2,
        f"{fix}message-ir: error: cannot write {out}: No such file or directory\n",
    )
    assert sorted(name.name for name in tmp_path.iterdir()) == ["session.jsonl"]


def test_repair_skips_the_segments_checks_fast_path_finds_clean(tmp_path: Path) -> None:
    """Not a test that cannot fail: the real Claude Code logs are skipped whole (and
    `assert_same_repair` holds the repair to the one of every segment loaded), a log cut
    after a call has its last segment loaded; `repair` of another `segments` than the
    format's own loads every segment."""
    declared = FORMATS[claude_code.NAME]
    assert declared.segments is not None
    units = [
        unit
        for path in CLAUDE_CODE_LOGS
        for unit in _segments.repair_units(claude_code.NAME, declared.segments, LogFile(path))
    ]
    assert sum(type(unit) is int for unit in units) >= len(CLAUDE_CODE_LOGS) // 2
    lines = in_file_order(conversation_lines(6))
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in lines[:-1]))  # the last call's result lost
    *_, last = _segments.repair_units(claude_code.NAME, declared.segments, LogFile(path))
    assert type(last) is Segment

    def other(source: object, leaf: str | None = None) -> Iterator[Segment]:
        return segments_of(claude_code, source, 1)

    data = CLAUDE_CODE_LOGS[0].read_bytes()
    assert all(type(unit) is Segment for unit in _segments.repair_units(claude_code.NAME, other, data))


def streamed_units_of(module: ModuleType, data: bytes, walk_after: int) -> Iterator[Segment | int]:
    """A Claude Code or pi log's `repair_units` (`streamed_units`), with `one_pass`'s fast path."""
    alone = one_pass(module, 4096, walk_after)
    rules = RULES[module.NAME]
    return _segments.streamed_units(module.NAME, data, module._read, module._KEYS, rules, 10**9, module._clean, alone)


def assert_streamed_repair(module: ModuleType, data: bytes, walk_after: int) -> bool:
    """Repair through the one pass fixes and writes what a repair of the whole log does;
    whether it wrote the log with its last lines repaired alone."""
    got = repaired_by(streamed_units_of(module, data, walk_after), data, module)
    expected = whole_fixes(module, data)
    if expected is None:
        assert got is FormatError
        return False
    assert type(got) is tuple
    if got[0] == "whole":
        assert changed(expected)
        return False
    said, written = got
    assert said == expected
    conversation = module.load(data)
    repaired = repair_transcript(conversation.messages)
    whole = module.dumps(conversation.replace(messages=repaired.messages)) if changed(expected) else data
    if module.dumps(conversation) == data:
        assert written == whole
    else:
        assert module.load(written) == module.load(whole)
    return changed(expected)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(CLAUDE_CODE_LOGS + PI_LOGS), OPERATIONS, st.integers(1, 10**6), st.integers(1, 4))
def test_a_log_whose_last_lines_are_repaired_alone_repairs_as_a_whole(
    path: Path, operations: list[tuple[int, int, int]], keep: int, walk_after: int
) -> None:
    """A Claude Code or pi log whose one pass says where its clean lines end has the rest
    repaired alone: the fixes and the log written are a repair of the whole log's (real logs
    cut short anywhere, mutated or not)."""
    module = module_of(path)
    lines = path.read_bytes().splitlines()
    kept = lines[: keep % len(lines) + 1]
    data = mutated(kept, operations) if operations[0][0] % 2 else b"".join(line + b"\n" for line in kept)
    assert_streamed_repair(module, data, walk_after)


@pytest.mark.parametrize("module", [claude_code, pi], ids=lambda module: str(module.NAME))
def test_the_real_logs_cut_short_are_repaired_in_their_last_lines_alone(module: ModuleType) -> None:
    """The test above is not empty: real logs cut short after a call are repaired so, written
    with their last lines repaired."""
    repaired = 0
    for path in CLAUDE_CODE_LOGS if module is claude_code else PI_LOGS:
        lines = path.read_bytes().splitlines(keepends=True)
        for keep in range(1, len(lines) + 1, 3):
            data = b"".join(lines[:keep])
            if type(one_pass(module, 4096, 1)((data,))) is _segments.CleanUntil:
                repaired += assert_streamed_repair(module, data, 1)
    assert repaired > 0


def test_repair_of_a_long_session_cut_off_plans_nothing(planned: list[object]) -> None:
    """`repair` of a Claude Code session cut off after a call reads it once and repairs its last
    turns alone (no first pass), writing what a repair of the whole log writes."""
    lines = in_file_order(conversation_lines(400))
    data = b"".join(line + b"\n" for line in lines[:-1])  # the last call's result lost
    segments = claude_code.FORMAT.segments
    assert segments is not None
    units = list(_segments.repair_units(claude_code.NAME, segments, data))
    assert planned == []
    assert [type(unit) for unit in units] == [int, Segment]
    assert list(_segments.repair_units(claude_code.NAME, segments, data.decode())) == units  # given as text
    assert assert_streamed_repair(claude_code, data, 256)
    assert planned == []


def test_repair_units_of_a_codex_rollout_are_planned(planned: list[object]) -> None:
    """Codex's fast path of a whole log does not stream: `repair` plans a rollout, as before,
    and its units skip the segments the fast path of a segment finds clean."""
    path = max(CODEX_LOGS, key=lambda path: path.stat().st_size)
    data = path.read_bytes()
    segments = codex.FORMAT.segments
    assert segments is not None
    units = list(_segments.repair_units(codex.NAME, segments, data))
    assert planned == [data]
    assert repaired_by(iter(units), data, codex) == repaired_by(
        segments_of(codex, data, _segments.SEGMENT_BYTES), data, codex
    )
