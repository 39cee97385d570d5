"""The typing baseline for the extension points and `message_ir.adapters` (no ignores)."""

from __future__ import annotations

from collections.abc import Iterator

from typing_extensions import assert_type

from message_ir import (
    Diagnostic,
    FrozenJsonObject,
    OpaqueBlock,
    OpaqueBlockJson,
    assistant_message,
    frozen_json_object,
    is_opaque_block_json,
    opaque_block,
    user_message,
)
from message_ir.adapters import (
    Conversation,
    FormatError,
    Instruction,
    Note,
    anthropic,
    bedrock,
    convert,
    detect,
    hf_chat,
    mistral,
    openai_chat,
    otel_genai,
    sharegpt,
    vercel_ai,
)

block = opaque_block(format="anthropic", kind="thinking", data={"thinking": "...", "signature": "s"}, meta={"k": 1})
assert_type(block, OpaqueBlock)
assert_type(block.data, FrozenJsonObject)
assert_type(block.meta, FrozenJsonObject | None)
message = assistant_message(id="a", content=[block, {"type": "opaque", "format": "f", "kind": "k", "data": {}}])
assert_type(user_message(id="u", content="x", meta={"source": {"line": 3}}).meta, FrozenJsonObject | None)
assert_type(frozen_json_object({"a": [1, 2]}), FrozenJsonObject)


def opaque_kind(value: object) -> str:
    """Narrowing parsed JSON to an opaque block's shape."""
    if is_opaque_block_json(value):
        assert_type(value, OpaqueBlockJson)
        return value["kind"]
    return ""


conversation = openai_chat.load(b"[]")
assert_type(conversation, Conversation)
assert_type(conversation.instructions, tuple[Instruction, ...])
assert_type(conversation.notes, tuple[Note, ...])
assert_type(anthropic.dumps(convert(conversation, to="anthropic")), bytes)
assert_type(anthropic.dump(conversation.messages), object)
assert_type(openai_chat.check("[]"), tuple[Diagnostic, ...])
assert_type(detect(b"[]"), str | None)
assert_type(FormatError("openai_chat", ()).diagnostics, tuple[Diagnostic, ...])
assert_type(hf_chat.load(b"[]"), Conversation)
assert_type(sharegpt.dumps(convert(conversation, to="sharegpt")), bytes)
assert_type(sharegpt.check('{"conversations": []}'), tuple[Diagnostic, ...])
assert_type(mistral.dump(convert(conversation, to="mistral")), object)
assert_type(mistral.check([]), tuple[Diagnostic, ...])
assert_type(bedrock.load(b"[]"), Conversation)
assert_type(vercel_ai.dumps(convert(conversation, to="vercel_ai")), bytes)
assert_type(otel_genai.check(b"[]"), tuple[Diagnostic, ...])

# The formats, tool declarations and datasets added later.
from message_ir.adapters import (  # noqa: E402  # grouped with the cases that use them
    ToolDeclaration,
    check_tool_calls,
    claude_code,
    codex,
    gemini,
    gemini_cli,
    openai_responses,
    pi,
    tool_declaration,
)
from message_ir.datasets import (  # noqa: E402
    CHECKERS,
    Example,
    LineReport,
    Summary,
    byte_ranges,
    check_dataset,
    check_file,
    check_lines,
    check_part,
    merge,
)
from message_ir.datasets.dask import check_partition, check_with_dask  # noqa: E402

assert_type(gemini.load(b"[]"), Conversation)
assert_type(gemini.dump(conversation), object)
assert_type(gemini_cli.dumps(conversation), bytes)
assert_type(openai_responses.check(b"[]"), tuple[Diagnostic, ...])
assert_type(claude_code.dump(conversation), list[object])
assert_type(codex.load(b""), Conversation)
assert_type(pi.dumps(conversation.messages), bytes)
weather = tool_declaration("get_weather", {"type": "object"}, path="$.tools[0]")
assert_type(weather, ToolDeclaration)
assert_type(weather.parameters, FrozenJsonObject | None)
assert_type(check_tool_calls([message], [weather, ToolDeclaration("free")]), tuple[Diagnostic, ...])
assert_type(CHECKERS["openai_chat"](b"{}"), tuple[Diagnostic, ...])
assert_type(next(check_lines([b"{}", "{}"], "openai_chat")), LineReport)
assert_type(check_file("train.jsonl"), Iterator[LineReport])
summary = check_dataset(["train.jsonl"], "openai_chat", processes=2, examples=3, progress=print)
assert_type(summary, Summary)
assert_type(summary.examples, dict[str, list[Example]])
assert_type(merge([check_part("train.jsonl", 0, None)]), Summary)
assert_type(byte_ranges("train.jsonl", 4), list[tuple[int, int]])
assert_type(check_partition([("{}", "train.jsonl")]), list[Summary])
assert_type(check_with_dask(["train-*.jsonl"], blocksize="64MiB"), Summary)

# Session logs as trees, token usage, MCP results and token counts, added later.
from message_ir import ToolResultMessage, tool_call  # noqa: E402
from message_ir.adapters import Branch, Call, LogFile, Trees, tool_result_from_mcp  # noqa: E402
from message_ir.datasets import Tokens  # noqa: E402
from message_ir.usage import Price, Row, calls, read_prices, summarize  # noqa: E402
from message_ir.usage import Summary as UsageSummary  # noqa: E402  # beside the datasets' `Summary`

assert_type(claude_code.load(b"", leaf="u1"), Conversation)
assert_type(pi.load(LogFile("session.jsonl")), Conversation)
assert_type(claude_code.branches(b""), tuple[Branch, ...])
assert_type(pi.branches([]), tuple[Branch, ...])
trees = claude_code.FORMAT.trees
if trees is not None:
    assert_type(trees, Trees)
    assert_type(trees.check(b"", None), tuple[Diagnostic, ...])
found_calls = list(calls(LogFile("session.jsonl"), "claude_code"))
assert_type(found_calls, list[Call])
usage = summarize(found_calls, "day", {"claude-x": Price(3.0, 15.0)})
assert_type(usage, UsageSummary)
assert_type(usage.rows, tuple[Row, ...])
assert_type(usage.total.cost, float | None)
assert_type(read_prices(b"{}"), dict[str, Price])
answered = tool_result_from_mcp(tool_call(id="c", name="read", arguments={}), {"content": []}, id="r")
assert_type(answered, ToolResultMessage)
counted = check_dataset(["train.jsonl"], counter="mytokens:count", max_tokens=4096)
assert_type(counted.tokens, Tokens | None)

from message_ir.streams import Assembled, Assembler, ScriptedModel, assemble, script  # noqa: E402  # grouped here

assert_type(assemble(b"", "openai_chat"), Assembled)
assert_type(Assembler("anthropic").finish().complete, bool)
assert_type(script(Assembler("gemini").finish().message, "gemini", chunks=2), list[bytes])
assert_type(ScriptedModel([]).remaining, int)

from message_ir.render import render, render_file_bytes, render_log  # noqa: E402  # grouped here

assert_type(render((), title="empty"), str)
assert_type(render(Conversation("openai_chat", ()), (), to="markdown"), str)
assert_type(render_file_bytes(b"[]", format=None, json_lines=False, leaf=None), str)
with open("page.html", "wb") as page_file:
    assert_type(render_log("session.jsonl", page_file, format="claude_code", to="markdown", leaf="u1"), None)

# A session log read a segment at a time, added later.
from message_ir.adapters import Segment  # noqa: E402

read_in_segments = claude_code.FORMAT.segments
if read_in_segments is not None:
    for segment in read_in_segments(LogFile("session.jsonl", end=4096), None):
        assert_type(segment, Segment)
        assert_type(segment.first_message, int)
        assert_type(segment.first_byte, int)
        assert_type(segment.places, dict[str, int])

from message_ir.traces import Trace, TracedConversation, log_records, spans  # noqa: E402  # grouped here

assert_type(spans(b"{}"), Trace)
assert_type(spans({}).conversations, tuple[TracedConversation, ...])
assert_type(log_records([{"raw_otel_json": "{}"}]), Trace)
