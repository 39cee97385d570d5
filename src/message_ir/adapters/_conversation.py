"""`Conversation`, `Instruction`, `Note` and `FormatError`: what every adapter returns or raises."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, TypeAlias

import msgspec

from message_ir import Diagnostic, FrozenJsonObject, Message

NoteCode: TypeAlias = Literal[
    "RENAMED_REUSED_CALL_ID",
    "ARGUMENTS_NOT_AN_OBJECT",
    "PLACEHOLDER_TOOL_NAME",
    "REWROTE_CALL_ID",
    "RESTORED_CALL_ID",
    "DROPPED_OPAQUE_BLOCK",
    "DROPPED_META",
    "MOVED_RESULT",
    "MOVED_INSTRUCTION",
    "MERGED_INSTRUCTIONS",
    "DROPPED_INSTRUCTION",
    "DROPPED_EMPTY_TEXT",
    "DROPPED_BAD_ARGUMENTS",
    "MADE_UP_CALL_ID",
    "WROTE_MADE_UP_CALL_ID",
    "DROPPED_CALL_ID",
    "RETYPED_ARGUMENTS",
    "TURN_WITHOUT_CALL",
    "OFF_BRANCH",
    "BROKEN_PARENT_LINK",
    "SIDECHAIN_BRANCH",
    "INSERTED_ASSISTANT_MESSAGE",
    "SOURCE_FORM",
    "UNKNOWN_EVENT",
    "PLACED_STRUCTURED_CONTENT",
]
"""The stable codes of `Note`s; `docs/formats.md` says what each means."""


class Note(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    """One normalization an adapter made while loading or converting.

    `message_index` is the index of the IR message concerned in the conversation (or `None`
    for the conversation itself), `path` a `$`-rooted location in the *source's* JSON.
    """

    code: NoteCode
    message_index: int | None
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.code}: {self.message} - at `{self.path}`"


class Instruction(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """System or developer text that a format carries beside its messages.

    `role` is the source's word for it (`"system"`, `"developer"`), `text` its text, `path`
    where it stood in the source (`$[0]`, `$.system`), and `before` the `id` of the IR
    message it stood before (`None`: after the last one, or a field outside the message
    list). `meta` holds what the format needs to write it back exactly.
    """

    role: str
    text: str
    path: str
    before: str | None = None
    meta: FrozenJsonObject | None = None


class Conversation(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A transcript in the IR, with what its format carries beside the messages.

    `format` is the adapter's name (`"openai_chat"`); `messages` the IR messages, which pass
    the shape checks of `validate_transcript` whatever the linkage; `instructions` the
    system / developer texts in order; `notes` every normalization the adapter made; `meta`
    what the format needs to write the container back (a request body's other fields, under
    the format's key). Build a changed one with `replace`.
    """

    format: str
    messages: tuple[Message, ...]
    instructions: tuple[Instruction, ...] = ()
    notes: tuple[Note, ...] = ()
    meta: FrozenJsonObject | None = None

    def replace(
        self,
        *,
        messages: Sequence[Message] | None = None,
        instructions: Sequence[Instruction] | None = None,
        notes: Sequence[Note] | None = None,
    ) -> Conversation:
        """A copy with the given parts replaced (the others kept)."""
        return Conversation(
            format=self.format,
            messages=self.messages if messages is None else tuple(messages),
            instructions=self.instructions if instructions is None else tuple(instructions),
            notes=self.notes if notes is None else tuple(notes),
            meta=self.meta,
        )


class FormatError(ValueError):
    """A value that is not of the format `load` was asked to read.

    `diagnostics` (never empty) say every reason, with paths into the source's JSON; their
    codes are `BAD_FORMAT`, or `INVALID_JSON` / `JSON_TOO_DEEP` for text that is not JSON.
    """

    diagnostics: tuple[Diagnostic, ...]

    def __init__(self, format: str, diagnostics: tuple[Diagnostic, ...]) -> None:
        lines = "\n".join(f"  {diagnostic}" for diagnostic in diagnostics[:20])
        super().__init__(f"Not {format} data:\n{lines}")
        self.format = format
        self.diagnostics = diagnostics
