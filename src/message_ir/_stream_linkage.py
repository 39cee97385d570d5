"""Linkage for a log read line by line, in memory that does not grow with the log's lines.

`message_ir._linkage.check_linkage` sees every call and result at once. A log of millions of
lines cannot be held like that, so `StreamingLinkage` takes the same `LinkEvent`s one at a
time and gives the same diagnostics (the property suite compares the two), keeping:

- for each call ID ever seen, a 128-bit digest of it (two of Python's keyed string hashes,
  of the ID and of its reverse; no copy of the ID or of its line): in a set for the common
  case, a call answered once, or with a few flag bits (well-formed, answered, repeated) for
  the others;
- for each call not answered yet, its ID and a small tuple (to say at the end which call
  has no result);
- for each result whose call has not been seen (yet), its event;
- the diagnostics that depend on whether an ID is ever used twice (which only the end of the
  log tells), for results that have a problem.

A `DUPLICATE_TOOL_CALL_ID` is given as soon as the second call is read; every other linkage
diagnostic when the log ends (`finish`). Two different IDs would be taken for one only if
both 64-bit hashes of both collided at once.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from message_ir._diagnostics import Diagnostic, by_message_index
from message_ir._linkage import LinkEvent, repeated_call_id

_ANSWERED: Final = 1
_WELL_FORMED: Final = 2
_REPEATED: Final = 4
_CLOSED: Final = _ANSWERED | _WELL_FORMED  # the common end state, kept in a set
_LOW: Final = (1 << 64) - 1
_NOTHING: Final[list[Diagnostic]] = []  # returned, never changed


def _digest(call_id: str) -> int:
    """128 bits from two of Python's keyed string hashes (stable within one process)."""
    return (hash(call_id) << 64) ^ (hash(call_id[::-1]) & _LOW)


class _OpenCall(NamedTuple):
    message_index: int
    block_index: int
    name: str
    well_formed: bool
    key: int  # the ID's digest


class StreamingLinkage:
    """Link events in, linkage diagnostics out (see the module docstring)."""

    def __init__(self) -> None:
        self._closed: set[int] = set()  # digests of calls answered once, all well-formed
        self._flags: dict[int, int] = {}  # digests of the other calls seen, with their flags
        self._open: dict[str, _OpenCall] = {}
        self._early: dict[str, list[LinkEvent]] = {}
        self._held: dict[int, list[Diagnostic]] = {}  # digest -> diagnostics dropped if the ID repeats

    def _state(self, key: int) -> int | None:
        return _CLOSED if key in self._closed else self._flags.get(key)

    def _set(self, key: int, flags: int) -> None:
        if flags == _CLOSED:
            self._closed.add(key)
            self._flags.pop(key, None)
        else:
            self._closed.discard(key)
            self._flags[key] = flags

    def add(self, event: LinkEvent) -> list[Diagnostic]:
        """Take one event; the diagnostics that are certain already (a repeated call ID)."""
        return self._call(event) if event.is_call else self._result(event)

    def well_formed_call(self, message_index: int, block_index: int, call_id: str, name: str) -> list[Diagnostic]:
        """`add` of a well-formed call, without building its event for the common case."""
        key = (hash(call_id) << 64) ^ (hash(call_id[::-1]) & _LOW)  # `_digest`, inline: a hot path
        if key in self._closed or key in self._flags or call_id in self._early:
            return self._call(LinkEvent(True, message_index, block_index, call_id, name, True))
        self._open[call_id] = _OpenCall(message_index, block_index, name, True, key)
        self._flags[key] = _WELL_FORMED
        return _NOTHING

    def well_formed_result(self, message_index: int, call_id: str, name: str) -> list[Diagnostic]:
        """`add` of a well-formed result, without building its event for the common case."""
        open_call = self._open.get(call_id)
        if open_call is not None and open_call.name == name and open_call.well_formed:
            key = open_call.key  # an open call's flags are `_WELL_FORMED` alone
            del self._open[call_id]
            del self._flags[key]
            self._closed.add(key)
            return _NOTHING
        return self._result(LinkEvent(False, message_index, -1, call_id, name, True))

    def _call(self, event: LinkEvent) -> list[Diagnostic]:
        call_id = event.call_id
        key = _digest(call_id)
        state = self._state(key)
        if state is not None:
            self._set(key, state | _REPEATED)
            self._open.pop(call_id, None)
            self._held.pop(key, None)
            return [Diagnostic("DUPLICATE_TOOL_CALL_ID", event.message_index, event.path, repeated_call_id(call_id))]
        state = _WELL_FORMED if event.well_formed else 0
        early = self._early.pop(call_id, None)
        if early is not None:  # results came first: each is early, and the call is answered
            state |= _ANSWERED
            for result in early:
                if result.well_formed and event.well_formed:
                    self._hold(
                        key,
                        Diagnostic(
                            "TOOL_RESULT_BEFORE_CALL",
                            result.message_index,
                            result.path,
                            f"Tool result answers {call_id!r}, whose call comes later,"
                            f" in message {event.message_index}",
                        ),
                    )
        else:
            self._open[call_id] = _OpenCall(event.message_index, event.block_index, event.name, event.well_formed, key)
        self._set(key, state)
        return _NOTHING

    def _result(self, event: LinkEvent) -> list[Diagnostic]:
        call_id = event.call_id
        key = _digest(call_id)
        state = self._state(key)
        if state is None:
            self._early.setdefault(call_id, []).append(event)
            return _NOTHING
        if state & _REPEATED:
            return _NOTHING
        open_call = self._open.pop(call_id, None)
        if not (event.well_formed and state & _WELL_FORMED):
            self._set(key, state | _ANSWERED)
            return _NOTHING
        if state & _ANSWERED:
            self._hold(
                key,
                Diagnostic(
                    "DUPLICATE_TOOL_RESULT",
                    event.message_index,
                    event.path,
                    f"Tool call {call_id!r} already has a result",
                ),
            )
            return _NOTHING
        self._set(key, state | _ANSWERED)
        if open_call is not None and event.name != open_call.name:
            self._hold(
                key,
                Diagnostic(
                    "TOOL_NAME_MISMATCH",
                    event.message_index,
                    event.path,
                    f"Tool result names tool {event.name!r}, but call {call_id!r} is to {open_call.name!r}",
                ),
            )
        return _NOTHING

    def _hold(self, key: int, diagnostic: Diagnostic) -> None:
        self._held.setdefault(key, []).append(diagnostic)

    def finish(self) -> list[Diagnostic]:
        """The linkage diagnostics only the end of the log makes certain, sorted by message."""
        found = [diagnostic for held in self._held.values() for diagnostic in held]
        for results in self._early.values():
            for result in results:
                if result.well_formed:
                    found.append(
                        Diagnostic(
                            "ORPHAN_TOOL_RESULT",
                            result.message_index,
                            result.path,
                            f"Tool result answers {result.call_id!r}, but no tool call has that ID",
                        )
                    )
        for call_id, call in self._open.items():
            if call.well_formed:
                path = LinkEvent(True, call.message_index, call.block_index, call_id, call.name, True).path
                found.append(
                    Diagnostic(
                        "MISSING_TOOL_RESULT", call.message_index, path, f"Tool call {call_id!r} has no result after it"
                    )
                )
        found.sort(key=by_message_index)
        return found
