"""Misuse of the public API that mypy must refuse, each line with the exact error code it gives.

Checked by mypy only (with unused ignores as errors, a line that stopped being that error fails
the `typing` session); `misuse_pyright.py` holds the same lines for basedpyright.
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
user.content = "changed"  # type: ignore[misc]
call.arguments["a"] = 2  # type: ignore[index]
user_message(id=1, content="x")  # type: ignore[arg-type]
user_message("u", "x")  # type: ignore[call-arg]
tool_result_message(id="r", tool_call_id="c", tool_name="n", content="x", is_error=1)  # type: ignore[arg-type]
assistant_message(id="a", content=[{"type": "image", "url": "u"}])  # type: ignore[list-item]
assistant_message(id="a", content=5)  # type: ignore[arg-type]
tool_call(id="c", name="n", arguments=[1, 2])  # type: ignore[arg-type]
text_from_assistant(user)  # type: ignore[arg-type]
code: DiagnosticCode = "NOT_A_CODE"  # type: ignore[assignment]
action: FixAction = "deleted"  # type: ignore[assignment]
decode_transcript(5)  # type: ignore[arg-type]
bad_call: ToolCallInput = {"type": "toolCall", "id": "c", "name": "n"}  # type: ignore[typeddict-item]
validate_transcript()  # type: ignore[call-arg]
opaque_block(format="f", kind="k", data=[1])  # type: ignore[arg-type]
conversation.messages = ()  # type: ignore[misc]
convert(conversation)  # type: ignore[call-arg]

# The tool declarations and datasets added later.
from message_ir.adapters import tool_declaration  # noqa: E402  # grouped with the cases that use it
from message_ir.datasets import Summary, check_dataset  # noqa: E402

tool_declaration(1)  # type: ignore[arg-type]
check_dataset(["train.jsonl"], processes="2")  # type: ignore[arg-type]
Summary().lines = "many"  # type: ignore[assignment]

# Session logs as trees, token usage and token counts, added later.
from message_ir.adapters import LogFile, claude_code  # noqa: E402
from message_ir.usage import summarize  # noqa: E402

claude_code.load(b"", leaf=1)  # type: ignore[arg-type]
LogFile(3)  # type: ignore[arg-type]
summarize([], "week")  # type: ignore[arg-type]
check_dataset(["train.jsonl"], max_tokens="many")  # type: ignore[arg-type]

# Rendering, added later.
from message_ir.render import render  # noqa: E402

render((), to="pdf")  # type: ignore[arg-type]
LogFile("session.jsonl", end="all")  # type: ignore[arg-type]
