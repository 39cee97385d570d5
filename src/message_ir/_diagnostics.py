"""`Diagnostic`, its stable codes, and `TranscriptError`, which carries diagnostics."""

from __future__ import annotations

from typing import Literal, TypeAlias

import msgspec

from message_ir._untyped import literal_strings

ShapeCode: TypeAlias = Literal[
    "TRANSCRIPT_NOT_A_LIST",
    "MESSAGE_NOT_A_RECORD",
    "UNKNOWN_ROLE",
    "UNKNOWN_FIELD",
    "BAD_MESSAGE_ID",
    "BAD_CONTENT",
    "BAD_BLOCK",
    "BAD_TOOL_CALL",
    "BAD_TOOL_ARGUMENTS",
    "BAD_TOOL_RESULT_FIELD",
    "BAD_META",
    "UNREADABLE_VALUE",
]
"""Codes for a transcript whose shape is wrong."""

LinkageCode: TypeAlias = Literal[
    "DUPLICATE_TOOL_CALL_ID",
    "DUPLICATE_TOOL_RESULT",
    "ORPHAN_TOOL_RESULT",
    "TOOL_RESULT_BEFORE_CALL",
    "TOOL_NAME_MISMATCH",
    "MISSING_TOOL_RESULT",
]
"""Codes for well-formed messages whose tool calls and results do not pair up ."""

LINKAGE_CODES: frozenset[str] = literal_strings(LinkageCode)
"""The linkage codes as a set, to tell linkage diagnostics from the rest."""

BoundaryCode: TypeAlias = Literal["INVALID_JSON", "JSON_TOO_DEEP", "DUPLICATE_KEY"]
"""Codes only the JSON boundary gives: for text that cannot be read as one JSON value."""

ProviderCode: TypeAlias = Literal[
    "BAD_FORMAT",
    "RESULT_NOT_ADJACENT",
    "RESULT_NOT_FIRST",
    "RESULT_COUNT_MISMATCH",
    "BAD_TOOL_CALL_ID_FORMAT",
    "REASONING_ITEM_MISPLACED",
    "UNDECLARED_TOOL",
    "ARGUMENTS_DO_NOT_MATCH_SCHEMA",
    "BAD_TOOL_DECLARATION",
    "SCHEMA_CHECK_UNAVAILABLE",
    "LOG_RECORD_GAP",
    "NO_ASSISTANT_MESSAGE",
    "UNKNOWN_KEY",
    "TOO_MANY_TOKENS",
    "TURN_OUT_OF_PLACE",
    "PADDED_BY_ARROW",
    "USER_AFTER_TOOL",
    "EMPTY_ERROR_RESULT",
    "SEMCONV_MISMATCH",
]
"""Codes only the adapters (`message_ir.adapters`) give: a record that is not of its format
(`BAD_FORMAT`), and the rules a provider enforces beyond the IR's own."""

StreamCode: TypeAlias = Literal["STREAM_TRUNCATED", "STREAM_OUT_OF_ORDER", "STREAM_ERROR"]
"""Codes only `message_ir.streams` gives: a provider stream that was cut, that sent an event
for something it never started (or after its end), or that ended in the provider's error."""

DiagnosticCode: TypeAlias = Literal[ShapeCode, LinkageCode, BoundaryCode, ProviderCode, StreamCode]
"""Every code a `Diagnostic` can carry. Codes are stable; messages may change."""


class Diagnostic(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    """One problem found in a transcript.

    `message_index` is the index of the message concerned, or `None` when the problem is the
    transcript itself; `path` is a `$`-rooted location in wire names; `message` is for people.
    Its JSON form has the keys `code`, `messageIndex`, `path` and `message`.
    """

    code: DiagnosticCode
    message_index: int | None
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.code}: {self.message} - at `{self.path}`"


def by_message_index(diagnostic: Diagnostic) -> int:
    """A sort key: transcript-level diagnostics first, then by message (stable within one)."""
    index = diagnostic.message_index
    return -1 if index is None else index


class TranscriptError(ValueError):
    """A transcript was refused; `diagnostics` says every reason (never empty)."""

    diagnostics: tuple[Diagnostic, ...]

    def __init__(self, diagnostics: tuple[Diagnostic, ...]) -> None:
        count = len(diagnostics)
        lines = "\n".join(f"  {diagnostic}" for diagnostic in diagnostics[:20])
        more = f"\n  ... and {count - 20} more" if count > 20 else ""
        noun = "problem" if count == 1 else "problems"
        super().__init__(f"Invalid transcript ({count} {noun}):\n{lines}{more}")
        self.diagnostics = diagnostics
