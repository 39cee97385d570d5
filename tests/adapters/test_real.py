"""The adapters on the real transcripts of `../shared/real/` (read in place, never copied)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from message_ir import AssistantMessage, Diagnostic, ToolCall, repair_transcript, validate_transcript
from message_ir.adapters import anthropic, convert, detect, openai_chat
from tests.adapters.real import anthropic_messages, ids, openai_chat_messages, real_files

OPENAI = real_files("openai-chat", "*.json")
ANTHROPIC = real_files("anthropic", "*.jsonl")


@pytest.mark.parametrize("path", OPENAI, ids=ids(OPENAI))
def test_openai_chat_real_files_round_trip_exactly(path: Path) -> None:
    messages = openai_chat_messages(path)
    text = json.dumps(messages)
    for source in (messages, text, text.encode()):
        conversation = openai_chat.load(source)
        assert validate_transcript(conversation.messages) == ()
        assert openai_chat.dump(conversation) == messages
        assert json.dumps(json.loads(openai_chat.dumps(conversation))) == text  # key order included
    body = {"model": "gpt-4o", "messages": messages, "temperature": 0}
    assert json.loads(openai_chat.dumps(openai_chat.load(body))) == body
    assert list(json.loads(openai_chat.dumps(openai_chat.load(body)))) == ["model", "messages", "temperature"]


@pytest.mark.parametrize("path", OPENAI, ids=ids(OPENAI))
def test_openai_chat_real_files_check_clean_and_are_detected(path: Path) -> None:
    messages = openai_chat_messages(path)
    assert openai_chat.check(messages) == ()
    assert detect(messages) == "openai_chat"
    assert detect(json.dumps(messages).encode()) == "openai_chat"


@pytest.mark.parametrize("path", ANTHROPIC, ids=ids(ANTHROPIC))
def test_anthropic_real_files_round_trip_exactly(path: Path) -> None:
    messages = anthropic_messages(path)
    text = json.dumps(messages)
    conversation = anthropic.load(text)
    assert validate_transcript(conversation.messages) == ()
    assert anthropic.dump(conversation) == messages
    assert json.dumps(json.loads(anthropic.dumps(conversation))) == text
    body = {
        "model": "claude",
        "max_tokens": 1024,
        "system": [{"type": "text", "text": "Be brief."}],
        "messages": messages,
    }
    assert json.loads(anthropic.dumps(anthropic.load(body))) == body


@pytest.mark.parametrize("path", ANTHROPIC, ids=ids(ANTHROPIC))
def test_anthropic_real_files_check_clean_and_are_detected(path: Path) -> None:
    messages = anthropic_messages(path)
    assert anthropic.check(messages) == ()
    # A conversation of text only (string contents, text blocks) is OpenAI Chat as well, and
    # `detect` says `openai_chat` for it (its documented rule); OpenAI Chat reads it as it is.
    if all(_text_only(message["content"]) for message in messages):
        assert detect(messages) == "openai_chat"
        assert openai_chat.check(messages) == ()
        assert json.loads(openai_chat.dumps(openai_chat.load(messages))) == messages
    else:
        assert detect(messages) == "anthropic"


def _text_only(content: object) -> bool:
    if type(content) is str:
        return True
    return type(content) is list and all(type(block) is dict and block.get("type") == "text" for block in content)


@pytest.mark.parametrize("path", OPENAI, ids=ids(OPENAI))
def test_every_openai_transcript_converts_to_what_anthropic_accepts(path: Path) -> None:
    converted = convert(openai_chat.load(openai_chat_messages(path)), to="anthropic")
    assert anthropic.check(anthropic.dump(converted)) == ()
    back = convert(anthropic.load(anthropic.dump(converted)), to="openai_chat")
    assert openai_chat.check(openai_chat.dump(back)) == ()


@pytest.mark.parametrize("path", ANTHROPIC, ids=ids(ANTHROPIC))
def test_every_anthropic_transcript_converts_to_what_openai_accepts(path: Path) -> None:
    converted = convert(anthropic.load(anthropic_messages(path)), to="openai_chat")
    assert openai_chat.check(openai_chat.dump(converted)) == ()


def test_reused_call_ids_are_renamed_on_load_and_restored_on_dump() -> None:
    messages = openai_chat_messages(real_files("openai-chat", "tau-bench_gpt-4o-airline_rec000.json")[0])
    conversation = openai_chat.load(messages)
    renamed = [note for note in conversation.notes if note.code == "RENAMED_REUSED_CALL_ID"]
    assert len(renamed) == 2
    call_ids = [
        block.id
        for message in conversation.messages
        if message.role == "assistant"
        for block in message.content
        if block.type == "toolCall"
    ]
    assert len(call_ids) == len(set(call_ids))
    assert openai_chat.dump(conversation) == messages


# --- broken variants of real files: the documented code at the right source index ----------

TAU = "tau-bench_gpt-4o-airline_rec006.json"  # [4] calls, [5] answers, [8] calls, [9] answers


def tau() -> list[dict[str, object]]:
    messages = openai_chat_messages(real_files("openai-chat", TAU)[0])
    return [message for message in copy.deepcopy(messages) if type(message) is dict]


def test_a_dropped_result_is_missing_at_the_call() -> None:
    messages = tau()
    del messages[5]
    assert openai_chat.check(messages) == (
        Diagnostic(
            "MISSING_TOOL_RESULT",
            4,
            "$[4].tool_calls[0]",
            "Tool call 'call_ztbxGlsMpczBygT2okQo2s7W' has no result after it",
        ),
    )


def test_a_result_moved_two_turns_later_is_not_adjacent() -> None:
    messages = tau()
    result = messages.pop(5)
    messages.insert(7, result)
    assert openai_chat.check(messages) == (
        Diagnostic(
            "RESULT_NOT_ADJACENT",
            7,
            "$[7]",
            "The result for 'call_ztbxGlsMpczBygT2okQo2s7W' is not in the turn right after its call",
        ),
    )


def test_an_id_too_long_for_openai_loads_and_is_reported() -> None:
    messages = tau()
    long_id = "call_" + "x" * 60
    calls = messages[4]["tool_calls"]
    assert type(calls) is list
    calls[0]["id"] = long_id
    messages[5]["tool_call_id"] = long_id
    loaded = openai_chat.load(messages).messages[3]
    assert type(loaded) is AssistantMessage
    call = loaded.content[0]
    assert type(call) is ToolCall
    assert call.id == long_id
    assert openai_chat.check(messages) == (
        Diagnostic(
            "BAD_TOOL_CALL_ID_FORMAT",
            4,
            "$[4].tool_calls[0].id",
            "Tool call ID is 65 characters long; OpenAI Chat accepts at most 40",
        ),
    )


def test_text_before_a_tool_result_is_not_first() -> None:
    messages = anthropic_messages(real_files("anthropic", "spotter_claude-code_short.jsonl")[0])
    content = messages[2]["content"]
    assert type(content) is list
    content.insert(0, {"type": "text", "text": "Here you go:"})
    assert anthropic.check(messages) == (
        Diagnostic(
            "RESULT_NOT_FIRST",
            2,
            "$[2].content[1]",
            "The result for 'toolu_0116Hyi5v8ut7Ffb7d8qV1Sc' comes after other content in its user turn",
        ),
        Diagnostic(
            "RESULT_NOT_FIRST",
            3,
            "$[3].content[0]",
            "The result for 'toolu_01FdQ8qTyVyZjE3Kw4dguQGx' comes after other content in its user turn",
        ),
    )


def test_a_repaired_transcript_writes_back_every_untouched_record_unchanged() -> None:
    messages = tau()
    del messages[5]
    conversation = openai_chat.load(messages)
    repaired = repair_transcript(conversation.messages)
    assert [fix.code for fix in repaired.fixes] == ["MISSING_TOOL_RESULT"]
    written = openai_chat.dump(conversation.replace(messages=repaired.messages))
    assert type(written) is list
    assert written[:5] == messages[:5]
    assert written[5] == {
        "role": "tool",
        "tool_call_id": "call_ztbxGlsMpczBygT2okQo2s7W",
        "content": "Tool call was interrupted before it returned a result.",
    }
    assert written[6:] == messages[5:]
    assert openai_chat.check(written) == ()


@pytest.mark.parametrize("path", real_files("datasets", "*.jsonl"), ids=ids(real_files("datasets", "*.jsonl")))
def test_a_real_fine_tuning_file_writes_back_exactly(path: Path) -> None:
    # OpenAI's own fine-tuning lines leave `content` out of an assistant message with calls:
    # it stays out (it was once written back as `"content": null`).
    for line in path.read_bytes().splitlines():
        record = json.loads(line)
        assert json.dumps(json.loads(openai_chat.dumps(openai_chat.load(line)))) == json.dumps(record)
