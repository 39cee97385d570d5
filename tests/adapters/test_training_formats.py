"""`hf_chat` and `sharegpt`: the training-row formats on every real row, their pairing by
order, the ShareGPT position rule, and `convert` between them and `openai_chat`, notes and all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from message_ir import AssistantMessage, ToolCall, ToolResultMessage, tool_call
from message_ir.adapters import convert, detect, hf_chat, openai_chat, sharegpt
from tests.adapters.real import ids, real_files

GLAIVE = real_files("sharegpt", "llama-factory_glaive-*.json")
WITHOUT_CALL = real_files("sharegpt", "llama-factory_glaive-toolcall-zh-demo_elements197+293_*.json")
WINDOWS = real_files("sharegpt", "llama-factory_glaive-toolcall-*-demo_elements[0-9]*-[0-9]*.json")
"""The two windows of glaive rows named in PROVENANCE.md (en 69-147, zh 0-39)."""


def _rows(path: Path) -> list[object]:
    rows = json.loads(path.read_bytes())
    assert type(rows) is list
    return rows


@pytest.mark.parametrize("path", GLAIVE, ids=ids(GLAIVE))
def test_every_sharegpt_row_loads_and_writes_back_exactly(path: Path) -> None:
    for row in _rows(path):
        conversation = sharegpt.load(row)
        assert json.dumps(sharegpt.dump(conversation), ensure_ascii=False) == json.dumps(row, ensure_ascii=False)
        again = sharegpt.load(sharegpt.dumps(conversation))
        assert sharegpt.dump(again) == row
        assert detect(json.dumps(row)) == "sharegpt"


def test_the_two_observations_without_a_call_are_reported() -> None:
    (path,) = WITHOUT_CALL
    for row in _rows(path):
        conversation = sharegpt.load(row)
        assert [str(note) for note in conversation.notes if note.code == "TURN_WITHOUT_CALL"] == [
            "TURN_WITHOUT_CALL: An `observation` with no `function_call` waiting for it; it answers no call"
            " - at `$.conversations[2]`"
        ]
        assert [str(diagnostic) for diagnostic in sharegpt.check(row)] == [
            "ORPHAN_TOOL_RESULT: Tool result answers 'no_call_before_turn_2', but no tool call has that ID"
            " - at `$.conversations[2]`"
        ]


def test_every_other_glaive_row_is_valid_but_for_its_own_schema_mistakes() -> None:
    found: dict[str, int] = {}
    assert [path.name for path in WINDOWS] == [
        "llama-factory_glaive-toolcall-en-demo_elements69-147.json",
        "llama-factory_glaive-toolcall-zh-demo_elements0-39.json",
    ]
    for path in WINDOWS:
        for row in _rows(path):
            for diagnostic in sharegpt.FORMAT.functions.check_example(row):
                found[diagnostic.code] = found.get(diagnostic.code, 0) + 1
    # The zh window's rows 5 and 21 call tools without arguments their schemas require.
    assert found == {"ARGUMENTS_DO_NOT_MATCH_SCHEMA": 4}


def test_sharegpt_calls_pair_with_observations_by_order() -> None:
    row = {
        "conversations": [
            {"from": "human", "value": "Age?"},
            {"from": "function_call", "value": '{"name": "age", "arguments": {"born": "1990"}}'},
            {"from": "observation", "value": '{"age": 36}'},
            {"from": "gpt", "value": "36."},
        ],
        "tools": '[{"name": "age", "parameters": {"type": "object", "properties": {"born": {"type": "string"}}}}]',
    }
    conversation = sharegpt.load(row)
    call = conversation.messages[1].content[0]
    result = conversation.messages[2]
    assert type(call) is ToolCall
    assert type(result) is ToolResultMessage
    assert (call.id, call.name, call.arguments.thaw()) == ("sharegpt_call_1_0", "age", {"born": "1990"})
    assert (result.tool_call_id, result.tool_name, result.content) == ("sharegpt_call_1_0", "age", '{"age": 36}')
    assert sharegpt.check(row) == ()
    assert sharegpt.dump(conversation) == row


def test_a_function_call_written_otherwise_is_kept_and_rewritten_when_its_call_changes() -> None:
    row = [
        {"from": "function_call", "value": '{"arguments":{"x":1},"name":"f"}'},
        {"from": "observation", "value": "1"},
    ]
    conversation = sharegpt.load(row)
    assert sharegpt.dump(conversation) == row
    call = conversation.messages[0].content[0]
    assert type(call) is ToolCall
    renamed = conversation.replace(
        messages=[
            AssistantMessage(id="m0", content=(tool_call(id=call.id, name="g", arguments={}),)),
            conversation.messages[1],
        ]
    )
    written = sharegpt.dump(renamed)
    assert type(written) is list
    assert written[0] == {"from": "function_call", "value": '{"name": "g", "arguments": {}}'}


def test_the_position_rule_is_a_training_rows_rule() -> None:
    row = [
        {"from": "system", "value": "Be brief."},
        {"from": "human", "value": "Hi"},
        {"from": "human", "value": "Anyone?"},
        {"from": "gpt", "value": "Yes."},
        {"from": "human", "value": "Thanks"},
    ]
    assert sharegpt.check(row) == ()  # a transcript may have two human turns in a row
    assert [str(diagnostic) for diagnostic in sharegpt.FORMAT.functions.check_example(row)] == [
        "TURN_OUT_OF_PLACE: A `human` turn at position 2; LLaMA-Factory takes only `gpt` and `function_call`"
        " at even positions - at `$[2].from`",
        "TURN_OUT_OF_PLACE: A `gpt` turn at position 3; LLaMA-Factory takes only `human` and `observation`"
        " at odd positions - at `$[3].from`",
        "TURN_OUT_OF_PLACE: A `human` turn at position 4; LLaMA-Factory takes only `gpt` and `function_call`"
        " at even positions - at `$[4].from`",
        "TURN_OUT_OF_PLACE: The last turn is a `human` one; LLaMA-Factory needs a `gpt` or `function_call`"
        " turn last - at `$[4].from`",
    ]


@pytest.mark.parametrize(
    ("turn", "problem"),
    [
        (
            {"from": "bot", "value": "x"},
            "Invalid `from` 'bot'; expected one of system, human, gpt, function_call, observation - at `$[0].from`",
        ),
        (
            {"value": "x"},
            "Missing `from`; expected one of system, human, gpt, function_call, observation - at `$[0]`",
        ),
        (
            {"from": 1, "value": "x"},
            "Expected `from` to be a string, got `int` - at `$[0].from`",
        ),
        ({"from": "gpt", "value": None}, "Expected `str`, got `null` - at `$[0].value`"),
        (
            {"from": "function_call", "value": "f(x)"},
            'Expected JSON text of a call (`{"name": ..., "arguments": {...}}`) - at `$[0].value`',
        ),
        (
            {"from": "function_call", "value": '[{"name": "f"}, {"arguments": {}}]'},
            'Expected a call object with a non-empty `name` (`{"name": ..., "arguments": ...}`) - at `$[0].value[1]`',
        ),
    ],
)
def test_a_sharegpt_turn_that_is_not_one_is_a_format_error(turn: dict[str, object], problem: str) -> None:
    assert [str(diagnostic) for diagnostic in sharegpt.check([turn])] == [f"BAD_FORMAT: {problem}"]


def test_sharegpt_arguments_that_are_no_object_are_kept_and_reported() -> None:
    row = [
        {"from": "function_call", "value": '{"name": "f", "arguments": "x=1"}'},
        {"from": "observation", "value": "1"},
    ]
    conversation = sharegpt.load(row)
    assert sharegpt.dump(conversation) == row
    assert [str(diagnostic) for diagnostic in sharegpt.check(row)] == [
        "BAD_TOOL_ARGUMENTS: Expected a JSON object as the arguments text - at `$[0].value.arguments`"
    ]


HF_ROWS = real_files("hf-chat", "*.json")
TRL_ROWS = real_files("hf-chat", "trl_toolcall-dataset-script_row[47]_*.json")
"""The two rows of TRL's script named in PROVENANCE.md: a call without an ID, then its result."""


@pytest.mark.parametrize("path", HF_ROWS, ids=ids(HF_ROWS))
def test_every_hf_chat_file_loads_and_writes_back_exactly(path: Path) -> None:
    value = json.loads(path.read_bytes())
    conversation = hf_chat.load(value)
    assert json.dumps(hf_chat.dump(conversation)) == json.dumps(value)
    assert json.dumps(hf_chat.dump(hf_chat.load(hf_chat.dumps(conversation)))) == json.dumps(value)


@pytest.mark.parametrize("path", TRL_ROWS, ids=ids(TRL_ROWS))
def test_a_trl_row_pairs_its_result_by_order_and_writes_no_made_up_id(path: Path) -> None:
    messages = json.loads(path.read_bytes())
    conversation = hf_chat.load(messages)
    call = conversation.messages[1].content[0]
    result = conversation.messages[2]
    assert type(call) is ToolCall
    assert type(result) is ToolResultMessage
    assert call.id == result.tool_call_id == "hf_chat_call_1_0"
    assert [note.code for note in conversation.notes] == ["MADE_UP_CALL_ID"]
    assert hf_chat.check(messages) == ()
    assert hf_chat.FORMAT.functions.check_example(messages) == ()
    assert hf_chat.dump(conversation) == messages
    assert detect(path.read_bytes()) == "hf_chat"


def test_hf_arguments_given_as_json_text_are_kept_and_reported() -> None:
    row = {
        "messages": [
            {"role": "user", "content": "?"},
            {
                "role": "assistant",
                "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}],
            },
        ]
    }
    conversation = hf_chat.load(row)
    assert hf_chat.dump(conversation) == row
    assert [str(diagnostic) for diagnostic in hf_chat.FORMAT.functions.check_example(row)] == [
        "BAD_TOOL_ARGUMENTS: Expected the arguments as a JSON object, got JSON text (a chat template would encode"
        " it again) - at `$.messages[1].tool_calls[0].function.arguments`"
    ]


def test_hf_rows_read_back_from_arrow_keep_their_null_keys() -> None:
    row = {
        "messages": [
            {"role": "user", "content": "hi", "tool_calls": None, "tool_call_id": None, "name": None},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": None, "type": None, "function": {"name": "f", "arguments": {"a": 1}}}],
                "tool_call_id": None,
                "name": None,
            },
            {"role": "tool", "content": "ok", "tool_calls": None, "tool_call_id": None, "name": "f"},
        ]
    }
    conversation = hf_chat.load(row)
    assert json.dumps(hf_chat.dump(conversation)) == json.dumps(row)
    assert hf_chat.check(row) == ()


def test_convert_between_the_training_formats_notes_every_change() -> None:
    openai = [
        {"role": "user", "content": "?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "f", "arguments": '{"a":1}'}}],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "ok"},
    ]
    as_hf = convert(openai_chat.load(openai), "hf_chat")
    assert [str(note) for note in as_hf.notes] == [
        "RETYPED_ARGUMENTS: Arguments of 'f' are written as a JSON object (openai_chat holds the other form)"
        " - at `$[1].content[0].arguments`"
    ]
    assert hf_chat.dump(as_hf) == {
        "messages": [
            {"role": "user", "content": "?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "f", "arguments": {"a": 1}}}],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "ok"},
        ]
    }
    as_sharegpt = convert(as_hf, "sharegpt")
    assert [str(note) for note in as_sharegpt.notes if note.code != "DROPPED_META"] == [
        "DROPPED_CALL_ID: Tool call ID 'call_1' is not written: sharegpt has none (results pair by order)"
        " - at `$[1].content[0].id`"
    ]
    written = sharegpt.dumps(as_sharegpt)
    assert sharegpt.check(written) == ()
    back = convert(sharegpt.load(written), "openai_chat")
    assert [str(note) for note in back.notes if note.code != "DROPPED_META"] == [
        "RETYPED_ARGUMENTS: Arguments of 'f' are written as JSON text (sharegpt holds the other form)"
        " - at `$[1].content[0].arguments`",
        "WROTE_MADE_UP_CALL_ID: Tool call ID 'sharegpt_call_1_0' was made up by sharegpt's load; openai_chat"
        " writes it as the call's - at `$[1].content[0].id`",
    ]
    assert openai_chat.check(openai_chat.dump(back)) == ()
