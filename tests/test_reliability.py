"""Regression tests for promises that hostile input used to break (one test per defect class)."""

from __future__ import annotations

import copy
import json
import pickle

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from message_ir import (
    AssistantMessage,
    ConstructionError,
    Diagnostic,
    FrozenJsonObject,
    JsonInput,
    Message,
    ToolCall,
    TranscriptError,
    assistant_message,
    decode_jsonl,
    decode_transcript,
    encode_transcript,
    is_json_value,
    is_message_json,
    repair_transcript,
    text_block,
    tool_call,
    tool_result_message,
    user_message,
    validate_jsonl,
    validate_transcript,
)
from tests.support import Hostile, TrapDict, json_objects, loose


def hostile_positions() -> list[object]:
    value = Hostile()
    return [
        value,
        [value],
        [{"role": value, "id": "u", "content": "x"}],
        [{"role": "user", "id": value, "content": "x"}],
        [{"role": "user", "id": "u", "content": value}],
        [{"role": "user", "id": "u", "content": "x", "meta": value}],
        [{"role": "assistant", "id": "a", "content": [value]}],
        [
            {
                "role": "assistant",
                "id": "a",
                "content": [{"type": "toolCall", "id": "c", "name": "n", "arguments": value}],
            }
        ],
        [
            {
                "role": "assistant",
                "id": "a",
                "content": [{"type": "toolCall", "id": "c", "name": "n", "arguments": {"k": value}}],
            }
        ],
        [{"role": "user", "id": "u", "content": "x", value: 1}],
    ]


@pytest.mark.parametrize("value", hostile_positions())
def test_the_validator_names_no_caller_type(value: object) -> None:
    found = validate_transcript(value)
    assert found
    assert all(
        "object" in diagnostic.message or "Unknown" in diagnostic.message or diagnostic.code for diagnostic in found
    )
    assert is_message_json(value) is False
    assert is_json_value(value) is False


def test_the_validator_says_object_for_a_type_it_does_not_know() -> None:
    assert validate_transcript([{"role": "user", "id": Hostile(), "content": "x"}]) == (
        Diagnostic("BAD_MESSAGE_ID", 0, "$[0].id", "Expected `str`, got `object`"),
    )


def test_the_constructors_refuse_a_hostile_value_with_their_own_error() -> None:
    with pytest.raises(ConstructionError) as refused:
        loose(user_message)(id=Hostile(), content="x")
    assert str(refused.value) == "user_message(): Expected `str`, got `object` - at `$.id`"
    with pytest.raises(ConstructionError) as refused:
        loose(tool_call)(id="c", name="n", arguments={"k": Hostile()})
    assert str(refused.value) == "tool_call(): Expected a JSON value, got `object` - at `$.arguments.k`"


def test_the_boundary_refuses_a_hostile_value_with_its_own_errors() -> None:
    with pytest.raises(TypeError) as refused:
        loose(decode_transcript)(Hostile())
    assert str(refused.value) == "decode_transcript(): Expected `bytes` or `str`, got `object`"
    with pytest.raises(TranscriptError):
        loose(encode_transcript)([Hostile()])
    with pytest.raises(TranscriptError):
        loose(repair_transcript)([Hostile()])


# --- one rule for huge integers ---------------------------------------------------------------

HUGE = 10**5000


def test_an_integer_beyond_the_digit_limit_is_refused_alike_everywhere() -> None:
    expected = "Expected an integer of at most 4300 digits"
    with pytest.raises(ConstructionError) as refused:
        tool_call(id="c", name="n", arguments={"x": HUGE})
    assert str(refused.value) == f"tool_call(): {expected} - at `$.arguments.x`"
    call = {"type": "toolCall", "id": "c", "name": "n", "arguments": {"x": HUGE}}
    assert validate_transcript([{"role": "assistant", "id": "a", "content": [call]}]) == (
        Diagnostic("BAD_TOOL_ARGUMENTS", 0, "$[0].content[0].arguments.x", expected),
    )
    direct = ToolCall(id="c", name="n", arguments_json=msgspec.Raw(b'{"x":' + b"1" * 5000 + b"}"))
    assert validate_transcript([AssistantMessage(id="a", content=(direct,))]) == (
        Diagnostic("BAD_TOOL_ARGUMENTS", 0, "$[0].content[0].arguments", "Invalid JSON: Integer value out of range"),
    )


@given(st.integers(min_value=4290, max_value=4310))
def test_constructors_and_validator_agree_on_long_integers(digits: int) -> None:
    value = 10 ** (digits - 1)
    try:
        tool_call(id="c", name="n", arguments={"x": value})
        built = True
    except ConstructionError:
        built = False
    call = {"type": "toolCall", "id": "c", "name": "n", "arguments": {"x": value}}
    shape = [
        d
        for d in validate_transcript([{"role": "assistant", "id": "a", "content": [call]}])
        if d.code != "MISSING_TOOL_RESULT"
    ]
    assert built is (shape == [])
    assert built is (digits <= 4300)


# --- FrozenJsonObject -------------------------------------------------------------------------


def frozen(items: dict[str, object]) -> FrozenJsonObject:
    return loose(tool_call)(id="c", name="n", arguments=items).arguments


@given(st.dictionaries(st.text(max_size=3), st.integers() | st.text(max_size=3), max_size=5))
def test_equal_frozen_objects_hash_alike_whatever_their_order(items: dict[str, object]) -> None:
    forward, backward = frozen(items), frozen(dict(reversed(list(items.items()))))
    assert forward == backward
    assert hash(forward) == hash(backward)
    assert len({forward, backward}) == 1


def test_frozen_objects_copy_deepcopy_and_pickle() -> None:
    value = frozen({"a": [1, {"b": None}], "c": "d"})
    for clone in (copy.copy(value), copy.deepcopy(value), pickle.loads(pickle.dumps(value))):
        assert type(clone) is FrozenJsonObject
        assert clone == value
        assert hash(clone) == hash(value)


def test_arguments_follow_their_field_when_it_is_replaced() -> None:
    call = tool_call(id="c", name="n", arguments={"a": 1})
    assert call.arguments == {"a": 1}
    msgspec.structs.force_setattr(call, "arguments_json", msgspec.Raw(b'{"a":2}'))
    assert call.arguments == {"a": 2}


def _shape_module_file() -> str:
    from message_ir import _shape

    return _shape.__file__ or ""


# --- arguments of other types -----------------------------------------------------------------


@pytest.mark.parametrize("data", [bytearray(b"[]"), None, 5])
def test_decode_jsonl_refuses_other_types_like_decode_transcript(data: object) -> None:
    with pytest.raises(TypeError) as refused:
        loose(decode_jsonl)(data)
    kind = {bytearray: "bytearray", type(None): "NoneType", int: "int"}[type(data)]
    assert str(refused.value) == f"decode_jsonl(): Expected `bytes` or `str`, got `{kind}`"


def test_validate_jsonl_refuses_a_line_of_another_type() -> None:
    with pytest.raises(TypeError) as refused:
        loose(validate_jsonl)([bytearray(b"{}")])
    assert str(refused.value) == "Expected each line as `bytes` or `str`, got `bytearray`"


@pytest.mark.parametrize(
    ("inside", "problem"),
    [
        ({1: 2}, "Expected object keys of type `str`, got `int`"),
        (TrapDict(a=1), "Expected a JSON array or object, got `FrozenJsonObject`"),
        (None, "Expected a JSON array or object, got `FrozenJsonObject`"),
    ],
)
def test_a_tampered_frozen_object_is_refused_by_every_path(inside: object, problem: str) -> None:
    arguments = frozen({"a": 1})
    object.__setattr__(arguments, "_items", inside)  # what no caller should do, and one might
    call = {"type": "toolCall", "id": "c", "name": "n", "arguments": arguments}
    transcript = [
        {"role": "assistant", "id": "a", "content": [call]},
        {"role": "toolResult", "id": "r", "toolCallId": "c", "toolName": "n", "content": "", "isError": False},
    ]
    assert validate_transcript(transcript) == (
        Diagnostic("BAD_TOOL_ARGUMENTS", 0, "$[0].content[0].arguments", problem),
    )
    with pytest.raises(ConstructionError):
        loose(tool_call)(id="c", name="n", arguments=arguments)


# --- duplicate keys at every level: the decoder agrees with the validator on json.loads -------


def _transcript_json() -> list[dict[str, object]]:
    messages: list[Message] = [
        user_message(id="u", content="hi", meta={"source": {"line": 1}}),
        assistant_message(
            id="a",
            content=[
                text_block(text="reading"),
                {
                    "type": "toolCall",
                    "id": "c",
                    "name": "read",
                    "arguments": {"path": "x", "opts": {"deep": [1, {"k": 2}]}},
                },
                {"type": "opaque", "format": "f", "kind": "k", "data": {"sig": "s"}},
            ],
        ),
    ]
    messages.append(tool_result_message(id="r", tool_call_id="c", tool_name="read", content="ok"))
    parsed = json.loads(encode_transcript(messages))
    assert type(parsed) is list
    return parsed


def _dumps(value: object, target: int, key: str, junk: object) -> str:
    """JSON text of `value`, with `key: junk` written first inside the object whose id is `target`."""
    if type(value) is dict:
        pairs = [f"{json.dumps(k)}:{_dumps(v, target, key, junk)}" for k, v in value.items()]
        if id(value) == target:
            pairs.insert(0, f"{json.dumps(key)}:{json.dumps(junk)}")
        return "{" + ",".join(pairs) + "}"
    if type(value) is list:
        return "[" + ",".join(_dumps(item, target, key, junk) for item in value) + "]"
    return json.dumps(value)


_JUNK = st.none() | st.integers() | st.text(max_size=3) | st.lists(st.integers(), max_size=2) | st.just({"x": 1})


@given(st.data(), _JUNK)
def test_a_repeated_key_anywhere_is_read_as_json_loads_reads_it(data: st.DataObject, junk: object) -> None:
    value = _transcript_json()
    objects = json_objects(value)
    target = data.draw(st.sampled_from(objects))
    key = data.draw(st.sampled_from(sorted(target)))
    text = _dumps(value, id(target), key, junk)
    parsed = json.loads(text)
    expected = validate_transcript(parsed)
    records = [*value, *(block for message in value for block in _blocks(message))]
    is_tag_here = key in ("role", "type") and junk != target[key] and any(target is record for record in records)
    if expected or is_tag_here:
        with pytest.raises(TranscriptError) as refused:
            decode_transcript(text)
        found = refused.value.diagnostics
        assert found == expected if expected else [d.code for d in found] == ["DUPLICATE_KEY"]
    else:
        assert decode_transcript(text) == decode_transcript(json.dumps(parsed))


def _blocks(message: dict[str, object]) -> list[object]:
    content = message.get("content")
    return content if type(content) is list else []


# --- linkage followed line by line gives what the whole transcript gives ----------------------

from message_ir._linkage import LinkEvent, check_linkage  # noqa: E402
from message_ir._stream_linkage import StreamingLinkage  # noqa: E402


@st.composite
def link_events(draw: st.DrawFn) -> list[LinkEvent]:
    events: list[LinkEvent] = []
    for index in range(draw(st.integers(0, 12))):
        for block in range(draw(st.integers(1, 2))):
            is_call = draw(st.booleans())
            events.append(
                LinkEvent(
                    is_call,
                    index,
                    block if is_call else -1,
                    draw(st.sampled_from(["a", "b", "c"])),
                    draw(st.sampled_from(["read", "write"])),
                    draw(st.booleans()),
                )
            )
            if not is_call:
                break  # a result message holds one result
    return events


@given(link_events())
def test_streaming_linkage_gives_the_whole_transcripts_diagnostics(events: list[LinkEvent]) -> None:
    linkage = StreamingLinkage()
    streamed = [diagnostic for event in events for diagnostic in linkage.add(event)]
    streamed.extend(linkage.finish())
    streamed.sort(key=lambda diagnostic: diagnostic.message_index or 0)
    assert streamed == check_linkage(events)


@given(link_events())
def test_the_fast_entry_points_of_streaming_linkage_agree(events: list[LinkEvent]) -> None:
    linkage = StreamingLinkage()
    streamed: list[Diagnostic] = []
    for event in events:
        if not event.well_formed:
            streamed.extend(linkage.add(event))
        elif event.is_call:
            streamed.extend(linkage.well_formed_call(event.message_index, event.block_index, event.call_id, event.name))
        else:
            streamed.extend(linkage.well_formed_result(event.message_index, event.call_id, event.name))
    streamed.extend(linkage.finish())
    streamed.sort(key=lambda diagnostic: diagnostic.message_index or 0)
    assert streamed == check_linkage(events)


_small = st.sampled_from(["a", "b"])
_small_json: st.SearchStrategy[dict[str, JsonInput]] = st.dictionaries(
    _small, st.sampled_from([0, 1, 1.0, True, "x"]), max_size=2
)


@st.composite
def small_messages(draw: st.DrawFn) -> Message:
    meta = draw(st.none() | _small_json)
    kind = draw(st.sampled_from(["user", "assistant", "result"]))
    if kind == "user":
        return user_message(id=draw(_small), content=draw(_small), meta=meta)
    if kind == "result":
        return tool_result_message(id=draw(_small), tool_call_id=draw(_small), tool_name="n", content="", meta=meta)
    call = {"type": "toolCall", "id": draw(_small), "name": "n", "arguments": draw(_small_json)}
    opaque = {"type": "opaque", "format": "f", "kind": "k", "data": draw(_small_json)}
    return assistant_message(
        id=draw(_small), content=draw(st.sampled_from([[call], [opaque], [call, opaque]])), meta=meta
    )


@given(small_messages(), small_messages())
def test_equal_messages_hash_alike(first: Message, second: Message) -> None:
    if first == second:
        assert hash(first) == hash(second)
    decoded = decode_transcript(encode_transcript([first]), check_linkage=False)[0]
    assert decoded == first
    assert hash(decoded) == hash(first)


# --- the guards' last line of defence, and the frozen object's own refusals -------------------


@pytest.mark.skipif(
    _shape_module_file().endswith(".so"), reason="the compiled build's classes cannot be patched to inject the fault"
)
def test_a_surprise_inside_the_validator_ends_in_a_diagnostic(monkeypatch: pytest.MonkeyPatch) -> None:
    from message_ir import _shape, _validate

    def surprise(*arguments: object) -> None:
        raise LookupError("a future msgspec or Python did something new")

    monkeypatch.setattr(_shape.ShapeCheck, "message", surprise)
    assert validate_transcript([{"role": "user"}]) == (
        Diagnostic("UNREADABLE_VALUE", 0, "$[0]", "Message could not be read: `object`"),
    )
    monkeypatch.setattr(_validate, "transcript_is_valid", surprise)
    assert validate_transcript([]) == (
        Diagnostic("UNREADABLE_VALUE", None, "$", "Transcript could not be read: `object`"),
    )


def test_frozen_objects_refuse_change_and_bad_rebuilds() -> None:
    value = frozen({"a": 1})
    assert "a" in value
    assert "b" not in value
    assert repr(value) == "FrozenJsonObject({'a': 1})"
    with pytest.raises(AttributeError):
        value._items = {}
    with pytest.raises(TypeError):
        FrozenJsonObject()
    from message_ir._frozen_values import _unpickle

    assert value.__reduce__() == (_unpickle, ({"a": 1},))
    with pytest.raises(TypeError):
        loose(_unpickle)({1: 2})
    with pytest.raises(TypeError):
        loose(_unpickle)({"a": [1]})
    assert _unpickle({"a": (1, None, value)}) == {"a": (1, None, value)}
