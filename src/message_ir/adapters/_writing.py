"""What every format's writer does the same way: restore a call ID it renamed, put the
messages back into their container, and place instructions where they stood."""

from __future__ import annotations

from collections.abc import Callable

from message_ir import (
    AssistantMessage,
    Message,
    ToolResultMessage,
    TranscriptError,
    UserMessage,
    encode_transcript,
)
from message_ir.adapters._conversation import Conversation, Instruction
from message_ir.adapters._json import as_sequence, kind
from message_ir.adapters._records import Info, build_record, frozen_info


def written_call_id(info: Info, call_id: str, restore: dict[str, str]) -> str:
    """The ID to write for an IR call: the source's original when `load` renamed it (noted in
    `restore`, so the results answering it are written with it too), else its own."""
    original = info.get("id")
    if type(original) is str and info.get("as") == call_id:
        restore[call_id] = original
        return original
    return call_id


def container(
    conversation: Conversation, format: str, key: str, records: list[object], others: dict[str, object]
) -> object:
    """The dumped form: the bare list if it was loaded as one, else a request body."""
    info: Info = frozen_info(conversation.meta, format) if conversation.format == format else {}
    if info.get("form") == "list" and not others:
        return records
    values: dict[str, object] = {**others, key: records}
    usual = (*others, key)  # the order `message_list` calls usual
    return build_record(info, usual, values)


def interleave(
    conversation: Conversation, render: Callable[[Message], None], instruction: Callable[[Instruction], None]
) -> None:
    """Render messages and instructions in order: each instruction before the message it preceded."""
    if not conversation.instructions:
        for message in conversation.messages:
            render(message)
        return
    anchored: dict[str | None, list[Instruction]] = {}
    ids = {message.id for message in conversation.messages}
    for entry in conversation.instructions:
        anchored.setdefault(entry.before if entry.before in ids else None, []).append(entry)
    for message in conversation.messages:
        for entry in anchored.pop(message.id, ()):
            instruction(entry)
        render(message)
    for entry in anchored.pop(None, ()):
        instruction(entry)


def as_conversation(value: object) -> Conversation:
    """A `Conversation` as it is; a list or tuple of IR messages as one with nothing else."""
    if type(value) is Conversation:
        return value
    items = as_sequence(value)
    if items is not None:
        messages: list[Message] = []
        for item in items:
            if type(item) is UserMessage or type(item) is AssistantMessage or type(item) is ToolResultMessage:
                messages.append(item)
            else:
                raise TypeError(f"Expected IR messages, got `{kind(item)}`")
        return Conversation(format="message_ir", messages=tuple(messages))
    raise TypeError(f"Expected a Conversation or a sequence of messages, got `{kind(value)}`")


def explain_failure(conversation: Conversation) -> None:
    """After writing (`dump`) or converting failed: raise `TranscriptError` with the shape
    diagnostics that `encode_transcript` gives when a message is malformed (built by calling
    the Struct classes directly with a field of the wrong type), which names the field; return
    when every message is well-formed (the caller raises what failed).

    The writers trust the messages' types: checking them first would cost about as much as
    writing (0.3 to 1.6 times a `dumps` of the benchmark's inputs), so they are checked only
    when writing fails."""
    try:
        encode_transcript(conversation.messages)
    except TranscriptError as error:
        raise error from None
