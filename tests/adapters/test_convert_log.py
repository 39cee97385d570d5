"""`convert` of a session log a segment at a time (`_convert_log`) writes what writing `convert`
of the whole log gives, byte for byte, with the same notes in the same order, on the real
Claude Code, pi and Codex logs and on mutations of them (a segment size of one byte cuts at
every place a segment may end), instructions included; it says so when a log is to be
converted whole; and the command line converts a log so without reading it whole."""

from __future__ import annotations

import io
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
from message_ir.adapters._convert import convert_alone, converted_instructions
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


def in_segments(segments: list[Segment], to: str) -> tuple[bytes, tuple[Note, ...]] | None:
    """What `write_converted_log` writes and the notes in `convert`'s order; `None` when it
    says the log is to be converted whole."""
    written = io.BytesIO()
    steps: list[list[Note]] = [[] for _ in range(STEPS)]
    around = write_converted_log(segments, to, written.write, lambda step, note: steps[step].append(note))
    if around is None:
        return None
    return around[0] + written.getvalue() + around[1], tuple(note for step in steps for note in step)


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


def alone(segments: list[Segment], to: str) -> bool:
    """Whether every segment may be converted alone into `to` as `convert_alone` says: not into
    Mistral, and no call ID the target's rule refuses or that keeps an original."""
    rule = FORMATS[to].id_rule
    return to != "mistral" and all(
        rule.problem(call.id) is None and "original_id" not in package_info(call.meta_json)
        for segment in segments
        for message in segment.conversation.messages
        if type(message) is ir.AssistantMessage
        for call in message.content
        if type(call) is ir.ToolCall
    )


def test_the_real_logs_convert_in_segments_whenever_their_ids_fit() -> None:
    """Not a test that cannot fail: a real log is converted in segments into every target but
    Mistral, unless one of its IDs must change (none of today's real logs has such an ID)."""
    several = 0
    for path in CLAUDE_CODE_LOGS + PI_LOGS + CODEX_LOGS:
        module = module_of(path)
        try:
            module.load(path.read_bytes())
        except FormatError:
            continue  # a broken log of `broken/`
        segments = segments_of(module, path.read_bytes(), 1)
        several += len(segments) > 1
        taken = {to for to in TARGETS if in_segments(segments, to) is not None}
        assert taken == {to for to in TARGETS if alone(segments, to)}, path.name
        assert taken, path.name
    assert several >= 2


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
            converted = in_segments(segments, to) is not None
            assert converted == alone(segments, to), (path.name, to)
            taken += converted
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


def test_a_run_whose_call_id_the_target_rewrites_is_not_converted_alone() -> None:
    """New IDs are chosen among all the conversation's: not from a run alone."""
    assert convert_alone(call_and_result("call_1"), "anthropic", 4) is not None
    assert convert_alone(call_and_result("call.1"), "anthropic", 4) is None  # Anthropic refuses the dot
    assert convert_alone(call_and_result("call_1"), "mistral", 4) is None  # Mistral bridges
    with_instructions = call_and_result("call_1").replace(
        instructions=[Instruction("system", "Be brief.", "$[0]", "m0")]
    )
    assert convert_alone(with_instructions, "anthropic", 4) is None


def test_notes_of_a_run_count_from_its_first_message() -> None:
    run = call_and_result("call_1")
    done = convert_alone(run, "openai_chat", 7)
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
    said = "".join(
        f"{source}:{'-' if note.message_index is None else note.message_index}: {note.code} {note.message} "
        f"(at {note.path})\n"
        for note in converted.notes
    )
    monkeypatch.setattr(_cli, "_read", never_read_whole)
    out = tmp_path / "out.json"
    assert run_cli("convert", "--to", to.replace("_", "-"), str(source), "-o", str(out)) == (0, "", said)
    assert out.read_bytes() == FORMATS[to].dumps(converted) + b"\n"
    assert said  # the notes are said: not a test that cannot fail
    status, printed, _ = run_cli("convert", "--from", kind.replace("_", "-"), "--to", to.replace("_", "-"), str(source))
    assert (status, printed) == (0, out.read_text())


def test_the_command_line_converts_whole_what_it_cannot_convert_in_segments(tmp_path: Path) -> None:
    """A log converted whole (Mistral as the target) and a log that is not of its format say
    what they said before."""
    source = CLAUDE_CODE_LOGS[0]
    out = tmp_path / "out.json"
    assert run_cli("convert", "--to", "mistral", str(source), "-o", str(out))[0] == 0
    assert (
        out.read_bytes()
        == FORMATS["mistral"].dumps(convert(claude_code.load(source.read_bytes()), to="mistral")) + b"\n"
    )
    broken = tmp_path / "broken.jsonl"
    broken.write_bytes(source.read_bytes() + b"{not json\n")
    status, _, err = run_cli("convert", "--from", "claude-code", "--to", "anthropic", str(broken))
    assert status == 1
    assert err.splitlines()[-1] == f"message-ir: {broken}: not converted: not claude-code data"


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
    """Mistral and the session logs: no first pass over the log is spent before it is read whole."""

    def unread() -> Iterator[Segment]:
        read.append(True)
        yield from ()

    read: list[bool] = []

    for name, declared in FORMATS.items():
        if name == "mistral" or declared.json_lines or declared.payload:
            assert write_converted_log(unread(), name, lambda _: None, lambda _, __: None) is None, name
    assert read == []
    assert write_converted_log(unread(), "anthropic", lambda _: None, lambda _, __: None) == (b'{"messages":[', b"]}")
    assert read == [True]  # not a test that cannot fail: a log is read when it may be converted so


def test_a_log_converted_in_segments_to_a_folder_not_there_says_so_as_before(tmp_path: Path) -> None:
    """The spool goes beside the output: a missing folder is said as the whole write says it."""
    out = tmp_path / "missing" / "out.json"
    for to in ("anthropic", "mistral"):  # in segments, and whole
        status, _, err = run_cli("convert", "--to", to, str(CLAUDE_CODE_LOGS[0]), "-o", str(out))
        assert (status, err.splitlines()[-1]) == (
            2,
            f"message-ir: error: cannot write {out}: No such file or directory",
        )
