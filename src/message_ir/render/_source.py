"""A file's bytes read for rendering: its format, its conversation, its diagnostics and its
branches; a session log's half-written last line left out, and said so."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple, TypeAlias, TypeVar

from message_ir import Diagnostic, Message, TranscriptError, decode_jsonl, decode_transcript, validate_transcript
from message_ir.adapters import FORMATS, Branch, Conversation, FormatError, detect
from message_ir.streams import Assembler

IR_NAME = "message_ir"
"""The name the page gives the IR's own JSON (and JSON Lines)."""


T = TypeVar("T")
Loaded: TypeAlias = tuple[Conversation, tuple[Diagnostic, ...], dict[str, int]]
"""A format's `load_checked`: the conversation, its `check`, where each message came from."""


class Source(NamedTuple):
    """What a page is made of."""

    conversation: Conversation
    diagnostics: tuple[Diagnostic, ...]
    branches: tuple[Branch, ...]
    remarks: tuple[str, ...]
    indexed: bool
    """Whether the diagnostics' `message_index` is the conversation's (the IR's own files)."""
    places: dict[str, int] | None = None
    """The source path each IR message (and block with a record of its own) came from."""


def read_source(data: bytes, *, format: str | None, json_lines: bool, leaf: str | None) -> Source:
    name = detect(data) if format is None else format
    if name is None or name == IR_NAME:
        if leaf is not None:
            raise ValueError("the IR's own files have no branches")
        return _read_ir(data, json_lines)
    declared = FORMATS[name]
    if leaf is not None and declared.trees is None:
        raise ValueError(f"{declared.cli_name} has no branches: only a log whose lines form a tree has")
    trees = declared.trees

    def read(kept: bytes) -> Loaded:
        if trees is None:
            return declared.functions.load_checked(kept)
        return trees.load_checked(kept, leaf)  # ValueError: a leaf it does not hold

    (conversation, diagnostics, places), cut = _tolerating_half_line(read, data, declared.json_lines)
    branches = () if trees is None else trees.branches(data if cut is None else data[: data.rfind(b"\n") + 1])
    if cut is None:
        return Source(conversation, diagnostics, branches, (), indexed=False, places=places)
    return Source(conversation, (cut, *diagnostics), branches, (half_line_remark(cut),), indexed=False, places=places)


def read_stream(data: bytes, format: str) -> Source:
    """A recorded provider stream: the one message it assembles, the stream's diagnostics
    beside it (their paths name the events, `$[n]`), its notes (an unknown event)."""
    assembler = Assembler(format)  # raises ValueError for a format it does not know
    assembler.feed(data)
    done = assembler.finish()
    diagnostics = tuple(
        Diagnostic(found.code, None if found.message_index is None else 0, found.path, found.message)
        for found in done.diagnostics
    )
    remarks = () if done.complete else ("The stream ended before its last event: the message is what arrived.",)
    conversation = Conversation(f"{format} stream", (done.message,), notes=done.notes)
    return Source(conversation, diagnostics, (), remarks, indexed=True)


def _read_ir(data: bytes, json_lines: bool) -> Source:
    def read(kept: bytes) -> tuple[Message, ...]:
        try:
            return (
                decode_jsonl(kept, check_linkage=False) if json_lines else decode_transcript(kept, check_linkage=False)
            )
        except TranscriptError as error:
            raise FormatError(IR_NAME, error.diagnostics) from None

    messages, cut = _tolerating_half_line(read, data, json_lines)
    diagnostics = validate_transcript(messages)
    if cut is None:
        return Source(Conversation(IR_NAME, messages), diagnostics, (), (), indexed=True)
    about_the_file = Diagnostic(cut.code, None, cut.path, cut.message)  # no message index
    return Source(
        Conversation(IR_NAME, messages), (about_the_file, *diagnostics), (), (half_line_remark(cut),), indexed=True
    )


def _tolerating_half_line(read: Callable[[bytes], T], data: bytes, lines: bool) -> tuple[T, Diagnostic | None]:
    """`read(data)`; for a file of lines refused only for its last line, half-written (no
    newline at the end, not JSON), `read` of the lines before it, and that line's diagnostic.
    Raises `read`'s `FormatError` for anything else."""
    try:
        return read(data), None
    except FormatError as error:
        start = data.rfind(b"\n") + 1
        last = data.count(b"\n")
        if not lines or start == 0 or data.endswith(b"\n") or not only_not_json(error.diagnostics, last):
            raise
        try:
            return read(data[:start]), error.diagnostics[0]
        except FormatError:
            raise error from None


def only_not_json(reasons: Sequence[Diagnostic], line: int) -> bool:
    """Whether a load refused only the line `line`, as no JSON (what a half-written line is)."""
    return bool(reasons) and all(reason.code == "INVALID_JSON" and reason.message_index == line for reason in reasons)


def half_line_remark(cut: Diagnostic) -> str:
    line = "?" if cut.message_index is None else str(cut.message_index + 1)
    return f"The last line ({line}) is half-written (not JSON, no newline): the lines before it are shown."
