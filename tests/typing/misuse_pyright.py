"""Misuse of the public API that basedpyright must refuse, each line with the exact rule it reports.

Checked by basedpyright only (unnecessary ignores are errors); `misuse_mypy.py` holds the same
lines for mypy.
"""

from __future__ import annotations

from message_ir import (
    DiagnosticCode,
    FixAction,
    ToolCallInput,
    assistant_message,
    decode_transcript,
    opaque_block,
    text_from_assistant,
    tool_call,
    tool_result_message,
    user_message,
    validate_transcript,
)
from message_ir.adapters import convert, openai_chat

user = user_message(id="u", content="hi")
call = tool_call(id="c", name="read", arguments={"a": 1})
conversation = openai_chat.load(b"[]")

# Each line below must be a type error, of exactly the rule its ignore names.
user.content = "changed"  # pyright: ignore[reportAttributeAccessIssue]
call.arguments["a"] = 2  # pyright: ignore[reportIndexIssue]
user_message(id=1, content="x")  # pyright: ignore[reportArgumentType]
user_message("u", "x")  # pyright: ignore[reportCallIssue]
tool_result_message(id="r", tool_call_id="c", tool_name="n", content="x", is_error=1)  # pyright: ignore[reportArgumentType]
assistant_message(id="a", content=[{"type": "image", "url": "u"}])  # pyright: ignore[reportArgumentType]
assistant_message(id="a", content=5)  # pyright: ignore[reportArgumentType]
tool_call(id="c", name="n", arguments=[1, 2])  # pyright: ignore[reportArgumentType]
text_from_assistant(user)  # pyright: ignore[reportArgumentType]
code: DiagnosticCode = "NOT_A_CODE"  # pyright: ignore[reportAssignmentType]
action: FixAction = "deleted"  # pyright: ignore[reportAssignmentType]
decode_transcript(5)  # pyright: ignore[reportArgumentType]
bad_call: ToolCallInput = {"type": "toolCall", "id": "c", "name": "n"}  # pyright: ignore[reportAssignmentType]
validate_transcript()  # pyright: ignore[reportCallIssue]
opaque_block(format="f", kind="k", data=[1])  # pyright: ignore[reportArgumentType]
conversation.messages = ()  # pyright: ignore[reportAttributeAccessIssue]
convert(conversation)  # pyright: ignore[reportCallIssue]

# The tool declarations and datasets added later.
from message_ir.adapters import tool_declaration  # noqa: E402  # grouped with the cases that use it
from message_ir.datasets import Summary, check_dataset  # noqa: E402

tool_declaration(1)  # pyright: ignore[reportArgumentType]
check_dataset(["train.jsonl"], processes="2")  # pyright: ignore[reportArgumentType]
Summary().lines = "many"  # pyright: ignore[reportAttributeAccessIssue]

# Session logs as trees, token usage and token counts, added later.
from message_ir.adapters import LogFile, claude_code  # noqa: E402
from message_ir.usage import summarize  # noqa: E402

claude_code.load(b"", leaf=1)  # pyright: ignore[reportArgumentType]
LogFile(3)  # pyright: ignore[reportArgumentType]
summarize([], "week")  # pyright: ignore[reportArgumentType]
check_dataset(["train.jsonl"], max_tokens="many")  # pyright: ignore[reportArgumentType]

# Rendering, added later.
from message_ir.render import render  # noqa: E402

render((), to="pdf")  # pyright: ignore[reportArgumentType]
LogFile("session.jsonl", end="all")  # pyright: ignore[reportArgumentType]
