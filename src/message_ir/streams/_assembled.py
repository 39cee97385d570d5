"""What assembling a stream gives (`Assembled`), and the blocks a stream builds as it goes.

A provider module keeps its blocks in the order the provider started them, each a slot that
its events add to: text, a call (its arguments arrive as fragments of JSON text), or a block
kept as it is (reasoning, a server tool's block), possibly with JSON fragments of its own.
`assembled` turns the slots into the IR assistant message once the stream is over.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, cast

import msgspec

from message_ir import (
    MAX_DEPTH,
    AssistantMessage,
    ConstructionError,
    Diagnostic,
    JsonInput,
    OpaqueBlock,
    TextBlock,
    ToolCall,
    assistant_message,
    opaque_block,
    text_block,
    tool_call,
)
from message_ir.adapters import Note
from message_ir.streams._framing import Event
from message_ir.streams._typed import encode

_decode: Final = msgspec.json.Decoder(object).decode
STREAM_KEY: Final = "stream"
"""The `meta` key of what a stream said beside the message (response ID, model, stop reason,
usage) and of what a block kept (arguments that were no JSON object)."""


class Assembled(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A provider stream assembled: the assistant `message` (blocks in the order the provider
    produced them; the response ID, model, stop reason and usage in its `meta` under
    `stream`), the `diagnostics` of the stream (paths are `$[n]`, the n-th event, from 0),
    whether the stream was `complete` (its last event arrived), and `notes` (an event of a
    type this package does not know, kept in the message's `meta` under
    `stream.unknown_events`)."""

    message: AssistantMessage
    diagnostics: tuple[Diagnostic, ...]
    complete: bool
    notes: tuple[Note, ...] = ()


def as_object(value: object) -> dict[str, object] | None:
    """`value` when it is a JSON object (parsed here: nothing of a caller's runs), else `None`."""
    return value if type(value) is dict else None


def as_list(value: object) -> list[object] | None:
    """`value` when it is a JSON array, else `None`."""
    return value if type(value) is list else None


class StreamState:
    """What every format's stream state holds as events arrive: the blocks so far (`slots`),
    what goes in the message's `meta` (`info`, and the `unknown` events), the diagnostics and
    notes, whether the stream ended, and the response's ID."""

    def __init__(self) -> None:
        self.slots: list[Slot] = []
        self.info: dict[str, object] = {}
        self.found: list[Diagnostic] = []
        self.notes: list[Note] = []
        self.unknown: list[object] = []  # events of types not known here, kept in the message's meta
        self.complete = False
        self.message_id = ""

    def event(self, event: Event) -> None:  # pragma: no cover - every format's `Stream` has its own
        """Take the stream's next event."""
        raise NotImplementedError

    def take(self, payloads: list[bytes], start: int, first: int) -> int:
        """The fast path: take the events of `payloads` from `start`, each decoded into the
        format's typed structs (see `_typed`) and dropped, while each is one of the frequent
        ones on the simple course (a delta for a block that exists); the index of the first
        one it leaves, which is read the careful way. Payload `n` is event `first + n`."""
        return start

    def error(self, number: int, message: object) -> None:
        """The provider's error event (`number`), saying `message`: the stream is over."""
        text = message if type(message) is str else "an error without a message"
        self.found.append(Diagnostic("STREAM_ERROR", number, f"$[{number}]", f"The provider said: {text}"))
        self.complete = True

    def unreadable(self, number: int, error: Exception) -> None:
        """An event (`number`) whose reading failed (`error`: a bug): said, and the stream goes on."""
        text = f"Could not be read ({type(error).__name__})"
        self.found.append(Diagnostic("UNREADABLE_VALUE", number, f"$[{number}]", text))

    def out_of_order(self, number: int, text: str) -> None:
        """An event (`number`) for something never started, or after the end."""
        self.found.append(Diagnostic("STREAM_OUT_OF_ORDER", number, f"$[{number}]", text))


def unknown_event(unknown: list[object], notes: list[Note], number: int, payload: object, kind: object) -> None:
    """Keep an event of a type not known here (`unknown` goes in the message's `meta`) and note it."""
    unknown.append(payload)
    said = repr(kind) if type(kind) is str else "without a type"
    text = f"An event {said} this package does not know; kept in meta"
    notes.append(Note("UNKNOWN_EVENT", None, f"$[{number}]", text))


@dataclass(slots=True)
class Text:
    parts: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Call:
    id: str
    name: str
    event: int  # where it started, for its diagnostics
    parts: list[str] = field(default_factory=list)
    given: dict[str, object] | None = None  # arguments sent whole (Anthropic's `input` at the start)
    given_decoded: bool = False  # `given` was decoded here from the stream's bytes, not a caller's value
    kept: dict[str, object] = field(default_factory=dict)  # the block's other fields


@dataclass(slots=True)
class Kept:
    format: str
    kind: str
    data: dict[str, object]
    json_key: str = ""  # where the JSON fragments go, when they come
    parts: list[str] = field(default_factory=list)


Slot = Text | Call | Kept


def as_input(value: dict[str, object]) -> dict[str, JsonInput]:
    """Plain data parsed from JSON, handed to a constructor (which checks it at run time)."""
    return cast("dict[str, JsonInput]", value)


def assembled(
    slots: list[Slot],
    message_id: str,
    info: dict[str, object],
    found: list[Diagnostic],
    complete: bool,
    notes: list[Note] | None = None,
    unknown: list[object] | None = None,
) -> Assembled:
    """The `Assembled` of a stream's slots; `info` (response ID, model, stop reason, usage)
    goes in the message's `meta`."""
    blocks: list[TextBlock | ToolCall | OpaqueBlock] = []
    for slot in slots:
        if isinstance(slot, Text):
            text = "".join(slot.parts)  # an exact `str`, whatever the parts were
            # ASCII text holds no lone surrogate: the block the constructor would make, unchecked.
            blocks.append(TextBlock(text=text) if text.isascii() else text_block(text=text))
        elif isinstance(slot, Call):
            blocks.append(_call(slot, found))
        else:
            blocks.append(_kept(slot))
    if unknown:
        info = {**info, "unknown_events": unknown}
    meta: dict[str, object] | None = {STREAM_KEY: info} if info else None
    shell = assistant_message(id=message_id, content=[], meta=None if meta is None else as_input(meta))
    # Each block was made by its checked constructor: the message holds them as they are.
    message = AssistantMessage(id=shell.id, content=tuple(blocks), meta_json=shell.meta_json)
    found.sort(key=lambda diagnostic: -1 if diagnostic.message_index is None else diagnostic.message_index)
    return Assembled(message, tuple(found), complete, tuple(notes or ()))


def _call(slot: Call, found: list[Diagnostic]) -> ToolCall:
    text = "".join(slot.parts)
    meta: dict[str, object] = dict(slot.kept)
    arguments: dict[str, object] = {}
    decoded = True  # the arguments were parsed here, from the stream's JSON text
    if not text.strip():
        if slot.given is not None:
            arguments, decoded = slot.given, slot.given_decoded
    else:
        try:
            parsed: object = _decode(text)
        except msgspec.DecodeError:
            parsed = None
        if type(parsed) is dict:
            arguments = parsed
        else:
            meta["arguments"] = text
            found.append(
                Diagnostic(
                    "BAD_TOOL_ARGUMENTS",
                    slot.event,
                    f"$[{slot.event}]",
                    f"The arguments of {slot.id!r} do not make a JSON object: {_shown(text)}",
                )
            )
    if decoded and not meta and _plain_identifier(slot.id) and _plain_identifier(slot.name):
        arguments_json = encode(arguments)  # canonical: what the constructor would keep
        if arguments_json.count(b"{") + arguments_json.count(b"[") <= MAX_DEPTH:  # surely not too deep
            # Parsed here from JSON (msgspec refuses what the JSON rule refuses, but depth), with
            # identifiers the constructor takes without a closer look: no second walk.
            return ToolCall(id=slot.id, name=slot.name, arguments_json=msgspec.Raw(arguments_json))
    try:
        return tool_call(
            id=slot.id,
            name=slot.name,
            arguments=as_input(arguments),
            meta=as_input({STREAM_KEY: dict(meta)}) if meta else None,
        )
    except ConstructionError as error:  # a value the IR cannot hold (too deep): kept as text
        found.append(Diagnostic("BAD_TOOL_ARGUMENTS", slot.event, f"$[{slot.event}]", error.problem))
        return tool_call(id=slot.id, name=slot.name, arguments={}, meta={STREAM_KEY: {"arguments": text}})


def _plain_identifier(value: object) -> bool:
    """Whether `value` is an identifier the IR accepts without a closer look (a non-empty ASCII `str`)."""
    return type(value) is str and bool(value) and value.isascii()


def _kept(slot: Kept) -> OpaqueBlock:
    data = dict(slot.data)
    if slot.parts:
        text = "".join(slot.parts)
        try:
            data[slot.json_key] = _decode(text)
        except msgspec.DecodeError:
            data[slot.json_key] = text
    return opaque_block(format=slot.format, kind=slot.kind, data=as_input(data))


def _shown(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:37] + "...")
