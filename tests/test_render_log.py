"""`message_ir.render.render_log` and `message-ir render` of a session log: read a segment at a
time (never whole), and the page the same bytes as the render of the whole file, at every
place a segment may end, for every real log, damaged or not."""

from __future__ import annotations

import io
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from message_ir import Diagnostic
from message_ir.adapters import FORMATS, FormatError, LogFile, claude_code, codex, detect, pi
from message_ir.adapters._segments import Segment, loaded_segments
from message_ir.render import Output, _log_page, render_file_bytes, render_log
from tests.adapters.real import REAL
from tests.adapters.test_segments import RULES
from tests.test_render import damaged, run

MODULES = {"claude_code": claude_code, "pi": pi, "codex": codex}

LOGS = sorted(
    path
    for path in REAL.glob("**/*.jsonl")
    if detect(path.read_bytes()) in {name for name, declared in FORMATS.items() if declared.segments is not None}
)


def small_segments(path: Path, name: str, leaf: str | None = None) -> list[Segment]:
    """The log's segments cut at every place a segment may end (one byte a segment)."""
    module = MODULES[name]
    return list(loaded_segments(name, LogFile(path), module._read, module._KEYS, RULES[name], leaf, 1))


def rendered(path: Path, **options: str | None) -> str:
    out = io.BytesIO()
    render_log(path, out, **options)  # type: ignore[arg-type]  # the options of `render_log`
    return out.getvalue().decode()


def test_the_real_logs_are_here() -> None:
    """Not a test that cannot fail: the folders hold logs of each format read in segments."""
    assert {detect(path.read_bytes()) for path in LOGS} == {"claude_code", "pi", "codex"}


@pytest.mark.parametrize("path", LOGS, ids=lambda path: path.name)
@pytest.mark.parametrize("to", ["html", "markdown"])
def test_every_real_log_renders_as_its_bytes_do(path: Path, to: Output) -> None:
    data = path.read_bytes()
    name = detect(data)
    assert name is not None
    expected = render_file_bytes(data, to=to, title=path.name)
    assert rendered(path, to=to, title=path.name) == expected
    out = io.BytesIO()
    _log_page.render_log(
        str(path), out, format=name, to=to, title=path.name, leaf=None, segments=small_segments(path, name)
    )
    assert out.getvalue().decode() == expected


@pytest.mark.parametrize("path", [path for path in LOGS if detect(path.read_bytes()) != "codex"], ids=lambda p: p.name)
def test_each_branch_renders_as_its_bytes_do(path: Path) -> None:
    data = path.read_bytes()
    name = detect(data)
    assert name is not None
    trees = FORMATS[name].trees
    assert trees is not None
    for branch in trees.branches(data)[:4]:
        assert rendered(path, leaf=branch.leaf) == render_file_bytes(data, leaf=branch.leaf)
    out = io.BytesIO()
    with pytest.raises(ValueError, match="No line of this log has the ID 'nowhere'"):
        render_log(path, out, leaf="nowhere")
    assert out.getvalue() == b""  # nothing written before the reason is known


def test_a_half_written_last_line_of_a_log_is_left_out_and_said(tmp_path: Path) -> None:
    data = LOGS[0].read_bytes()
    cut = data + data[: data.index(b"\n") // 2]
    path = tmp_path / "cut.jsonl"
    path.write_bytes(cut)
    page = rendered(path, title="log")
    assert page == render_file_bytes(cut, title="log")
    last = cut.count(b"\n") + 1
    assert f"The last line ({last}) is half-written (not JSON, no newline)" in page
    assert "<b>INVALID_JSON</b>" in page


def test_the_half_written_line_is_the_one_the_load_refuses(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": 2}\n{"c": ')
    declared = FORMATS["claude_code"]
    end, cut = _log_page.half_written(str(path), declared)
    assert end == len(b'{"a": 1}\n{"b": 2}\n')
    assert cut is not None
    assert (cut.code, cut.message_index, cut.path) == ("INVALID_JSON", 2, "$[2]")
    path.write_bytes(b'{"a": 1}\n{"b": 2}')  # JSON, though with no newline: kept
    assert _log_page.half_written(str(path), declared) == (len(b'{"a": 1}\n{"b": 2}'), None)
    path.write_bytes(b'{"c": ')  # one line: nothing before it
    assert _log_page.half_written(str(path), declared) == (6, None)
    path.write_bytes(b"")
    assert _log_page.half_written(str(path), declared) == (0, None)


def test_a_log_file_read_to_an_end_sees_the_lines_written_by_then(tmp_path: Path) -> None:
    data = LOGS[0].read_bytes()
    path = tmp_path / "log.jsonl"
    path.write_bytes(data + b'{"type": "user", "half')  # an agent still writing
    end = len(data)
    assert claude_code.load(LogFile(path, end=end)) == claude_code.load(data)
    assert repr(LogFile(path, end=end)) == f"LogFile({str(path)!r}, end={end})"
    middle = data.index(b"\n", len(data) // 2) + 1
    assert claude_code.check(LogFile(path, end=middle + 5)) == claude_code.check(data[: middle + 5])
    assert claude_code.check(LogFile(path, end=middle)) == claude_code.check(data[:middle])


@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_a_damaged_log_renders_as_its_bytes_do(data: st.DataObject) -> None:
    """Real logs with bytes cut, repeated or changed anywhere: the page of the bytes, or the
    same refusal (a `FormatError`, with the first bad segment's reasons: a subset of the
    whole file's)."""
    path = data.draw(st.sampled_from(LOGS), label="log")
    text = damaged(data, path.read_bytes())
    name = detect(path.read_bytes())
    assert name is not None
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / "log.jsonl"
        copy.write_bytes(text)
        expected: str | set[Diagnostic]
        try:
            expected = render_file_bytes(text, format=name, title="log")
        except FormatError as error:
            expected = set(error.diagnostics)
        out = io.BytesIO()
        refused: set[Diagnostic] | None = None
        try:
            render_log(copy, out, format=name, title="log")
        except FormatError as error:
            refused = set(error.diagnostics)
    if refused is None:
        assert out.getvalue().decode() == expected
    else:
        assert isinstance(expected, set)
        assert refused <= expected
        assert out.getvalue() == b""


def test_the_command_line_renders_a_log_in_segments(tmp_path: Path) -> None:
    path = LOGS[0]
    out = tmp_path / "page.html"
    assert run("render", str(path), "-o", str(out)) == (0, "", "")
    assert out.read_text() == render_file_bytes(path.read_bytes(), title=path.name)
    status, markdown, errors = run("render", "--format", "markdown", "--from", "claude-code", str(path))
    assert (status, errors) == (0, "")
    assert markdown == render_file_bytes(path.read_bytes(), format="claude_code", to="markdown", title=path.name)


def test_the_command_line_refuses_a_log_and_leaves_the_output_alone(tmp_path: Path) -> None:
    lines = LOGS[0].read_bytes().splitlines(keepends=True)
    broken = tmp_path / "broken.jsonl"
    broken.write_bytes(b"".join([*lines[:3], b"{not json\n", *lines[3:]]))
    out = tmp_path / "page.html"
    out.write_text("an older page")
    status, page, errors = run("render", str(broken), "-o", str(out))
    assert (status, page) == (2, "")
    assert errors.splitlines() == [
        f"{broken}:4: INVALID_JSON Invalid JSON: JSON is malformed: object keys must be strings (byte 1) (at $[3])",
        f"message-ir: error: {broken}: nothing rendered: not claude-code data",
    ]
    assert out.read_text() == "an older page"
    assert sorted(os.listdir(tmp_path)) == ["broken.jsonl", "page.html"]  # no temporary file left
    status, _, errors = run("render", "--branch", "nowhere", str(LOGS[0]), "-o", str(out))
    assert (status, errors) == (2, f"message-ir: error: {LOGS[0]}: No line of this log has the ID 'nowhere'\n")
    assert out.read_text() == "an older page"


def test_an_output_that_cannot_be_written_is_said_as_such() -> None:
    """A write that fails while the page is written (a full device) is the output's fault,
    not the log's: `cannot write`, exit 2."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    assert run("render", str(LOGS[0]), "-o", "/dev/full") == (
        2,
        "",
        "message-ir: error: cannot write /dev/full: No space left on device\n",
    )
    assert run("render", "/nonexistent/log.jsonl") == (
        2,
        "",
        "message-ir: error: cannot read /nonexistent/log.jsonl: No such file or directory\n",
    )
