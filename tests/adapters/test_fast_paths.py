"""One contract over every fast path of `check-dataset`: a line a format's fast path takes is
one its careful path (`check_example`) finds nothing wrong with, whatever is done to it; and
the plain lines a dataset holds are taken.

The lines are generated OpenAI fine-tuning records (`tests/dataset_factory.py`, every kind of
broken line too) converted to each format, then mutated anywhere in their JSON tree: keys
deleted, added or given another value, list items deleted, repeated or swapped, strings
swapped for other strings of the same line (so IDs collide and names change), one string
renamed everywhere it is (an ID with its results, a tool with its calls).
"""

from __future__ import annotations

import copy
import json
import random
import re
from collections.abc import Callable

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from message_ir import Diagnostic
from message_ir.adapters import (
    FORMATS,
    FormatError,
    _fast_line,
    anthropic,
    convert,
    detect,
    gemini,
    gemini_cli,
    openai_chat,
    openai_responses,
)
from tests.adapters.real import real_files
from tests.dataset_factory import KINDS, line, single_calls, with_tools

FAST: dict[str, Callable[[bytes], bool]] = {
    name: declared.fast_path for name, declared in FORMATS.items() if declared.fast_path is not None
}


def careful(name: str, data: bytes) -> tuple[Diagnostic, ...]:
    """What `check` of `data` says without asking the fast path: `load_checked`'s diagnostics
    (the same `check` gives, from the careful load)."""
    return FORMATS[name].functions.load_checked(data).diagnostics


def test_every_dataset_format_has_a_fast_path() -> None:
    assert sorted(FAST) == sorted(name for name, declared in FORMATS.items() if declared.dataset_line)


def _in_format(data: bytes, name: str) -> bytes:
    """A generated line in the terms of `name`, tools declared (as it was, when it is no
    conversation); for ShareGPT, with one call a turn, as its position rule needs."""
    if name == "sharegpt":
        data = single_calls(data)
    try:
        conversation = openai_chat.load(data)
    except FormatError:
        return data
    return with_tools(FORMATS[name].functions.dumps(convert(conversation, name)), name)


_VALUES: tuple[object, ...] = (
    None,
    True,
    0,
    -1,
    1.5,
    "",
    "x",
    "call 1",
    "c" * 70,
    "tool",
    "user",
    "assistant",
    "model",
    "text",
    "get_weather",
    "add_event",
    "function",
    "error",
    '{"city": "Oslo"}',
    '{"city": 1}',
    "[]",
    [],
    {},
    {"city": 1},
    {"type": "text", "text": "t"},
    [{"type": "text", "text": "t"}],
    "gemini",
    [{"text": "t"}],
    [{"functionResponse": {"id": "x", "name": "tool", "response": {"output": "o"}}}],
)
_KEYS: tuple[str, ...] = (
    "id",
    "type",
    "role",
    "name",
    "content",
    "text",
    "is_error",
    "thought",
    "weight",
    "status",
    "extra",
    "call_id",
    "arguments",
    "tool_call_id",
    "args",
    "result",
    "toolCalls",
    "functionResponse",
)


def _nodes(value: object, found: list[object]) -> list[object]:
    """Every dict and list in `value`, itself first."""
    if type(value) is dict or type(value) is list:
        found.append(value)
        for item in value.values() if type(value) is dict else value:
            _nodes(item, found)
    return found


def _strings(value: object, found: list[str]) -> list[str]:
    if type(value) is str:
        found.append(value)
    elif type(value) is dict:
        for item in value.values():
            _strings(item, found)
    elif type(value) is list:
        for item in value:
            _strings(item, found)
    return found


def _renamed(value: object, old: str, new: str) -> object:
    """`value` with every string value `old` (an ID, a name, a role) made `new`."""
    if type(value) is dict:
        return {key: _renamed(item, old, new) for key, item in value.items()}
    if type(value) is list:
        return [_renamed(item, old, new) for item in value]
    return new if value == old else value


def _mutated(data: st.DataObject, value: object) -> object:
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        nodes = _nodes(value, [])
        if not nodes:
            return value
        strings = _strings(value, []) or ["x"]
        if data.draw(st.integers(0, 3), label="rename") == 0:  # one string, everywhere
            new = data.draw(st.sampled_from([text for text in _VALUES if type(text) is str]) | st.sampled_from(strings))
            value = _renamed(value, data.draw(st.sampled_from(strings)), new)
            continue
        node = data.draw(st.sampled_from(nodes))
        choices = (st.sampled_from(_VALUES) | st.sampled_from(strings) | st.sampled_from(nodes)).map(copy.deepcopy)
        if type(node) is dict:
            keys = list(node)
            action = data.draw(st.sampled_from(["delete", "replace", "add"] if keys else ["add"]))
            if action == "add":
                node[data.draw(st.sampled_from(_KEYS))] = data.draw(choices)
            else:
                key = data.draw(st.sampled_from(keys))
                if action == "delete":
                    del node[key]
                else:
                    node[key] = data.draw(choices)
        elif type(node) is list and node:
            index = data.draw(st.integers(0, len(node) - 1))
            action = data.draw(st.sampled_from(["delete", "replace", "repeat", "swap"]))
            if action == "delete":
                del node[index]
            elif action == "replace":
                node[index] = data.draw(choices)
            elif action == "repeat":
                node.insert(index, copy.deepcopy(node[index]))
            else:
                other = data.draw(st.integers(0, len(node) - 1))
                node[index], node[other] = node[other], node[index]
    return value


@pytest.mark.parametrize("name", sorted(FAST))
@given(seed=st.integers(0, 10_000), data=st.data())
def test_a_fast_path_takes_only_what_the_careful_path_finds_clean(name: str, seed: int, data: st.DataObject) -> None:
    rng = random.Random(seed)
    kind = data.draw(st.sampled_from(sorted(KINDS)), label="kind")
    base = _in_format(line(kind, rng), name)
    try:
        value: object = json.loads(base)
    except ValueError:
        return
    value = _mutated(data, value)
    key = FORMATS[name].messages_key
    if type(value) is dict and key in value and data.draw(st.booleans(), label="bare"):
        value = value[key]  # the messages alone, as `check` takes them
    text = json.dumps(value, ensure_ascii=data.draw(st.booleans(), label="ascii")).encode()
    if FAST[name](text):
        assert FORMATS[name].functions.check_example(text) == ()
        assert careful(name, text) == ()  # what `check` would say without asking the fast path


@pytest.mark.parametrize("name", sorted(FAST))
def test_a_fast_path_takes_every_valid_generated_line_and_no_broken_one(name: str) -> None:
    rng = random.Random(5)
    for kind in KINDS:
        for _ in range(20):
            data = _in_format(line(kind, rng), name)
            fast = FAST[name](data)
            if kind == "valid":
                assert fast, data  # the plain shape a dataset holds: taken, so the fast path pays
                assert FORMATS[name].functions.check_example(data) == ()
                assert careful(name, data) == ()
            elif fast:  # a broken kind may be clean once converted (Responses needs no adjacency)
                assert FORMATS[name].functions.check_example(data) == (), (kind, data)


@pytest.mark.parametrize(
    ("name", "folder", "pattern"),
    [
        ("sharegpt", "sharegpt", "llama-factory_glaive-*.json"),
        ("hf_chat", "hf-chat", "*.json*"),
        ("openai_chat", "datasets", "*.jsonl"),
    ],
)
def test_on_real_rows_a_fast_path_is_never_more_lenient(name: str, folder: str, pattern: str) -> None:
    for path in real_files(folder, pattern):
        text = path.read_bytes()
        rows = json.loads(text) if text.lstrip().startswith(b"[") else [json.loads(row) for row in text.splitlines()]
        for row in rows if type(rows) is list else [rows]:
            data = json.dumps(row, ensure_ascii=False).encode()
            if FAST[name](data):
                assert FORMATS[name].functions.check_example(data) == (), path.name


@pytest.mark.parametrize(
    "tools",
    [
        b"[",  # not JSON
        b"null",  # no list
        b'[{"type": "function", "function": {"name": ""}}]',  # a declaration with a problem
        b'[{"type": "function", "function": {"name": "f"}}, {"type": "function", "function": {"name": "f"}}]',
        b'[{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "minLength": "x"}}}]',
        b'[{"type": "function", "function": {"name": "f", "parameters": '
        + b'{"items": ' * 40
        + b"{}"
        + b"}" * 40
        + b"}}]",
    ],
)
def test_tools_the_careful_path_has_something_to_say_about_leave_the_line_to_it(tools: bytes) -> None:
    from message_ir.adapters import _fast_line

    assert _fast_line.declared_tools(FORMATS["openai_chat"].tools, tools) is None  # type: ignore[arg-type]  # declared


def test_without_the_schema_extra_a_line_declaring_schemas_goes_to_the_careful_path() -> None:
    from unittest import mock

    from message_ir.adapters import _fast_line, _schema_engine

    tools = b'[{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]'
    with mock.patch.object(_schema_engine, "available", return_value=False):
        assert _fast_line.declared_tools(FORMATS["openai_chat"].tools, tools) is None  # type: ignore[arg-type]
    assert _fast_line.declared_tools(FORMATS["openai_chat"].tools, tools) is not None  # type: ignore[arg-type]


@given(st.one_of(st.text(max_size=12), st.text(alphabet="aZ09_-é ~.", max_size=12)))
def test_a_call_id_fits_the_linkage_as_it_fits_the_rule(call_id: str) -> None:
    # Anthropic's rule is asked of an ASCII identifier without its pattern: the shortcut
    # must give the pattern's verdict on every ID.
    for rule in (anthropic.ID_RULE, openai_chat.ID_RULE):
        linkage = _fast_line.Linkage(None, rule)
        assert linkage.call(call_id, "f", "{}") == (bool(call_id) and rule.problem(call_id) is None), (rule, call_id)


def test_ids_outside_the_identifier_shortcut_are_asked_of_the_pattern() -> None:
    fits = {
        call_id: _fast_line.Linkage(None, anthropic.ID_RULE).call(call_id, "f", "{}")
        for call_id in ("toolu_01A", "9lives", "a-b", "_", "é", "a b", "a" * 64, "a" * 65)
    }
    assert fits == {
        "toolu_01A": True,
        "9lives": True,
        "a-b": True,
        "_": True,
        "é": False,
        "a b": False,
        "a" * 64: True,
        "a" * 65: False,
    }


def _sharegpt_call_row(call: str) -> bytes:
    """A ShareGPT row declaring no tools (any call goes) whose one call is the text `call`."""
    turns = [
        {"from": "human", "value": "Hi"},
        {"from": "function_call", "value": call},
        {"from": "observation", "value": "ok"},
        {"from": "gpt", "value": "Done"},
    ]
    return json.dumps({"conversations": turns}).encode()


_ARGUMENT = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.sampled_from([10**3000, -(10**3001), 2**64])
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)


@given(
    arguments=st.dictionaries(st.text(max_size=4), _ARGUMENT, max_size=4),
    depth=st.integers(0, 70),
    spelled=st.sampled_from(["", "1e999", "-1e999", "1E400", '"\\ud800"', "NaN", "[[1]]", "[{}]"]),
    many=st.booleans(),
)
def test_a_sharegpt_call_the_fast_path_takes_is_clean(
    arguments: dict[str, object], depth: int, spelled: str, many: bool
) -> None:
    # The fast path reads a call's arguments as scalars and lists of scalars first, and asks
    # `plain` only of the rest: whatever the arguments hold, nested or spelled, it may take a
    # row only when the careful path finds nothing wrong with it.
    nested: object = "x"
    for _ in range(depth):
        nested = [nested]
    text = json.dumps({"name": "f", "arguments": {**arguments, "deep": nested, "spelled": "SPELLED"}})
    text = text.replace('"SPELLED"', spelled) if spelled else text
    call = f"[{text}]" if many else text
    row = _sharegpt_call_row(call)
    if FAST["sharegpt"](row):
        assert FORMATS["sharegpt"].functions.check_example(row) == ()


def test_a_sharegpt_call_of_scalars_and_lists_is_taken_and_a_deep_one_left() -> None:
    taken = [
        {"city": "Rome", "days": 3, "hot": 1.5, "sure": True, "unit": None},
        {"attendees": ["Ann", "Bo"], "slots": [1, 2.5, None]},
        {"where": {"city": "Rome"}, "tags": [["a"]]},  # nested further: `plain` asked, and it fits
    ]
    for arguments in taken:
        for call in (json.dumps({"name": "f", "arguments": arguments}),) * 2:
            assert FAST["sharegpt"](_sharegpt_call_row(call)), arguments
            assert FAST["sharegpt"](_sharegpt_call_row(f"[{call}, {call}]")) is False  # one observation for two
    deep: object = 1
    for _ in range(40):
        deep = [deep]
    left = [
        json.dumps({"name": "f", "arguments": {"deep": deep}}),  # 40 levels: the careful path's to judge
        json.dumps({"name": "f", "arguments": {"big": 10**3000}}),  # a number the IR's rule may refuse
        '{"name": "f", "arguments": {"far": 1e999}}',
        '{"name": "f", "arguments": {"far": [1e999]}}',
    ]
    for call in left:
        assert FAST["sharegpt"](_sharegpt_call_row(call)) is False, call[:60]
    assert FORMATS["sharegpt"].functions.check_example(_sharegpt_call_row(left[-1])) != ()


def test_declared_tools_are_remembered_by_their_raw_text_and_the_schema_extra() -> None:
    from unittest import mock

    from message_ir.adapters import _schema_engine

    def raw(name: str) -> msgspec.Raw:  # as a fast path decodes a line's `tools`
        tool = {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
        return msgspec.json.decode(json.dumps({"tools": [tool]}), type=dict[str, msgspec.Raw])["tools"]

    reader = FORMATS["openai_chat"].tools
    assert reader is not None
    first, second = _fast_line.declared_of(reader, raw("f")), _fast_line.declared_of(reader, raw("g"))
    assert (first[0], sorted(first[1] or ())) == (True, ["f"])
    assert (second[0], sorted(second[1] or ())) == (True, ["g"])
    assert _fast_line.declared_of(reader, raw("g")) is second  # the same text: the last answer
    with mock.patch.object(_schema_engine, "available", return_value=False):
        assert _fast_line.declared_of(reader, raw("g")) == (False, None)  # the careful path says the extra is missing
    assert _fast_line.declared_of(reader, raw("g")) == second
    assert _fast_line.declared_of(reader, msgspec.Raw(b"null")) == (True, None)


@given(
    arguments=st.dictionaries(st.text(max_size=4), _ARGUMENT, max_size=4),
    depth=st.integers(0, 70),
    spelled=st.sampled_from(["", "1e999", "1E400", '"\\ud800"', "NaN", "[[1]]", "[{}]", "[1e999]"]),
)
def test_arguments_a_linkage_takes_are_within_the_irs_rule(
    arguments: dict[str, object], depth: int, spelled: str
) -> None:
    # Read first as scalars and lists of scalars, the rest asked of `plain`: in every form a
    # format hands them over, arguments taken are arguments the IR takes, well within its depth.
    from message_ir._argument_text import depth_exceeds, is_arguments_text
    from message_ir._json_rule import check_json_tree

    nested: object = "x"
    for _ in range(depth):
        nested = [nested]
    text = json.dumps({**arguments, "deep": nested, "spelled": "SPELLED"})
    text = text.replace('"SPELLED"', spelled) if spelled else text
    data = text.encode()
    raw = (
        msgspec.json.decode(b'{"a": ' + data + b"}", type=dict[str, msgspec.Raw])["a"]
        if is_arguments_text(data)
        else None
    )
    for given_as in (text, data, raw):
        if given_as is None:
            continue
        taken = _fast_line.Linkage(None, openai_chat.ID_RULE).call("call_1", "f", given_as)
        read = _fast_line.arguments_object(given_as if type(given_as) is not msgspec.Raw else bytes(given_as))
        if taken or read is not None:
            assert is_arguments_text(data), text[:80]
            assert check_json_tree(msgspec.json.decode(data), copy=False)[0] is None, text[:80]
            assert not depth_exceeds(data, _fast_line.MAX_BRACKETS), text[:80]
        assert taken == (read is not None), text[:80]


@pytest.mark.parametrize("name", ["openai_chat", "hf_chat"])
def test_a_chat_formats_messages_alone_take_its_fast_path(name: str) -> None:
    # `check` of a list of messages (no body around them) is asked of the fast path too: a
    # plain list is taken, one with a call left without its result is not.
    rng = random.Random(3)
    for _ in range(20):
        value = json.loads(_in_format(line("valid", rng), name))
        messages = json.dumps(value["messages"]).encode()
        assert FAST[name](messages), messages
        assert careful(name, messages) == ()
    calling = [
        {"role": "user", "content": "Hi"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}},
            ],
        },
        {"role": "assistant", "content": "Done"},
    ]
    data = json.dumps(calling).encode()
    assert FAST["openai_chat"](data) is False
    assert [diagnostic.code for diagnostic in FORMATS["openai_chat"].functions.check(data)] == ["MISSING_TOOL_RESULT"]


@pytest.mark.parametrize("name", sorted(FAST))
@pytest.mark.parametrize("ids", [["a", "a"], ["a", "a", "a~2"], ["a~2", "a", "a"], ["a", "a~2", "a", "a~3"]])
def test_a_call_id_used_again_once_answered_is_taken_as_the_careful_path_takes_it(name: str, ids: list[str]) -> None:
    # A load names a call ID used again after its result anew (real trajectories do so), and
    # the careful path says nothing of it: the linkage asks an ID only to differ from the
    # calls still waiting. (IDs holding `~`, which a load's new names avoid, are mixed in.)
    messages: list[object] = [{"role": "user", "content": "Hi"}]
    for number in range(len(ids)):
        function = {"name": "get_weather", "arguments": json.dumps({"city": f"c{number}"})}
        call = {"id": f"call{number}x", "type": "function", "function": function}
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": f"call{number}x", "content": "ok"})
    messages.append({"role": "assistant", "content": "Done"})
    data = _in_format(json.dumps({"messages": messages}).encode(), name)
    for number, call_id in enumerate(ids):  # the IDs given after the conversion, which renames none
        data = data.replace(f'"call{number}x"'.encode(), json.dumps(call_id).encode())
    fast = FAST[name](data)
    if fast:
        assert FORMATS[name].functions.check_example(data) == ()
        assert careful(name, data) == ()
    if ids == ["a", "a"]:
        assert fast, data  # taken: not a test that cannot fail


def test_two_calls_of_one_message_sharing_an_id_are_left_to_the_careful_path() -> None:
    calls = [
        {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}},
        {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}},
    ]
    messages = [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": None, "tool_calls": calls},
        {"role": "tool", "tool_call_id": "a", "content": "ok"},
        {"role": "tool", "tool_call_id": "a", "content": "ok"},
        {"role": "assistant", "content": "Done"},
    ]
    data = json.dumps({"messages": messages}).encode()
    assert FAST["openai_chat"](data) is False
    assert FORMATS["openai_chat"].functions.check(data) != ()


@given(
    st.lists(st.tuples(st.sampled_from(["1", "x", "é", "{", "\n"]), st.integers(1, 3100)), max_size=4), st.booleans()
)
def test_a_long_number_is_a_run_of_digits_as_long_as_the_rule_says(runs: list[tuple[str, int]], as_bytes: bool) -> None:
    text = "".join(character * count for character, count in runs)
    expected = re.search(f"[0-9]{{{_fast_line.LONG_TEXT}}}", text) is not None
    assert _fast_line.long_number(text.encode() if as_bytes else text) == expected


def _real_bodies() -> dict[str, list[bytes]]:
    """Real conversations as each format's `check` takes them: the OpenAI Chat trajectories'
    messages, the API messages the Claude Code logs stand for, the Codex rollouts and the
    gemini-cli recordings converted to Responses and Gemini bodies."""
    from message_ir.adapters import codex, gemini_cli
    from tests.adapters.real import anthropic_messages, openai_chat_messages

    bodies: dict[str, list[bytes]] = {name: [] for name in ("openai_chat", "anthropic", "openai_responses", "gemini")}
    for path in real_files("openai-chat", "*.json"):
        bodies["openai_chat"].append(json.dumps(openai_chat_messages(path)).encode())
    for path in real_files("anthropic", "*.jsonl"):
        body = {"model": "m", "max_tokens": 1024, "messages": anthropic_messages(path)}
        bodies["anthropic"].append(json.dumps(body).encode())
    for path in real_files("openai-responses", "*.jsonl"):
        bodies["openai_responses"].append(
            openai_responses.dumps(convert(codex.load(path.read_bytes()), "openai_responses"))
        )
    for path in real_files("gemini", "*.json"):
        bodies["gemini"].append(gemini.dumps(convert(gemini_cli.load(path.read_bytes()), "gemini")))
    return bodies


_REAL_BODIES: dict[str, list[bytes]] = {}


def _bodies() -> dict[str, list[bytes]]:
    if not _REAL_BODIES:
        _REAL_BODIES.update(_real_bodies())
    return _REAL_BODIES


def test_real_bodies_the_fast_path_takes_are_clean_and_some_are_taken() -> None:
    taken: set[str] = set()
    for name, bodies in _bodies().items():
        for body in bodies:
            if FAST[name](body):
                taken.add(name)
                assert careful(name, body) == ()
                assert FORMATS[name].functions.check(body) == ()
    assert {
        "openai_chat",
        "anthropic",
        "openai_responses",
        "gemini",
    } <= taken  # `check` of them pays the fast path's price only


@settings(max_examples=100, deadline=None)
@given(name=st.sampled_from(["openai_chat", "anthropic", "openai_responses", "gemini"]), data=st.data())
def test_a_mutated_real_body_the_fast_path_takes_is_clean(name: str, data: st.DataObject) -> None:
    bodies = _bodies()[name]
    value: object = json.loads(data.draw(st.sampled_from(bodies), label="body"))
    text = json.dumps(_mutated(data, value), ensure_ascii=data.draw(st.booleans(), label="ascii")).encode()
    if FAST[name](text):
        assert careful(name, text) == ()


def _recordings() -> list[bytes]:
    """The real gemini-cli recordings."""
    found = [path.read_bytes() for path in real_files("gemini", "*.json")]
    return [data for data in found if detect(data) == gemini_cli.NAME]


def test_gemini_clis_fast_path_takes_real_recordings_only_when_clean_and_takes_some() -> None:
    """Not a test that cannot fail: some real recording is taken (whatever recordings the
    folder gains), and each one taken is clean to the careful path."""
    taken = 0
    for data in _recordings():
        if gemini_cli._is_clean(data):
            taken += 1
            assert careful(gemini_cli.NAME, data) == ()
            assert gemini_cli.check(data) == ()
    assert taken > 0


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_a_mutated_real_recording_gemini_clis_fast_path_takes_is_clean(data: st.DataObject) -> None:
    """gemini-cli's fast path of `check` (a recording is no dataset line: it has no
    `check-dataset` fast path) takes only recordings its careful path finds clean."""
    value: object = json.loads(data.draw(st.sampled_from(_recordings()), label="recording"))
    text = json.dumps(_mutated(data, value), ensure_ascii=data.draw(st.booleans(), label="ascii")).encode()
    if gemini_cli._is_clean(text):
        assert careful(gemini_cli.NAME, text) == ()
        assert gemini_cli.check(text) == ()


def _recording(*records: dict[str, object]) -> bytes:
    return json.dumps({"sessionId": "s", "messages": list(records)}).encode()


_CALL: dict[str, object] = {
    "id": "c1",
    "name": "read",
    "args": {"path": "a.py"},
    "result": [{"functionResponse": {"id": "c1", "name": "read", "response": {"output": "ok"}}}],
    "status": "success",
}


@pytest.mark.parametrize(
    ("change", "codes"),
    [
        ({}, []),
        ({"result": None}, ["MISSING_TOOL_RESULT"]),
        ({"result": "ok"}, []),
        ({"result": 3}, ["BAD_FORMAT"]),
        ({"result": [3]}, None),  # clean, but no part of the usual shape: left to the careful path
        ({"args": "{}"}, ["BAD_TOOL_ARGUMENTS"]),
        ({"id": ""}, ["BAD_FORMAT"]),
        ({"name": 3}, ["BAD_FORMAT"]),
        ({"id": "c0"}, ["DUPLICATE_TOOL_CALL_ID"]),  # the ID of the call before it
    ],
)
def test_gemini_clis_fast_path_takes_a_call_as_the_careful_path_judges_it(
    change: dict[str, object], codes: list[str] | None
) -> None:
    data = _recording(
        {"type": "user", "content": "Go."},
        {"type": "gemini", "content": "", "toolCalls": [{**_CALL, "id": "c0"}, {**_CALL, **change}]},
        {"type": "info", "content": "Saved."},
    )
    assert gemini_cli._is_clean(data) is (codes == [])
    assert [diagnostic.code for diagnostic in gemini_cli.check(data)] == (codes or [])


@pytest.mark.parametrize("depth", [50, 56, 57, 58, 59, 60, 62])
def test_a_deep_recording_is_judged_by_gemini_clis_fast_path_as_the_careful_path_judges_it(depth: int) -> None:
    nested: object = "deep"
    for _ in range(depth - 3):  # in the recording, `messages` and the record: `depth` levels
        nested = [nested]
    data = _recording({"type": "user", "content": "Go."}, {"type": "info", "data": nested})
    clean = careful(gemini_cli.NAME, data) == ()
    assert gemini_cli._is_clean(data) is (depth <= 58)
    assert not gemini_cli._is_clean(data) or clean
    assert gemini_cli.check(data) == careful(gemini_cli.NAME, data)


@pytest.mark.parametrize("where", ["result", "system"])
def test_anthropics_fast_path_leaves_a_text_block_without_a_type_to_the_careful_path(where: str) -> None:
    """A text block with no `type` in a result's content or in `system`, where no other kind of
    block may stand: msgspec asks for a tag only to tell a union's members apart, and took it.
    (Found by the property test above.)"""
    block = {"text": "x"}
    result = {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": [block if where == "result" else {"type": "text", "text": "x"}],
    }
    messages = [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}]},
        {"role": "user", "content": [result]},
        {"role": "assistant", "content": "Done"},
    ]
    body = {"max_tokens": 8, "messages": messages, **({"system": [block]} if where == "system" else {})}
    data = json.dumps(body).encode()
    path, index = ("$.messages[2].content[0].content[0]", 2) if where == "result" else ("$.system[0]", None)
    expected = (Diagnostic("BAD_FORMAT", index, path, "Expected a content block with a `type`"),)
    assert not FAST["anthropic"](data)
    assert anthropic.check(data) == expected
    with pytest.raises(FormatError) as raised:
        anthropic.load(data)
    assert raised.value.diagnostics == expected


def test_anthropics_fast_path_takes_stored_responses_and_leaves_what_it_cannot_vouch_for() -> None:
    # A stored response (its `id`, `model`, `usage`, ...), thinking, a call's `caller` and a
    # result's text blocks are taken; a field whose value msgspec would only skip is not.
    usage = {"input_tokens": 3, "cache_creation": {"ephemeral_5m_input_tokens": 1}, "iterations": []}
    response = {"id": "msg_1", "type": "message", "model": "m", "stop_reason": "tool_use", "stop_sequence": None}
    call = {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"a": 1}, "caller": {"type": "direct"}}
    thinking = {"type": "thinking", "thinking": "Let me see.", "signature": "c2ln"}
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "ok"}]}

    def body(**changed: object) -> bytes:
        assistant = {"role": "assistant", "content": [thinking, call], **response, "usage": usage, **changed}
        messages = [
            {"role": "user", "content": "Hi"},
            assistant,
            {"role": "user", "content": [result]},
            {"role": "assistant", "content": "Done"},
        ]
        return json.dumps({"model": "m", "max_tokens": 1024, "messages": messages}).encode()

    assert FAST["anthropic"](body())
    assert careful("anthropic", body()) == ()
    for changed in ({"usage": {"deep": [[1]]}}, {"stop_details": {"type": "x"}}, {"container": None}):
        assert FAST["anthropic"](body(**changed)) is False, changed


def test_responses_fast_path_takes_reasoning_before_an_output_item_of_its_turn_only() -> None:
    reasoning = {"type": "reasoning", "summary": [{"type": "summary_text", "text": "Hm."}], "encrypted_content": "gA=="}
    call = {"type": "function_call", "call_id": "call_1", "name": "f", "arguments": "{}"}
    custom = {
        "type": "custom_tool_call",
        "call_id": "call_2",
        "name": "apply_patch",
        "input": "*** Begin",
        "status": "done",
    }
    answer = {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Done"}],
        "phase": "x",
    }
    user = {"type": "message", "role": "user", "content": "Hi"}

    def body(*items: object, tools: object = None) -> bytes:
        return json.dumps({"input": [user, *items], **({"tools": tools} if tools else {})}).encode()

    def output(call_id: str, kind: str = "function_call_output") -> dict[str, object]:
        return {"type": kind, "call_id": call_id, "output": "ok"}

    taken = [
        body(reasoning, call, output("call_1"), answer),
        body(reasoning, reasoning, answer),
        body(call, output("call_1"), reasoning, answer),
        body(reasoning, custom, output("call_2", "custom_tool_call_output"), answer),
    ]
    for data in taken:
        assert FAST["openai_responses"](data), data
        assert careful("openai_responses", data) == ()
    misplaced = [
        body(answer, reasoning),  # last
        body(reasoning, user, answer),  # before an input item
        body(call, reasoning, output("call_1"), answer),  # before a call's output
    ]
    for data in misplaced:
        assert FAST["openai_responses"](data) is False, data
        assert "REASONING_ITEM_MISPLACED" in {d.code for d in openai_responses.check(data)}
    tools = [{"type": "function", "name": "f", "parameters": {"type": "object"}}]
    declared = body(custom, output("call_2", "custom_tool_call_output"), answer, tools=tools)
    assert FAST["openai_responses"](declared) is False  # a custom call beside declared tools: the careful path's


def test_check_of_text_asks_the_fast_path_and_a_lone_surrogate_is_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    from message_ir.adapters import _functions
    from message_ir.adapters._load_state import read_source

    loads: list[object] = []

    def counted(*arguments: object, **keywords: object) -> object:
        loads.append(arguments[1])
        return read_source(*arguments, **keywords)  # type: ignore[arg-type]  # passed through as given

    rng = random.Random(1)
    data = next(
        data for data in (_in_format(line("valid", rng), "openai_chat") for _ in range(50)) if FAST["openai_chat"](data)
    )
    monkeypatch.setattr(_functions, "read_source", counted)
    assert openai_chat.check(data) == ()
    assert openai_chat.check(data.decode()) == ()
    assert loads == []  # neither loaded: the fast path took both
    value = json.loads(data)
    value["messages"][0]["content"] = "\ud800"  # a lone surrogate: no UTF-8 spells it
    text = json.dumps(value, ensure_ascii=False)
    assert openai_chat.check(text) != ()
    assert loads == [text]


_DEEP = "[" * 100_000 + "]" * 100_000
_SKIPPED_DEEP = {
    "openai_chat": '{"messages": [{"role": "user", "content": "Hi"}], "tools": DEEP}',
    "hf_chat": '{"messages": [{"role": "user", "content": "Hi"}], "tools": DEEP}',
    "sharegpt": '{"conversations": [{"from": "human", "value": "Hi"}], "tools": DEEP}',
    "openai_responses": '{"input": [{"type": "message", "role": "user", "content": "Hi"}], "tools": DEEP}',
    "anthropic": '{"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": '
    '[{"type": "tool_use", "id": "t", "name": "f", "input": {"a": DEEP}}]}]}',
    "gemini": '{"contents": [{"role": "user", "parts": [{"text": "Hi"}]}, {"role": "model", "parts": '
    '[{"functionCall": {"id": "t", "name": "f", "args": {"a": DEEP}}}]}]}',
}


@pytest.mark.parametrize("name", sorted(FAST))
def test_a_field_the_fast_path_skips_nesting_past_msgspecs_limit_goes_to_the_careful_path(name: str) -> None:
    # msgspec says "too deep" of a skipped field (`Raw`) with `RecursionError`: the fast path
    # leaves the line to the careful path, and neither `check` nor the dataset check raises.
    from message_ir.datasets import check_lines

    data = _SKIPPED_DEEP[name].replace("DEEP", _DEEP).encode()
    too_deep = Diagnostic("JSON_TOO_DEEP", None, "$", "JSON nested too deeply to parse")
    assert FAST[name](data) is False
    assert FORMATS[name].functions.check(data) == (too_deep,)
    assert [report.diagnostics for report in check_lines([data], name)] == [(too_deep,)]
