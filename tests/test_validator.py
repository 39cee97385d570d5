"""validate_transcript (spec §5): linkage rules, no cascades, shape codes and hostile input."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import cast

import msgspec
import pytest

from message_ir import (
    AssistantMessage,
    ConstructionError,
    Diagnostic,
    Message,
    TextBlock,
    ToolCall,
    ToolResultMessage,
    TranscriptError,
    UserMessage,
    assistant_message,
    encode_transcript,
    tool_result_message,
    user_message,
    validate_transcript,
)
from tests.support import Explosive, Liar, TrapDict, TrapList, TrapStr, loose

JsonRecord = dict[str, object]


def user(id: str = "u") -> JsonRecord:
    return {"role": "user", "id": id, "content": "hi"}


def call(call_id: str, name: str = "read", arguments: object = None) -> JsonRecord:
    return {"type": "toolCall", "id": call_id, "name": name, "arguments": {} if arguments is None else arguments}


def assistant(*blocks: JsonRecord, id: str = "a") -> JsonRecord:
    return {"role": "assistant", "id": id, "content": list(blocks)}


def result(call_id: str, name: str = "read", id: str = "r", **overrides: object) -> JsonRecord:
    record: JsonRecord = {
        "role": "toolResult",
        "id": id,
        "toolCallId": call_id,
        "toolName": name,
        "content": "ok",
        "isError": False,
    }
    record.update(overrides)
    return record


def codes(value: object) -> list[tuple[str, int | None]]:
    return [(d.code, d.message_index) for d in validate_transcript(value)]


# --- linkage rules -------------------------------------------------------------------------


def test_valid_transcripts_give_nothing() -> None:
    assert codes([]) == []
    assert codes(()) == []
    assert codes([user(), assistant(call("c1"), call("c2", "write")), result("c1"), result("c2", "write")]) == []


@pytest.mark.parametrize(
    ("transcript", "expected"),
    [
        ([assistant(call("c1")), result("c1"), assistant(call("c1")), result("c1")], [("DUPLICATE_TOOL_CALL_ID", 2)]),
        ([assistant(call("c1"), call("c1")), result("c1")], [("DUPLICATE_TOOL_CALL_ID", 0)]),
        ([assistant(call("c1")), result("c1"), result("c1")], [("DUPLICATE_TOOL_RESULT", 2)]),
        ([user(), result("nope")], [("ORPHAN_TOOL_RESULT", 1)]),
        ([result("c1"), assistant(call("c1"))], [("TOOL_RESULT_BEFORE_CALL", 0)]),
        ([assistant(call("c1")), result("c1", "cat")], [("TOOL_NAME_MISMATCH", 1)]),
        ([assistant(call("c1")), user()], [("MISSING_TOOL_RESULT", 0)]),
    ],
    ids=[
        "duplicate-call",
        "duplicate-call-same-message",
        "duplicate-result",
        "orphan",
        "before-call",
        "name",
        "missing",
    ],
)
def test_each_linkage_rule(transcript: list[JsonRecord], expected: list[tuple[str, int]]) -> None:
    assert codes(transcript) == expected


def test_linkage_diagnostics_point_at_the_right_place() -> None:
    found = validate_transcript([user(), assistant({"type": "text", "text": "x"}, call("c1")), user()])
    assert found == (Diagnostic("MISSING_TOOL_RESULT", 1, "$[1].content[1]", "Tool call 'c1' has no result after it"),)
    found = validate_transcript([assistant(call("c1")), result("c1", "cat")])
    assert found == (
        Diagnostic("TOOL_NAME_MISMATCH", 1, "$[1]", "Tool result names tool 'cat', but call 'c1' is to 'read'"),
    )


# --- no cascades ---------------------------------------------------------------------------


def test_duplicate_call_id_gives_nothing_else_for_that_id() -> None:
    transcript = [assistant(call("c1")), assistant(call("c1", "write")), result("c1", "cat"), result("c1")]
    assert codes(transcript) == [("DUPLICATE_TOOL_CALL_ID", 1)]
    assert codes([assistant(call("c1")), assistant(call("c1"))]) == [("DUPLICATE_TOOL_CALL_ID", 1)]


def test_malformed_call_with_readable_id_gives_its_shape_diagnostic_only() -> None:
    bad = call("c1", arguments={"limit": float("nan")})
    assert codes([assistant(bad), result("c1")]) == [("BAD_TOOL_ARGUMENTS", 0)]
    assert codes([assistant(bad)]) == [("BAD_TOOL_ARGUMENTS", 0)]
    assert codes([assistant(call("c1", name="")), result("c1", "other")]) == [("BAD_TOOL_CALL", 0)]


def test_malformed_result_with_readable_call_id_gives_its_shape_diagnostic_only() -> None:
    assert codes([assistant(call("c1")), result("c1", isError="no")]) == [("BAD_TOOL_RESULT_FIELD", 1)]
    assert codes([assistant(call("c1")), result("c1", content=None)]) == [("BAD_CONTENT", 1)]
    assert codes([assistant(call("c1")), result("c1", extra=1)]) == [("UNKNOWN_FIELD", 1)]
    assert codes([result("c9", id="")]) == [("BAD_MESSAGE_ID", 0)]


def test_result_before_call_gives_that_only() -> None:
    assert codes([result("c1", "cat"), assistant(call("c1"))]) == [("TOOL_RESULT_BEFORE_CALL", 0)]


def test_independent_problems_each_once_in_transcript_order() -> None:
    transcript = [
        result("ghost"),
        assistant(call("c1"), call("c2")),
        result("c1", "cat"),
        user(),
        result("c1"),
        7,
    ]
    assert codes(transcript) == [
        ("ORPHAN_TOOL_RESULT", 0),
        ("MISSING_TOOL_RESULT", 1),
        ("TOOL_NAME_MISMATCH", 2),
        ("DUPLICATE_TOOL_RESULT", 4),
        ("MESSAGE_NOT_A_RECORD", 5),
    ]


# --- shape codes ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (
            None,
            Diagnostic(
                "TRANSCRIPT_NOT_A_LIST",
                None,
                "$",
                "Expected a transcript (`list` or `tuple` of messages), got `NoneType`",
            ),
        ),
        (
            {"role": "user"},
            Diagnostic(
                "TRANSCRIPT_NOT_A_LIST", None, "$", "Expected a transcript (`list` or `tuple` of messages), got `dict`"
            ),
        ),
        (
            [[]],
            Diagnostic(
                "MESSAGE_NOT_A_RECORD", 0, "$[0]", "Expected a message (`dict` or a message struct), got `list`"
            ),
        ),
        ([{"id": "x"}], Diagnostic("UNKNOWN_ROLE", 0, "$[0]", "Object missing required field `role`")),
        (
            [{"role": "system", "id": "x"}],
            Diagnostic(
                "UNKNOWN_ROLE",
                0,
                "$[0].role",
                "Invalid role 'system'; expected one of `user`, `assistant`, `toolResult`",
            ),
        ),
        (
            [{"role": 1}],
            Diagnostic(
                "UNKNOWN_ROLE",
                0,
                "$[0].role",
                "Expected `str`, got `int`",
            ),
        ),
        (
            [{"role": "user", "content": "x"}],
            Diagnostic("BAD_MESSAGE_ID", 0, "$[0]", "Object missing required field `id`"),
        ),
        (
            [{"role": "user", "id": 3, "content": "x"}],
            Diagnostic("BAD_MESSAGE_ID", 0, "$[0].id", "Expected `str`, got `int`"),
        ),
        (
            [{"role": "user", "id": "u", "content": ["x"]}],
            Diagnostic("BAD_CONTENT", 0, "$[0].content", "Expected `str`, got `list`"),
        ),
        (
            [{"role": "assistant", "id": "a", "content": "x"}],
            Diagnostic("BAD_CONTENT", 0, "$[0].content", "Expected `list` of blocks, got `str`"),
        ),
        (
            [assistant({"type": "image"})],
            Diagnostic(
                "BAD_BLOCK",
                0,
                "$[0].content[0].type",
                "Invalid type 'image'; expected one of `text`, `toolCall`, `opaque`",
            ),
        ),
        (
            [assistant({"type": "text", "text": 1})],
            Diagnostic("BAD_BLOCK", 0, "$[0].content[0].text", "Expected `str`, got `int`"),
        ),
        (
            [assistant(cast("JsonRecord", "text"))],
            Diagnostic("BAD_BLOCK", 0, "$[0].content[0]", "Expected a block (`dict`), got `str`"),
        ),
        (
            [assistant(call("", "n"))],
            Diagnostic("BAD_TOOL_CALL", 0, "$[0].content[0].id", "Expected a non-empty `str`, got `''`"),
        ),
        (
            [assistant({"type": "toolCall", "id": "c", "name": "n"})],
            Diagnostic("BAD_TOOL_CALL", 0, "$[0].content[0]", "Object missing required field `arguments`"),
        ),
        (
            [assistant(call("c", arguments=[1]))],
            Diagnostic("BAD_TOOL_ARGUMENTS", 0, "$[0].content[0].arguments", "Expected `dict`, got `list`"),
        ),
        (
            [assistant(call("c", arguments={"a": {"b": float("-inf")}}))],
            Diagnostic(
                "BAD_TOOL_ARGUMENTS", 0, "$[0].content[0].arguments.a.b", "Expected a finite number, got `-inf`"
            ),
        ),
        (
            [result("c", toolName=None)],
            Diagnostic("BAD_TOOL_RESULT_FIELD", 0, "$[0].toolName", "Expected `str`, got `NoneType`"),
        ),
        (
            [{"role": "user", "id": "u", "content": "x", "name": "bob"}],
            Diagnostic("UNKNOWN_FIELD", 0, "$[0].name", "Object contains unknown field `name`"),
        ),
        (
            [{"role": "user", "id": "u", "content": "x", 5: 1}],
            Diagnostic("UNKNOWN_FIELD", 0, "$[0]", "Expected object keys of type `str`, got `int`"),
        ),
    ],
)
def test_shape_diagnostics(value: object, expected: Diagnostic) -> None:
    assert validate_transcript(value) == (expected,)


def test_several_problems_in_one_message_are_each_reported() -> None:
    found = validate_transcript([{"role": "toolResult", "id": "", "toolCallId": 1, "toolName": "n", "content": 2}])
    assert [(d.code, d.path) for d in found] == [
        ("BAD_MESSAGE_ID", "$[0].id"),
        ("BAD_CONTENT", "$[0].content"),
        ("BAD_TOOL_RESULT_FIELD", "$[0].toolCallId"),
        ("BAD_TOOL_RESULT_FIELD", "$[0]"),
    ]


def test_result_and_entries_are_immutable() -> None:
    found = validate_transcript([7])
    assert type(found) is tuple
    with pytest.raises(AttributeError):
        found[0].code = "BAD_BLOCK"  # type: ignore[misc]  # frozen: the assignment is the test
    assert msgspec.json.encode(found[0]) == (
        b'{"code":"MESSAGE_NOT_A_RECORD","messageIndex":0,"path":"$[0]",'
        b'"message":"Expected a message (`dict` or a message struct), got `int`"}'
    )


# --- struct form -----------------------------------------------------------------------------


def test_structs_built_directly_are_checked_field_by_field() -> None:
    transcript = [
        UserMessage(id=cast("str", 1), content="x"),
        AssistantMessage(id="a", content=cast("tuple[TextBlock, ...]", [TextBlock(text="x")])),
        AssistantMessage(id="a2", content=(cast("TextBlock", {"type": "text", "text": "x"}),)),
        AssistantMessage(id="a3", content=(ToolCall(id="c", name="n", arguments_json=cast("msgspec.Raw", {})),)),
        AssistantMessage(id="a4", content=(ToolCall(id="d", name="n", arguments_json=msgspec.Raw(b'{"x":1e999}')),)),
        ToolResultMessage(id="r", tool_call_id="c", tool_name="n", content="x", is_error=cast("bool", 0)),
    ]
    assert [(d.code, d.path, d.message) for d in validate_transcript(transcript)] == [
        ("BAD_MESSAGE_ID", "$[0].id", "Expected `str`, got `int`"),
        ("BAD_CONTENT", "$[1].content", "Expected `tuple` of blocks, got `list`"),
        ("BAD_BLOCK", "$[2].content[0]", "Expected a block (`TextBlock`, `ToolCall` or `OpaqueBlock`), got `dict`"),
        ("BAD_TOOL_ARGUMENTS", "$[3].content[0].arguments", "Expected `msgspec.Raw`, got `dict`"),
        (
            "BAD_TOOL_ARGUMENTS",
            "$[4].content[0].arguments",
            "Invalid JSON: Number out of range",
        ),
        ("BAD_TOOL_RESULT_FIELD", "$[5].isError", "Expected `bool`, got `int`"),
    ]


def test_a_call_made_directly_with_arguments_of_none_is_refused_everywhere() -> None:
    """An unmarked call's mark reads as `None`: arguments of `None` are no match for it."""
    made = ToolCall(id="c", name="read", arguments_json=cast(msgspec.Raw, None))
    transcript: list[Message] = [
        AssistantMessage(id="a", content=(made,)),
        ToolResultMessage(id="r", tool_call_id="c", tool_name="read", content="ok", is_error=False),
    ]
    expected = Diagnostic(
        "BAD_TOOL_ARGUMENTS", 0, "$[0].content[0].arguments", "Expected `msgspec.Raw`, got `NoneType`"
    )
    assert validate_transcript(transcript) == (expected,)
    with pytest.raises(TranscriptError) as refused:
        encode_transcript(transcript)
    assert refused.value.diagnostics == (expected,)
    with pytest.raises(ConstructionError) as not_built:
        assistant_message(id="a", content=[made])
    assert str(not_built.value) == (
        "assistant_message(): Expected `msgspec.Raw`, got `NoneType` - at `$.content[0].arguments`"
    )


def test_replacing_checked_arguments_is_noticed() -> None:
    message = loose(assistant_message)(id="a", content=[call("c")])
    block = message.content[0]
    msgspec.structs.force_setattr(block, "arguments_json", msgspec.Raw(b"[]"))
    assert codes([message]) == [("BAD_TOOL_ARGUMENTS", 0)]


def test_constructed_transcripts_validate_and_agree_with_their_json() -> None:
    transcript = (
        user_message(id="u", content="x"),
        loose(assistant_message)(id="a", content=[call("c1", arguments={"deep": [[{"x": 1.5}]]})]),
        tool_result_message(id="r", tool_call_id="c1", tool_name="read", content="y", is_error=True),
    )
    assert validate_transcript(transcript) == ()
    assert validate_transcript(list(transcript)) == ()
    assert validate_transcript(json.loads(msgspec.json.encode(transcript))) == ()


# --- hostile input -------------------------------------------------------------------------


def gen() -> Iterator[object]:
    yield user()


def deep_list(levels: int) -> list[object]:
    value: list[object] = []
    for _ in range(levels):
        value = [value]
    return value


def deep_dict(levels: int) -> dict[str, object]:
    value: dict[str, object] = {}
    for _ in range(levels):
        value = {"a": value}
    return value


HOSTILE_TOPS: dict[str, Callable[[], object]] = {
    "none": lambda: None,
    "int": lambda: 5,
    "bytes": lambda: b"[]",
    "str": lambda: "[]",
    "generator": gen,
    "explosive": Explosive,
    "liar": Liar,
    "list subclass": lambda: TrapList([user()]),
    "deep list": lambda: deep_list(100_000),
}


@pytest.mark.parametrize("kind", sorted(HOSTILE_TOPS))
def test_hostile_transcripts_give_diagnostics(kind: str) -> None:
    found = validate_transcript(HOSTILE_TOPS[kind]())
    assert found
    assert all(type(d) is Diagnostic for d in found)


HOSTILE_MESSAGES: dict[str, Callable[[], object]] = {
    "explosive message": lambda: [Explosive()],
    "liar message": lambda: [Liar()],
    "dict subclass message": lambda: [TrapDict(user())],
    "hostile id": lambda: [{"role": "user", "id": TrapStr("u"), "content": "x"}],
    "hostile role": lambda: [{"role": TrapStr("user"), "id": "u", "content": "x"}],
    "hostile call id": lambda: [assistant(call(cast("str", TrapStr("c"))))],
    "hostile result id": lambda: [result(cast("str", TrapStr("c")))],
    "explosive block": lambda: [assistant(cast("JsonRecord", Explosive()))],
    "explosive argument": lambda: [assistant(call("c", arguments={"a": Explosive()}))],
    "explosive content": lambda: [{"role": "assistant", "id": "a", "content": Explosive()}],
    "list subclass content": lambda: [{"role": "assistant", "id": "a", "content": TrapList()}],
    "deep arguments": lambda: [assistant(call("c", arguments=deep_dict(100_000)))],
    "deep content": lambda: [{"role": "user", "id": "u", "content": deep_list(100_000)}],
}


@pytest.mark.parametrize("kind", sorted(HOSTILE_MESSAGES))
def test_hostile_messages_give_diagnostics(kind: str) -> None:
    found = validate_transcript(HOSTILE_MESSAGES[kind]())
    assert found
    assert all(type(d) is Diagnostic and d.message_index == 0 for d in found)


def test_circular_structures_give_diagnostics() -> None:
    transcript: list[object] = []
    transcript.append(transcript)
    assert codes(transcript) == [("MESSAGE_NOT_A_RECORD", 0)]
    arguments: dict[str, object] = {}
    arguments["loop"] = [arguments]
    found = validate_transcript([assistant(call("c", arguments=arguments))])
    assert [(d.code, d.path, d.message) for d in found] == [
        ("BAD_TOOL_ARGUMENTS", "$[0].content[0].arguments.loop[0]", "Circular reference: a container holds itself")
    ]


def test_a_hostile_id_never_reaches_a_dict_or_set() -> None:
    found = validate_transcript([assistant(call(cast("str", TrapStr("c")))), result(cast("str", TrapStr("c")))])
    assert [(d.code, d.path) for d in found] == [
        ("BAD_TOOL_CALL", "$[0].content[0].id"),
        ("BAD_TOOL_RESULT_FIELD", "$[1].toolCallId"),
    ]
