"""`validate_transcript`: shape first, then linkage, and never a raise."""

from __future__ import annotations

from message_ir._diagnostics import Diagnostic, TranscriptError, by_message_index
from message_ir._fast_path import transcript_is_valid
from message_ir._json_rule import type_name
from message_ir._linkage import check_linkage
from message_ir._shape import ShapeCheck


def require_shape(messages: object) -> None:
    """Raise `TranscriptError` with the shape diagnostics unless `messages` is well-formed.

    Linkage is not required. The fast pass answers for messages the package made; the shape
    pass explains anything it doubts.
    """
    if transcript_is_valid(messages, check_linkage=False):
        return
    check = ShapeCheck()
    check.transcript(messages)
    if check.diagnostics:
        raise TranscriptError(tuple(check.diagnostics))


def validate_transcript(value: object) -> tuple[Diagnostic, ...]:
    """Every problem with `value` as a transcript; `()` when it is valid. Never raises.

    `value` may be anything: a sequence of the package's messages (built by the
    constructors or by calling the Struct classes directly), the output of `json.loads`, or
    a hostile object. A fast pass answers for transcripts that are entirely valid (see
    `message_ir._fast_path`); anything it doubts goes through the careful passes. Shape
    diagnostics come from the shape pass; linkage diagnostics come
    from the calls and results the shape pass could read, with no cascades (see
    `message_ir._linkage`). All are returned sorted by message index, shape before linkage
    within one message.
    """
    try:
        if transcript_is_valid(value):
            return ()
        check = ShapeCheck()
        check.transcript(value)
        linkage = check_linkage(check.events)
        if not check.diagnostics:
            return tuple(linkage)
        combined = check.diagnostics + linkage
        combined.sort(key=by_message_index)
        return tuple(combined)
    except Exception as error:  # noqa: BLE001  # the guard never raises
        # As in ShapeCheck.transcript: no known input gets here (MemoryError aside).
        return (Diagnostic("UNREADABLE_VALUE", None, "$", f"Transcript could not be read: `{type_name(error)}`"),)
