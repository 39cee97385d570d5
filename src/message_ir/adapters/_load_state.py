"""Reading a source into the IR: the state of one pass (`LoadState`: messages, IDs, pairing,
problems) and where each message came from (`Origins`), the container's forms (a bare list
or a request body), and the readers every format shares (a role, text parts)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from typing import Final, NamedTuple

import msgspec

from message_ir import (
    AssistantMessage,
    ConstructionError,
    Diagnostic,
    FrozenJsonObject,
    Message,
    ToolResultMessage,
    frozen_json_object,
    is_json_value,
)
from message_ir.adapters import _tools
from message_ir.adapters._conversation import Conversation, FormatError, Instruction, Note
from message_ir.adapters._json import as_array, as_object, decode, encode, json_input, kind, parse
from message_ir.adapters._log_file import whole
from message_ir.adapters._records import split_record
from message_ir.adapters._unparsable import Unparsable

_FIRST_INDEX: Final = re.compile(r"\[(\d+)\]")

PLACEHOLDER_TOOL_NAME: Final = "unknown_tool"
"""The IR tool name of a result whose format gives none and whose call is nowhere."""


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


def _arguments_problem(text: str) -> str:
    """What is wrong with arguments text that holds no object; arguments encoded twice (a
    JSON string whose text is an object: a model trained on it learns the wrong target) are
    said so."""
    try:
        value = decode(text)
    except (msgspec.DecodeError, RecursionError, UnicodeError):
        value = None
    if type(value) is str and arguments_object(value) is not None:
        return "Expected a JSON object as the arguments text, got a JSON string holding one (encoded twice)"
    return "Expected a JSON object as the arguments text"


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


_item_of: Final[Callable[[tuple[int, str, int | None, str]], Item]] = partial(tuple.__new__, Item)
"""An `Item` of its four fields, made in C (a `NamedTuple`'s own constructor is a Python
function: this runs once a message `load` reads)."""
_call_origin_of: Final[Callable[[tuple[str, int, str, int, str]], CallOrigin]] = partial(tuple.__new__, CallOrigin)
"""A `CallOrigin` of its five fields, made in C (once a call)."""


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
        self.first_record = 0  # the number of the first record read (a log's segment: its first line's)
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
        self.carried: object = None  # what a log's reader carries to its next segment (Codex: a record number)

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

    def readable(self, records: Iterable[object], prefix: str) -> Iterator[tuple[int, str, object]]:
        """Each record of `records` that may be read (see `json_ok`), with its index and path
        (`prefix[index]`), the state moved to it (`at`)."""
        trusted = self.trusted
        for index, value in enumerate(records, self.first_record):
            self.index = index  # `at`, inlined: this runs once a record
            path = f"{prefix}[{index}]"
            if trusted or self.json_ok(value, path):
                yield index, path, value

    def objects(self, records: Sequence[object], prefix: str, what: str) -> Iterator[tuple[str, dict[str, object]]]:
        """Each readable record that is a JSON object, with its path; any other is a problem
        ("Expected `what`, got ...")."""
        trusted = self.trusted
        for _, path, value in self.readable(records, prefix):
            # Parsed here, a `dict` is a JSON object: msgspec gives `str` keys only.
            record = value if trusted and type(value) is dict else as_object(value)
            if record is None:
                self.problem(path, f"Expected {what}, got `{kind(value)}`")
            else:
                yield path, record

    def message_id(self, part: int = 0) -> str:
        """The made-up ID of the IR message `part` of the current source record (see `source_index`)."""
        return f"m{self.index}" if part == 0 else f"m{self.index}.{part}"

    def instruction(self, role: str, text: str, path: str, meta: FrozenJsonObject | None) -> None:
        self._pending.append((role, text, path, meta))
        self.origins.items.append(_item_of((self.index, "instruction", None, path)))

    def add(self, message: Message, path: str, block_paths: Sequence[str] = (), side: str | None = None) -> None:
        """Append an IR message read from `path` (its blocks from `block_paths`)."""
        index = len(self.messages)
        if self._pending:
            for role, text, where, meta in self._pending:
                self.instructions.append(Instruction(role, text, where, message.id, meta))
            self._pending = []
        self.messages.append(message)
        origins = self.origins
        origins.messages.append((self.index, path))
        if block_paths:
            blocks = origins.blocks
            for number, block_path in enumerate(block_paths):
                blocks[(index, number)] = block_path
        if side is None:
            side = "assistant" if type(message) is AssistantMessage else "user"
        origins.items.append(_item_of((self.index, side, index, path)))

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
        self.origins.calls.append(_call_origin_of((source_id, self.index, path, message_index, ir_id)))
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

    def result(
        self, call_id: str, tool_name: str, content: str, is_error: bool, meta_json: msgspec.Raw, part: int = 0
    ) -> ToolResultMessage:
        """The IR result message `part` of the current source record (its ID made up)."""
        return ToolResultMessage(
            id=self.message_id(part),
            tool_call_id=call_id,
            tool_name=tool_name,
            content=content,
            is_error=is_error,
            meta_json=meta_json,
        )

    def answer(
        self, source_id: str, name: str | None, content: str, is_error: bool, meta_json: msgspec.Raw, path: str
    ) -> ToolResultMessage:
        """The result message of the current source record answering the call `source_id` (see
        `result_call`)."""
        call_id, tool_name = self.result_call(len(self.messages), source_id, name, path)
        return self.result(call_id, tool_name, content, is_error, meta_json)

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
        self.origins.extra.append(Diagnostic("BAD_TOOL_ARGUMENTS", self.index, path, _arguments_problem(text)))

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
    if not lines:
        source = whole(source)
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
                state.container_meta = _container_meta(state.format, info, state.trusted)
            except ConstructionError as error:  # a field beside the list the IR cannot hold (too deep)
                raise FormatError(state.format, (Diagnostic("BAD_FORMAT", None, "$", error.problem),)) from None
            state.body = body
            if tools is not None:
                state.origins.tools = _tools.read_declarations(tools, body, parsed_here=state.trusted)
                state.origins.tool_reader = tools
            return records, f"$.{key}"
    raise FormatError(
        state.format,
        (Diagnostic("BAD_FORMAT", None, "$", f"Expected a list of messages, or an object with a `{key}` list"),),
    )


_MAX_REMEMBERED: Final = 256
_containers: dict[bytes, FrozenJsonObject] = {}


def _container_meta(format: str, info: dict[str, object], parsed_here: bool) -> FrozenJsonObject:
    """The `meta` of a body's other fields (`tools`, `system`, ...). With `parsed_here` (the
    body was parsed from text here: encoding it runs no caller's code), remembered per text:
    a dataset's lines repeat the same fields, and checking and freezing them again is most of
    a line's load."""
    value = {format: json_input(info)}
    if not parsed_here:
        return frozen_json_object(value)
    try:
        key = encode(value)
    except (msgspec.EncodeError, UnicodeError):  # a lone surrogate the decoder let through
        return frozen_json_object(value)
    found = _containers.get(key)
    if found is None:
        found = frozen_json_object(value)  # raises for what the IR cannot hold: nothing remembered
        if len(_containers) >= _MAX_REMEMBERED:
            _containers.clear()
        _containers[key] = found
    return found


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


def typed_texts(items: list[object], separator: str) -> str:
    """The texts of the `{"type": "text", "text": ...}` items of a list already read by `load`, joined."""
    texts: list[str] = []
    for item in items:
        part = as_object(item)
        if part is not None and part.get("type") == "text":
            text = part.get("text")
            if type(text) is str:
                texts.append(text)
    return separator.join(texts)


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
