"""`convert` (a conversation into another format's terms) and `detect` (which format is this?)."""

from __future__ import annotations

from typing import Final, Literal, TypeAlias

import msgspec

from message_ir import (
    AssistantBlock,
    AssistantMessage,
    Message,
    OpaqueBlock,
    TextBlock,
    ToolCall,
    ToolResultMessage,
)
from message_ir.adapters._build import NO_META
from message_ir.adapters._common import as_conversation
from message_ir.adapters._conversation import Conversation, Instruction, Note
from message_ir.adapters._ids import RULES, rewrite_ids
from message_ir.adapters._json import Unparsable, as_array, as_object, decode, encode, parse
from message_ir.adapters._records import PACKAGE_KEY, package_info

FormatName: TypeAlias = Literal[
    "openai_chat", "anthropic", "openai_responses", "gemini", "claude_code", "codex", "pi", "gemini_cli"
]
"""The name of a format, as its module is named."""

FORMATS: Final[dict[str, str]] = {
    "openai_chat": "OpenAI Chat Completions `messages` (a list, or a request body)",
    "anthropic": "Anthropic Messages `messages` (a list, or a request body with `system`)",
    "openai_responses": "OpenAI Responses `input` items (a list, or a request body with `instructions`)",
    "gemini": "Gemini `contents` (a list, or a request body with `systemInstruction`)",
    "claude_code": "Claude Code session logs (JSON Lines from ~/.claude/projects)",
    "codex": "Codex rollout logs (JSON Lines from ~/.codex/sessions)",
    "pi": "pi coding-agent session logs (JSON Lines from ~/.pi/agent/sessions)",
    "gemini_cli": "gemini-cli chat recordings (JSON from ~/.gemini/tmp/<project>/chats)",
}
"""Every format's name and what it reads, in the order `message-ir formats` lists them."""


def convert(conversation: Conversation | tuple[Message, ...] | list[Message], to: str) -> Conversation:
    """`conversation` in the terms of the format `to`, with a `Note` for every change.

    Tool-call IDs are rewritten to the target's rule (deterministic, collision-free; the
    original kept in `meta` under `message_ir`, and taken back when converting back where it
    fits); opaque blocks and `meta` of other formats are dropped; results are moved right
    after their call; instructions are put where the target keeps them. Its output passes
    the target's `check` whenever the input's linkage was valid.
    """
    if to not in FORMATS:
        raise ValueError(f"Unknown format {to!r}; expected one of {', '.join(FORMATS)}")
    source = as_conversation(conversation)
    notes: list[Note] = []
    messages = _placed_results(list(source.messages), notes)
    messages = _rewritten_ids(messages, to, notes)
    messages = [_cleaned(index, message, to, notes) for index, message in enumerate(messages)]
    instructions = _instructions(source, to, messages, notes)
    return Conversation(format=to, messages=tuple(messages), instructions=instructions, notes=tuple(notes))


def _placed_results(messages: list[Message], notes: list[Note]) -> list[Message]:
    """Each call's results right after the assistant message holding it (the others in order)."""
    results: dict[str, list[int]] = {}
    for index, message in enumerate(messages):
        if type(message) is ToolResultMessage:
            results.setdefault(message.tool_call_id, []).append(index)
    placed: set[int] = set()
    output: list[Message] = []
    for index, message in enumerate(messages):
        if index in placed:
            continue
        output.append(message)
        if type(message) is not AssistantMessage:
            continue
        expected = index + 1
        for block in message.content:
            if type(block) is not ToolCall:
                continue
            for result_index in results.get(block.id, ()):
                if result_index <= index or result_index in placed:
                    continue  # a result before its call stays where it is (the IR reports it)
                placed.add(result_index)
                output.append(messages[result_index])
                if result_index != expected:
                    notes.append(
                        Note(
                            "MOVED_RESULT",
                            len(output) - 1,
                            f"$[{result_index}]",
                            f"Moved the result for {block.id!r} right after its call",
                        )
                    )
                expected = result_index + 1
    return output


def _rewritten_ids(messages: list[Message], to: str, notes: list[Note]) -> list[Message]:
    rule = RULES[to]
    call_ids: list[str] = []
    preferred: dict[str, str] = {}
    for message in messages:
        if type(message) is AssistantMessage:
            for block in message.content:
                if type(block) is ToolCall:
                    call_ids.append(block.id)
                    original = package_info(block.meta_json).get("original_id")
                    if type(original) is str:
                        preferred[block.id] = original
    new_ids = rewrite_ids(call_ids, rule, preferred)
    output: list[Message] = []
    for index, message in enumerate(messages):
        if type(message) is AssistantMessage and any(
            type(block) is ToolCall and new_ids[block.id] != block.id for block in message.content
        ):
            blocks: list[AssistantBlock] = []
            for number, block in enumerate(message.content):
                if type(block) is ToolCall and new_ids[block.id] != block.id:
                    new_id = new_ids[block.id]
                    restored = preferred.get(block.id) == new_id
                    notes.append(
                        Note(
                            "RESTORED_CALL_ID" if restored else "REWROTE_CALL_ID",
                            index,
                            f"$[{index}].content[{number}].id",
                            f"Tool call ID {block.id!r} became {new_id!r}"
                            + (" (its original)" if restored else f" ({rule.description})"),
                        )
                    )
                    blocks.append(_with_id(block, new_id, None if restored else preferred.get(block.id, block.id)))
                else:
                    blocks.append(block)
            output.append(_with_blocks(message, blocks))
        elif type(message) is ToolResultMessage and message.tool_call_id in new_ids:
            output.append(_with_call_id(message, new_ids[message.tool_call_id]))
        else:
            output.append(message)
    return output


def _with_blocks(message: AssistantMessage, blocks: list[AssistantBlock]) -> AssistantMessage:
    return AssistantMessage(id=message.id, content=tuple(blocks), meta_json=message.meta_json)


def _with_call_id(message: ToolResultMessage, call_id: str) -> ToolResultMessage:
    return ToolResultMessage(
        id=message.id,
        tool_call_id=call_id,
        tool_name=message.tool_name,
        content=message.content,
        is_error=message.is_error,
        meta_json=message.meta_json,
    )


def _with_id(call: ToolCall, new_id: str, original: str | None) -> ToolCall:
    """The call with `new_id`; its original ID kept under the package's `meta` key (or dropped)."""
    meta = call.meta
    entries: dict[str, object] = {} if meta is None else dict(meta.thaw())
    if original is None:
        entries.pop(PACKAGE_KEY, None)
    else:
        entries[PACKAGE_KEY] = {"original_id": original}
    raw = msgspec.Raw(encode(entries)) if entries else NO_META
    return ToolCall(id=new_id, name=call.name, arguments_json=call.arguments_json, meta_json=raw)


def _kept_meta(meta_json: msgspec.Raw, to: str) -> tuple[msgspec.Raw, bool]:
    """`meta` with only the target's and the package's entries, and whether anything went."""
    if not meta_json:
        return meta_json, False
    entries = as_object(decode(meta_json)) or {}
    kept = {key: value for key, value in entries.items() if key in (to, payload_format(to), PACKAGE_KEY)}
    if len(kept) == len(entries):
        return meta_json, False
    return (msgspec.Raw(encode(kept)) if kept else NO_META), True


def _cleaned(index: int, message: Message, to: str, notes: list[Note]) -> Message:
    """The message without opaque blocks and `meta` of other formats (a note for each)."""
    meta, dropped = _kept_meta(message.meta_json, to)
    if dropped:
        notes.append(Note("DROPPED_META", index, f"$[{index}].meta", f"Dropped meta of other formats than {to}"))
        message = msgspec.structs.replace(message, meta_json=meta)
    if type(message) is not AssistantMessage:
        return message
    blocks: list[AssistantBlock] = []
    changed = False
    for number, original in enumerate(message.content):
        path = f"$[{index}].content[{number}]"
        block = _without_bad_arguments(index, path, original, to, notes) if type(original) is ToolCall else original
        changed = changed or block is not original
        if type(block) is OpaqueBlock and block.format != payload_format(to):
            notes.append(Note("DROPPED_OPAQUE_BLOCK", index, path, f"Dropped a {block.format} `{block.kind}` block"))
            changed = True
            continue
        if type(block) is TextBlock and block.text == "" and payload_format(to) == "anthropic":
            notes.append(
                Note("DROPPED_EMPTY_TEXT", index, path, "Dropped an empty text block (Anthropic refuses them)")
            )
            changed = True
            continue
        block_meta, block_dropped = _kept_meta(block.meta_json, to)
        if block_dropped:
            changed = True
            notes.append(Note("DROPPED_META", index, path + ".meta", f"Dropped meta of other formats than {to}"))
            blocks.append(msgspec.structs.replace(block, meta_json=block_meta))
        else:
            blocks.append(block)
    if not changed:
        return message
    return _with_blocks(message, blocks)


_RAW_ARGUMENTS: Final = {
    "openai_chat": "arguments",
    "anthropic": "input",
    "openai_responses": "arguments",
    "pi": "arguments",
    "gemini": "args",
    "gemini_cli": "args",
}
"""Where each format keeps a call's arguments as sent when they were not a JSON object."""


def _without_bad_arguments(index: int, path: str, call: ToolCall, to: str, notes: list[Note]) -> ToolCall:
    """The call without the target format's record of arguments that were not a JSON object:
    the target would refuse them, so the call is written with the IR's arguments (`{}`)."""
    if not call.meta_json:
        return call
    entries = as_object(decode(call.meta_json)) or {}
    dropped = False
    owners = (to,) if payload_format(to) == to else (payload_format(to), to)
    for owner in owners:  # where the target keeps raw arguments
        info = as_object(entries.get(owner))
        key = _RAW_ARGUMENTS.get(owner)
        if info is None or key is None or key not in info or not _not_an_object(info[key]):
            continue
        kept = {name: value for name, value in info.items() if name != key}
        entries[owner] = kept
        if not kept:
            del entries[owner]
        dropped = True
    if not dropped:
        return call
    notes.append(
        Note("DROPPED_BAD_ARGUMENTS", index, path, "Arguments that were not a JSON object are written as the IR's {}")
    )
    raw_meta = msgspec.Raw(encode(entries)) if entries else NO_META
    return ToolCall(id=call.id, name=call.name, arguments_json=call.arguments_json, meta_json=raw_meta)


def _not_an_object(raw: object) -> bool:
    """Whether raw arguments kept by a format hold no JSON object (an object written as a
    string another way is one: it is kept as it was sent)."""
    if as_object(raw) is not None:
        return False
    if type(raw) is str:
        try:
            return as_object(decode(raw)) is None
        except (msgspec.DecodeError, RecursionError, UnicodeError):
            return True
    return True


_PAYLOAD_FORMATS: Final = {"claude_code": "anthropic", "codex": "openai_responses", "gemini_cli": "gemini"}
"""The provider format whose messages a session log's lines hold (its `meta` and opaque
blocks are the log's own)."""


def payload_format(name: str) -> str:
    """The format whose `meta` entries and opaque blocks `name` writes back: its own, or for
    a session log, that of the provider messages its lines hold."""
    return _PAYLOAD_FORMATS.get(name, name)


_SYSTEM_FIELDS: Final = {"anthropic": "system", "gemini": "systemInstruction"}
"""The formats whose system text is one field beside the messages, and its name."""


def _instructions(source: Conversation, to: str, messages: list[Message], notes: list[Note]) -> tuple[Instruction, ...]:
    if not source.instructions:
        return ()
    texts = [entry.text for entry in source.instructions]
    if to in ("claude_code", "pi", "gemini_cli"):  # their logs keep no system text beside the messages
        for entry in source.instructions:
            notes.append(
                Note("DROPPED_INSTRUCTION", None, entry.path, f"Dropped a {entry.role} text: {to} logs keep none")
            )
        return ()
    field = _SYSTEM_FIELDS.get(to)
    if field is not None:
        if len(texts) > 1 or source.instructions[0].before not in (None, messages[0].id if messages else None):
            notes.append(
                Note(
                    "MERGED_INSTRUCTIONS",
                    None,
                    f"$.{field}",
                    f"{len(texts)} instruction(s) became the one `{field}` field, in order",
                )
            )
        return (Instruction("system", "\n\n".join(texts), f"$.{field}"),)
    first = messages[0].id if messages else None
    ids = {message.id for message in messages}
    results = {message.id for message in messages if type(message) is ToolResultMessage}
    entries: list[Instruction] = []
    for entry in source.instructions:
        before = entry.before if entry.before in ids else None
        if source.format != to or before in results:
            # From another format, or anchored before a result (which must follow its call):
            # in front of the first message, as a system message.
            before = first
            if entry.before != first and entry.path != "$.system":
                notes.append(Note("MOVED_INSTRUCTION", None, entry.path, "Moved an instruction to the start"))
        role = entry.role if entry.role in ("system", "developer") else "system"
        entries.append(Instruction(role, entry.text, entry.path, before))
    return tuple(entries)


def detect(source: bytes | str | object) -> str | None:
    """The name of the format `source` (JSON text or a parsed value) is in, or `None`.

    `None` when it is the IR's own wire format or nothing known. A plain conversation that
    fits both OpenAI Chat and Anthropic (only user and assistant messages with string
    content) is `openai_chat`.
    """
    if type(source) is bytes or type(source) is str:
        text = source
        try:
            source = parse(text)
        except Unparsable:
            return _detect_log(_first_lines(text))
    records = as_array(source)
    body = as_object(source)
    log = _detect_log([source] if body is not None else (records or [])[:_LOG_LINES])
    if log is not None:
        return log
    if (
        body is not None
        and as_array(body.get("messages")) is not None
        and ("sessionId" in body or "projectHash" in body)
    ):
        return "gemini_cli"
    if body is not None and as_array(body.get("contents")) is not None:
        return "gemini"
    if body is not None and (as_array(body.get("input")) is not None or type(body.get("input")) is str):
        return "openai_responses"
    if records is None and body is not None:
        records = as_array(body.get("messages"))
        if records is not None and ("system" in body or "max_tokens" in body):
            return "anthropic"  # OpenAI Chat keeps system text inside `messages`
    if records is None:
        return None
    return _detect_messages(records)


_LOG_LINES: Final = 5
"""How many lines of a log `detect` reads."""
_CLAUDE_CODE_LINES: Final = (
    "user",
    "assistant",
    "summary",
    "system",
    "progress",
    "file-history-snapshot",
    "queue-operation",
)
_CODEX_LINES: Final = ("session_meta", "response_item", "event_msg", "turn_context", "compacted")
_RESPONSES_ITEMS: Final = (
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "reasoning",
)


def _first_lines(source: bytes | str) -> list[object]:
    """The values of the first lines of JSON Lines text (those that parse)."""
    data = source.encode("utf-8", "surrogatepass") if type(source) is str else source
    assert type(data) is bytes
    values: list[object] = []
    for line in data.split(b"\n", _LOG_LINES)[:_LOG_LINES]:
        try:
            values.append(parse(line))
        except Unparsable:
            continue
    return values


def _detect_log(lines: list[object]) -> str | None:
    """The session-log format whose lines these are, or `None`."""
    for value in lines:
        line = as_object(value)
        if line is None:
            return None
        line_type = line.get("type")
        if line_type in _CODEX_LINES and "payload" in line and "timestamp" in line:
            return "codex"
        message = as_object(line.get("message"))
        if line_type == "session" and "payload" not in line:
            return "pi"
        if (
            line_type == "message"
            and message is not None
            and message.get("role") in ("user", "assistant", "toolResult")
        ):
            return "pi"
        if line_type in _CLAUDE_CODE_LINES and ("sessionId" in line or "uuid" in line or "leafUuid" in line):
            return "claude_code"
        if line_type == "file-history-snapshot":
            return "claude_code"
    return None


def _detect_messages(records: list[object]) -> str | None:
    ir = True
    for item in records:
        record = as_object(item)
        if record is None:
            return None
        if record.get("type") in _RESPONSES_ITEMS:
            return "openai_responses"
        if record.get("type") == "gemini":
            return "gemini_cli"
        if "parts" in record and "content" not in record:
            return "gemini"
        role = record.get("role")
        if role in ("tool", "system", "developer") or "tool_calls" in record or "tool_call_id" in record:
            return "openai_chat"
        if role == "toolResult" or "toolCallId" in record:
            return None
        content = record.get("content")
        blocks = as_array(content)
        if blocks is not None:
            for block_item in blocks:
                block = as_object(block_item)
                block_type = None if block is None else block.get("type")
                if block_type in ("toolCall", "opaque"):
                    return None
                if block_type in ("tool_use", "tool_result", "thinking", "redacted_thinking", "image", "document"):
                    return "anthropic"
                if block_type in ("input_text", "output_text", "input_image", "input_file"):
                    return "openai_responses"
                if block_type in ("image_url", "input_audio", "refusal", "file"):
                    return "openai_chat"
        ir = ir and type(record.get("id")) is str and role in ("user", "assistant")
    if ir and records:
        return None
    return "openai_chat" if records else None
