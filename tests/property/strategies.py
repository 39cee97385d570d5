"""hypothesis strategies: valid transcripts over the whole JSON domain, broken ones, hostile values."""

from __future__ import annotations

import msgspec
from hypothesis import strategies as st

from message_ir import (
    JsonInput,
    Message,
    ToolCall,
    ToolResultMessage,
    assistant_message,
    tool_result_message,
    user_message,
)
from tests.support import Color, DictSub, Explosive, Hostile, ListSub, StrSub

# Text without lone surrogates (hypothesis's default excludes category Cs), astral included.
texts = st.text(alphabet=st.characters(codec="utf-8"), max_size=12)
identifiers = st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=8)

scalars: st.SearchStrategy[JsonInput] = st.one_of(
    texts,
    st.integers(),  # unbounded: large integers must survive
    st.floats(allow_nan=False, allow_infinity=False),  # -0.0, subnormals and the extremes included
    st.sampled_from([-0.0, 5e-324, 1.7976931348623157e308, -1.7976931348623157e308, 2**63, -(2**64)]),
    st.booleans(),
    st.none(),
)

json_values: st.SearchStrategy[JsonInput] = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(texts, children, max_size=4),
    ),
    max_leaves=12,
)

arguments_objects = st.dictionaries(texts, json_values, max_size=5)


@st.composite
def transcripts(draw: st.DrawFn) -> tuple[Message, ...]:
    """A valid transcript: rounds of user, assistant (text and calls interleaved), results."""
    messages: list[Message] = []
    counter = 0
    for round_index in range(draw(st.integers(0, 4))):
        messages.append(user_message(id=f"u{round_index}", content=draw(texts)))
        blocks: list[ToolCall | dict[str, object]] = []
        for _ in range(draw(st.integers(0, 4))):
            if draw(st.booleans()):
                blocks.append({"type": "text", "text": draw(texts)})
            else:
                counter += 1
                call_id = f"{draw(identifiers)}#{counter}"  # unique across the transcript
                blocks.append(
                    {"type": "toolCall", "id": call_id, "name": draw(identifiers), "arguments": draw(arguments_objects)}
                )
        assistant = assistant_message(id=f"a{round_index}", content=blocks)  # type: ignore[arg-type]  # loose dicts
        messages.append(assistant)
        calls = [block for block in assistant.content if type(block) is ToolCall]
        for call in draw(st.permutations(calls)):
            messages.append(
                tool_result_message(
                    id=f"r-{call.id}",
                    tool_call_id=call.id,
                    tool_name=call.name,
                    content=draw(texts),
                    is_error=draw(st.booleans()),
                )
            )
    return tuple(messages)


@st.composite
def broken_transcripts(draw: st.DrawFn) -> tuple[Message, ...]:
    """A valid transcript whose results were deleted, duplicated, moved or renamed."""
    messages = list(draw(transcripts()))
    for _ in range(draw(st.integers(0, 4))):
        results = [index for index, message in enumerate(messages) if type(message) is ToolResultMessage]
        operation = draw(st.sampled_from(["delete", "duplicate", "move", "rename", "orphan", "duplicate-call"]))
        if operation == "orphan":
            messages.insert(
                draw(st.integers(0, len(messages))),
                tool_result_message(id="orphan", tool_call_id=f"ghost-{draw(identifiers)}", tool_name="x", content=""),
            )
            continue
        if operation == "duplicate-call":
            assistants = [m for m in messages if m.role == "assistant" and m.content]
            if assistants:
                messages.append(draw(st.sampled_from(assistants)))
            continue
        if not results:
            continue
        index = draw(st.sampled_from(results))
        result = messages[index]
        assert type(result) is ToolResultMessage
        if operation == "delete":
            del messages[index]
        elif operation == "duplicate":
            messages.insert(draw(st.integers(0, len(messages))), result)
        elif operation == "move":
            del messages[index]
            messages.insert(draw(st.integers(0, len(messages))), result)
        else:
            messages[index] = tool_result_message(
                id=result.id,
                tool_call_id=result.tool_call_id,
                tool_name=result.tool_name + "-renamed",
                content=result.content,
                is_error=result.is_error,
            )
    return tuple(messages)


def power_of_ten(digits: int) -> int:
    """An integer of `digits + 1` digits, negative for odd counts (built here: hypothesis cannot
    show an integer past the digit limit in a strategy's description)."""
    value: int = 10**digits
    return -value if digits % 2 else value


HOSTILE_MARK = "\x00hostile"
"""Where a test puts a `Hostile` (`armed`): hypothesis itself hashes and names what it draws,
which a `Hostile` forbids, so the strategies carry this mark instead."""


def armed(value: object) -> object:
    """`value` with every `HOSTILE_MARK` (as a value, not a key) replaced by a `Hostile`."""
    if type(value) is str and value == HOSTILE_MARK:
        return Hostile()
    if type(value) is list:
        return [armed(item) for item in value]
    if type(value) is tuple:
        return tuple(armed(item) for item in value)
    if type(value) is dict:
        return {key: armed(item) for key, item in value.items()}
    return value


hostile_leaves: st.SearchStrategy[object] = st.one_of(
    scalars,
    st.sampled_from([float("nan"), float("inf"), -float("inf"), b"bytes", Color.RED, 1j, {1, 2}, frozenset()]),
    st.integers(4295, 4305).map(power_of_ten),  # about Python's digit limit for int <-> str (4,300)
    st.builds(Explosive),
    st.just(HOSTILE_MARK),
    texts.map(StrSub),
    st.just("\ud800"),
    st.sampled_from(["user", "assistant", "toolResult", "text", "toolCall", "opaque", "role", "type", "id", "content"]),
)


def _containers(children: st.SearchStrategy[object]) -> st.SearchStrategy[object]:
    keys = st.one_of(
        st.sampled_from(
            ["role", "id", "content", "type", "text", "name", "arguments", "toolCallId", "toolName", "isError", "meta"]
        ),
        texts,
        st.integers(),
        texts.map(StrSub),
    )
    return st.one_of(
        st.lists(children, max_size=4),
        st.lists(children, max_size=4).map(tuple),
        st.lists(children, max_size=3).map(ListSub),
        st.dictionaries(keys, children, max_size=5),
        st.dictionaries(texts, children, max_size=3).map(DictSub),
    )


hostile_values: st.SearchStrategy[object] = st.recursive(hostile_leaves, _containers, max_leaves=20)


_WRONG_FIELD_VALUES: st.SearchStrategy[object] = st.one_of(
    hostile_leaves,
    st.sampled_from(["", "\ud800", "x\udfff", 0, True, None, (), []]),
    st.sampled_from([b"", b"[]", b"{", b'{"a":1}', b'{"a":NaN}', b"1", b'{"\\ud800":1}']).map(msgspec.Raw),
)


@st.composite
def malformed_structs(draw: st.DrawFn) -> list[object]:
    """A valid transcript of structs with one field of one message or block replaced by a value
    of the wrong type or range (calling the classes directly checks nothing), or a tuple field
    by a list of the same items."""
    transcript: list[object] = list(draw(transcripts()))
    if not transcript:
        return transcript
    index = draw(st.integers(0, len(transcript) - 1))
    message = transcript[index]
    assert isinstance(message, msgspec.Struct)
    target: msgspec.Struct = message
    blocks = getattr(message, "content", None)
    block_index = None
    if type(blocks) is tuple and blocks and draw(st.booleans()):
        block_index = draw(st.integers(0, len(blocks) - 1))
        target = blocks[block_index]
    field = draw(st.sampled_from(target.__struct_fields__))
    value: object = getattr(target, field)
    value = list(value) if type(value) is tuple and draw(st.booleans()) else armed(draw(_WRONG_FIELD_VALUES))
    changed = msgspec.structs.replace(target, **{field: value})
    if block_index is not None:
        assert type(blocks) is tuple
        changed = msgspec.structs.replace(message, content=(*blocks[:block_index], changed, *blocks[block_index + 1 :]))
    transcript[index] = changed
    return transcript
