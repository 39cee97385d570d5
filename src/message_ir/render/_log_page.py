"""A session log on disk rendered in memory that does not grow with it.

The log's format reads it a segment at a time (`Format.segments`: every call with its
results in one segment, so the linkage of each is known before its messages are written).
Each segment's messages are written to a temporary file as they are placed; the header,
whose counts and problem list need the whole log, is written after, then the messages
copied behind it; so are the header's lists (problems, notes, instructions), written to
temporary files as they are found. Held at once: two segments at most (see
`Format.segments`), the branches, and the counts.
"""

from __future__ import annotations

import codecs
import contextlib
import itertools
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from typing import IO

from message_ir import Diagnostic
from message_ir.adapters import FORMATS, Branch, Format, FormatError, LogFile, Segment, detect
from message_ir.render import _page
from message_ir.render._html import HtmlMarkup
from message_ir.render._markdown import MarkdownMarkup
from message_ir.render._source import half_line_remark, only_not_json
from message_ir.render._text import counts, placed_problems
from message_ir.render._view import view

HEAD_BYTES = 262_144
"""How much of a log's start `detect` reads to name its format (whole lines)."""


def log_format(path: str) -> str | None:
    """The format of the file at `path` when it is a session log read in segments, by its
    first lines (`detect`); else `None`."""
    with open(path, "rb") as stream:
        head = stream.read(HEAD_BYTES)
    found = detect(head[: head.rfind(b"\n") + 1] or head)
    return found if found is not None and FORMATS[found].segments is not None else None


def half_written(path: str, declared: Format) -> tuple[int, Diagnostic | None]:
    """The file's size, or where its last line starts when that line is half-written (no
    newline at the end, not JSON: what an agent stopped while writing leaves), with the
    diagnostic a load gives that line."""
    with open(path, "rb") as stream:
        size = stream.seek(0, os.SEEK_END)
        if size == 0:
            return 0, None
        stream.seek(size - 1)
        if stream.read(1) == b"\n":
            return size, None
        start = _last_line_start(stream, size)
        if start == 0:
            return size, None  # a file of one line: nothing before it to render
        stream.seek(start)
        last = stream.read(size - start)
    try:
        declared.functions.load(last)
    except FormatError as error:
        reasons = error.diagnostics
        if only_not_json(reasons, 0):
            number = _line_number(path, start)
            return start, Diagnostic(reasons[0].code, number, f"$[{number}]", reasons[0].message)
    except ValueError:
        pass
    return size, None


def _last_line_start(stream: IO[bytes], size: int) -> int:
    end = size
    while end > 0:
        begin = max(0, end - 65_536)
        stream.seek(begin)
        found = stream.read(end - begin).rfind(b"\n")
        if found >= 0:
            return begin + found + 1
        end = begin
    return 0


def _line_number(path: str, start: int) -> int:
    count = 0
    with open(path, "rb") as stream:
        left = start
        while left > 0:
            chunk = stream.read(min(left, 1 << 20))
            if not chunk:
                break
            count += chunk.count(b"\n")
            left -= len(chunk)
    return count


def render_log(
    path: str,
    out: IO[bytes],
    *,
    format: str,
    to: str,
    title: str,
    leaf: str | None,
    segments: Iterable[Segment] | None = None,
) -> None:
    """The page of the log at `path` in `format` (one with `segments`), written to `out`.
    `segments` stands in for the format's (the tests' smaller ones). Raises as
    `render_file_bytes` does, before anything is written to `out`."""
    declared = FORMATS[format]
    assert declared.segments is not None  # a session log read in segments
    end, cut = half_written(path, declared)
    source = LogFile(path, end=end)  # every pass sees the same lines, while an agent appends
    branches: tuple[Branch, ...] = () if declared.trees is None else declared.trees.branches(source)
    markup = HtmlMarkup() if to == "html" else MarkdownMarkup()
    with contextlib.ExitStack() as stack:
        written = _Written(title, cut, markup, stack)
        for segment in declared.segments(source, leaf) if segments is None else segments:
            written.segment(segment)
        remarks = () if cut is None else (half_line_remark(cut),)
        for piece in _page.header(written.header(format, remarks, branches), markup):
            out.write(piece.encode("utf-8"))
        written.body.copy_to(out)
    out.write(markup.end().encode("utf-8"))


class _Spool:
    """Pieces of the page written to a temporary file as they are made, read back later."""

    def __init__(self, stack: contextlib.ExitStack) -> None:
        self.file = stack.enter_context(tempfile.TemporaryFile())  # noqa: SIM115  # closed by the stack
        self.items = 0

    def add(self, pieces: Iterable[str]) -> None:
        for piece in pieces:
            self.file.write(piece.encode("utf-8"))
            self.items += 1

    def pieces(self) -> Iterator[str]:
        self.file.seek(0)
        decoder = codecs.getincrementaldecoder("utf-8")()
        while chunk := self.file.read(_CHUNK):
            yield decoder.decode(chunk)
        yield decoder.decode(b"", final=True)

    def copy_to(self, out: IO[bytes]) -> None:
        self.file.seek(0)
        shutil.copyfileobj(self.file, out)

    def listed(self) -> _page.Listed:
        return _page.Listed(self.items, self.pieces)


_CHUNK = 1 << 16


class _Written:
    """What the header needs, gathered while the segments' messages are written: its counts,
    and its lists (written to temporary files too)."""

    def __init__(self, title: str, cut: Diagnostic | None, markup: _page.Markup, stack: contextlib.ExitStack) -> None:
        self.title = title
        self.cut = cut
        self.markup = markup
        self.counted = [0, 0, 0, 0, 0]  # messages, calls, results, problems, notes
        self.body = _Spool(stack)
        self.placed = _Spool(stack)
        self.about_the_file = _Spool(stack)
        self.file_notes = _Spool(stack)
        self.instructions = _Spool(stack)

    def segment(self, segment: Segment) -> None:
        """Write one segment's messages, and what it adds to the header's lists."""
        conversation = segment.conversation
        diagnostics = segment.diagnostics
        if self.cut is not None and segment.first_line == 0:
            diagnostics = (self.cut, *diagnostics)  # as a whole render has it: first
        found = view(
            conversation,
            diagnostics,
            title=self.title,
            branches=(),
            remarks=(),
            indexed=False,
            places=segment.places,
            first=segment.first_message,
        )
        counted = (len(conversation.messages), found.calls, found.results, len(diagnostics), len(conversation.notes))
        for index, count in enumerate(counted):
            self.counted[index] += count
        markup = self.markup
        self.placed.add(markup.problem(diagnostic, index) for diagnostic, index in placed_problems(found))
        self.about_the_file.add(markup.problem(diagnostic, None) for diagnostic in found.file_problems)
        self.file_notes.add(map(markup.file_note, found.file_notes))
        self.instructions.add(map(markup.instruction, conversation.instructions))
        self.body.add(_page.messages(found, markup))

    def header(self, format: str, remarks: tuple[str, ...], branches: tuple[Branch, ...]) -> _page.Header:
        placed, about_the_file = self.placed, self.about_the_file
        return _page.Header(
            self.title,
            format,
            counts(*self.counted),
            remarks,
            _page.Listed(
                placed.items + about_the_file.items, lambda: itertools.chain(placed.pieces(), about_the_file.pieces())
            ),
            self.file_notes.listed(),
            self.instructions.listed(),
            branches,
        )
