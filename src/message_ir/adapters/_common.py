"""What every adapter does the same way: read the container, make IDs, pair results, place
instructions, map diagnostics back to the source, and `check` without ever raising."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Final, NamedTuple

import msgspec

from message_ir import (
    AssistantMessage,
    ConstructionError,
    Diagnostic,
    FrozenJsonObject,
    Message,
    ToolResultMessage,
    UserMessage,
    frozen_json_object,
    is_json_value,
    validate_transcript,
)
from message_ir.adapters import _tools
from message_ir.adapters._conversation import Conversation, FormatError, Instruction, Note
from message_ir.adapters._ids import IdRule
from message_ir.adapters._json import Unparsable, as_array, as_object, as_sequence, decode, json_input, parse
from message_ir.adapters._records import Info, build_record, frozen_info, split_record

_FIRST_INDEX: Final = re.compile(r"\[(\d+)\]")
PLACEHOLDER_TOOL_NAME: Final = "unknown_tool"
"""The IR tool name of a result whose format gives none and whose call is nowhere."""

_KINDS: Final[dict[type, str]] = {
    dict: "object",
    list: "array",
    tuple: "array",
    str: "str",
    int: "int",
    float: "float",
    bool: "bool",
    type(None): "null",
}


def kind(value: object) -> str:
    """A word for the JSON type of `value`, from a fixed table (no attribute of it is read)."""
    return _KINDS.get(type(value), "object of another type")


class CallOrigin(NamedTuple):
    """Where a tool call stood in the source, and what it became."""

    source_id: str
    source_index: int
    path: str
    message_index: int
    ir_id: str


def arguments_object(text: str) -> dict[str, object] | None:
    """The arguments object a JSON string holds, or `None` when it holds none."""
    try:
        value = decode(text)
    except (msgspec.DecodeError, RecursionError, UnicodeError):
        return None
    return as_object(value)


def written_call_id(info: Info, call_id: str, restore: dict[str, str]) -> str:
    """The ID to write for an IR call: the source's original when `load` renamed it (noted in
    `restore`, so the results answering it are written with it too), else its own."""
    original = info.get("id")
    if type(original) is str and info.get("as") == call_id:
        restore[call_id] = original
        return original
    return call_id


def source_index(message_id: str) -> int | None:
    """The source record an adapter made a message ID from (`m3`, `m3.1` -> 3), else `None`."""
    number = message_id[1:].split(".", 1)[0]
    if message_id.startswith("m") and number.isdigit() and number.isascii():
        return int(number)
    return None


class Item(NamedTuple):
    """One record of the source's message list, in order: a message's part or an instruction."""

    source_index: int
    side: str  # "assistant", "user" (user text and tool results) or "instruction"
    message_index: int | None  # the IR message, or None for an instruction
    path: str


class Origins:
    """Where each IR message and block came from in the source, for `check`'s paths."""

    def __init__(self) -> None:
        self.messages: list[tuple[int, str]] = []  # per IR message: (source index, path)
        self.blocks: dict[tuple[int, int], str] = {}
        self.calls: list[CallOrigin] = []
        self.items: list[Item] = []
        self.extra: list[Diagnostic] = []  # found while loading (arguments that are no object)
        self.tools: tuple[_tools.ToolDeclaration, ...] | None = None  # a request body's declared tools
        self.tool_reader: _tools.ToolReader | None = None  # how the format declares them

    def to_source(self, diagnostic: Diagnostic) -> Diagnostic:
        """An IR diagnostic with its index and path in the source's terms."""
        index = diagnostic.message_index
        if index is None or not 0 <= index < len(self.messages):
            return diagnostic
        source_index, path = self.messages[index]
        rest = diagnostic.path.removeprefix(f"$[{index}]")
        if rest.startswith(".content["):
            number, _, after = rest.removeprefix(".content[").partition("]")
            block = self.blocks.get((index, int(number))) if number.isdigit() else None
            if block is not None:  # the block's own record (a log's line) when it has one
                found = _FIRST_INDEX.search(block)
                record = source_index if found is None else int(found.group(1))
                return Diagnostic(diagnostic.code, record, block + after, diagnostic.message)
        return Diagnostic(diagnostic.code, source_index, path + rest, diagnostic.message)


class LoadState:
    """One `load` in progress: the IR messages so far, problems, notes and origins."""

    def __init__(self, format: str, avoid: frozenset[str] = frozenset()) -> None:
        self.format = format
        self.avoid = avoid  # call IDs a renamed one must not take (all the source's)
        self.messages: list[Message] = []
        self.instructions: list[Instruction] = []
        self.notes: list[Note] = []
        self.problems: list[Diagnostic] = []
        self.origins = Origins()
        self.index = 0  # the source record being read
        self.latest: dict[str, tuple[str, str]] = {}  # source call ID -> (IR ID, name) of its latest call
        self.latest_message: dict[str, int] = {}  # source call ID -> the IR message of its latest call
        self.joins: int | None = None  # the IR message the record being read will be folded into
        self.call_ids: set[str] = set()  # every IR call ID given so far
        self.source_ids: set[str] = set()  # every source call ID seen
        self.collided = False
        self.renames: dict[str, int] = {}  # source call ID -> the last number its renames used
        self.trusted = True  # values parsed by msgspec here; a caller's parsed value is checked record by record
        self.container_meta: FrozenJsonObject | None = None
        self.body: dict[str, object] | None = None  # a request body's fields, when it was one
        self._pending: list[tuple[str, str, str, FrozenJsonObject | None]] = []

    def at(self, index: int) -> None:
        """Start reading source record `index`."""
        self.index = index

    def problem(self, path: str, message: str, *, outside: bool = False) -> None:
        """A `BAD_FORMAT` at `path`: in the current record, or `outside` the message list."""
        self.problems.append(Diagnostic("BAD_FORMAT", None if outside else self.index, path, message))

    def json_ok(self, value: object, path: str) -> bool:
        """Whether a record may be read: always for parsed text; for a caller's parsed value,
        when it follows the IR's JSON rule (exact builtins, finite numbers, UTF-8 strings,
        at most `MAX_DEPTH` levels), which `load` then needs to check nowhere else."""
        if self.trusted or is_json_value(value):
            return True
        self.problem(path, "Not a JSON value by the IR's rule (exact builtins, finite numbers, UTF-8, depth)")
        return False

    def message_id(self, part: int = 0) -> str:
        """The made-up ID of the IR message `part` of the current source record (see `source_index`)."""
        return f"m{self.index}" if part == 0 else f"m{self.index}.{part}"

    def instruction(self, role: str, text: str, path: str, meta: FrozenJsonObject | None) -> None:
        self._pending.append((role, text, path, meta))
        self.origins.items.append(Item(self.index, "instruction", None, path))

    def add(self, message: Message, path: str, block_paths: Sequence[str] = (), side: str | None = None) -> None:
        """Append an IR message read from `path` (its blocks from `block_paths`)."""
        index = len(self.messages)
        for role, text, where, meta in self._pending:
            self.instructions.append(Instruction(role, text, where, message.id, meta))
        self._pending = []
        self.messages.append(message)
        self.origins.messages.append((self.index, path))
        for number, block_path in enumerate(block_paths):
            self.origins.blocks[(index, number)] = block_path
        if side is None:
            side = "assistant" if type(message) is AssistantMessage else "user"
        self.origins.items.append(Item(self.index, side, index, path))

    def fold_last(self, into: int, message: AssistantMessage) -> None:
        """Make the last IR message part of message `into`: `message` (which holds both
        messages' blocks, `into`'s first) takes `into`'s place and the last one goes, with
        every origin and note that named it moved over."""
        last = len(self.messages) - 1
        count = len(self.messages[last].content)
        offset = len(message.content) - count
        self.messages[into] = message
        self.messages.pop()
        self.origins.messages.pop()
        self.origins.items.pop()
        for number in range(count):  # the last message's own entries only: linear over a log
            path = self.origins.blocks.pop((last, number), None)
            if path is not None:
                self.origins.blocks[(into, offset + number)] = path
        calls = self.origins.calls
        position = len(calls) - 1
        while position >= 0 and calls[position].message_index == last:  # its calls came last
            calls[position] = calls[position]._replace(message_index=into)
            position -= 1
        position = len(self.notes) - 1
        while position >= 0 and self.notes[position].message_index == last:  # and its notes
            self.notes[position] = msgspec.structs.replace(self.notes[position], message_index=into)
            position -= 1

    def call_id(self, message_index: int, source_id: str, name: str, path: str) -> str:
        """The IR ID of a call: its own, or a new one when the ID was used in an earlier message.

        Two calls of one message with one ID keep it: that is the IR's
        `DUPLICATE_TOOL_CALL_ID` (which result answers which cannot be told), not a reuse.
        """
        ir_id = source_id
        message = message_index if self.joins is None else self.joins
        if source_id not in self.source_ids and source_id in self.call_ids:
            self.collided = True  # an earlier rename took an ID the source uses here: read again
        if source_id in self.source_ids and self.latest_message.get(source_id) == message:
            ir_id = self.latest[source_id][0]  # the same message: a duplicate, kept as one
        elif source_id in self.source_ids or source_id in self.call_ids:
            number = self.renames.get(source_id, 1) + 1
            while f"{source_id}~{number}" in self.call_ids or f"{source_id}~{number}" in self.avoid:
                number += 1
            self.renames[source_id] = number
            ir_id = f"{source_id}~{number}"
            self.notes.append(
                Note(
                    "RENAMED_REUSED_CALL_ID",
                    message_index,
                    path,
                    f"Tool call ID {source_id!r} was used before; renamed {ir_id!r} (restored when written back)",
                )
            )
        self.source_ids.add(source_id)
        self.call_ids.add(ir_id)
        self.latest[source_id] = (ir_id, name)
        self.latest_message[source_id] = message
        self.origins.calls.append(CallOrigin(source_id, self.index, path, message_index, ir_id))
        return ir_id

    def result_call(self, message_index: int, source_id: str, name: str | None, path: str) -> tuple[str, str]:
        """The IR call ID and tool name of a result answering `source_id` (the latest such call)."""
        ir_id, call_name = self.latest.get(source_id, (source_id, ""))
        if name is None:
            name = call_name
        if not name:
            name = PLACEHOLDER_TOOL_NAME
            self.notes.append(
                Note(
                    "PLACEHOLDER_TOOL_NAME",
                    message_index,
                    path,
                    f"No call {source_id!r} comes before this result; its tool name is {name!r} (never written back)",
                )
            )
        return ir_id, name

    def bad_arguments(self, message_index: int, path: str, text: str) -> None:
        """Record arguments that are not a JSON object: a note now, a diagnostic in `check`."""
        shown = text if len(text) <= 40 else text[:37] + "..."
        self.notes.append(
            Note(
                "ARGUMENTS_NOT_AN_OBJECT",
                message_index,
                path,
                f"Arguments {shown!r} are not a JSON object; the IR holds {{}} and the text is kept",
            )
        )
        self.origins.extra.append(
            Diagnostic("BAD_TOOL_ARGUMENTS", self.index, path, "Expected a JSON object as the arguments text")
        )

    def finish(self, meta: FrozenJsonObject | None) -> tuple[Conversation, Origins]:
        if self.problems:
            raise FormatError(self.format, tuple(self.problems))
        for role, text, where, entry_meta in self._pending:
            self.instructions.append(Instruction(role, text, where, None, entry_meta))
        self._pending = []
        conversation = Conversation(
            format=self.format,
            messages=tuple(self.messages),
            instructions=tuple(self.instructions),
            notes=tuple(self.notes),
            meta=meta,
        )
        return conversation, self.origins


Reader = Callable[[object, frozenset[str], bool], LoadState]
"""A format's pass over a parsed source: `(source, call IDs to avoid, trusted) -> state`."""


def read_source(format: str, source: object, read: Reader, *, lines: bool = False) -> tuple[Conversation, Origins]:
    """`load` of any format: parse text (then trusted: msgspec's values follow the JSON rule),
    read it, and read it again avoiding every source call ID when a renamed reused ID met one
    that the source uses later. A log's text (`lines`) is left to its reader, line by line."""
    trusted = type(source) is bytes or type(source) is str
    if trusted and not lines:
        assert type(source) is bytes or type(source) is str
        source = parsed(format, source)
    state = read(source, frozenset(), trusted)
    if state.collided:
        state = read(source, frozenset(state.source_ids), trusted)
    return state.finish(state.container_meta)


def parsed(format: str, source: bytes | str) -> object:
    """The JSON value of text given to `load`; `FormatError` when it is not JSON."""
    try:
        return parse(source)
    except Unparsable as error:
        raise FormatError(format, (error.diagnostic,)) from None


def message_list(
    state: LoadState, source: object, key: str, known: Sequence[str] = (), tools: _tools.ToolReader | None = None
) -> tuple[list[object], str]:
    """The records of a bare list or of a request body's `key`, and their path prefix.

    Sets the container's `meta` on `state` (the form, and a body's other fields) and, for a
    format that declares `tools`, the body's declarations; raises `FormatError` for anything else.
    """
    records = as_array(source)
    if records is not None:
        state.container_meta = frozen_json_object({state.format: {"form": "list"}})
        return records, "$"
    body = as_object(source)
    if body is not None:
        records = as_array(body.get(key))
        if records is not None:
            info = split_record(body, (key, *known), (*known, key))  # `container` writes `known` first
            info["form"] = "body"
            try:
                state.container_meta = frozen_json_object({state.format: json_input(info)})
            except ConstructionError as error:  # a field beside the list the IR cannot hold (too deep)
                raise FormatError(state.format, (Diagnostic("BAD_FORMAT", None, "$", error.problem),)) from None
            state.body = body
            if tools is not None:
                state.origins.tools = _tools.read_declarations(tools, body)
                state.origins.tool_reader = tools
            return records, f"$.{key}"
    raise FormatError(
        state.format,
        (Diagnostic("BAD_FORMAT", None, "$", f"Expected a list of messages, or an object with a `{key}` list"),),
    )


def container(
    conversation: Conversation, format: str, key: str, records: list[object], others: dict[str, object]
) -> object:
    """The dumped form: the bare list if it was loaded as one, else a request body."""
    info: Info = frozen_info(conversation.meta, format) if conversation.format == format else {}
    if info.get("form") == "list" and not others:
        return records
    values: dict[str, object] = {**others, key: records}
    usual = (*others, key)  # the order `message_list` calls usual
    return build_record(info, usual, values)


def interleave(
    conversation: Conversation, render: Callable[[Message], None], instruction: Callable[[Instruction], None]
) -> None:
    """Render messages and instructions in order: each instruction before the message it preceded."""
    anchored: dict[str | None, list[Instruction]] = {}
    ids = {message.id for message in conversation.messages}
    for entry in conversation.instructions:
        anchored.setdefault(entry.before if entry.before in ids else None, []).append(entry)
    for message in conversation.messages:
        for entry in anchored.pop(message.id, ()):
            instruction(entry)
        render(message)
    for entry in anchored.pop(None, ()):
        instruction(entry)


def as_conversation(value: object) -> Conversation:
    """A `Conversation` as it is; a list or tuple of IR messages as one with nothing else."""
    if type(value) is Conversation:
        return value
    items = as_sequence(value)
    if items is not None:
        messages: list[Message] = []
        for item in items:
            if type(item) is UserMessage or type(item) is AssistantMessage or type(item) is ToolResultMessage:
                messages.append(item)
            else:
                raise TypeError(f"Expected IR messages, got `{kind(item)}`")
        return Conversation(format="message_ir", messages=tuple(messages))
    raise TypeError(f"Expected a Conversation or a sequence of messages, got `{kind(value)}`")


Rules = Callable[[Conversation, Origins], list[Diagnostic]]


def checked(
    format: str, source: object, load: Callable[[object], tuple[Conversation, Origins]], rules: Rules
) -> tuple[Diagnostic, ...]:
    """`check`: format problems, or the IR's diagnostics and the provider's rules, in the
    source's terms, sorted by source index. Never raises."""
    try:
        try:
            conversation, origins = load(source)
        except FormatError as error:
            return error.diagnostics
        found = [origins.to_source(diagnostic) for diagnostic in validate_transcript(conversation.messages)]
        found.extend(origins.extra)
        found.extend(rules(conversation, origins))
        if origins.tools is not None and origins.tool_reader is not None:
            found.extend(_tool_diagnostics(origins.tool_reader, conversation, origins, origins.tools))
        found.sort(key=lambda diagnostic: -1 if diagnostic.message_index is None else diagnostic.message_index)
        return tuple(found)
    except RecursionError:
        return (Diagnostic("JSON_TOO_DEEP", None, "$", "Nested too deeply to read"),)
    except MemoryError:
        return (Diagnostic("UNREADABLE_VALUE", None, "$", "Could not be read: out of memory"),)
    except Exception as error:  # noqa: BLE001  # check never raises
        return (
            Diagnostic(
                "UNREADABLE_VALUE",
                None,
                "$",
                f"Could not be read ({_error_name(error)}): a bug in message-ir, please report it",
            ),
        )


_ERRORS: Final = (ConstructionError, FormatError, ValueError, TypeError, KeyError, IndexError, AttributeError)


def _error_name(error: Exception) -> str:
    """The name of an unexpected error's class, from a fixed list (nothing of it is read)."""
    for known in _ERRORS:
        if isinstance(error, known):
            return known.__name__
    return "an unexpected error"


def role_problem(state: LoadState, record: dict[str, object], path: str, roles: Sequence[str]) -> None:
    """Report a record's `role` that is none of `roles` (missing, not a string, or unknown)."""
    expected = ", ".join(roles)
    if "role" not in record:
        state.problem(path, f"Missing `role`; expected one of {expected}")
        return
    role = record["role"]
    if type(role) is str:
        state.problem(path + ".role", f"Invalid role {role!r}; expected one of {expected}")
    else:
        state.problem(path + ".role", f"Expected `role` to be a string, got `{kind(role)}`; expected one of {expected}")


def _tool_diagnostics(
    reader: _tools.ToolReader, conversation: Conversation, origins: Origins, tools: tuple[_tools.ToolDeclaration, ...]
) -> list[Diagnostic]:
    """`check_tool_calls` in the source's terms: paths into the call's name or arguments there.
    Arguments that are not a JSON object (`BAD_TOOL_ARGUMENTS` already) are not checked again."""
    keys = (reader.name_key, reader.arguments_key)
    bad_arguments = {diagnostic.path for diagnostic in origins.extra}
    found: list[Diagnostic] = []
    for diagnostic in _tools.check_tool_calls(conversation.messages, tools):
        index = diagnostic.message_index
        if index is None:
            found.append(diagnostic)
            continue
        number, _, rest = diagnostic.path.removeprefix(f"$[{index}].content[").partition("]")
        block = origins.blocks.get((index, int(number)), origins.messages[index][1])
        source = origins.to_source(diagnostic).message_index
        if rest.startswith(".arguments"):
            if block + keys[1] in bad_arguments:
                continue
            path = block + keys[1] + rest.removeprefix(".arguments")
        else:
            path = block + keys[0]
        found.append(Diagnostic(diagnostic.code, source, path, diagnostic.message))
    return found


def adjacency(conversation: Conversation, origins: Origins, *, merge_turns: bool) -> list[Diagnostic]:
    """`RESULT_NOT_ADJACENT` for each result that is not in the turn right after its call.

    Without `merge_turns` (OpenAI Chat), a call's results must be the tool messages right
    after its assistant message; with it (Anthropic), consecutive messages of one side are one
    turn, and results must be in the user turn right after the assistant turn of the call.
    A result whose call is nowhere before it is the IR's linkage diagnostic, not this one.
    """
    call_turn: dict[str, int] = {}
    found: list[Diagnostic] = []
    turn = -1
    previous = ""
    for item in origins.items:
        side = item.side
        message = None if item.message_index is None else conversation.messages[item.message_index]
        is_result = type(message) is ToolResultMessage
        group = "user" if merge_turns and side == "user" else ("result" if is_result else side)
        if not (group == previous and (merge_turns or group == "result")) or item.message_index is None:
            turn += 1
        previous = group if item.message_index is not None else ""
        if type(message) is AssistantMessage:
            for block in message.content:
                if block.type == "toolCall":
                    call_turn[block.id] = turn
        elif type(message) is ToolResultMessage:
            call = call_turn.get(message.tool_call_id)
            if call is not None and call != turn - 1:
                found.append(
                    Diagnostic(
                        "RESULT_NOT_ADJACENT",
                        item.source_index,
                        item.path,
                        f"The result for {message.tool_call_id!r} is not in the turn right after its call",
                    )
                )
    return found


def id_rule_problems(origins: Origins, rule: IdRule) -> list[Diagnostic]:
    """`BAD_TOOL_CALL_ID_FORMAT` at each call of the source whose ID breaks `rule`."""
    found: list[Diagnostic] = []
    for call in origins.calls:
        problem = rule.problem(call.source_id)
        if problem is not None:
            found.append(Diagnostic("BAD_TOOL_CALL_ID_FORMAT", call.source_index, call.path, problem))
    return found


def part_texts(
    state: LoadState, content: object, path: str, text_types: Sequence[str]
) -> tuple[list[str], list[object]] | None:
    """The texts of a list of content parts (those whose `type` is one of `text_types`) and
    the parts; `None` after a problem (content that is not a list, a part without a `type`, a
    text part whose `text` is not a string)."""
    parts = as_array(content)
    if parts is None:
        state.problem(path, f"Expected `str` or a list of content parts, got `{kind(content)}`")
        return None
    texts: list[str] = []
    for number, item in enumerate(parts):
        part = as_object(item)
        if part is None or type(part.get("type")) is not str:
            state.problem(f"{path}[{number}]", "Expected a content part with a `type`")
            return None
        if part["type"] in text_types:
            text = part.get("text")
            if type(text) is not str:
                state.problem(f"{path}[{number}].text", f"Expected `str`, got `{kind(text)}`")
                return None
            texts.append(text)
    return texts, parts
