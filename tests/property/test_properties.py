"""Properties: the validator never raises, round trips lose nothing, repair is sound."""

from __future__ import annotations

import contextlib
import copy
import json

import msgspec
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from message_ir import (
    AssistantMessage,
    ConstructionError,
    Diagnostic,
    FixAction,
    FrozenJsonObject,
    Message,
    OpaqueBlock,
    TranscriptError,
    assistant_message,
    decode_transcript,
    encode_jsonl,
    encode_transcript,
    frozen_json_object,
    is_json_value,
    opaque_block,
    repair_transcript,
    text_block,
    tool_call,
    tool_result_message,
    user_message,
    validate_jsonl,
    validate_transcript,
)
from message_ir._argument_text import arguments_text, is_arguments_text
from message_ir._fast_path import copy_json_object, frozen_json_copy, transcript_is_valid
from message_ir._frozen_values import freeze_decoded
from message_ir._json_rule import check_json_tree
from message_ir._linkage import check_linkage
from message_ir._shape import ShapeCheck
from message_ir.adapters._json import opaque_data
from message_ir.adapters._tools import arguments_value
from tests.property.strategies import (
    arguments_objects,
    armed,
    broken_transcripts,
    hostile_values,
    json_values,
    malformed_structs,
    texts,
    transcripts,
)
from tests.support import Explosive, Loose, loose


@given(transcripts())
def test_valid_transcripts_validate_and_round_trip(transcript: tuple[Message, ...]) -> None:
    assert validate_transcript(transcript) == ()
    encoded = encode_transcript(transcript)
    assert validate_transcript(json.loads(encoded)) == ()
    decoded = decode_transcript(encoded)
    assert decoded == transcript
    assert encode_transcript(decoded) == encoded
    assert hash(decoded) == hash(transcript)


@given(arguments_objects)
def test_arguments_survive_exactly(arguments: dict[str, object]) -> None:
    call = tool_call(id="c", name="n", arguments=arguments)  # type: ignore[arg-type]  # JSON values
    assert call.arguments.thaw() == arguments
    assert list(call.arguments.thaw()) == list(arguments)  # key order
    assert msgspec.json.encode(call.arguments.thaw()) == msgspec.json.encode(arguments)  # -0.0, big ints


@given(hostile_values)
def test_the_validator_never_raises(value: object) -> None:
    found = validate_transcript(value)
    assert type(found) is tuple
    assert all(type(diagnostic) is Diagnostic for diagnostic in found)
    found_in_list = validate_transcript([value, value])
    assert all(type(diagnostic) is Diagnostic for diagnostic in found_in_list)


def _mutations(data: bytes) -> st.SearchStrategy[bytes]:
    def flip(position: int, byte: int) -> bytes:
        index = position % len(data)
        return data[:index] + bytes([byte]) + data[index + 1 :]

    return st.one_of(
        st.builds(flip, st.integers(0, 10**6), st.integers(0, 255)),
        st.integers(0, len(data)).map(lambda end: data[:end]),
        st.tuples(st.integers(0, len(data)), st.integers(0, len(data))).map(lambda ab: data[: ab[0]] + data[ab[1] :]),
        st.tuples(st.integers(0, len(data)), st.integers(0, len(data))).map(
            lambda ab: data[: ab[0]] + data[ab[1] :] + data[ab[0] : ab[1]]
        ),
        st.sampled_from([b"NaN", b"1e999", b"\\ud800", b"\xff", b'"role":"user",', b"[[[[", b"}"]).flatmap(
            lambda junk: st.integers(0, len(data)).map(lambda at: data[:at] + junk + data[at:])
        ),
    )


@given(transcripts().map(encode_transcript).flatmap(_mutations))
def test_decode_of_damaged_bytes_is_valid_or_refused(data: bytes) -> None:
    try:
        decoded = decode_transcript(data)
    except TranscriptError as error:
        diagnostics = error.diagnostics
    else:
        assert validate_transcript(decoded) == ()
        assert decode_transcript(encode_transcript(decoded)) == decoded
        return
    assert diagnostics
    assert all(type(diagnostic) is Diagnostic for diagnostic in diagnostics)
    try:
        parsed = json.loads(data)
    except (ValueError, RecursionError):
        return  # not JSON: a boundary diagnostic of its own
    if all(diagnostic.code != "DUPLICATE_KEY" for diagnostic in diagnostics):
        assert diagnostics == validate_transcript(parsed)


@given(st.lists(json_values, max_size=3), texts)
def test_mutating_callers_containers_afterwards_changes_nothing(values: list[object], text: str) -> None:
    arguments: dict[str, object] = {f"k{index}": value for index, value in enumerate(values)}
    arguments["nested"] = {"list": list(values), "dict": dict(arguments)}
    blocks: list[dict[str, object]] = [
        {"type": "text", "text": text},
        {"type": "toolCall", "id": "c", "name": "n", "arguments": arguments},
    ]
    message = assistant_message(id="a", content=blocks)  # type: ignore[arg-type]  # loose dicts
    before = msgspec.json.encode(message)
    pristine = copy.deepcopy(arguments)

    def scramble(value: object) -> None:
        if type(value) is dict:
            for child in list(value.values()):
                scramble(child)
            value["injected"] = float("nan")
            value.pop(next(iter(value)), None)
        elif type(value) is list:
            for child in list(value):
                scramble(child)
            value.append("injected")
            value.reverse()

    scramble(arguments)
    blocks[0]["text"] = "changed"
    blocks.clear()
    assert msgspec.json.encode(message) == before
    call = message.content[1]
    assert call.type == "toolCall"
    assert call.arguments.thaw() == json.loads(json.dumps(pristine))


def _corrupt_message(message: dict[str, object], how: str, value: object, selector: int) -> dict[str, object]:
    corrupted = dict(message)
    keys = sorted(corrupted)
    if how == "drop":
        corrupted.pop(keys[selector % len(keys)], None)
    elif how == "extra":
        corrupted["extra"] = value
    elif how == "replace":
        corrupted[keys[selector % len(keys)]] = value
    elif how == "argument" and corrupted.get("role") == "assistant" and type(corrupted.get("content")) is list:
        content = corrupted["content"]
        assert type(content) is list  # checked just above
        corrupted["content"] = [
            {**block, "arguments": {"x": value}} if type(block) is dict and block.get("type") == "toolCall" else block
            for block in content
        ]
    return corrupted


_BUILDERS: dict[str, Loose[Message]] = {
    "user": loose(user_message),
    "assistant": loose(assistant_message),
    "toolResult": loose(tool_result_message),
}
_KEYWORDS = {"toolCallId": "tool_call_id", "toolName": "tool_name", "isError": "is_error"}


def _construct(message: object) -> Message:
    """Build a JSON-form message with the constructors; raises `TypeError` if they refuse it."""
    if type(message) is not dict:
        raise TypeError("not a dict")
    role = message.get("role")
    builder = _BUILDERS.get(role) if type(role) is str else None
    if builder is None:
        raise TypeError("bad role")
    if role == "toolResult" and "isError" not in message:
        # `is_error` has a default as a keyword, but `isError` is a required field on the wire.
        raise TypeError("missing isError")
    keywords: dict[str, object] = {}
    for key, value in message.items():
        if type(key) is not str:
            raise TypeError("bad key")
        if key != "role":
            keywords[_KEYWORDS.get(key, key)] = value
    return builder(**keywords)


@given(
    transcripts(),
    st.lists(
        st.tuples(
            st.integers(0, 50), st.sampled_from(["drop", "extra", "replace", "argument", "none"]), hostile_values
        ),
        max_size=3,
    ),
)
def test_validator_and_constructors_agree(
    transcript: tuple[Message, ...], corruptions: list[tuple[int, str, object]]
) -> None:
    messages = json.loads(encode_transcript(transcript))
    assume(messages)
    for position, how, value in corruptions:
        index = position % len(messages)
        messages[index] = _corrupt_message(messages[index], how, value, position // max(len(messages), 1))
    try:
        built = [_construct(message) for message in messages]
    except TypeError:
        assert validate_transcript(messages) != ()
        return
    assert validate_transcript(messages) == validate_transcript(built)


_ACTIONS: frozenset[FixAction] = frozenset(
    {"inserted_result", "dropped_result", "moved_result", "renamed_tool", "unrepaired"}
)


@given(broken_transcripts())
def test_repair_properties(transcript: tuple[Message, ...]) -> None:
    repaired = repair_transcript(transcript)
    actions = {fix.action for fix in repaired.fixes}
    assert actions <= _ACTIONS
    if "unrepaired" not in actions:
        assert validate_transcript(repaired.messages) == ()
    again = repair_transcript(repaired.messages)
    assert again.messages == repaired.messages
    assert all(fix.action == "unrepaired" for fix in again.fixes)
    # Messages that were not moved or dropped keep their relative order.
    moved_or_dropped = {fix.message_index for fix in repaired.fixes if fix.action in {"moved_result", "dropped_result"}}
    kept_ids = [message.id for index, message in enumerate(transcript) if index not in moved_or_dropped]
    remaining = iter([message.id for message in repaired.messages])
    assert all(message_id in remaining for message_id in kept_ids)  # a subsequence, in order
    if not repaired.fixes:
        assert repaired.messages == transcript


@given(transcripts())
def test_jsonl_agrees_with_the_array_form(transcript: tuple[Message, ...]) -> None:
    lines = encode_jsonl(transcript).splitlines()
    assert [json.loads(line) for line in lines] == json.loads(encode_transcript(transcript))


def _lines_moved(lines: list[bytes]) -> st.SearchStrategy[list[bytes]]:
    """`lines` with one line cut at one of its commas and its rest put before the next line,
    joined by that comma: joined into one array, the two lines read as the two messages they
    were, but the first is no JSON on its own."""
    cuts = [(number, at) for number, line in enumerate(lines[:-1]) for at, byte in enumerate(line) if byte == ord(",")]
    if not cuts:
        return st.just(lines)
    return st.sampled_from(cuts).map(
        lambda cut: [
            *lines[: cut[0]],
            lines[cut[0]][: cut[1]],
            lines[cut[0]][cut[1] + 1 :] + b"," + lines[cut[0] + 1],
            *lines[cut[0] + 2 :],
        ]
    )


@given(transcripts().map(lambda transcript: encode_jsonl(transcript).splitlines()).flatmap(_lines_moved))
def test_validate_jsonl_is_never_more_lenient_than_its_lines_read_alone(lines: list[bytes]) -> None:
    found = validate_jsonl(lines)
    parsed: list[object] = []
    for number, line in enumerate(lines):
        try:
            parsed.append(json.loads(line))
        except ValueError:
            assert any(each.code == "INVALID_JSON" and each.message_index == number for each in found)
    if not found:
        assert validate_transcript(parsed) == ()


def _careful_passes(value: object) -> list[Diagnostic]:
    check = ShapeCheck()
    check.transcript(value)
    return check.diagnostics + check_linkage(check.events)


@given(st.one_of(hostile_values, st.lists(hostile_values, max_size=4), broken_transcripts().map(list)))
def test_the_fast_path_is_never_more_lenient(value: object) -> None:
    if transcript_is_valid(value):
        assert _careful_passes(value) == []


_WRONG_VALUES: tuple[object, ...] = (
    "",
    "\ud800",
    "x\udfff",
    0,
    1.5,
    True,
    None,
    (),
    [],
    {},
    b"bytes",
    Explosive(),
    msgspec.Raw(b""),
    msgspec.Raw(b"[]"),
    msgspec.Raw(b"{"),
    msgspec.Raw(b'{"a":1}'),
    msgspec.Raw(b'{"\\ud800":1}'),
    msgspec.Raw(b"1"),
)


def _every_kind() -> list[Message]:
    """A valid transcript holding every kind of message and block, each with `meta`."""
    meta = {"f": {"k": [1]}}
    return [
        user_message(id="u", content="hi", meta=meta),
        assistant_message(
            id="a",
            content=[
                text_block(text="t", meta=meta),
                opaque_block(format="anthropic", kind="thinking", data={"thinking": "x"}, meta=meta),
                tool_call(id="c", name="read", arguments={"p": 1}, meta=meta),
            ],
            meta=meta,
        ),
        tool_result_message(id="r", tool_call_id="c", tool_name="read", content="ok", meta=meta),
    ]


def test_the_fast_path_is_never_more_lenient_on_any_struct_field() -> None:
    """Every field of every kind of message and block replaced by every value of a wrong type
    or range, and every tuple of blocks by a list of them (calling the classes directly checks
    nothing): the fast path, with linkage and without (as the encoders ask), lets none through
    that the careful passes refuse."""
    base = _every_kind()
    assert transcript_is_valid(base)
    checked = 0
    for index, message in enumerate(base):
        targets: list[tuple[msgspec.Struct, int | None]] = [(message, None)]
        if type(message) is AssistantMessage:
            targets += [(block, number) for number, block in enumerate(message.content)]
        for target, number in targets:
            for field in target.__struct_fields__:
                kept = getattr(target, field)
                values = [*_WRONG_VALUES, list(kept)] if type(kept) is tuple else list(_WRONG_VALUES)
                for value in values:
                    changed = msgspec.structs.replace(target, **{field: value})
                    if number is not None:
                        assert type(message) is AssistantMessage
                        blocks: list[object] = list(message.content)
                        blocks[number] = changed
                        changed = msgspec.structs.replace(message, content=tuple(blocks))
                    transcript = [*base[:index], changed, *base[index + 1 :]]
                    check = ShapeCheck()
                    check.transcript(transcript)
                    if check.diagnostics:
                        assert not transcript_is_valid(transcript, check_linkage=False), (field, value)
                    if _careful_passes(transcript):
                        assert not transcript_is_valid(transcript), (field, value)
                    checked += 1
    assert checked > 300


@given(malformed_structs())
def test_the_fast_path_is_never_more_lenient_on_structs_made_unchecked(transcript: list[object]) -> None:
    """Shape alone (as the encoders ask) and with linkage: a struct field of a wrong type or
    range, or a tuple of blocks given as a list, is never let through."""
    if transcript_is_valid(transcript, check_linkage=False):
        check = ShapeCheck()
        check.transcript(transcript)
        assert check.diagnostics == []
    if transcript_is_valid(transcript):
        assert _careful_passes(transcript) == []


@given(transcripts())
def test_the_fast_path_accepts_valid_transcripts_in_both_forms(transcript: tuple[Message, ...]) -> None:
    assert transcript_is_valid(transcript)
    assert transcript_is_valid(json.loads(encode_transcript(transcript)))
    assert transcript_is_valid(decode_transcript(encode_transcript(transcript)))


@given(st.dictionaries(texts, st.one_of(json_values, hostile_values), max_size=4))
def test_the_fast_copy_agrees_with_the_careful_walk(arguments: dict[str, object]) -> None:
    fast = copy_json_object(arguments)
    problem, careful = check_json_tree(arguments, copy=True)
    if fast is not None:
        assert problem is None
        assert msgspec.json.encode(fast) == msgspec.json.encode(careful)


def _frozen_kinds(value: object) -> object:
    """`value` with each container named by its exact type, to compare the kinds themselves."""
    if type(value) is FrozenJsonObject:
        return ("frozen", [(key, _frozen_kinds(item)) for key, item in value.items()])
    if type(value) is tuple:
        return ("tuple", [_frozen_kinds(item) for item in value])
    return (type(value).__name__, value)


@given(st.dictionaries(texts, st.one_of(json_values, hostile_values), max_size=4))
def test_the_frozen_copy_is_the_fast_copy_frozen(arguments: dict[str, object]) -> None:
    """Made read-only as it is copied: what freezing the fast copy gives, containers' kinds
    included, and taken exactly when the fast copy is."""
    fast = copy_json_object(arguments)
    frozen = frozen_json_copy(arguments)
    assert (frozen is None) == (fast is None)
    if fast is not None:
        assert _frozen_kinds(frozen) == _frozen_kinds(freeze_decoded(fast))
        assert _frozen_kinds(frozen_json_object(arguments)) == _frozen_kinds(frozen)  # type: ignore[arg-type]  # JSON


_OBJECT_TEXTS = st.one_of(
    arguments_objects.map(msgspec.json.encode),
    st.binary(max_size=40),
    st.sampled_from(
        [b"{}", b"[]", b'{"a":1e400}', b'{"a":"\\ud800"}', b'{"a":', b"{} x", b'{"a":"\xff"}', b"{" * 70 + b"}" * 70]
    ),
)


@given(_OBJECT_TEXTS, st.integers(min_value=0, max_value=80), st.binary(max_size=3))
def test_the_verdict_on_arguments_text_is_arguments_texts_own(text: bytes, at: int, inserted: bytes) -> None:
    for candidate in (text, text[:at] + inserted + text[at:]):
        assert is_arguments_text(candidate) == (arguments_text(candidate, syntax_checked=False)[0] is not None)


@given(arguments_objects)
def test_a_writers_arguments_and_opaque_data_are_the_views_thawed(value: dict[str, object]) -> None:
    call = tool_call(id="c", name="n", arguments=value)  # type: ignore[arg-type]  # JSON values
    block = opaque_block(format="f", kind="k", data=value)  # type: ignore[arg-type]  # JSON values
    for written, view in ((arguments_value(call), call.arguments), (opaque_data(block), block.data)):
        assert written == view.thaw()
        assert msgspec.json.encode(written) == msgspec.json.encode(view.thaw())  # key order and kinds too


@given(arguments_objects)
def test_a_frozen_objects_json_text_is_its_thawed_copy_encoded(value: dict[str, object]) -> None:
    """`to_json` writes the frozen values themselves: the bytes msgspec gives for the thawed
    copy (key order, `-0.0`, big integers, nested objects and arrays)."""
    frozen = frozen_json_object(value)  # type: ignore[arg-type]  # JSON values
    assert frozen.to_json() == msgspec.json.encode(frozen.thaw())
    assert msgspec.json.decode(frozen.to_json()) == value


def test_a_writers_opaque_data_of_a_block_made_unchecked_raises_as_the_view_does() -> None:
    """A block made by calling the class directly, its data text empty or no object."""
    for text, error in (
        (b"", r"^OpaqueBlock\.data_json is empty$"),
        (b"[1]", r"^meta_json does not hold a JSON object: \(1,\)$"),
    ):
        block = OpaqueBlock(format="f", kind="k", data_json=msgspec.Raw(text))
        for read in (opaque_data, lambda block: block.data.thaw()):
            with pytest.raises(TypeError, match=error):
                read(block)
    broken = OpaqueBlock(format="f", kind="k", data_json=msgspec.Raw(b"{"))
    for read in (opaque_data, lambda block: block.data.thaw()):
        with pytest.raises(msgspec.DecodeError):
            read(broken)


@given(hostile_values)
def test_no_hook_of_a_callers_type_runs(marked: object) -> None:
    """With `Hostile` values (whose type's name, hash and equality interrupt) anywhere."""
    value = armed(marked)
    assert type(validate_transcript(value)) is tuple
    assert type(validate_transcript([value])) is tuple
    assert type(validate_transcript([{"role": "user", "id": "u", "content": value}])) is tuple
    call = {"type": "toolCall", "id": "c", "name": "n", "arguments": {"k": value}}
    assert type(validate_transcript([{"role": "assistant", "id": "a", "content": [call]}])) is tuple
    is_json_value(value)
    with contextlib.suppress(ConstructionError):
        loose(tool_call)(id="c", name="n", arguments={"k": value})
