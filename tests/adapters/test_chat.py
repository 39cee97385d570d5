"""`adapters._chat`'s writer: a record whose `meta` kept nothing but key orders (and a renamed
call ID or the arguments' text as sent) is written by a shorter way than the careful one; it
writes what the careful way writes, record for record and key for key, in every chat dialect,
for conversations as loaded and as edited after loading."""

from __future__ import annotations

import json
from collections.abc import Collection

import msgspec
import pytest
from hypothesis import given, reject
from hypothesis import strategies as st

import message_ir as ir
from message_ir.adapters import FORMATS, FormatError, _chat, _records
from message_ir.adapters._conversation import Conversation

_DIALECTS = ("hf_chat", "mistral", "openai_chat")


def _careful(
    meta_json: msgspec.Raw, format: str, nested: Collection[str] = (), plain: Collection[str] = ()
) -> tuple[_records.Orders | None, _records.Info]:
    """`kept_orders` that never offers the shorter way."""
    return None, _records.format_info(meta_json, format)


def _both_ways(name: str, conversation: Conversation) -> tuple[bytes, bytes]:
    short = msgspec.json.encode(FORMATS[name].dump(conversation))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_records, "kept_orders", _careful)
        careful = msgspec.json.encode(FORMATS[name].dump(conversation))
    return short, careful


def _ordered(draw: st.DrawFn, record: dict[str, object]) -> dict[str, object]:
    """`record` with its keys in an order drawn, and now and then a key no format knows."""
    keys = draw(st.permutations(list(record)))
    ordered = {key: record[key] for key in keys}
    if draw(st.integers(0, 9)) == 0:
        ordered["x_unknown"] = 1
    return ordered


@st.composite
def _chat_records(draw: st.DrawFn, text_arguments: bool) -> list[dict[str, object]]:
    """A conversation's records of the chat shape, keys in any order, call IDs used again in
    later turns now and then (so `load` renames them), arguments as compact text, spaced text
    or the object."""
    records: list[dict[str, object]] = [_ordered(draw, {"role": "user", "content": "hi"})]
    for turn in range(draw(st.integers(1, 3))):
        calls: list[object] = []
        for number in range(draw(st.integers(0, 2))):
            arguments: object = {"city": f"c{turn}", "n": number}
            if text_arguments:
                arguments = (
                    json.dumps(arguments) if draw(st.booleans()) else json.dumps(arguments, separators=(",", ":"))
                )
            function = _ordered(draw, {"name": "get", "arguments": arguments})
            call_id = draw(st.sampled_from(["call_a", "call_b", f"call_{turn}_{number}"]))
            calls.append(_ordered(draw, {"id": call_id, "type": "function", "function": function}))
        assistant: dict[str, object] = {"role": "assistant"}
        content = draw(st.sampled_from(["absent", "null", "text"]))
        if content != "absent":
            assistant["content"] = None if content == "null" else f"turn {turn}"
        if calls:
            assistant["tool_calls"] = calls
        records.append(_ordered(draw, assistant))
        for call in calls:
            assert type(call) is dict
            result: dict[str, object] = {"role": "tool", "tool_call_id": call["id"], "content": "ok"}
            if draw(st.booleans()):
                result["name"] = "get"
            records.append(_ordered(draw, result))
    return records


@st.composite
def _edited(draw: st.DrawFn, conversation: Conversation) -> Conversation:
    """The conversation with one message changed as a user of the IR might: an assistant
    message's last block dropped or a text added, a call's arguments replaced, a result's tool
    renamed."""
    messages = list(conversation.messages)
    index = draw(st.integers(0, len(messages) - 1))
    message = messages[index]
    if type(message) is ir.AssistantMessage:
        blocks = list(message.content)
        operation = draw(st.sampled_from(["drop", "text", "arguments"]))
        if operation == "drop" and blocks:
            blocks.pop()
        elif operation == "text":
            blocks.insert(0, ir.TextBlock(text="added"))
        else:
            blocks = [
                msgspec.structs.replace(block, arguments_json=msgspec.Raw(b'{"other":1}'))
                if type(block) is ir.ToolCall
                else block
                for block in blocks
            ]
        messages[index] = msgspec.structs.replace(message, content=tuple(blocks))
    elif type(message) is ir.ToolResultMessage:
        messages[index] = msgspec.structs.replace(message, tool_name="renamed")
    return msgspec.structs.replace(conversation, messages=tuple(messages))


@pytest.mark.skipif(
    (_chat.__file__ or "").endswith(".so"),
    reason="the compiled build calls `_records.kept_orders` directly: patching it changes nothing",
)
@pytest.mark.parametrize("name", _DIALECTS)
@given(data=st.data())
def test_a_record_that_kept_key_orders_alone_is_written_as_the_careful_way_writes_it(
    name: str, data: st.DataObject
) -> None:
    records = data.draw(_chat_records(text_arguments=name != "hf_chat"))
    try:
        conversation = FORMATS[name].load(records)
    except FormatError:
        reject()
    short, careful = _both_ways(name, conversation)
    assert short == careful == msgspec.json.encode(records)  # as it was read, key for key
    short, careful = _both_ways(name, data.draw(_edited(conversation)))
    assert short == careful


def test_key_orders_are_read_once_per_text_and_shared() -> None:
    meta = msgspec.Raw(b'{"openai_chat":{"keys":["function","id","type"],"function":{"keys":["arguments","name"]}}}')
    _records._orders.clear()
    first = _records.kept_orders(meta, "openai_chat", ("function",))
    assert first == ({"": ("function", "id", "type"), "function": ("arguments", "name")}, {})
    assert _records.kept_orders(msgspec.Raw(bytes(meta)), "openai_chat", ("function",))[0] is first[0]
    assert _records.kept_orders(meta, "hf_chat", ("function",)) == ({}, {})  # another format's entry: nothing kept
