"""repair_transcript: each action's exact output and fixes."""

from __future__ import annotations

from typing import cast

import pytest

from message_ir import (
    Fix,
    Message,
    Repair,
    ToolResultMessage,
    TranscriptError,
    assistant_message,
    repair_transcript,
    tool_result_message,
    user_message,
    validate_transcript,
)

USER = user_message(id="u1", content="go")
LATER = user_message(id="u2", content="next")


def calls(*ids: str, id: str = "a1", name: str = "read") -> Message:
    return assistant_message(
        id=id, content=[{"type": "toolCall", "id": call_id, "name": name, "arguments": {}} for call_id in ids]
    )


def answer(call_id: str, id: str | None = None, name: str = "read") -> ToolResultMessage:
    return tool_result_message(id=id or f"r-{call_id}", tool_call_id=call_id, tool_name=name, content="ok")


def synthetic(call_id: str, content: str = "Tool call was interrupted before it returned a result.") -> Message:
    return ToolResultMessage(
        id=f"{call_id}:missing-result", tool_call_id=call_id, tool_name="read", content=content, is_error=True
    )


def test_a_valid_transcript_comes_back_unchanged() -> None:
    transcript = (USER, calls("c1", "c2"), answer("c1"), answer("c2"), LATER)
    assert repair_transcript(transcript) == Repair(messages=transcript, fixes=())


def test_missing_results_are_inserted_after_the_existing_results() -> None:
    repaired = repair_transcript([USER, calls("c1", "c2", "c3"), answer("c2"), LATER])
    assert repaired.messages == (USER, calls("c1", "c2", "c3"), answer("c2"), synthetic("c1"), synthetic("c3"), LATER)
    assert repaired.fixes == (
        Fix("MISSING_TOOL_RESULT", 1, "inserted_result", "Inserted an error result for 'c1', which had none"),
        Fix("MISSING_TOOL_RESULT", 1, "inserted_result", "Inserted an error result for 'c3', which had none"),
    )


def test_missing_result_content_can_be_chosen_and_is_inserted_at_the_end_too() -> None:
    repaired = repair_transcript([USER, calls("c1")], missing_result_content="cancelled")
    assert repaired.messages == (USER, calls("c1"), synthetic("c1", "cancelled"))


def test_orphans_are_dropped_and_kept_on_the_fix() -> None:
    orphan = answer("ghost")
    repaired = repair_transcript([USER, orphan, LATER])
    assert repaired.messages == (USER, LATER)
    assert repaired.fixes == (
        Fix("ORPHAN_TOOL_RESULT", 1, "dropped_result", "Dropped the result for unknown call 'ghost'", orphan),
    )


def test_an_early_result_is_moved_after_its_call() -> None:
    early = answer("c1")
    repaired = repair_transcript([USER, early, calls("c1"), LATER])
    assert repaired.messages == (USER, calls("c1"), early, LATER)
    assert repaired.fixes == (
        Fix("TOOL_RESULT_BEFORE_CALL", 1, "moved_result", "Moved the result for 'c1' after its call in message 2"),
    )


def test_an_early_result_with_the_wrong_name_is_moved_and_renamed() -> None:
    repaired = repair_transcript([answer("c1", name="cat"), calls("c1")])
    assert repaired.messages == (calls("c1"), answer("c1"))
    assert [fix.action for fix in repaired.fixes] == ["moved_result", "renamed_tool"]


def test_duplicate_results_keep_the_first() -> None:
    first, second = answer("c1", id="r1"), answer("c1", id="r2")
    repaired = repair_transcript([calls("c1"), first, second])
    assert repaired.messages == (calls("c1"), first)
    assert repaired.fixes == (
        Fix("DUPLICATE_TOOL_RESULT", 2, "dropped_result", "Dropped a second result for 'c1'", second),
    )


def test_name_mismatch_takes_the_calls_name() -> None:
    repaired = repair_transcript([calls("c1"), answer("c1", name="cat")])
    assert repaired.messages == (calls("c1"), answer("c1"))
    assert repaired.fixes == (
        Fix("TOOL_NAME_MISMATCH", 1, "renamed_tool", "Renamed the result's tool from 'cat' to 'read'"),
    )


def test_duplicate_call_ids_are_left_and_reported_unrepaired() -> None:
    transcript = (calls("c1"), answer("c1"), calls("c1", id="a2"), answer("c1", id="r2"))
    repaired = repair_transcript(transcript)
    assert repaired.messages == transcript
    assert repaired.fixes == (
        Fix("DUPLICATE_TOOL_CALL_ID", 2, "unrepaired", "Tool call ID 'c1' is used twice; left as it is"),
    )


def test_one_message_object_twice_is_a_duplicate_call_id() -> None:
    # Found by the property suite: calls were told apart by identity, so the same
    # AssistantMessage object standing twice was not seen as repeating its call IDs.
    message = calls("c1")
    transcript = (message, answer("c1"), message)
    repaired = repair_transcript(transcript)
    assert repaired.messages == transcript
    assert [(fix.code, fix.message_index, fix.action) for fix in repaired.fixes] == [
        ("DUPLICATE_TOOL_CALL_ID", 2, "unrepaired")
    ]


def test_repair_is_idempotent_and_its_output_validates() -> None:
    broken: list[Message] = [
        answer("ghost"),
        answer("c2"),
        USER,
        calls("c1", "c2"),
        answer("c1", name="x"),
        answer("c1"),
        LATER,
    ]
    once = repair_transcript(broken)
    assert validate_transcript(once.messages) == ()
    twice = repair_transcript(once.messages)
    assert twice == Repair(messages=once.messages, fixes=())


def test_malformed_input_is_refused_with_shape_diagnostics() -> None:
    with pytest.raises(TranscriptError) as caught:
        repair_transcript(cast("list[Message]", [7]))
    assert [d.code for d in caught.value.diagnostics] == ["MESSAGE_NOT_A_RECORD"]
    with pytest.raises(TranscriptError) as caught:
        repair_transcript(cast("list[Message]", [{"role": "user", "id": "u", "content": "x"}]))
    assert [d.code for d in caught.value.diagnostics] == ["MESSAGE_NOT_A_RECORD"]
    with pytest.raises(TypeError) as refused:
        repair_transcript([USER], missing_result_content=cast("str", 1))
    assert str(refused.value) == "repair_transcript(): Expected `str`, got `int` - at `missing_result_content`"


def test_missing_result_content_is_checked_like_any_text() -> None:
    with pytest.raises(TypeError) as refused:
        repair_transcript([USER, calls("c1")], missing_result_content="\ud800")
    assert str(refused.value) == (
        "repair_transcript(): Expected a `str` encodable as UTF-8, got one with a lone surrogate"
        " - at `missing_result_content`"
    )
