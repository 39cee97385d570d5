"""A file's bytes read for rendering: its format, its conversation, its diagnostics and its
branches; a session log's half-written last line left out, and said so."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple, TypeAlias

from message_ir import Diagnostic, TranscriptError, decode_jsonl, decode_transcript, validate_transcript
from message_ir.adapters import FORMATS, Branch, Conversation, FormatError, detect
from message_ir.streams import Assembler

IR_NAME = "message_ir"
"""The name the page gives the IR's own JSON (and JSON Lines)."""


_Refusal: TypeAlias = Callable[[bytes], tuple[Diagnostic, ...]]
"""Why some bytes are refused (empty: they are read)."""


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
        raise ValueError(f"{declared.cli_name} logs have no branches")
    remarks: tuple[str, ...] = ()
    cut: Diagnostic | None = None
    if declared.json_lines:
        data, cut = _without_half_line(data, lambda kept: _refusal(name, kept))
        if cut is not None:
            remarks = (_half_line_remark(cut),)
    trees = declared.trees
    if trees is None:
        conversation, diagnostics, places = declared.functions.load_checked(data)
        branches: tuple[Branch, ...] = ()
    else:
        conversation, diagnostics, places = trees.load_checked(data, leaf)  # ValueError: a leaf it does not hold
        branches = trees.branches(data)
    if cut is not None:
        diagnostics = (cut, *diagnostics)
    return Source(conversation, diagnostics, branches, remarks, indexed=False, places=places)


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
    remarks: tuple[str, ...] = ()
    cut: Diagnostic | None = None
    if json_lines:
        data, cut = _without_half_line(data, _ir_refusal)
        if cut is not None:
            remarks = (_half_line_remark(cut),)
    try:
        messages = (
            decode_jsonl(data, check_linkage=False) if json_lines else decode_transcript(data, check_linkage=False)
        )
    except TranscriptError as error:
        raise FormatError(IR_NAME, error.diagnostics) from None
    diagnostics = validate_transcript(messages)
    if cut is not None:  # about the file: no message index
        diagnostics = (Diagnostic(cut.code, None, cut.path, cut.message), *diagnostics)
    return Source(Conversation(IR_NAME, messages), diagnostics, (), remarks, indexed=True)


def _refusal(name: str, data: bytes) -> tuple[Diagnostic, ...]:
    """Why `data` is not of the format (empty: it is)."""
    try:
        FORMATS[name].load(data)
    except FormatError as error:
        return error.diagnostics
    return ()


def _ir_refusal(data: bytes) -> tuple[Diagnostic, ...]:
    try:
        decode_jsonl(data, check_linkage=False)
    except TranscriptError as error:
        return error.diagnostics
    return ()


def _without_half_line(data: bytes, refusal: _Refusal) -> tuple[bytes, Diagnostic | None]:
    """`data` without its last line when that line is half-written: it ends without a newline
    and is the one reason the log is refused (`INVALID_JSON`), while the lines before it are
    read. Else `data` as it is."""
    if not data or data.endswith(b"\n"):
        return data, None
    start = data.rfind(b"\n") + 1
    if start == 0:
        return data, None
    reasons = refusal(data)
    line = data.count(b"\n")
    if not reasons or any(reason.code != "INVALID_JSON" or reason.message_index != line for reason in reasons):
        return data, None
    kept = data[:start]
    if refusal(kept):
        return data, None
    return kept, reasons[0]


def _half_line_remark(cut: Diagnostic) -> str:
    line = "?" if cut.message_index is None else str(cut.message_index + 1)
    return f"The last line ({line}) is half-written (not JSON, no newline): the lines before it are shown."
