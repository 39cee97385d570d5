"""`convert`: a conversation into another format's terms, by the target's declaration."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import msgspec

from message_ir import (
    AssistantBlock,
    AssistantMessage,
    Message,
    OpaqueBlock,
    TextBlock,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from message_ir.adapters._build import NO_META
from message_ir.adapters._conversation import Conversation, Instruction, Note
from message_ir.adapters._ids import rewrite_ids
from message_ir.adapters._json import as_object, decode, encode
from message_ir.adapters._mcp import NAME as MCP_KEY
from message_ir.adapters._pairing import MADE_UP
from message_ir.adapters._records import PACKAGE_KEY, package_info
from message_ir.adapters._registry import FORMATS
from message_ir.adapters._tools import placed_calls
from message_ir.adapters._writing import as_conversation, explain_failure


def convert(conversation: Conversation | tuple[Message, ...] | list[Message], to: str) -> Conversation:
    """`conversation` in the terms of the format `to`, with a `Note` for every change.

    Tool-call IDs are rewritten to the target's rule (deterministic, collision-free; the
    original kept in `meta` under `message_ir`, and taken back when converting back where it
    fits); opaque blocks and `meta` of other formats are dropped; results are moved right
    after their call; instructions are put where the target keeps them. Its output passes
    the target's `check` whenever the input's linkage was valid.

    Raises `TranscriptError` (`encode_transcript`'s) when converting fails on a message built
    by calling the Struct classes directly with a field of the wrong type, as `dump` does.
    """
    if to not in FORMATS:
        raise ValueError(f"Unknown format {to!r}; expected one of {', '.join(FORMATS)}")
    source = as_conversation(conversation)
    try:
        ids = CallIds()
        ids.add(source.messages)
        messages, steps = _converted_run(source.messages, source.format, to, 0, ids.runs(to))
        notes = [note for step in steps for note in step]
        instructions = _instructions(source, to, messages, notes)
    except Exception:
        explain_failure(source)
        raise
    return Conversation(format=to, messages=tuple(messages), instructions=instructions, notes=tuple(notes))


StepNotes = tuple[list[Note], list[Note], list[Note], list[Note], list[Note], list[Note]]
"""The notes of `convert`'s steps that act on a run of messages alone: results placed,
assistant messages put between messages, call IDs rewritten, structured content placed,
`meta` and blocks dropped, calls written in another form."""


class Runs:
    """What converting the runs of a conversation one at a time (`convert_alone`) needs to
    know of the whole conversation, and carries from one run to the next.

    Known of the whole (`CallIds.runs`), or not (`Runs()`: then a run is converted alone
    only when it keeps its call IDs and the target puts no messages between messages): the
    new ID of each call ID that changes, the originals of call IDs from an earlier
    conversion, and the message IDs a new message's ID may meet (those holding `_bridge`).
    Carried: the messages put between messages so far, and the last message placed."""

    def __init__(
        self,
        new_ids: dict[str, str] | None = None,
        preferred: dict[str, str] | None = None,
        bridge_ids: set[str] | None = None,
    ) -> None:
        self.known = new_ids is not None
        self.new_ids: dict[str, str] = {} if new_ids is None else new_ids
        self.preferred: dict[str, str] = {} if preferred is None else preferred
        self.bridge_ids: set[str] = set() if bridge_ids is None else bridge_ids
        self.bridges = 0
        self.last: Message | None = None


class CallIds:
    """The call IDs of a conversation in order, with the originals some keep (from an earlier
    conversion), and the message IDs holding `_bridge`, gathered a run of messages at a time."""

    def __init__(self) -> None:
        self.order: dict[str, None] = {}
        self.preferred: dict[str, str] = {}
        self.bridge_ids: set[str] = set()

    def add(self, messages: Sequence[Message]) -> None:
        """Gather the IDs of the next run of messages."""
        for message in messages:
            if _BRIDGE in message.id:
                self.bridge_ids.add(message.id)
            if type(message) is AssistantMessage:
                for block in message.content:
                    if type(block) is ToolCall:
                        self.order[block.id] = None
                        original = package_info(block.meta_json).get("original_id")
                        if type(original) is str:
                            self.preferred[block.id] = original

    def runs(self, to: str) -> Runs:
        """What converting into `to` needs to know of the whole conversation (see `Runs`)."""
        new_ids = rewrite_ids(self.order, FORMATS[to].id_rule, self.preferred)
        changed = {call_id: new_id for call_id, new_id in new_ids.items() if new_id != call_id}
        return Runs(changed, self.preferred, self.bridge_ids)


_BRIDGE: Final = "_bridge"
"""What the ID of every message `_bridged` puts holds."""


def convert_alone(run: Conversation, to: str, base: int, runs: Runs) -> tuple[Conversation, StepNotes] | None:
    """`convert` of `run`, the messages of a conversation from index `base` on, as `convert`
    of the whole conversation converts them, and the notes it makes of them by step (the
    whole's notes are every run's notes of a step, then of the next step); `None` when the run
    cannot be converted alone. `runs` is what is known of the whole conversation and carried
    from the run before (see `Runs`): the runs are converted in order, each once.

    `run` must hold every result of its calls and the call of each of its results (a session
    log's segment does: `_segments`). Then placing results looks at the run alone, and the
    rest of `convert` looks at one message at a time (and at the message before, to put one
    between them), but for what makes a run `None`: it has instructions (placed by the whole
    conversation: `converted_instructions`), or the whole conversation is not known (`runs`)
    and a call ID is rewritten (the target's rule refuses it, or it has an original from an
    earlier conversion: new IDs are chosen among all the conversation's), or the target puts
    messages between messages (Mistral: their IDs are chosen among all the conversation's).
    """
    if run.instructions:
        return None
    if not runs.known:
        if FORMATS[to].bridge_text:
            return None
        for _, _, call in placed_calls(run.messages):
            if FORMATS[to].id_rule.problem(call.id) is not None or "original_id" in package_info(call.meta_json):
                return None
    messages, steps = _converted_run(run.messages, run.format, to, base, runs)
    return Conversation(format=to, messages=tuple(messages)), steps


def _converted_run(
    run: Sequence[Message], source: str, to: str, base: int, runs: Runs
) -> tuple[list[Message], StepNotes]:
    """`convert`'s steps on the messages of a conversation of format `source` from index
    `base` on, with what `runs` knows of the whole: the messages converted, and the notes by
    step. `convert` takes them on a whole conversation, `convert_alone` on a run."""
    steps: StepNotes = ([], [], [], [], [], [])
    placed = _placed_results(list(run), steps[0], base)
    at = base + runs.bridges  # the index of the run's first message once messages are put between
    messages = _bridged(placed, FORMATS[to].bridge_text, steps[1], runs, at)
    runs.bridges += len(messages) - len(placed)
    messages = _rewritten_ids(messages, to, steps[2], runs, at)
    messages = _structured(messages, to, steps[3], at)
    messages = [_cleaned(at + index, message, to, steps[4]) for index, message in enumerate(messages)]
    _call_form_notes(source, to, messages, steps[5], at)
    return messages, steps


def _structured(messages: list[Message], to: str, notes: list[Note], base: int) -> list[Message]:
    """Each result's MCP `structuredContent` (its `meta` under `mcp`) put where the target
    holds a structured result, when it does (a note for each; `base`: the index of the first
    message in the whole conversation)."""
    place = FORMATS[to].structured_result
    if place is None:
        return messages
    output: list[Message] = []
    for position, original in enumerate(messages):
        index = base + position
        message = original
        if type(original) is ToolResultMessage and original.meta_json:
            entries = as_object(decode(original.meta_json)) or {}
            found = as_object(entries.get(MCP_KEY))
            if found is not None and "structuredContent" in found and to not in entries:
                placed = place(original, found["structuredContent"])
                if placed is not None:
                    merged = {**entries, **(as_object(decode(placed.meta_json)) or {})}
                    message = msgspec.structs.replace(placed, meta_json=msgspec.Raw(encode(merged)))
                    notes.append(
                        Note(
                            "PLACED_STRUCTURED_CONTENT",
                            index,
                            f"$[{index}].meta.{MCP_KEY}.structuredContent",
                            f"Put the MCP result's structured content where {to} holds a structured result",
                        )
                    )
        output.append(message)
    return output


def _placed_results(messages: list[Message], notes: list[Note], base: int) -> list[Message]:
    """Each call's results right after the assistant message holding it (the others in order;
    `base`: the index of the first message in the whole conversation)."""
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
                            base + len(output) - 1,
                            f"$[{base + result_index}]",
                            f"Moved the result for {block.id!r} right after its call",
                        )
                    )
                expected = result_index + 1
    return output


def _bridged(messages: list[Message], text: str, notes: list[Note], runs: Runs, base: int) -> list[Message]:
    """With `text` (the target's `bridge_text`), an assistant message saying it between a
    tool result and a user message right after it (a note for each); the message before the
    first is `runs.last` (`base`: the index of the first message in the whole conversation
    once converted). `runs.last` becomes the last message."""
    if not text:
        return messages
    taken = runs.bridge_ids
    output: list[Message] = []
    last = runs.last
    for message in messages:
        if type(message) is UserMessage and type(last) is ToolResultMessage:
            bridge_id = f"{last.id}{_BRIDGE}"
            while bridge_id in taken:
                bridge_id += "_"
            taken.add(bridge_id)
            output.append(AssistantMessage(id=bridge_id, content=(TextBlock(text=text),)))
            index = base + len(output) - 1
            notes.append(
                Note(
                    "INSERTED_ASSISTANT_MESSAGE",
                    index,
                    f"$[{index}]",
                    f"Put an assistant message ({text!r}) between a tool result and a user message",
                )
            )
        output.append(message)
        last = message
    runs.last = last
    return output


def _rewritten_ids(messages: list[Message], to: str, notes: list[Note], runs: Runs, base: int) -> list[Message]:
    """Each call ID that changes (`runs.new_ids`) changed, in its call and its results (a note
    for each call; `base`: the index of the first message in the whole conversation)."""
    new_ids, preferred = runs.new_ids, runs.preferred
    if not new_ids:
        return messages
    rule = FORMATS[to].id_rule
    output: list[Message] = []
    for position, message in enumerate(messages):
        index = base + position
        if type(message) is AssistantMessage and any(
            type(block) is ToolCall and block.id in new_ids for block in message.content
        ):
            blocks: list[AssistantBlock] = []
            for number, block in enumerate(message.content):
                if type(block) is ToolCall and block.id in new_ids:
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
        if type(block) is TextBlock and block.text == "" and FORMATS[payload_format(to)].refuses_empty_text:
            notes.append(Note("DROPPED_EMPTY_TEXT", index, path, f"Dropped an empty text block ({to} refuses them)"))
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
        key = FORMATS[owner].raw_arguments
        if info is None or not key or key not in info or not _not_an_object(info[key]):
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


def _call_form_notes(source: str, to: str, messages: list[Message], notes: list[Note], base: int) -> None:
    """A note for each call the target writes in another form: its arguments as JSON text
    where the source had the object (or the other way), its ID left out (the target has
    none), or an ID the source's `load` made up written as if it were the call's own
    (`base`: the index of the first message in the whole conversation)."""
    target = FORMATS[payload_format(to)]
    retyped = source in FORMATS and FORMATS[payload_format(source)].arguments_as_text != target.arguments_as_text
    form = "JSON text" if target.arguments_as_text else "a JSON object"
    for position, number, block in placed_calls(messages):
        index = base + position
        path = f"$[{index}].content[{number}]"
        if retyped:
            text = f"Arguments of {block.name!r} are written as {form} ({source} holds the other form)"
            notes.append(Note("RETYPED_ARGUMENTS", index, path + ".arguments", text))
        if not FORMATS[to].call_ids:
            text = f"Tool call ID {block.id!r} is not written: {to} has none (results pair by order)"
            notes.append(Note("DROPPED_CALL_ID", index, path + ".id", text))
        elif source != to and package_info(block.meta_json).get(MADE_UP) is True:
            text = f"Tool call ID {block.id!r} was made up by {source}'s load; {to} writes it as the call's"
            notes.append(Note("WROTE_MADE_UP_CALL_ID", index, path + ".id", text))


def payload_format(name: str) -> str:
    """The format whose `meta` entries and opaque blocks `name` writes back: its own, or for
    a session log, that of the provider messages its lines hold."""
    return FORMATS[name].payload_format


def converted_instructions(
    source: Conversation, to: str, first: Message | None, notes: list[Note]
) -> tuple[Instruction, ...]:
    """`convert`'s instructions of a conversation of another format than `to` (its
    instructions are `source`'s; `first`, its first message once converted): only the first
    message counts, since instructions from another format stand before it or go to the
    target's field."""
    if source.format == to:
        raise ValueError(f"Expected a conversation of another format than {to!r}")
    return _instructions(source, to, [] if first is None else [first], notes)


def _instructions(source: Conversation, to: str, messages: list[Message], notes: list[Note]) -> tuple[Instruction, ...]:
    if not source.instructions:
        return ()
    texts = [entry.text for entry in source.instructions]
    if not FORMATS[to].keeps_instructions:  # a log that keeps no system text beside the messages
        for entry in source.instructions:
            notes.append(
                Note("DROPPED_INSTRUCTION", None, entry.path, f"Dropped a {entry.role} text: {to} logs keep none")
            )
        return ()
    field = FORMATS[to].system_field
    if field:
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
