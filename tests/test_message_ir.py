"""The worked example of the IR and the orphan experiment, as the package promises them."""

from __future__ import annotations

from message_ir import (
    assistant_message,
    text_from_assistant,
    tool_result_message,
    user_message,
    validate_transcript,
)


def test_worked_example() -> None:
    transcript = (
        user_message(id="message-user-001", content="Read package.json."),
        assistant_message(
            id="message-assistant-001",
            content=[
                {"type": "text", "text": "I will inspect it. "},
                {"type": "toolCall", "id": "call-read-001", "name": "read", "arguments": {"path": "package.json"}},
                {"type": "text", "text": "Then I will summarize it."},
            ],
        ),
        tool_result_message(
            id="message-tool-001",
            tool_call_id="call-read-001",
            tool_name="read",
            content='{"name":"pify-docs"}',
            is_error=False,
        ),
    )
    assert validate_transcript(transcript) == ()
    assert text_from_assistant(transcript[1]) == "I will inspect it. Then I will summarize it."


def test_orphan_experiment() -> None:
    orphan = tool_result_message(
        id="message-tool-orphan", tool_call_id="call-missing", tool_name="read", content="contents"
    )
    found = validate_transcript((orphan,))
    assert [(d.code, d.message_index) for d in found] == [("ORPHAN_TOOL_RESULT", 0)]

    caller = assistant_message(
        id="message-assistant-001",
        content=[{"type": "toolCall", "id": "call-missing", "name": "read", "arguments": {}}],
    )
    assert validate_transcript((caller, orphan)) == ()
