"""A session log's lines read from a file a block at a time are the lines of its bytes, for
any block size and any `end`; a segment read by its offsets holds the lines a read of every
line gives, for a log given as bytes, as text or as a `LogFile`."""

from __future__ import annotations

from pathlib import Path

import pytest

from message_ir.adapters import LogFile, _first_pass, _log_file, _segments, anthropic, claude_code
from tests.adapters.test_segments import CLAUDE_CODE_LOGS, whole_check

SHAPES = (b"", b"\n", b"\n\n", b"a", b"a\n", b"a\n\nb", b"ab\ncd\nef", b"ab\ncd\nef\n", b"\n\na\n\n\nbcdefgh\ni")


@pytest.mark.parametrize("block", [1, 2, 3, 7, 1 << 20])
def test_a_file_is_read_in_the_lines_of_its_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int) -> None:
    monkeypatch.setattr(_log_file, "_BLOCK", block)
    path = tmp_path / "log.jsonl"
    for data in SHAPES:
        path.write_bytes(data)
        assert list(_log_file.file_lines(str(path))) == list(_log_file.raw_lines(data))
        for end in range(len(data) + 2):
            assert list(_log_file.file_lines(str(path), end)) == list(_log_file.raw_lines(data[:end]))


def test_bytes_are_split_into_their_lines() -> None:
    """A final newline ends the last line and starts none (the reference `file_lines` is held to)."""
    for data in SHAPES:
        for end in range(len(data) + 1):
            cut = data[:end]
            expected = cut.split(b"\n")[:-1] if cut.endswith(b"\n") else cut.split(b"\n") if cut else []
            assert list(_log_file.raw_lines(cut)) == expected


@pytest.mark.parametrize("size", [1, 2, 3, 5, 1 << 20])
def test_a_log_is_given_in_blocks_of_its_whole_lines(tmp_path: Path, size: int) -> None:
    """`text_blocks` of bytes, text or a `LogFile` (with any `end`): blocks of whole lines, each
    ending in a newline, that join into the log (a last line given its newline) and hold its
    lines; a block's lines before its last one are fewer than twice `size` bytes (about `size`)."""
    path = tmp_path / "log.jsonl"
    for data in SHAPES:
        path.write_bytes(data)
        for end in (*range(len(data) + 2), None):
            cut = data if end is None else data[:end]
            sources: list[object] = [LogFile(path, end=end)]
            if end is None or end <= len(data):
                sources += [cut, cut.decode()]
            for source in sources:
                blocks = list(_log_file.text_blocks(source, size))
                assert b"".join(blocks) == (cut if cut.endswith(b"\n") or not cut else cut + b"\n")
                assert [line for block in blocks for line in _log_file.raw_lines(block)] == list(
                    _log_file.raw_lines(cut)
                )
                for block in blocks:
                    assert block.endswith(b"\n")
                    assert (
                        block.count(b"\n") == 1 or len(block) - len(block.rstrip(b"\n").rsplit(b"\n", 1)[-1]) - 1 < size
                    )


def test_a_range_of_a_file_is_the_range_of_its_bytes(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    data = b"ab\ncd\nef"
    path.write_bytes(data)
    for start in range(len(data) + 1):
        for stop in (*range(start, len(data) + 2), None):
            assert _log_file.read_range(LogFile(path), start, stop) == data[start:stop]
            for end in range(len(data) + 1):
                expected = data[:end][start:stop]
                assert _log_file.read_range(LogFile(path, end=end), start, stop) == expected
                copied: list[bytes] = []
                _log_file.copy_range(LogFile(path, end=end), start, stop, copied.append)
                assert b"".join(copied) == expected


def segment_texts(source: object, size: int) -> list[tuple[int, int, bytes]]:
    """Each segment's first line, where that line starts in the text, and its text."""
    found = _first_pass.plan(source, claude_code._KEYS, None)
    return [(segment.start, segment.offset, segment.data) for segment in _segments._segments(source, found, size)]


@pytest.mark.parametrize("path", CLAUDE_CODE_LOGS[:6], ids=lambda path: path.name)
def test_a_segment_holds_the_lines_of_its_range(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_log_file, "_BLOCK", 4096)
    data = path.read_bytes()
    for size in (1, 5_000, 10**9):
        expected = segment_texts(data, size)
        assert b"".join(text for _, _, text in expected) == (data if data.endswith(b"\n") else data + b"\n")
        assert all(data[offset:].startswith(text) for _, offset, text in expected)
        assert segment_texts(data.decode(), size) == expected
        assert segment_texts(LogFile(path), size) == expected
    for end in (len(data) // 3, len(data) // 2 + 7, len(data) - 1):
        cut = data[:end]
        texts = segment_texts(cut, 1)
        assert segment_texts(LogFile(path, end=end), 1) == texts
        ended = cut if cut.endswith(b"\n") else cut + b"\n"  # the last line, cut short, ends in one
        assert b"".join(text for _, _, text in texts) == ended
        lines = cut.split(b"\n")
        assert all(text.startswith(lines[start]) and text.endswith(b"\n") for start, _, text in texts)
        assert all(offset == len(b"\n".join(lines[:start])) + (start > 0) for start, offset, _ in texts)
        assert claude_code.check(LogFile(path, end=end)) == whole_check(claude_code, cut)


@pytest.mark.parametrize("path", CLAUDE_CODE_LOGS[:3], ids=lambda path: path.name)
def test_a_loaded_segment_says_where_its_first_line_starts(path: Path) -> None:
    data = path.read_bytes()
    segments = list(
        _segments.loaded_segments(
            claude_code.NAME, data, claude_code._read, claude_code._KEYS, anthropic.provider_rules, None, 1
        )
    )
    starts = [0]
    for line in data.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    assert [segment.first_byte for segment in segments] == [starts[segment.first_line] for segment in segments]
