"""`convert` of a session log a segment at a time (`_convert_log`) writes what writing `convert`
of the whole log gives, byte for byte, with the same notes in the same order, on the real
Claude Code, pi and Codex logs and on mutations of them (a segment size of one byte cuts at
every place a segment may end), instructions included; it says so when a log is to be
converted whole; and the command line converts a log so without reading it whole."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import message_ir as ir
from message_ir import _cli
from message_ir._cli import main
from message_ir.adapters import (
    FORMATS,
    Conversation,
    FormatError,
    Instruction,
    Note,
    Segment,
    _segments,
    claude_code,
    convert,
    pi,
)
from message_ir.adapters._convert import CallIds, Runs, convert_alone, converted_instructions
from message_ir.adapters._convert_log import STEPS, write_converted_log
from message_ir.adapters._records import package_info
from tests.adapters.test_segments import (
    CLAUDE_CODE_LOGS,
    CODEX_LOGS,
    OPERATIONS,
    PI_LOGS,
    RULES,
    module_of,
    mutated,
)

TARGETS = [name for name, declared in FORMATS.items() if not declared.json_lines and not declared.payload]
"""Every format `convert` writes that is no session log."""


def segments_of(module: ModuleType, data: bytes, size: int) -> list[Segment]:
    return list(
        _segments.loaded_segments(module.NAME, data, module._read, module._KEYS, RULES[module.NAME], None, size)
    )


class Written:
    """What `write_converted_log` writes and notes, thrown away on `restart`."""

    def __init__(self) -> None:
        self.data = io.BytesIO()
        self.steps: list[list[Note]] = [[] for _ in range(STEPS)]
        self.restarts = 0
        self.passes = 0

    def segments(self, segments: list[Segment]) -> Iterator[Segment]:
        self.passes += 1
        yield from segments

    def write(self, data: bytes) -> None:
        self.data.write(data)

    def note(self, step: int, note: Note) -> None:
        self.steps[step].append(note)

    def restart(self) -> None:
        self.data = io.BytesIO()
        self.steps = [[] for _ in range(STEPS)]
        self.restarts += 1


def written_in_segments(segments: list[Segment], to: str) -> tuple[tuple[bytes, tuple[Note, ...]] | None, Written]:
    """What `write_converted_log` writes and the notes in `convert`'s order (`None` when it
    says the log is to be converted whole), and how it went."""
    written = Written()
    around = write_converted_log(
        lambda: written.segments(segments),
        to,
        written.write,
        written.note,
        written.restart,
    )
    if around is None:
        return None, written
    notes = tuple(note for step in written.steps for note in step)
    return (around[0] + written.data.getvalue() + around[1], notes), written


def in_segments(segments: list[Segment], to: str) -> tuple[bytes, tuple[Note, ...]] | None:
    return written_in_segments(segments, to)[0]


def assert_same_conversion(module: ModuleType, data: bytes, size: int) -> int:
    """Every target's conversion in segments is the whole one; the number of targets that
    took it in segments."""
    try:
        whole = module.load(data)
    except FormatError:
        with pytest.raises(FormatError):
            segments_of(module, data, size)
        return 0
    segments = segments_of(module, data, size)
    streamed = 0
    for to in TARGETS:
        found = in_segments(segments, to)
        if found is None:
            continue
        converted = convert(whole, to=to)
        assert found == (FORMATS[to].dumps(converted), converted.notes), to
        streamed += 1
    return streamed


@pytest.mark.parametrize("path", CLAUDE_CODE_LOGS + PI_LOGS + CODEX_LOGS, ids=lambda path: path.name)
def test_every_real_log_converts_the_same_in_segments(path: Path) -> None:
    data = path.read_bytes()
    for size in (1, 2_000, 10**9):
        assert_same_conversion(module_of(path), data, size)


def keeps_ids(segments: list[Segment], to: str) -> bool:
    """Whether every call ID of the log keeps itself in `to`: the target's rule takes it, and
    it keeps no original of an earlier conversion."""
    rule = FORMATS[to].id_rule
    return all(
        rule.problem(call.id) is None and "original_id" not in package_info(call.meta_json)
        for segment in segments
        for message in segment.conversation.messages
        if type(message) is ir.AssistantMessage
        for call in message.content
        if type(call) is ir.ToolCall
    )


def test_every_real_log_converts_in_segments_into_every_target() -> None:
    """Not a test that cannot fail: every real log is converted in segments, those whose call
    IDs change in a first pass gathering the IDs (before anything is written for Mistral,
    which puts messages between messages; after one restart for the others), and the rest in
    one pass."""
    several = gathered = 0
    for path in CLAUDE_CODE_LOGS + PI_LOGS + CODEX_LOGS:
        module = module_of(path)
        try:
            module.load(path.read_bytes())
        except FormatError:
            continue  # a broken log of `broken/`
        segments = segments_of(module, path.read_bytes(), 1)
        several += len(segments) > 1
        for to in TARGETS:
            found, written = written_in_segments(segments, to)
            assert found is not None, (path.name, to)
            kept = keeps_ids(segments, to)
            if to == "mistral":
                assert (written.passes, written.restarts) == (2, 0), (path.name, to)
            else:
                assert (written.passes, written.restarts) == ((1, 0) if kept else (3, 1)), (path.name, to)
            gathered += not kept
    assert several >= 2
    assert gathered  # Mistral's IDs are nine letters and digits: not a test that cannot fail


def test_a_codex_log_with_instructions_converts_in_segments() -> None:
    """Not a test that cannot fail: the instructions of Codex logs (some in a later segment)
    are held to the end and written in the target's field (Anthropic, Gemini, Bedrock) or
    before the messages' records (the others), as the whole conversion writes them."""
    later = taken = 0
    for path in CODEX_LOGS:
        segments = segments_of(module_of(path), path.read_bytes(), 1)
        if not any(segment.conversation.instructions for segment in segments):
            continue
        later += any(segment.conversation.instructions for segment in segments[1:])
        for to in ("anthropic", "openai_chat"):  # a field for them, and records before the messages
            taken += in_segments(segments, to) is not None
    assert later >= 1
    assert taken >= 2


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(CLAUDE_CODE_LOGS + PI_LOGS + CODEX_LOGS), OPERATIONS, st.sampled_from([1, 700]))
def test_a_mutated_log_converts_the_same_in_segments(
    path: Path, operations: list[tuple[int, int, int]], size: int
) -> None:
    assert_same_conversion(module_of(path), mutated(path.read_bytes().splitlines(), operations), size)


def call_and_result(call_id: str) -> Conversation:
    call = ir.tool_call(id=call_id, name="read", arguments={})
    return Conversation(
        format="pi",
        messages=(
            ir.assistant_message(id="m0", content=[call]),
            ir.tool_result_message(id="m1", tool_call_id=call_id, tool_name="read", content="x"),
        ),
    )


def test_a_run_whose_call_id_the_target_rewrites_is_converted_alone_once_the_ids_are_known() -> None:
    """New IDs (of calls, and of the messages Mistral puts between messages) are chosen among
    all the conversation's: not from a run alone."""
    assert convert_alone(call_and_result("call_1"), "anthropic", 4, Runs()) is not None
    assert convert_alone(call_and_result("call.1"), "anthropic", 4, Runs()) is None  # Anthropic refuses the dot
    assert convert_alone(call_and_result("call_1"), "mistral", 4, Runs()) is None  # Mistral bridges
    with_instructions = call_and_result("call_1").replace(
        instructions=[Instruction("system", "Be brief.", "$[0]", "m0")]
    )
    assert convert_alone(with_instructions, "anthropic", 4, Runs()) is None
    for to in ("anthropic", "mistral"):
        run = call_and_result("call.1")
        ids = CallIds()
        ids.add(run.messages)
        done = convert_alone(run, to, 0, ids.runs(to))
        assert done is not None
        whole = convert(run, to=to)
        assert done[0].messages == whole.messages
        assert tuple(note for step in done[1] for note in step) == whole.notes
        assert whole.notes[0].code == "REWROTE_CALL_ID"  # not a test that cannot fail


def test_a_bridge_between_runs_is_put_as_the_whole_puts_it() -> None:
    """A user message opening a run, after a run ending in a tool result: Mistral's message
    between them is put in the later run, with the ID and the index the whole gives it."""
    first = call_and_result("call1")
    second = Conversation(
        format="pi",
        messages=(ir.user_message(id="m1_bridge", content="next"), ir.user_message(id="m3", content="again")),
    )
    whole = convert(Conversation(format="pi", messages=first.messages + second.messages), to="mistral")
    ids = CallIds()
    ids.add(first.messages)
    ids.add(second.messages)
    runs = ids.runs("mistral")
    one, two = convert_alone(first, "mistral", 0, runs), convert_alone(second, "mistral", 2, runs)
    assert one is not None
    assert two is not None
    assert one[0].messages + two[0].messages == whole.messages
    assert [note for step in range(6) for each in (one, two) for note in each[1][step]] == list(whole.notes)
    assert whole.messages[2].id == "m1_bridge_"  # the ID a message of the log has is not taken again


def test_notes_of_a_run_count_from_its_first_message() -> None:
    run = call_and_result("call_1")
    done = convert_alone(run, "openai_chat", 7, Runs())
    assert done is not None
    converted, steps = done
    whole = convert(run, to="openai_chat")
    assert whole.notes  # arguments written as JSON text: not a test that cannot fail
    assert converted.messages == whole.messages
    assert [note.message_index for step in steps for note in step] == [
        note.message_index + 7 for note in whole.notes if note.message_index is not None
    ]
    assert [note.path for step in steps for note in step] == [
        note.path.replace("$[0]", "$[7]").replace("$[1]", "$[8]") for note in whole.notes
    ]


def test_convert_reads_the_segments_without_their_check() -> None:
    """The segments `convert` reads are the declaration's `segments`, but for what `check`
    says (no diagnostics, no places), on every real log; a log not of its format is refused by
    both; a source given as parsed lines is given to `segments`."""
    compared = 0
    for path in CLAUDE_CODE_LOGS + PI_LOGS + CODEX_LOGS:
        module = module_of(path)
        declared = FORMATS[module.NAME]
        assert declared.segments is not None
        data = path.read_bytes()
        try:
            checked = list(declared.segments(data, None))
        except FormatError:
            with pytest.raises(FormatError):
                list(_segments.unchecked_segments(module.NAME, declared.segments, data))
            continue
        unchecked = list(_segments.unchecked_segments(module.NAME, declared.segments, data))
        assert unchecked == [segment._replace(diagnostics=(), places={}) for segment in checked], path.name
        compared += any(segment.places for segment in checked)
        lines = [json.loads(line) for line in data.splitlines() if line.strip()]
        given = _segments.unchecked_segments(module.NAME, declared.segments, lines)
        assert list(given) == list(declared.segments(lines, None)), path.name
    assert compared >= 2  # not a test that cannot fail


def test_a_log_not_of_its_format_is_refused_by_the_segments_convert_reads() -> None:
    broken = CLAUDE_CODE_LOGS[0].read_bytes() + b"{not json\n"
    declared = FORMATS["claude_code"]
    assert declared.segments is not None
    with pytest.raises(FormatError):
        list(_segments.unchecked_segments("claude_code", declared.segments, broken))


def test_a_session_log_as_the_target_is_converted_whole() -> None:
    segments = segments_of(pi, PI_LOGS[0].read_bytes(), 10**9)
    for name, declared in FORMATS.items():
        if declared.json_lines or declared.payload:
            assert in_segments(segments, name) is None, name


def run_cli(*argv: str) -> tuple[int, str, str]:
    written = io.BytesIO()
    stdout, stderr = io.TextIOWrapper(written, encoding="utf-8"), io.StringIO()
    status = main(list(argv), stdout=stdout, stderr=stderr)
    stdout.flush()
    return status, written.getvalue().decode(), stderr.getvalue()


def said_of(source: Path, converted: Conversation) -> str:
    """What the command line says of `convert`'s notes on `source`."""
    return "".join(
        f"{source}:{'-' if note.message_index is None else note.message_index}: {note.code} {note.message} "
        f"(at {note.path})\n"
        for note in converted.notes
    )


def never_read_whole(path: str) -> tuple[bytes, object]:
    raise AssertionError(f"{path} was read whole")


def with_instructions_in_a_later_segment() -> Path:
    """A Codex log whose instructions are in more than its first segment (cut at every place)."""
    for path in CODEX_LOGS:
        segments = segments_of(module_of(path), path.read_bytes(), 1)
        if any(segment.conversation.instructions for segment in segments[1:]):
            return path
    raise AssertionError("no such log")


@pytest.mark.parametrize("to", ["anthropic", "openai_chat", "gemini"])
@pytest.mark.parametrize("kind", ["claude_code", "codex"])
def test_the_command_line_converts_a_log_in_segments_as_it_converted_it_whole(
    tmp_path: Path, to: str, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(The file's segments are of the usual size: the Codex log's instructions are held and
    written where the target puts them.)"""
    source = CLAUDE_CODE_LOGS[0] if kind == "claude_code" else with_instructions_in_a_later_segment()
    converted = convert(module_of(source).load(source.read_bytes()), to=to)
    said = said_of(source, converted)
    monkeypatch.setattr(_cli, "_read", never_read_whole)
    out = tmp_path / "out.json"
    assert run_cli("convert", "--to", to.replace("_", "-"), str(source), "-o", str(out)) == (0, "", said)
    assert out.read_bytes() == FORMATS[to].dumps(converted) + b"\n"
    assert said  # the notes are said: not a test that cannot fail
    status, printed, _ = run_cli("convert", "--from", kind.replace("_", "-"), "--to", to.replace("_", "-"), str(source))
    assert (status, printed) == (0, out.read_text())


def test_the_command_line_converts_whole_what_it_cannot_convert_in_segments(tmp_path: Path) -> None:
    """A log converted whole (a session log as the target) and a log that is not of its
    format say what they said before."""
    source = CLAUDE_CODE_LOGS[0]
    out = tmp_path / "out.jsonl"
    assert run_cli("convert", "--to", "pi", str(source), "-o", str(out))[0] == 0
    assert out.read_bytes() == FORMATS["pi"].dumps(convert(claude_code.load(source.read_bytes()), to="pi"))
    broken = tmp_path / "broken.jsonl"
    broken.write_bytes(source.read_bytes() + b"{not json\n")
    status, _, err = run_cli("convert", "--from", "claude-code", "--to", "anthropic", str(broken))
    assert status == 1
    assert err.splitlines()[-1] == f"message-ir: {broken}: not converted: not claude-code data"


def with_a_refused_call_id() -> bytes:
    """The first real Claude Code log with a call, its last call ID (in its call and its
    results) given a dot, which Anthropic refuses."""
    for path in CLAUDE_CODE_LOGS:
        try:
            segments = segments_of(claude_code, path.read_bytes(), 10**9)
        except FormatError:
            continue  # a broken log of `broken/`
        call_ids = [
            call.id
            for segment in segments
            for message in segment.conversation.messages
            if type(message) is ir.AssistantMessage
            for call in message.content
            if type(call) is ir.ToolCall
        ]
        if call_ids:
            return path.read_bytes().replace(f'"{call_ids[-1]}"'.encode(), f'"{call_ids[-1]}.x"'.encode())
    raise AssertionError("no real Claude Code log with a call")


@pytest.mark.parametrize("to", ["anthropic", "mistral"])
def test_the_command_line_converts_a_log_whose_ids_change_in_segments(
    tmp_path: Path, to: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Mistral's nine-character IDs, and a call ID with a dot for Anthropic (met after the
    first segments' records and notes are spooled: written again): the log is never read whole,
    and the output and notes are the whole conversion's."""
    monkeypatch.setattr(_segments, "SEGMENT_BYTES", 2_000)
    source = tmp_path / "session.jsonl"
    source.write_bytes(with_a_refused_call_id())
    converted = convert(claude_code.load(source.read_bytes()), to=to)
    assert any(note.code == "REWROTE_CALL_ID" for note in converted.notes)  # not a test that cannot fail
    said = said_of(source, converted)
    monkeypatch.setattr(_cli, "_read", never_read_whole)
    out = tmp_path / "out.json"
    assert run_cli("convert", "--to", to, str(source), "-o", str(out)) == (0, "", said)
    assert out.read_bytes() == FORMATS[to].dumps(converted) + b"\n"


def test_instructions_are_placed_alone_only_from_another_format() -> None:
    """Within one format, instructions stand where they stood: every message counts."""
    with pytest.raises(ValueError, match=r"^Expected a conversation of another format than 'pi'$"):
        converted_instructions(Conversation(format="pi", messages=()), "pi", None, [])


def test_a_file_whose_first_lines_are_long_is_converted_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The format is told from the first lines within `_HEAD_BYTES`; past that (a file of one
    long JSON value) the file is read whole, as before, and converted the same."""
    source = CLAUDE_CODE_LOGS[0]
    first_lines = b"".join(source.read_bytes().splitlines(keepends=True)[:5])
    read: list[str] = []
    whole_read = _cli._read

    def counted(path: str) -> tuple[bytes, object]:
        read.append(path)
        return whole_read(path)

    monkeypatch.setattr(_cli, "_read", counted)
    out = tmp_path / "out.json"
    monkeypatch.setattr(_cli, "_HEAD_BYTES", len(first_lines))
    assert run_cli("convert", "--to", "anthropic", str(source), "-o", str(out))[0] == 0
    assert read == []  # the first lines fit: in segments
    monkeypatch.setattr(_cli, "_HEAD_BYTES", len(first_lines) - 1)
    assert run_cli("convert", "--to", "anthropic", str(source), "-o", str(out))[0] == 0
    assert read == [str(source)]
    assert (
        out.read_bytes()
        == FORMATS["anthropic"].dumps(convert(claude_code.load(source.read_bytes()), to="anthropic")) + b"\n"
    )


def test_a_target_that_converts_nothing_alone_is_known_before_the_log_is_read() -> None:
    """The session logs: no first pass over the log is spent before it is read whole."""

    def unread() -> Iterator[Segment]:
        read.append(True)
        yield from ()

    read: list[bool] = []

    for name, declared in FORMATS.items():
        if declared.json_lines or declared.payload:
            assert write_converted_log(unread, name, lambda _: None, lambda _, __: None, lambda: None) is None, name
    assert read == []
    empty = write_converted_log(unread, "anthropic", lambda _: None, lambda _, __: None, lambda: None)
    assert empty == (b'{"messages":[', b"]}")
    assert read == [True]  # not a test that cannot fail: a log is read when it may be converted so


def test_a_log_converted_in_segments_to_a_folder_not_there_says_so_as_before(tmp_path: Path) -> None:
    """The spool goes beside the output: a missing folder is said as the whole write says it."""
    out = tmp_path / "missing" / "out.json"
    for to in ("anthropic", "pi"):  # in segments, and whole
        status, _, err = run_cli("convert", "--to", to, str(CLAUDE_CODE_LOGS[0]), "-o", str(out))
        assert (status, err.splitlines()[-1]) == (
            2,
            f"message-ir: error: cannot write {out}: No such file or directory",
        )
