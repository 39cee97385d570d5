"""A session log's lines as bytes: from bytes in memory, or from a file on disk one at a time."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Final


class LogFile:
    """A session log on disk, read a line at a time: give `LogFile(path)` to a log format's
    `load`, `check`, `segments` or `message_ir.usage.calls` instead of its bytes, and the file
    is never held whole (each pass over it opens it again; `OSError` when it cannot be read).

    With `end`, only the file's first `end` bytes are read: every pass then sees the same
    lines while an agent appends to the log (give it the size the file had), and a last line
    cut short can be left out (give it where that line starts)."""

    __slots__ = ("end", "path")

    def __init__(self, path: str | os.PathLike[str], *, end: int | None = None) -> None:
        self.path = os.fspath(path)
        self.end = end

    def __repr__(self) -> str:
        return f"LogFile({self.path!r})" if self.end is None else f"LogFile({self.path!r}, end={self.end})"


_BLOCK: Final = 1 << 20
"""How many bytes of a log file are read at a time."""


def file_lines(path: str, end: int | None = None) -> Iterator[bytes]:
    """The lines of the file at `path` (of its first `end` bytes), numbered as `raw_lines`
    numbers them, one at a time (read a block of `_BLOCK` bytes at a time)."""
    with open(path, "rb") as stream:
        left = end
        rest = b""
        while True:
            block = stream.read(_BLOCK if left is None else min(_BLOCK, left))
            if not block:
                if rest:
                    yield rest
                return
            if left is not None:
                left -= len(block)
            lines = (rest + block if rest else block).split(b"\n")
            rest = lines.pop()
            yield from lines


def _within(log: LogFile, stop: int | None) -> int | None:
    """`stop` (`None`: the file's end) held within the bytes a `LogFile` reads."""
    if log.end is None:
        return stop
    return log.end if stop is None else min(stop, log.end)


def read_range(source: object, start: int, stop: int | None) -> bytes:
    """The bytes of a log given as bytes or as a `LogFile` from `start` to `stop` (`None`: to
    its end, or to the `LogFile`'s `end`)."""
    if type(source) is LogFile:
        stop = _within(source, stop)
        with open(source.path, "rb") as stream:
            stream.seek(start)
            return stream.read() if stop is None else stream.read(max(stop - start, 0))
    assert type(source) is bytes  # a log given as bytes or as a `LogFile`
    return source[start:stop]


def copy_range(source: object, start: int, stop: int | None, write: Callable[[bytes], object]) -> None:
    """Write the bytes of a log given as bytes or as a `LogFile` from `start` to `stop`
    (`None`: to its end, or to the `LogFile`'s `end`), a block at a time."""
    if type(source) is not LogFile:
        write(read_range(source, start, stop))
        return
    stop = _within(source, stop)
    with open(source.path, "rb") as stream:
        stream.seek(start)
        left = None if stop is None else stop - start
        while left is None or left > 0:
            block = stream.read(_BLOCK if left is None else min(_BLOCK, left))
            if not block:
                return
            write(block)
            if left is not None:
                left -= len(block)


def raw_lines(data: bytes) -> Iterator[bytes]:
    """The lines of JSON Lines bytes, numbered as `read_lines` numbers them (a final newline
    ends the last line; it starts none)."""
    start, size = 0, len(data)
    while start < size:
        end = data.find(b"\n", start)
        if end < 0:
            end = size
        yield data[start:end]
        start = end + 1


def text_blocks(source: object, size: int) -> Iterator[bytes]:
    """The text of a log given as text or as a `LogFile`, in order, in blocks of whole lines
    of about `size` bytes (a longer line is a block of its own), each ending in a newline (a
    last line without its newline is given one, as a segment's is)."""
    if type(source) is LogFile:
        yield from _file_blocks(source, size)
        return
    text = source.encode("utf-8", "surrogatepass") if type(source) is str else source
    assert type(text) is bytes  # a log given as text or as a `LogFile`
    start, length = 0, len(text)
    while start < length:
        stop = text.find(b"\n", start + size - 1) + 1
        if stop == 0:
            yield text[start:] if text.endswith(b"\n") else text[start:] + b"\n"
            return
        yield text[start:stop]
        start = stop


def _file_blocks(log: LogFile, size: int) -> Iterator[bytes]:
    """`text_blocks` of a `LogFile`: `size` bytes read at a time."""
    with open(log.path, "rb") as stream:
        left = log.end
        held: list[bytes] = []  # the start of a line that no block read so far ends
        while True:
            block = stream.read(size if left is None else min(size, left))
            if not block:
                if held:
                    yield b"".join(held) + b"\n"
                return
            if left is not None:
                left -= len(block)
            cut = block.rfind(b"\n") + 1
            if not cut:
                held.append(block)
                continue
            held.append(block[:cut] if cut < len(block) else block)
            yield b"".join(held)
            held = [block[cut:]] if cut < len(block) else []


def is_text(source: object) -> bool:
    """Whether `source` is a log given as text (`bytes`, `str`) or as a `LogFile` (exact type
    checks: nothing of a caller's type runs)."""
    return type(source) is bytes or type(source) is str or type(source) is LogFile


def text_lines(source: object) -> Iterator[bytes] | None:
    """The lines of a log given as text or as a `LogFile`, one at a time; `None` for a log
    given as parsed values."""
    if type(source) is LogFile:
        return file_lines(source.path, source.end)
    if type(source) is str:
        return raw_lines(source.encode("utf-8", "surrogatepass"))
    if type(source) is bytes:
        return raw_lines(source)
    return None


def whole(source: object) -> object:
    """`source`, with a `LogFile` read whole (for a format whose file is one JSON value)."""
    if type(source) is LogFile:
        with open(source.path, "rb") as stream:
            return stream.read() if source.end is None else stream.read(source.end)
    return source
