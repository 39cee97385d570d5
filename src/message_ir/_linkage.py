"""Tool-call linkage: do calls and results pair up, once each, in order?

The shape pass hands over one `LinkEvent` per tool call and per tool result whose ID it could
read (an exact, non-empty `str`), in transcript order, each flagged `well_formed` when its
block or message had no shape diagnostic. Then:

1. `first_call` maps each call ID to the position of its first call, and `call_count` counts
   the calls per ID. Both are built from exact `str`s only, so no caller `__hash__` or
   `__eq__` runs.
2. Walking the events in order:
   - a call whose ID is counted more than once, other than the first, is
     `DUPLICATE_TOOL_CALL_ID`; results naming that ID are skipped (which call they answer is
     ambiguous), and its calls are never `MISSING_TOOL_RESULT`;
   - a result whose ID was never called is `ORPHAN_TOOL_RESULT`, unless the result is
     malformed (its shape diagnostic is the root cause);
   - a result whose call comes later is `TOOL_RESULT_BEFORE_CALL` and counts as the call's
     answer, so the call is not also missing;
   - if either the call or the result is malformed, the pair counts as answered and nothing
     more is said: the shape diagnostic is the one root cause;
   - otherwise a second answer to the same call is `DUPLICATE_TOOL_RESULT`, and a first
     answer whose `toolName` differs from the call's `name` is `TOOL_NAME_MISMATCH`.
3. Every well-formed, unduplicated call left unanswered is `MISSING_TOOL_RESULT`, reported
   at the message holding it.

The diagnostics come back sorted by message index (stable), so each independent problem is
reported once, in transcript order. Time and memory are linear in the number of events.
"""

from __future__ import annotations

from typing import NamedTuple

from message_ir._diagnostics import Diagnostic, by_message_index
from message_ir._paths import join_path


class LinkEvent(NamedTuple):
    """A tool call (`is_call`) or a tool result, as the shape pass saw it."""

    is_call: bool
    message_index: int
    block_index: int  # the call's index in `content`; -1 for a result
    call_id: str
    name: str  # the call's `name` or the result's `toolName`; "" when unreadable
    well_formed: bool

    @property
    def path(self) -> str:
        if self.is_call:
            return join_path(f"$[{self.message_index}]", ("content", self.block_index))
        return f"$[{self.message_index}]"


def repeated_call_id(call_id: str) -> str:
    """The message of `DUPLICATE_TOOL_CALL_ID` (the first call is not named: a log read line by
    line keeps no record of where each ID was first used, only that it was)."""
    return f"Tool call ID {call_id!r} is already used by an earlier call"


def check_linkage(events: list[LinkEvent]) -> list[Diagnostic]:
    """The linkage diagnostics for `events`, in transcript order (see the module docstring)."""
    first_call: dict[str, int] = {}
    call_count: dict[str, int] = {}
    for position, event in enumerate(events):
        if event.is_call:
            call_id = event.call_id
            if call_id not in first_call:
                first_call[call_id] = position
                call_count[call_id] = 1
            else:
                call_count[call_id] += 1

    found: list[Diagnostic] = []
    answered: set[str] = set()
    for position, event in enumerate(events):
        call_id = event.call_id
        if event.is_call:
            if first_call[call_id] != position:
                found.append(
                    Diagnostic("DUPLICATE_TOOL_CALL_ID", event.message_index, event.path, repeated_call_id(call_id))
                )
            continue
        call_position = first_call.get(call_id)
        if call_position is None:
            if event.well_formed:
                found.append(
                    Diagnostic(
                        "ORPHAN_TOOL_RESULT",
                        event.message_index,
                        event.path,
                        f"Tool result answers {call_id!r}, but no tool call has that ID",
                    )
                )
            continue
        if call_count[call_id] > 1:
            continue
        call = events[call_position]
        if call_position > position:
            answered.add(call_id)
            if event.well_formed and call.well_formed:
                found.append(
                    Diagnostic(
                        "TOOL_RESULT_BEFORE_CALL",
                        event.message_index,
                        event.path,
                        f"Tool result answers {call_id!r}, whose call comes later, in message {call.message_index}",
                    )
                )
            continue
        if not (event.well_formed and call.well_formed):
            answered.add(call_id)
            continue
        if call_id in answered:
            found.append(
                Diagnostic(
                    "DUPLICATE_TOOL_RESULT",
                    event.message_index,
                    event.path,
                    f"Tool call {call_id!r} already has a result",
                )
            )
            continue
        answered.add(call_id)
        if event.name != call.name:
            found.append(
                Diagnostic(
                    "TOOL_NAME_MISMATCH",
                    event.message_index,
                    event.path,
                    f"Tool result names tool {event.name!r}, but call {call_id!r} is to {call.name!r}",
                )
            )

    for call_id, position in first_call.items():
        call = events[position]
        if call.well_formed and call_count[call_id] == 1 and call_id not in answered:
            found.append(
                Diagnostic(
                    "MISSING_TOOL_RESULT",
                    call.message_index,
                    call.path,
                    f"Tool call {call_id!r} has no result after it",
                )
            )
    found.sort(key=by_message_index)
    return found
