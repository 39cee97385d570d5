"""The constructors of spec §3: snapshots, deep freezing, and every rejection's whole message."""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import msgspec
import pytest

from message_ir import (
    MAX_DEPTH,
    AssistantMessage,
    ConstructionError,
    FrozenJsonObject,
    TextBlock,
    ToolCall,
    ToolCallInput,
    ToolResultMessage,
    UserMessage,
    assistant_message,
    frozen_json_object,
    text_block,
    text_from_assistant,
    tool_call,
    tool_result_message,
    user_message,
    validate_transcript,
)
from tests.support import Color, DictSub, Explosive, SneakyKey, StrSub, TrapDict, TrapStr, loose


def call_block(arguments: object, **overrides: object) -> ToolCallInput:
    """A tool-call block; deliberately loose, so tests can put anything in it."""
    block: dict[str, object] = {"type": "toolCall", "id": "call-1", "name": "read", "arguments": arguments}
    block.update(overrides)
    return cast("ToolCallInput", block)


def assistant_error(*content: object) -> str:
    """The whole message of the error `assistant_message` raises for `content`."""
    with pytest.raises(ConstructionError) as caught:
        loose(assistant_message)(id="m", content=list(content))
    assert isinstance(caught.value, TypeError)
    return str(caught.value)


# --- the IR values ---------------------------------------------------------------------


def test_messages_are_frozen_structs_with_literal_tags() -> None:
    user = user_message(id="u", content="hi")
    assistant = assistant_message(id="a", content=[{"type": "text", "text": "x"}, call_block({"k": 1})])
    result = tool_result_message(id="r", tool_call_id="call-1", tool_name="read", content="ok")
    assert (user.role, assistant.role, result.role) == ("user", "assistant", "toolResult")
    assert [block.type for block in assistant.content] == ["text", "toolCall"]
    assert result.is_error is False
    with pytest.raises(AttributeError):
        user.content = "changed"  # type: ignore[misc]  # frozen: the assignment is the test


def test_equality_and_hash_are_by_value() -> None:
    def build() -> AssistantMessage:
        return assistant_message(id="a", content=[call_block({"path": "p", "n": [1, {"x": None}]})])

    first, second = build(), build()
    assert first == second
    assert hash(first) == hash(second)
    assert len({first, second}) == 1
    assert build() != assistant_message(id="a", content=[call_block({"path": "p", "n": [1, {"x": 0}]})])


def test_arguments_are_read_only_all_the_way_down() -> None:
    message = assistant_message(id="a", content=[call_block({"outer": {"inner": [1, [2]]}})])
    call = message.content[0]
    assert type(call) is ToolCall
    arguments = call.arguments
    assert type(arguments) is FrozenJsonObject
    assert arguments == {"outer": {"inner": (1, (2,))}}
    outer = arguments["outer"]
    assert type(outer) is FrozenJsonObject
    assert outer["inner"] == (1, (2,))
    with pytest.raises(TypeError):
        arguments["new"] = 1  # type: ignore[index]  # read-only: the assignment is the test
    with pytest.raises(TypeError):
        del arguments["outer"]  # type: ignore[attr-defined]  # read-only: the deletion is the test
    with pytest.raises(TypeError, match="cannot be created directly"):
        FrozenJsonObject()
    assert call.arguments is arguments  # built once and kept


def test_frozen_mapping_thaws_to_a_fresh_mutable_copy() -> None:
    call = tool_call(id="c", name="n", arguments={"a": [1, {"b": 2}]})
    thawed = call.arguments.thaw()
    assert thawed == {"a": [1, {"b": 2}]}
    thawed["a"] = []
    assert call.arguments == {"a": (1, {"b": 2})}


class _Loud:
    def thaw(self) -> object:
        raise AssertionError("thaw ran a method of a value put in place")


@pytest.mark.parametrize("value", [[1], _Loud()], ids=["a list", "an object with a thaw method"])
def test_thawing_a_frozen_object_changed_in_place_raises_and_runs_none_of_its_values(value: object) -> None:
    call = tool_call(id="c", name="n", arguments={"a": [1, {"b": 2}]})
    nested = call.arguments["a"]
    assert type(nested) is tuple
    inner = nested[1]
    assert type(inner) is FrozenJsonObject
    inner._items["c"] = value  # type: ignore[assignment]  # a frozen object changed in place: the test
    with pytest.raises(
        TypeError,
        match=r"^A FrozenJsonObject holds a value that is no frozen JSON value \(was it changed in place\?\)$",
    ):
        call.arguments.thaw()


def test_writing_a_frozen_object_holding_a_foreign_value_raises_and_runs_none_of_it() -> None:
    """`to_json` writes nested frozen objects through a hook of its own; any other value
    msgspec cannot write (put in a frozen object's items in place) is refused by it."""
    call = tool_call(id="c", name="n", arguments={"a": [1, {"b": 2}]})
    nested = call.arguments["a"]
    assert type(nested) is tuple
    inner = nested[1]
    assert type(inner) is FrozenJsonObject
    inner._items["c"] = _Loud()  # type: ignore[assignment]  # a frozen object changed in place: the test
    with pytest.raises(
        TypeError,
        match=r"^A FrozenJsonObject holds a value that is no frozen JSON value \(was it changed in place\?\)$",
    ):
        call.arguments.to_json()


def test_text_from_assistant_renders_text_blocks_only_in_order() -> None:
    message = assistant_message(
        id="a",
        content=[
            {"type": "text", "text": "one "},
            call_block({"text": "never shown"}),
            text_block(text="two"),
        ],
    )
    assert text_from_assistant(message) == "one two"


def test_existing_blocks_and_frozen_arguments_are_accepted() -> None:
    call = tool_call(id="c", name="read", arguments={"path": "p"})
    text = text_block(text="t")
    message = assistant_message(id="a", content=(text, call))
    assert message.content == (text, call)
    again = tool_call(id="c2", name="read", arguments=call.arguments)
    assert again.arguments == call.arguments
    nested = tool_call(id="c3", name="read", arguments={"wrapped": call.arguments})
    assert nested.arguments["wrapped"] == {"path": "p"}


def test_a_frozen_object_inside_a_snapshot_is_kept_whole() -> None:
    inner = frozen_json_object({"b": 1})
    snapshot = frozen_json_object({"a": inner, "list": [inner, (1, 2)], "big": 10**40})
    assert snapshot == {"a": {"b": 1}, "list": ({"b": 1}, (1, 2)), "big": 10**40}
    assert type(snapshot["a"]) is FrozenJsonObject
    assert snapshot.thaw() == {"a": {"b": 1}, "list": [{"b": 1}, [1, 2]], "big": 10**40}


def test_large_ints_negative_zero_and_unicode_survive() -> None:
    arguments = {"big": 10**40, "zero": -0.0, "text": "héllo 😀", "max": 1.7976931348623157e308}
    call = loose(tool_call)(id="c", name="n", arguments=arguments)
    assert call.arguments == arguments
    zero = call.arguments["zero"]
    assert type(zero) is float
    assert str(zero) == "-0.0"
    assert list(call.arguments) == ["big", "zero", "text", "max"]


# --- snapshots ------------------------------------------------------------------------


def test_mutating_the_callers_data_afterwards_changes_nothing() -> None:
    nested: list[object] = [1, {"deep": "value"}]
    arguments: dict[str, object] = {"list": nested, "flag": True}
    block = call_block(arguments)
    content: list[object] = [{"type": "text", "text": "hello"}, block]
    message = loose(assistant_message)(id="a", content=content)
    snapshot = msgspec.json.encode(message)

    nested.append("more")
    cast("dict[str, object]", nested[1])["deep"] = "changed"
    arguments["flag"] = False
    block["name"] = "write"
    cast("dict[str, object]", content[0])["text"] = "bye"
    content.clear()

    assert msgspec.json.encode(message) == snapshot
    assert text_from_assistant(message) == "hello"


def test_shared_references_are_fine() -> None:
    shared = {"k": 1}
    call = tool_call(id="c", name="n", arguments={"a": shared, "b": shared, "c": [shared, shared]})
    assert call.arguments["c"] == ({"k": 1}, {"k": 1})


# --- rejections: every message in full --------------------------------------------------


@pytest.mark.parametrize(
    ("build", "expected"),
    [
        (lambda: loose(user_message)(id=1, content="x"), "user_message(): Expected `str`, got `int` - at `$.id`"),
        (
            lambda: loose(user_message)(id="", content="x"),
            "user_message(): Expected a non-empty `str`, got `''` - at `$.id`",
        ),
        (
            lambda: loose(user_message)(id="u", content=None),
            "user_message(): Expected `str`, got `NoneType` - at `$.content`",
        ),
        (
            lambda: loose(user_message)(id=StrSub("u"), content="x"),
            "user_message(): Expected `str`, got `str subclass` - at `$.id`",
        ),
        (
            lambda: loose(user_message)(id="u", content="\ud800"),
            "user_message(): Expected a `str` encodable as UTF-8, got one with a lone surrogate - at `$.content`",
        ),
        (
            lambda: loose(tool_result_message)(id="r", tool_call_id="", tool_name="n", content="c"),
            "tool_result_message(): Expected a non-empty `str`, got `''` - at `$.toolCallId`",
        ),
        (
            lambda: loose(tool_result_message)(id="r", tool_call_id="c", tool_name=b"n", content="c"),
            "tool_result_message(): Expected `str`, got `bytes` - at `$.toolName`",
        ),
        (
            lambda: loose(tool_result_message)(id="r", tool_call_id="c", tool_name="n", content="c", is_error=0),
            "tool_result_message(): Expected `bool`, got `int` - at `$.isError`",
        ),
        (
            lambda: loose(tool_result_message)(id="r", tool_call_id="c", tool_name="n", content="c", is_error=1),
            "tool_result_message(): Expected `bool`, got `int` - at `$.isError`",
        ),
        (
            lambda: loose(tool_result_message)(id="r", tool_call_id="c", tool_name="n", content=3, is_error=True),
            "tool_result_message(): Expected `str`, got `int` - at `$.content`",
        ),
        (lambda: loose(text_block)(text=5), "text_block(): Expected `str`, got `int` - at `$.text`"),
        (
            lambda: loose(tool_call)(id="c", name="n", arguments=[1]),
            "tool_call(): Expected `dict`, got `list` - at `$.arguments`",
        ),
        (
            lambda: loose(tool_call)(id="c", name="n", arguments=None),
            "tool_call(): Expected `dict`, got `NoneType` - at `$.arguments`",
        ),
        (
            lambda: loose(assistant_message)(id="a", content="text"),
            "assistant_message(): Expected `list` or `tuple` of blocks, got `str` - at `$.content`",
        ),
        (
            lambda: loose(assistant_message)(id="a", content=(block for block in [1])),
            "assistant_message(): Expected `list` or `tuple` of blocks, got `object` - at `$.content`",
        ),
        (
            lambda: loose(assistant_message)(id="a", content={"text"}),
            "assistant_message(): Expected `list` or `tuple` of blocks, got `set` - at `$.content`",
        ),
    ],
)
def test_field_rejections(build: Callable[[], object], expected: str) -> None:
    with pytest.raises(ConstructionError) as caught:
        build()
    assert str(caught.value) == expected


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        ("text", "Expected a block (`dict`, `TextBlock`, `ToolCall` or `OpaqueBlock`), got `str` - at `$.content[0]`"),
        (
            DictSub(type="text", text="x"),
            "Expected a block (`dict`, `TextBlock`, `ToolCall` or `OpaqueBlock`), got `dict subclass`"
            " - at `$.content[0]`",
        ),
        (
            {"type": "image", "url": "u"},
            "Invalid type 'image'; expected one of `text`, `toolCall`, `opaque` - at `$.content[0].type`",
        ),
        (
            {"type": "image"},
            "Invalid type 'image'; expected one of `text`, `toolCall`, `opaque` - at `$.content[0].type`",
        ),
        ({"type": 3}, "Expected `str`, got `int` - at `$.content[0].type`"),
        ({"text": "x"}, "Object missing required field `type` - at `$.content[0]`"),
        ({"type": "text"}, "Object missing required field `text` - at `$.content[0]`"),
        ({"type": "text", "text": "x", "id": "i"}, "Object contains unknown field `id` - at `$.content[0].id`"),
        ({"type": "text", 1: "x"}, "Expected object keys of type `str`, got `int` - at `$.content[0]`"),
        ({"type": "toolCall", "id": "c", "name": "n"}, "Object missing required field `arguments` - at `$.content[0]`"),
        (call_block({}, id=""), "Expected a non-empty `str`, got `''` - at `$.content[0].id`"),
        (call_block({}, name=None), "Expected `str`, got `NoneType` - at `$.content[0].name`"),
        (call_block([1, 2]), "Expected `dict`, got `list` - at `$.content[0].arguments`"),
        (call_block(DictSub()), "Expected `dict`, got `dict subclass` - at `$.content[0].arguments`"),
    ],
)
def test_block_rejections(block: object, expected: str) -> None:
    assert assistant_error(block) == f"assistant_message(): {expected}"


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"limit": float("nan")}, "Expected a finite number, got `nan` - at `$.content[0].arguments.limit`"),
        ({"limit": float("inf")}, "Expected a finite number, got `inf` - at `$.content[0].arguments.limit`"),
        ({"a": [1, -float("inf")]}, "Expected a finite number, got `-inf` - at `$.content[0].arguments.a[1]`"),
        ({1: "x"}, "Expected object keys of type `str`, got `int` - at `$.content[0].arguments`"),
        ({"a": {(1, 2): "x"}}, "Expected object keys of type `str`, got `tuple` - at `$.content[0].arguments.a`"),
        ({"a": Color.RED}, "Expected a JSON value, got `int subclass` - at `$.content[0].arguments.a`"),
        ({"a": StrSub("x")}, "Expected a JSON value, got `str subclass` - at `$.content[0].arguments.a`"),
        ({"a": DictSub()}, "Expected a JSON value, got `dict subclass` - at `$.content[0].arguments.a`"),
        ({"a": {1, 2}}, "Expected a JSON value, got `set` - at `$.content[0].arguments.a`"),
        ({"a": b"x"}, "Expected a JSON value, got `bytes` - at `$.content[0].arguments.a`"),
        ({"a": object()}, "Expected a JSON value, got `object` - at `$.content[0].arguments.a`"),
        (
            {"a": "\udfff"},
            "Expected a `str` encodable as UTF-8, got one with a lone surrogate - at `$.content[0].arguments.a`",
        ),
        (
            {"\ud800": 1},
            "Object key: Expected a `str` encodable as UTF-8, got one with a lone surrogate"
            " - at `$.content[0].arguments`",
        ),
        (
            {"my key": [{"x y": None, "z": 1j}]},
            'Expected a JSON value, got `complex` - at `$.content[0].arguments["my key"][0].z`',
        ),
    ],
)
def test_argument_rejections(arguments: object, expected: str) -> None:
    assert assistant_error(call_block(arguments)) == f"assistant_message(): {expected}"


def test_circular_references_are_rejected() -> None:
    loop: dict[str, object] = {}
    loop["self"] = loop
    assert assistant_error(call_block(loop)) == (
        "assistant_message(): Circular reference: a container holds itself - at `$.content[0].arguments.self`"
    )
    cycle: list[object] = []
    cycle.append([cycle])
    assert assistant_error(call_block({"a": cycle})) == (
        "assistant_message(): Circular reference: a container holds itself - at `$.content[0].arguments.a[0][0]`"
    )


def nested(levels: int) -> dict[str, object]:
    """An arguments object `levels` deep: the object itself and `levels - 1` lists."""
    value: object = []
    for _ in range(levels - 2):
        value = [value]
    return {"a": value}


def test_nesting_up_to_the_limit_is_accepted_and_beyond_it_is_rejected() -> None:
    assert loose(tool_call)(id="c", name="n", arguments=nested(MAX_DEPTH)).id == "c"
    with pytest.raises(ConstructionError) as caught:
        loose(tool_call)(id="c", name="n", arguments=nested(MAX_DEPTH + 1))
    assert caught.value.problem == f"Nesting deeper than {MAX_DEPTH} levels"
    assert caught.value.path == "$.arguments.a" + "[0]" * (MAX_DEPTH - 1)


def test_very_deep_nesting_is_rejected_without_recursion_error() -> None:
    with pytest.raises(ConstructionError, match="Nesting deeper than"):
        loose(tool_call)(id="c", name="n", arguments=nested(200_000))


def test_error_attributes() -> None:
    with pytest.raises(ConstructionError) as caught:
        tool_result_message(id="r", tool_call_id="c", tool_name="n", content="x", is_error=cast("bool", "yes"))
    assert (caught.value.function, caught.value.path, caught.value.problem) == (
        "tool_result_message",
        "$.isError",
        "Expected `bool`, got `str`",
    )


# --- no caller code runs ----------------------------------------------------------------


HOSTILE: dict[str, Callable[[], object]] = {
    "object": Explosive,
    "dict": lambda: TrapDict(type="text", text="x"),
    "str": lambda: TrapStr("text"),
}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_hostile_values_are_refused_by_type_before_use(kind: str) -> None:
    hostile = HOSTILE[kind]()
    with pytest.raises(ConstructionError):
        loose(assistant_message)(id="a", content=[hostile])
    with pytest.raises(ConstructionError):
        loose(assistant_message)(id="a", content=[{"type": hostile, "text": "x"}])
    with pytest.raises(ConstructionError):
        loose(tool_call)(id="c", name="n", arguments={"a": hostile})
    with pytest.raises(ConstructionError):
        loose(tool_call)(id="c", name="n", arguments=hostile)
    with pytest.raises(ConstructionError):
        loose(user_message)(id=hostile, content="x")


def test_a_str_subclass_key_is_refused_before_it_is_compared() -> None:
    block: dict[object, object] = {"type": "text", "text": "x", SneakyKey("extra"): "y"}
    assert assistant_error(block) == (
        "assistant_message(): Expected object keys of type `str`, got `str subclass` - at `$.content[0]`"
    )
    arguments: dict[object, object] = {SneakyKey("path"): "p"}
    assert assistant_error(call_block(arguments)) == (
        "assistant_message(): Expected object keys of type `str`, got `str subclass` - at `$.content[0].arguments`"
    )


# --- directly built structs --------------------------------------------------------------


def test_directly_built_blocks_are_checked_when_given_to_a_constructor() -> None:
    bad_text = TextBlock(text=cast("str", 5))
    assert assistant_error(bad_text) == "assistant_message(): Expected `str`, got `int` - at `$.content[0].text`"
    bad_raw = ToolCall(id="c", name="n", arguments_json=msgspec.Raw(b"[1]"))
    assert assistant_error(bad_raw) == "assistant_message(): Expected `dict`, got `list` - at `$.content[0].arguments`"
    spaced = ToolCall(id="c", name="n", arguments_json=msgspec.Raw(b'{"a" : 1}'))
    message = assistant_message(id="a", content=[spaced])
    rebuilt = message.content[0]
    assert type(rebuilt) is ToolCall
    assert bytes(rebuilt.arguments_json) == b'{"a":1}'
    answer = tool_result_message(id="r", tool_call_id="c", tool_name="n", content="")
    assert validate_transcript([message, answer]) == ()


def test_struct_classes_are_the_ones_returned() -> None:
    assert type(user_message(id="u", content="")) is UserMessage
    assert type(tool_result_message(id="r", tool_call_id="c", tool_name="n", content="")) is ToolResultMessage


def test_repr_shows_the_arguments_text_even_when_it_is_not_utf8() -> None:
    assert repr(tool_call(id="c", name="n", arguments={"k": [1, "é"]})) == (
        "ToolCall(id='c', name='n', arguments={\"k\":[1,\"é\"]})"
    )
    assert repr(ToolCall(id="c", name="n", arguments_json=msgspec.Raw(b'{"k":"\xff"}'))) == (
        "ToolCall(id='c', name='n', arguments={\"k\":\"\ufffd\"})"
    )


def test_an_existing_opaque_block_is_checked_and_kept() -> None:
    from message_ir import OpaqueBlock, opaque_block

    made = opaque_block(format="f", kind="k", data={"a": 1})
    assert assistant_message(id="a", content=[made]).content[0] is made
    spaced = OpaqueBlock(format="f", kind="k", data_json=msgspec.Raw(b'{ "a" : 1 }'))
    kept = assistant_message(id="a", content=[spaced]).content[0]
    assert type(kept) is OpaqueBlock
    assert bytes(kept.data_json) == b'{"a":1}'
    with pytest.raises(ConstructionError) as refused:
        assistant_message(id="a", content=[OpaqueBlock(format="f", kind="k", data_json=msgspec.Raw(b"[1]"))])
    assert str(refused.value) == "assistant_message(): Expected `dict`, got `list` - at `$.content[0].data`"
