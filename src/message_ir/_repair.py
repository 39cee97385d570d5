"""`repair_transcript`: mend broken tool-call linkage deterministically, and report each fix.

Other SDKs repair silently; here every change is a `Fix` naming the diagnostic code it
answers, the index of the message in the input, and what was done. The rules, one per
linkage code, follow what the validator reports (see `message_ir._linkage`):

- `MISSING_TOOL_RESULT` -> `inserted_result`: a synthetic result with `is_error=True`, ID
  `"<call id>:missing-result"`, the call's tool name and `missing_result_content`, placed
  after the results that follow the call's message and before the next user or assistant
  message. The model sees that the call failed, rather than never having been made.
- `ORPHAN_TOOL_RESULT` -> `dropped_result`: no call can be paired with it; the message is
  kept on the `Fix` (`dropped`), so nothing is lost from the report.
- `TOOL_RESULT_BEFORE_CALL` -> `moved_result`: the first early result of a call is its
  answer (as the validator counts it) and moves to where a missing one would be inserted.
- `DUPLICATE_TOOL_RESULT` -> `dropped_result`: the first answer stays, later ones go (kept
  on the `Fix`).
- `TOOL_NAME_MISMATCH` -> `renamed_tool`: the result's `tool_name` becomes the call's name;
  the call is the record of what was asked. A moved result whose name differs is renamed
  too, with a fix of its own.
- `DUPLICATE_TOOL_CALL_ID` -> `unrepaired`: which result belongs to which call cannot be
  known without guessing, so the calls and their results are left as they are.

Repair is idempotent: its output has no fixes to make but the same `unrepaired` ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Literal, TypeAlias

import msgspec

from message_ir._diagnostics import Diagnostic, LinkageCode, TranscriptError
from message_ir._errors import ConstructionError
from message_ir._field_rules import text_problem
from message_ir._model import AssistantMessage, Message, ToolCall, ToolResultMessage, UserMessage
from message_ir._untyped import exact_sequence_items
from message_ir._validate import require_shape

FixAction: TypeAlias = Literal["inserted_result", "dropped_result", "moved_result", "renamed_tool", "unrepaired"]
"""What a `Fix` did."""

DEFAULT_MISSING_RESULT_CONTENT: Final = "Tool call was interrupted before it returned a result."


class Fix(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    """One change `repair_transcript` made (or, for `unrepaired`, could not make)."""

    code: LinkageCode
    message_index: int
    action: FixAction
    message: str
    dropped: Message | None = None
    """The message removed from the transcript, for `dropped_result`."""


class Repair(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The repaired messages and every fix, sorted by `message_index` in the input."""

    messages: tuple[Message, ...]
    fixes: tuple[Fix, ...]


def repair_transcript(
    messages: Sequence[Message], *, missing_result_content: str = DEFAULT_MISSING_RESULT_CONTENT
) -> Repair:
    """Repair the linkage of `messages`, returning the new messages and what was done.

    Raises `TranscriptError` with the shape diagnostics when `messages` is not a list or
    tuple of well-formed message structs (decode JSON first, with
    `decode_transcript(data, check_linkage=False)`): repair works on linkage only.
    """
    problem = text_problem(missing_result_content)
    if problem is not None:  # every argument is checked like any other input
        raise ConstructionError("repair_transcript", "missing_result_content", problem)
    given = _well_formed(messages)

    # The first call per ID, by position: (message index, block index, call). Positions, not
    # identities: one message object may stand in a transcript twice.
    calls: dict[str, tuple[int, int, ToolCall]] = {}
    call_count: dict[str, int] = {}
    for index, message in enumerate(given):
        if type(message) is AssistantMessage:
            for block_index, block in enumerate(message.content):
                if type(block) is ToolCall:
                    calls.setdefault(block.id, (index, block_index, block))
                    call_count[block.id] = call_count.get(block.id, 0) + 1

    fixes: list[Fix] = []
    answer: dict[str, ToolResultMessage] = {}  # the result kept for each call ID
    early: set[str] = set()  # call IDs whose kept result came before the call
    kept: list[Message | None] = []  # the input, with dropped and moved results as None
    for index, message in enumerate(given):
        if type(message) is AssistantMessage:
            for block_index, block in enumerate(message.content):
                if type(block) is ToolCall and _position(calls[block.id]) != (index, block_index):
                    fixes.append(
                        Fix(
                            "DUPLICATE_TOOL_CALL_ID",
                            index,
                            "unrepaired",
                            f"Tool call ID {block.id!r} is used twice; left as it is",
                        )
                    )
        if type(message) is not ToolResultMessage:
            kept.append(message)
            continue
        call_id = message.tool_call_id
        if call_id not in calls:
            fixes.append(
                Fix(
                    "ORPHAN_TOOL_RESULT",
                    index,
                    "dropped_result",
                    f"Dropped the result for unknown call {call_id!r}",
                    message,
                )
            )
            kept.append(None)
            continue
        if call_count[call_id] > 1:
            kept.append(message)
            continue
        call_index, _, call = calls[call_id]
        if call_id in answer:
            fixes.append(
                Fix(
                    "DUPLICATE_TOOL_RESULT",
                    index,
                    "dropped_result",
                    f"Dropped a second result for {call_id!r}",
                    message,
                )
            )
            kept.append(None)
            continue
        if call_index > index:
            early.add(call_id)
            fixes.append(
                Fix(
                    "TOOL_RESULT_BEFORE_CALL",
                    index,
                    "moved_result",
                    f"Moved the result for {call_id!r} after its call in message {call_index}",
                )
            )
            kept.append(None)
        else:
            kept.append(message)
        if message.tool_name != call.name:
            fixes.append(
                Fix(
                    "TOOL_NAME_MISMATCH",
                    index,
                    "renamed_tool",
                    f"Renamed the result's tool from {message.tool_name!r} to {call.name!r}",
                )
            )
            renamed = msgspec.structs.replace(message, tool_name=call.name)
            if call_id not in early:
                kept[-1] = renamed
            answer[call_id] = renamed
        else:
            answer[call_id] = message

    output: list[Message] = []
    pending: list[ToolCall] = []  # calls of the assistant messages since the last boundary
    placed: set[str] = set()  # call IDs whose moved or inserted result is already out
    for position, entry in enumerate([*kept, None]):
        at_end = position == len(kept)
        if at_end or type(entry) is UserMessage or type(entry) is AssistantMessage:
            for call in pending:
                if call.id in placed or call_count[call.id] > 1:
                    continue
                placed.add(call.id)
                if call.id in early:
                    output.append(answer[call.id])
                elif call.id not in answer:
                    output.append(_synthetic_result(call, missing_result_content))
                    fixes.append(
                        Fix(
                            "MISSING_TOOL_RESULT",
                            calls[call.id][0],
                            "inserted_result",
                            f"Inserted an error result for {call.id!r}, which had none",
                        )
                    )
            pending = []
        if entry is None:
            continue
        if type(entry) is AssistantMessage:
            pending.extend(block for block in entry.content if type(block) is ToolCall)
        output.append(entry)
    fixes.sort(key=lambda fix: fix.message_index)
    return Repair(messages=tuple(output), fixes=tuple(fixes))


def _well_formed(messages: object) -> list[Message]:
    """The messages, if they are a list or tuple of well-formed structs; else raise."""
    require_shape(messages)
    given: list[Message] = []
    for index, message in enumerate(exact_sequence_items(messages) or ()):
        if type(message) is UserMessage or type(message) is AssistantMessage or type(message) is ToolResultMessage:
            given.append(message)
        else:  # a JSON-form dict, which the shape check accepts but repair does not
            problem = "Expected a message struct, got `dict`; decode JSON with decode_transcript(check_linkage=False)"
            raise TranscriptError((Diagnostic("MESSAGE_NOT_A_RECORD", index, f"$[{index}]", problem),))
    return given


def _position(first_call: tuple[int, int, ToolCall]) -> tuple[int, int]:
    message_index, block_index, _ = first_call
    return message_index, block_index


def _synthetic_result(call: ToolCall, content: str) -> ToolResultMessage:
    return ToolResultMessage(
        id=f"{call.id}:missing-result", tool_call_id=call.id, tool_name=call.name, content=content, is_error=True
    )
