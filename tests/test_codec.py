"""The JSON boundary (spec §6) and JSON Lines: lossless round trips and refusals."""

from __future__ import annotations

import json
from typing import cast

import msgspec
import pytest

from message_ir import (
    MAX_DEPTH,
    AssistantMessage,
    Diagnostic,
    Message,
    TextBlock,
    ToolCall,
    TranscriptError,
    UserMessage,
    assistant_message,
    decode_jsonl,
    decode_transcript,
    encode_jsonl,
    encode_transcript,
    tool_call,
    tool_result_message,
    user_message,
    validate_jsonl,
    validate_transcript,
)


def sample() -> tuple[Message, ...]:
    return (
        user_message(id="u1", content="héllo 😀 \u2028"),
        assistant_message(
            id="a1",
            content=[
                {"type": "text", "text": "before "},
                {
                    "type": "toolCall",
                    "id": "c1",
                    "name": "read",
                    "arguments": {
                        "z": 1,
                        "a": [10**30, -0.0, 1e-300, 1.7976931348623157e308, True, None],
                        "nested": {"k": [{"deep": "ü"}]},
                        "": "empty key",
                    },
                },
                {"type": "text", "text": "after"},
            ],
        ),
        tool_result_message(id="r1", tool_call_id="c1", tool_name="read", content="done", is_error=True),
    )


def refusal(data: bytes | str) -> tuple[Diagnostic, ...]:
    with pytest.raises(TranscriptError) as caught:
        decode_transcript(data)
    assert isinstance(caught.value, ValueError)
    assert caught.value.diagnostics
    return caught.value.diagnostics


def test_encode_is_compact_camel_case_json() -> None:
    encoded = encode_transcript(sample()[2:])
    assert encoded == (
        b'[{"role":"toolResult","id":"r1","toolCallId":"c1","toolName":"read","content":"done","isError":true}]'
    )


def test_round_trip_is_lossless() -> None:
    transcript = sample()
    encoded = encode_transcript(transcript)
    decoded = decode_transcript(encoded)
    assert decoded == transcript
    assert encode_transcript(decoded) == encoded
    assert decode_transcript(encoded.decode()) == transcript
    parsed = json.loads(encoded)
    assert validate_transcript(parsed) == ()
    assert [m["role"] for m in parsed] == ["user", "assistant", "toolResult"]
    assert [b["type"] for b in parsed[1]["content"]] == ["text", "toolCall", "text"]
    assert list(parsed[1]["content"][1]["arguments"]) == ["z", "a", "nested", ""]
    assert parsed[1]["content"][1]["arguments"]["a"][0] == 10**30


def test_decoded_messages_are_deeply_frozen() -> None:
    decoded = decode_transcript(encode_transcript(sample()))
    message = decoded[1]
    assert type(message) is AssistantMessage
    assert type(message.content) is tuple
    block = message.content[1]
    assert type(block) is ToolCall
    with pytest.raises(TypeError):
        block.arguments["z"] = 2  # type: ignore[index]  # read-only: the assignment is the test
    assert block.arguments["a"] == (10**30, -0.0, 1e-300, 1.7976931348623157e308, True, None)
    assert hash(decoded) == hash(sample())


def test_whitespace_and_escapes_decode_to_the_canonical_message() -> None:
    pretty = json.dumps(json.loads(encode_transcript(sample())), indent=2, ensure_ascii=True)
    assert decode_transcript(pretty) == sample()


def test_spaced_arguments_of_many_calls_are_each_kept_compact() -> None:
    # Compacted together as one array and cut back into the calls: a string holding `}, {`
    # or spaces must not move a cut.
    arguments = [{"text": 'x }, {"a": 1} y', "n": [number, {"k": " , "}]} for number in range(3)]
    calls = [{"type": "toolCall", "id": f"c{n}", "name": "f", "arguments": arguments[n]} for n in range(3)]
    results = [
        {"role": "toolResult", "id": f"r{n}", "toolCallId": f"c{n}", "toolName": "f", "content": "", "isError": False}
        for n in range(3)
    ]
    pretty = json.dumps([{"role": "assistant", "id": "a", "content": calls}, *results], indent=1)
    first = decode_transcript(pretty)[0]
    assert type(first) is AssistantMessage
    kept = [block.arguments_json for block in first.content if type(block) is ToolCall]
    assert [bytes(raw) for raw in kept] == [msgspec.json.encode(each) for each in arguments]


def test_an_in_progress_session_encodes_but_does_not_decode_unless_asked() -> None:
    pending = sample()[:2]
    encoded = encode_transcript(pending)
    assert [d.code for d in refusal(encoded)] == ["MISSING_TOOL_RESULT"]
    assert decode_transcript(encoded, check_linkage=False) == pending


def test_encode_refuses_malformed_structs() -> None:
    bad = UserMessage(id="u", content=cast("str", float("nan")))
    with pytest.raises(TranscriptError) as caught:
        encode_transcript([bad])
    assert caught.value.diagnostics == (Diagnostic("BAD_CONTENT", 0, "$[0].content", "Expected `str`, got `float`"),)
    assert (
        str(caught.value)
        == "Invalid transcript (1 problem):\n  BAD_CONTENT: Expected `str`, got `float` - at `$[0].content`"
    )


def test_an_empty_meta_that_is_not_the_default_is_refused_not_written_as_invalid_json() -> None:
    # msgspec leaves a field out only when it holds its default object: another empty `Raw`
    # would be written as `"meta":}`, which no reader takes.
    stray = msgspec.Raw(b"")
    messages: list[Message] = [
        UserMessage(id="u", content="hi", meta_json=stray),
        AssistantMessage(id="a", content=(TextBlock(text="t", meta_json=stray),)),
    ]
    expected = "Expected a JSON object, got an empty `msgspec.Raw`; leave `meta_json` out for no `meta`"
    assert validate_transcript(messages) == (
        Diagnostic("BAD_META", 0, "$[0].meta", expected),
        Diagnostic("BAD_META", 1, "$[1].content[0].meta", expected),
    )
    with pytest.raises(TranscriptError):
        encode_transcript(messages)
    with pytest.raises(TranscriptError):
        encode_jsonl(messages)
    assert encode_transcript([UserMessage(id="u", content="hi")]) == b'[{"role":"user","id":"u","content":"hi"}]'


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"", Diagnostic("INVALID_JSON", None, "$", "Invalid JSON: Expecting value: line 1 column 1 (char 0)")),
        (b"[", Diagnostic("INVALID_JSON", None, "$", "Invalid JSON: Expecting value: line 1 column 2 (char 1)")),
        (b"[] []", Diagnostic("INVALID_JSON", None, "$", "Invalid JSON: Extra data: line 1 column 4 (char 3)")),
        (b"\xff[]", Diagnostic("INVALID_JSON", None, "$", "Invalid UTF-8 at byte 0")),
        (
            b"\xef\xbb\xbf[]",
            Diagnostic(
                "INVALID_JSON",
                None,
                "$",
                "Invalid JSON: Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)",
            ),
        ),
        (b"[" * 100_000 + b"]" * 100_000, Diagnostic("JSON_TOO_DEEP", None, "$", "JSON nested deeper than 512 levels")),
        (
            b"{}",
            Diagnostic(
                "TRANSCRIPT_NOT_A_LIST", None, "$", "Expected a transcript (`list` or `tuple` of messages), got `dict`"
            ),
        ),
        (
            b'[{"role":"user","role":"assistant","id":"x","content":[]}]',
            Diagnostic(
                "DUPLICATE_KEY",
                0,
                "$[0].role",
                "Key appears twice with different values; refused rather than keeping the last",
            ),
        ),
        (
            b'[{"role":"assistant","id":"a","content":[{"type":"text","type":"toolCall","id":"c","name":"n","arguments":{},"text":"x"}]}]',
            Diagnostic("UNKNOWN_FIELD", 0, "$[0].content[0].text", "Object contains unknown field `text`"),
        ),
        (
            b'[{"role":"user","id":"u","content":"\\ud800"}]',
            Diagnostic(
                "BAD_CONTENT", 0, "$[0].content", "Expected a `str` encodable as UTF-8, got one with a lone surrogate"
            ),
        ),
        (
            b'[{"role":"assistant","id":"a","content":[{"type":"toolCall","id":"c","name":"n","arguments":{"x":1e400}}]}]',
            Diagnostic("BAD_TOOL_ARGUMENTS", 0, "$[0].content[0].arguments.x", "Expected a finite number, got `inf`"),
        ),
        (
            b'[{"role":"assistant","id":"a","content":[{"type":"toolCall","id":"c","name":"n","arguments":{"x":NaN}}]}]',
            Diagnostic("BAD_TOOL_ARGUMENTS", 0, "$[0].content[0].arguments.x", "Expected a finite number, got `nan`"),
        ),
        (
            b'[{"role":"assistant","id":"a","content":[{"type":"toolCall","id":"c","name":"n","arguments":null}]}]',
            Diagnostic("BAD_TOOL_ARGUMENTS", 0, "$[0].content[0].arguments", "Expected `dict`, got `NoneType`"),
        ),
        (
            b'[{"role":"user","id":"","content":"x"}]',
            Diagnostic("BAD_MESSAGE_ID", 0, "$[0].id", "Expected a non-empty `str`, got `''`"),
        ),
        (
            b'[{"role":"user","id":"u","content":"x","extra":1}]',
            Diagnostic("UNKNOWN_FIELD", 0, "$[0].extra", "Object contains unknown field `extra`"),
        ),
    ],
)
def test_refusals_explain_themselves(data: bytes, expected: Diagnostic) -> None:
    assert refusal(data) == (expected,)


def test_what_msgspec_skips_over_in_arguments_is_still_checked() -> None:
    # msgspec's skip of a Raw value checks syntax but not UTF-8 or number range.
    head = b'[{"role":"assistant","id":"a","content":[{"type":"toolCall","id":"c","name":"n","arguments":'
    tail = b'}]},{"role":"toolResult","id":"r","toolCallId":"c","toolName":"n","content":"","isError":false}]'
    assert refusal(head + b'{"x":"\xff"}' + tail) == (
        Diagnostic("INVALID_JSON", None, "$", f"Invalid UTF-8 at byte {len(head) + 6}"),
    )
    assert [d.code for d in refusal(head + b'{"x":[1,2e999]}' + tail)] == ["BAD_TOOL_ARGUMENTS"]
    assert [d.code for d in refusal(head + b"[1]" + tail)] == ["BAD_TOOL_ARGUMENTS"]
    assert [d.code for d in refusal(head + b'"text"' + tail)] == ["BAD_TOOL_ARGUMENTS"]

    def decoded_call(arguments: bytes) -> ToolCall:
        message = decode_transcript(head + arguments + tail)[0]
        assert type(message) is AssistantMessage
        call = message.content[0]
        assert type(call) is ToolCall
        return call

    # Whitespace goes; the text is kept as sent otherwise, and compares by canonical form.
    spaced = decoded_call('{ "x" : [1, 2.50, "é"] }'.encode())
    assert bytes(spaced.arguments_json) == '{"x":[1,2.50,"é"]}'.encode()
    assert spaced == decoded_call(b'{"x":[1,2.5,"\\u00e9"]}')
    assert hash(spaced) == hash(tool_call(id="c", name="n", arguments={"x": [1, 2.5, "é"]}))
    # A text in doubt (here "\u00e9" looks like an exponent) is decoded and kept canonical.
    assert bytes(decoded_call(b'{"x":"\\u00e9"}').arguments_json) == '{"x":"é"}'.encode()


def test_argument_depth_limit_is_the_same_as_the_constructors() -> None:
    def document(levels: int) -> bytes:
        arguments = b'{"a":' + b"[" * (levels - 1) + b"]" * (levels - 1) + b"}"
        return (
            b'[{"role":"assistant","id":"a","content":[{"type":"toolCall","id":"c","name":"n","arguments":'
            + arguments
            + b'}]},{"role":"toolResult","id":"r","toolCallId":"c","toolName":"n","content":"","isError":false}]'
        )

    assert len(decode_transcript(document(MAX_DEPTH))) == 2
    found = refusal(document(MAX_DEPTH + 1))
    assert [(d.code, d.message) for d in found] == [("BAD_TOOL_ARGUMENTS", f"Nesting deeper than {MAX_DEPTH} levels")]


def test_diagnostics_equal_the_guards_for_the_parsed_json() -> None:
    documents = [
        b'[{"role":"toolResult","id":"r","toolCallId":"c","toolName":"n","content":"","isError":false}]',
        b'[{"role":"user","id":1,"content":2},{"role":"assistant","id":"a","content":[{"type":"toolCall","id":"c","name":"n","arguments":{}}]}]',
        b'[{"role":"assistant","id":"a","content":[{"type":"toolCall","id":"c","name":"n","arguments":{}}]},'
        b'{"role":"toolResult","id":"r","toolCallId":"c","toolName":"m","content":"","isError":false}]',
    ]
    for data in documents:
        assert refusal(data) == validate_transcript(json.loads(data))


def test_decode_takes_bytes_or_str_only() -> None:
    with pytest.raises(TypeError, match=r"^decode_transcript\(\): Expected `bytes` or `str`, got `bytearray`$"):
        decode_transcript(cast("bytes", bytearray(b"[]")))


def test_duplicate_ordinary_keys_keep_the_last_value_as_json_does() -> None:
    data = b'[{"role":"user","id":"u","content":"first","content":"last"}]'
    assert decode_transcript(data) == (user_message(id="u", content="last"),)
    assert validate_transcript(json.loads(data)) == ()


# --- JSON Lines ------------------------------------------------------------------------------


def test_jsonl_round_trip() -> None:
    encoded = encode_jsonl(sample())
    assert encoded.count(b"\n") == 3
    assert encoded.endswith(b"\n")
    assert decode_jsonl(encoded) == sample()
    assert decode_jsonl(encoded.rstrip(b"\n")) == sample()
    assert decode_jsonl(encoded.replace(b"\n", b"\r\n").decode()) == sample()
    assert decode_jsonl(b"") == ()


def test_jsonl_diagnostics_use_line_indexes() -> None:
    lines = encode_jsonl(sample()).splitlines()
    broken = b"\n".join([lines[0], b"", lines[2], b"{oops", lines[1]]) + b"\n"
    with pytest.raises(TranscriptError) as caught:
        decode_jsonl(broken)
    assert [(d.code, d.message_index, d.path) for d in caught.value.diagnostics] == [
        ("INVALID_JSON", 1, "$[1]"),
        ("TOOL_RESULT_BEFORE_CALL", 2, "$[2]"),
        ("INVALID_JSON", 3, "$[3]"),
    ]
    assert caught.value.diagnostics[0].message == "Line 2: Invalid JSON: Expecting value: line 1 column 1 (char 0)"


def test_validate_jsonl_streams_lines_and_agrees_with_the_guard() -> None:
    lines = encode_jsonl(sample()).splitlines(keepends=True)
    assert validate_jsonl(iter(lines)) == ()
    reordered = [lines[2], lines[0], lines[1]]
    expected = validate_transcript([json.loads(line) for line in reordered])
    assert validate_jsonl(iter(reordered)) == expected
    assert [d.code for d in expected] == ["TOOL_RESULT_BEFORE_CALL"]
    assert validate_jsonl([b'{"role":"user","role":"x","id":"u","content":"c"}']) == (
        Diagnostic(
            "UNKNOWN_ROLE", 0, "$[0].role", "Invalid role 'x'; expected one of `user`, `assistant`, `toolResult`"
        ),
    )
    assert validate_jsonl([b'{"role":"user","role":"assistant","id":"u","content":[]}']) == (
        Diagnostic(
            "DUPLICATE_KEY",
            0,
            "$[0].role",
            "Key appears twice with different values; refused rather than keeping the last",
        ),
    )


def test_jsonl_lines_that_are_no_json_alone_are_refused_even_when_they_join_into_messages() -> None:
    # Joined into one array, lines 2 and 3 would read as an assistant message of two text
    # blocks and a user message: one message a line, but neither line is JSON on its own.
    lines = [
        b'{"role":"user","id":"v","content":"c"}',
        b'{"role":"assistant","id":"a","content":[{"type":"text","text":"a"}',
        b'{"type":"text","text":"b"}]},{"role":"user","id":"w","content":"c"}',
    ]
    expected = (
        Diagnostic(
            "INVALID_JSON", 1, "$[1]", "Line 2: Invalid JSON: Expecting ',' delimiter: line 1 column 67 (char 66)"
        ),
        Diagnostic("INVALID_JSON", 2, "$[2]", "Line 3: Invalid JSON: Extra data: line 1 column 27 (char 26)"),
    )
    assert validate_jsonl(lines) == expected
    assert validate_jsonl([line.decode() for line in lines]) == expected
    with pytest.raises(TranscriptError) as caught:
        decode_jsonl(b"\n".join(lines))
    assert caught.value.diagnostics == expected


def test_jsonl_shape_only_decoding() -> None:
    pending = encode_jsonl(sample()[:2])
    assert decode_jsonl(pending, check_linkage=False) == sample()[:2]
    with pytest.raises(TranscriptError):
        decode_jsonl(pending)


def test_struct_json_is_msgspec_compatible() -> None:
    assert msgspec.json.decode(encode_transcript(sample())) == json.loads(encode_transcript(sample()))


def test_a_repeated_key_keeps_its_last_value_in_every_decoder() -> None:
    line = '{"role":"user","id":5,"id":"b","content":"x"}'
    assert validate_transcript(json.loads(f"[{line}]")) == ()
    assert decode_transcript(f"[{line}]") == (user_message(id="b", content="x"),)
    assert decode_jsonl(line) == (user_message(id="b", content="x"),)
    assert validate_jsonl([line]) == ()


def test_a_repeated_discriminant_with_another_value_is_a_duplicate_key() -> None:
    retagged = Diagnostic(
        "DUPLICATE_KEY", 0, "$[0].role", "Key appears twice with different values; refused rather than keeping the last"
    )
    for line in (
        '{"role":5,"role":"user","id":"b","content":"x"}',
        '{"role":"assistant","role":"user","id":"b","content":"x"}',
    ):
        assert refusal(f"[{line}]") == (retagged,)
        assert validate_jsonl([line]) == (retagged,)
    block = '{"role":"assistant","id":"a","content":[{"type":"toolCall","type":"text","text":"t"}]}'
    assert refusal(f"[{block}]") == (
        Diagnostic(
            "DUPLICATE_KEY",
            0,
            "$[0].content[0].type",
            "Key appears twice with different values; refused rather than keeping the last",
        ),
    )
    same = '[{"role":"user","role":"user","id":"b","content":"x"}]'
    assert decode_transcript(same) == (user_message(id="b", content="x"),)


def test_a_repeated_type_inside_arguments_is_an_ordinary_key() -> None:
    text = (
        '[{"role":"assistant","id":"a","content":[{"type":"toolCall","id":"c","name":"n",'
        '"arguments":{"type":1,"type":"x"}}]},'
        '{"role":"toolResult","id":"r","toolCallId":"c","toolName":"n","content":"","isError":false}]'
    )
    decoded = decode_transcript(text)
    assert validate_transcript(json.loads(text)) == ()
    call = decoded[0].content[0]
    assert type(call) is ToolCall
    assert call.arguments == {"type": "x"}


def test_str_input_with_a_raw_lone_surrogate_is_explained_not_raised() -> None:
    text = '[{"role":"user","id":"u","content":"\ud800"}]'
    assert refusal(text) == (
        Diagnostic(
            "BAD_CONTENT", 0, "$[0].content", "Expected a `str` encodable as UTF-8, got one with a lone surrogate"
        ),
    )
    with pytest.raises(TranscriptError) as caught:
        decode_jsonl('{"role":"user","id":"u","content":"\ud800"}\n')
    assert [d.code for d in caught.value.diagnostics] == ["BAD_CONTENT"]
