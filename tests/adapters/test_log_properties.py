"""Properties of the session-log adapters on generated logs: `dumps(load(log))` gives every
line back (values and key order), `check` never raises, and a repaired log keeps every
original line in order and passes the IR's linkage checks.

The generators write what the real logs hold (Claude Code lines sharing one `message.id`,
results between them, Codex `response_item`s among events, pi messages among other entries),
with IDs from a small pool so that calls, results, reuses and orphans all occur. Claude Code
calls get unique IDs, as Anthropic gives them: a reused ID across the interleaved lines of two
split messages cannot be told apart in the file itself (each result line answers the latest
call line with its ID), so no reader could pair those back.
"""

from __future__ import annotations

import json
from types import ModuleType

import msgspec
from hypothesis import given
from hypothesis import strategies as st

from message_ir import repair_transcript
from message_ir.adapters import claude_code, codex, detect, pi
from tests.adapters.test_adapters import _json, _text
from tests.support import assert_saves_in_the_ir

_call_ids = st.sampled_from(["toolu_1", "toolu_2", "call_a", "c"])
_names = st.sampled_from(["Read", "Bash"])
_extra = st.dictionaries(st.sampled_from(["cwd", "version", "x_other"]), _json, max_size=2)


@st.composite
def claude_code_lines(draw: st.DrawFn) -> list[object]:
    lines: list[object] = []
    message_ids = st.sampled_from(["msg_1", "msg_2", "msg_3"])
    call_ids: list[str] = ["toolu_lost"]
    for number in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["user", "result", "assistant", "progress", "summary"]))
        line: dict[str, object] = {"parentUuid": None, "sessionId": "s", "type": kind, "uuid": f"u{number}"}
        if kind == "user":
            line["message"] = {"role": "user", "content": draw(_text)}
        elif kind == "result":  # one result or more in a line (one IR message each), maybe text after
            line["type"] = "user"
            blocks: list[object] = []
            for _ in range(draw(st.integers(1, 3))):
                block: dict[str, object] = {
                    "tool_use_id": draw(st.sampled_from(call_ids)),
                    "type": "tool_result",
                    "content": draw(_text),
                }
                if draw(st.booleans()):
                    block["is_error"] = True
                if draw(st.booleans()):  # another key order: each result keeps its own
                    block = dict(reversed(block.items()))
                blocks.append(block)
            for _ in range(draw(st.integers(0, 2))):  # text after the results: the line goes on
                blocks.append({"type": "text", "text": draw(_text)})
            line["message"] = {"role": "user", "content": blocks}
        elif kind == "assistant":
            content: list[object] = []
            for part in range(draw(st.integers(1, 2))):
                if draw(st.booleans()):
                    call_ids.append(f"toolu_{number}_{part}")
                    content.append(
                        {
                            "type": "tool_use",
                            "id": call_ids[-1],
                            "name": draw(_names),
                            "input": draw(st.dictionaries(_text, _json, max_size=2)),
                        }
                    )
                else:
                    content.append(draw(st.sampled_from(["text", "thinking"])))
                    content[-1] = (
                        {"type": "text", "text": draw(_text)}
                        if content[-1] == "text"
                        else {"type": "thinking", "thinking": draw(_text), "signature": "sig"}
                    )
            line["message"] = {"id": draw(message_ids), "role": "assistant", "content": content, "model": "m"}
        else:
            line["data"] = draw(_json)
        line.update(draw(_extra))
        lines.append(line)
    return lines


@st.composite
def codex_lines(draw: st.DrawFn) -> list[object]:
    lines: list[object] = [{"timestamp": "t0", "type": "session_meta", "payload": {"id": "s"}}]
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["user", "assistant", "call", "output", "reasoning", "event"]))
        payload: dict[str, object]
        if kind == "user":
            payload = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": draw(_text)}]}
        elif kind == "assistant":
            payload = {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": draw(_text)}],
            }
        elif kind == "call":
            arguments = draw(st.one_of(st.just("{}"), _text, st.dictionaries(_text, _json, max_size=2).map(json.dumps)))
            payload = {
                "type": "function_call",
                "name": draw(_names),
                "arguments": arguments,
                "call_id": draw(_call_ids),
            }
        elif kind == "output":
            payload = {"type": "function_call_output", "call_id": draw(_call_ids), "output": draw(_text)}
        elif kind == "reasoning":
            payload = {"type": "reasoning", "summary": [], "encrypted_content": draw(_text)}
        else:
            payload = {"type": "token_count", "info": draw(_json)}
        line_type = "event_msg" if kind == "event" else "response_item"
        lines.append({"timestamp": draw(_text), "type": line_type, "payload": payload})
    return lines


@st.composite
def pi_lines(draw: st.DrawFn) -> list[object]:
    lines: list[object] = [{"type": "session", "id": "s", "timestamp": "t0", "cwd": "/"}]
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["user", "assistant", "toolResult", "model_change"]))
        message: dict[str, object]
        if kind == "user":
            message = {"role": "user", "content": draw(_text | st.just([{"type": "text", "text": "hi"}]))}
        elif kind == "assistant":
            content: list[object] = [
                draw(
                    st.one_of(
                        _text.map(lambda text: {"type": "text", "text": text}),
                        _text.map(lambda text: {"type": "thinking", "thinking": text}),
                        st.builds(
                            lambda call_id, name, arguments: {
                                "type": "toolCall",
                                "id": call_id,
                                "name": name,
                                "arguments": arguments,
                            },
                            _call_ids,
                            _names,
                            st.dictionaries(_text, _json, max_size=2),
                        ),
                    )
                )
                for _ in range(draw(st.integers(0, 3)))
            ]
            message = {"role": "assistant", "content": content, "provider": "p", "timestamp": 1}
        elif kind == "toolResult":
            message = {
                "role": "toolResult",
                "toolCallId": draw(_call_ids),
                "toolName": draw(_names),
                "content": [{"type": "text", "text": draw(_text)}],
                "isError": draw(st.booleans()),
                "timestamp": 2,
            }
        else:
            lines.append({"type": "model_change", "timestamp": "t", "model": draw(_text)})
            continue
        lines.append({"type": "message", "timestamp": draw(_text), "message": message})
    return lines


@given(st.one_of(claude_code_lines(), codex_lines(), pi_lines()), st.lists(st.booleans(), max_size=8), st.booleans())
def test_dumps_writes_the_lines_dump_gives(lines: list[object], dropped: list[bool], repaired: bool) -> None:
    """`dumps` writes the lines that are no messages from their JSON text: the bytes of `dump`'s
    lines encoded, whichever messages were dropped (a tree relinked) or added (a repair)."""
    module = {"claude_code": claude_code, "codex": codex, "pi": pi}.get(str(detect(lines)), claude_code)
    conversation = module.load(lines)
    messages = (
        [message for number, message in enumerate(conversation.messages) if not dropped[number % len(dropped)]]
        if dropped
        else list(conversation.messages)
    )
    if repaired:
        messages = list(repair_transcript(messages).messages)
    changed = conversation.replace(messages=messages)
    written = module.dump(changed)
    assert module.dumps(changed) == b"".join(msgspec.json.encode(line) + b"\n" for line in written)
    assert json.loads(json.dumps(written)) == written  # plain data


def _text_of(lines: list[object]) -> bytes:
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def _identity(module: ModuleType, lines: list[object]) -> None:
    for source in (lines, _text_of(lines)):
        conversation = module.load(source)
        written = [json.loads(line) for line in module.dumps(conversation).splitlines()]
        assert json.dumps(written) == json.dumps(lines)
        assert_saves_in_the_ir(conversation.messages)
    assert type(module.check(lines)) is tuple


def _repair_keeps_lines(module: ModuleType, lines: list[object]) -> None:
    """A repair that only inserts results keeps every original line, in order, plus one new
    line per result; any repair gives a log whose linkage holds (duplicate call IDs aside,
    which repair leaves alone)."""
    conversation = module.load(lines)
    fixed = repair_transcript(conversation.messages)
    written = module.dump(conversation.replace(messages=fixed.messages))
    assert type(written) is list
    codes = {diagnostic.code for diagnostic in module.check(written)}
    assert not codes & {"MISSING_TOOL_RESULT", "ORPHAN_TOOL_RESULT", "TOOL_RESULT_BEFORE_CALL"}, codes
    if all(fix.action == "inserted_result" for fix in fixed.fixes):
        remaining = iter(json.dumps(line) for line in written)
        assert all(json.dumps(line) in remaining for line in lines)  # a subsequence, in order
        assert len(written) == len(lines) + len(fixed.fixes)


@given(claude_code_lines())
def test_claude_code_load_then_dumps_is_the_identity(lines: list[object]) -> None:
    _identity(claude_code, lines)


@given(codex_lines())
def test_codex_load_then_dumps_is_the_identity(lines: list[object]) -> None:
    _identity(codex, lines)


@given(pi_lines())
def test_pi_load_then_dumps_is_the_identity(lines: list[object]) -> None:
    _identity(pi, lines)


@given(st.one_of(claude_code_lines(), codex_lines(), pi_lines()))
def test_a_repaired_log_keeps_its_lines_and_its_linkage_holds(lines: list[object]) -> None:
    module = {"claude_code": claude_code, "codex": codex, "pi": pi}.get(str(detect(lines)), claude_code)
    _repair_keeps_lines(module, lines)
