"""The message IR: frozen msgspec Structs, and TypedDicts for the JSON shape.

Messages are tagged by `role` and blocks by `type`; msgspec writes and reads the tag, and a
`ClassVar` with a `Literal` type makes it readable as an attribute (`message.role`) so that
type checkers narrow the unions on it.

A tool call keeps its arguments as JSON text (`arguments_json`, a `msgspec.Raw` written as
the wire field `arguments`): msgspec encodes it without an `enc_hook`, and decoding needs no
Python walk over argument values. Two calls compare and hash by the canonical form of that
text (msgspec's compact encoding), computed on first need and kept. `ToolCall.arguments` is a
read-only `FrozenJsonObject` built from the text on first use and kept.

Every message and block has one optional extension point, `meta` (a JSON object held as
text in `meta_json`, wire name `meta`, omitted from the wire when absent): what an adapter
needs to write a record of its format back exactly. `OpaqueBlock` is the third assistant
block: content whose position matters but which the IR does not interpret. Both are kept
as JSON text for the same reasons as tool arguments, and compare by canonical form.
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Final, Literal, NamedTuple, TypeAlias

import msgspec
from typing_extensions import NotRequired, TypedDict

from message_ir._argument_text import canonical_json
from message_ir._frozen_values import FrozenJsonObject, JsonData, freeze_decoded
from message_ir._json_rule import register_type_name
from message_ir._untyped import decode_json, instance_dict

NonEmptyStr: TypeAlias = Annotated[str, msgspec.Meta(min_length=1)]
"""An ID or a name: msgspec refuses an empty one while decoding."""

_VIEW_KEY = "_arguments_view"
CHECKED_KEY = "_checked_arguments"  # in a ToolCall's __dict__: the Raw the package checked
_CANONICAL_KEY = "_canonical_arguments"


NO_META: Final = msgspec.Raw(b"")
"""The `meta_json` of a message or block without `meta` (omitted from the wire)."""


def meta_view(meta_json: msgspec.Raw) -> FrozenJsonObject | None:
    """The read-only view of a `meta_json`, or `None` when there is no `meta`."""
    if not meta_json:
        return None
    view = freeze_decoded(decode_json(meta_json))
    if type(view) is not FrozenJsonObject:
        raise TypeError(f"meta_json does not hold a JSON object: {view!r}")
    return view


def canonical_meta(meta_json: msgspec.Raw) -> bytes:
    """What equality and hashing compare of a `meta_json` (empty when there is none)."""
    return canonical_json(meta_json) if meta_json else b""


class _View(NamedTuple):
    raw: msgspec.Raw  # the `arguments_json` the view was made from
    view: FrozenJsonObject


class _Canonical(NamedTuple):
    raw: msgspec.Raw  # the `arguments_json` the text was computed from
    text: bytes


class TextBlock(
    msgspec.Struct,
    frozen=True,
    forbid_unknown_fields=True,
    omit_defaults=True,
    repr_omit_defaults=True,
    gc=False,
    tag="text",
    tag_field="type",
):
    """Text written by the assistant, in order with its tool calls."""

    text: str
    meta_json: msgspec.Raw = msgspec.field(name="meta", default=NO_META)
    """The `meta` object as JSON text; empty when absent. Read it through `meta`."""
    type: ClassVar[Literal["text"]] = "text"

    @property
    def meta(self) -> FrozenJsonObject | None:
        """The block's `meta` object (read-only), or `None`."""
        return meta_view(self.meta_json)

    def __eq__(self, other: object) -> bool:
        if type(other) is not TextBlock:
            return NotImplemented
        return self.text == other.text and canonical_meta(self.meta_json) == canonical_meta(other.meta_json)

    def __hash__(self) -> int:
        return hash((self.text, canonical_meta(self.meta_json)))


class ToolCall(
    msgspec.Struct,
    frozen=True,
    forbid_unknown_fields=True,
    omit_defaults=True,
    repr_omit_defaults=True,
    dict=True,
    tag="toolCall",
    tag_field="type",
):
    """A call of a tool by the assistant.

    Build one with `tool_call()` or as a dict block given to `assistant_message()`. Calling
    the class directly checks nothing (msgspec does not check types in `__init__`); such a
    value is only trusted after `validate_transcript` has accepted it.
    """

    id: NonEmptyStr
    name: NonEmptyStr
    arguments_json: msgspec.Raw = msgspec.field(name="arguments")
    """The arguments as canonical compact JSON text (msgspec's encoding of the object)."""
    meta_json: msgspec.Raw = msgspec.field(name="meta", default=NO_META)
    """The `meta` object as JSON text; empty when absent. Read it through `meta`."""
    type: ClassVar[Literal["toolCall"]] = "toolCall"

    @property
    def meta(self) -> FrozenJsonObject | None:
        """The call's `meta` object (read-only), or `None`."""
        return meta_view(self.meta_json)

    def canonical_arguments(self) -> bytes:
        """msgspec's compact encoding of the arguments: what `==` and `hash()` compare.

        Constructed calls already hold it; decoded ones hold the text as it was received
        (checked, but with its own spacing and number spelling). Computed once, then kept.
        """
        namespace = instance_dict(self)
        raw = self.arguments_json
        cached = namespace.get(_CANONICAL_KEY)
        if type(cached) is _Canonical and cached.raw is raw:
            return cached.text
        text = canonical_json(raw)
        namespace[_CANONICAL_KEY] = _Canonical(raw, text)
        return text

    @property
    def arguments(self) -> FrozenJsonObject:
        """The arguments as a read-only mapping (arrays inside are tuples)."""
        namespace = instance_dict(self)
        raw = self.arguments_json
        cached = namespace.get(_VIEW_KEY)
        if type(cached) is _View and cached.raw is raw:  # tied to the field, like the canonical form
            return cached.view
        view = freeze_decoded(decode_json(raw))
        if type(view) is not FrozenJsonObject:
            raise TypeError(f"ToolCall.arguments_json does not hold a JSON object: {view!r}")
        namespace[_VIEW_KEY] = _View(raw, view)
        return view

    def __eq__(self, other: object) -> bool:
        if type(other) is not ToolCall:
            return NotImplemented
        return (
            self.id == other.id
            and self.name == other.name
            and self.canonical_arguments() == other.canonical_arguments()
            and canonical_meta(self.meta_json) == canonical_meta(other.meta_json)
        )

    def __hash__(self) -> int:
        return hash((self.id, self.name, self.canonical_arguments(), canonical_meta(self.meta_json)))

    def __repr__(self) -> str:
        arguments = bytes(self.arguments_json).decode(errors="replace")
        return f"ToolCall(id={self.id!r}, name={self.name!r}, arguments={arguments})"


def checked_tool_call(id: str, name: str, arguments_json: msgspec.Raw, meta_json: msgspec.Raw = NO_META) -> ToolCall:
    """A `ToolCall` whose fields the caller has checked, marked so the validator knows.

    The mark is the identity of the `arguments_json` it was made with: replacing the field
    (`msgspec.structs.force_setattr`) or copying the struct loses it, and the validator then
    checks the arguments text again.
    """
    call = ToolCall(id=id, name=name, arguments_json=arguments_json, meta_json=meta_json)
    mark_checked(call)
    return call


def mark_checked(call: ToolCall) -> None:
    """Mark a decoded call whose fields and arguments text have been checked."""
    instance_dict(call)[CHECKED_KEY] = call.arguments_json


def is_marked_checked(call: ToolCall) -> bool:
    """Whether `call` was made by the package and its arguments text is unchanged since."""
    mark = instance_dict(call).get(CHECKED_KEY)  # `None` when unmarked: a field of `None` is no match
    return mark is not None and mark is call.arguments_json


class OpaqueBlock(
    msgspec.Struct,
    frozen=True,
    forbid_unknown_fields=True,
    omit_defaults=True,
    repr_omit_defaults=True,
    gc=False,
    tag="opaque",
    tag_field="type",
):
    """Assistant content whose position matters but which the IR does not interpret.

    A thinking block with its signature, redacted thinking, a reasoning item: `format` names
    the adapter that wrote it (only that format replays it), `kind` what it is there, and
    `data` holds it as a JSON object. `text_from_assistant` skips it; linkage ignores it.
    """

    format: NonEmptyStr
    kind: NonEmptyStr
    data_json: msgspec.Raw = msgspec.field(name="data")
    """The `data` object as JSON text. Read it through `data`."""
    meta_json: msgspec.Raw = msgspec.field(name="meta", default=NO_META)
    """The `meta` object as JSON text; empty when absent. Read it through `meta`."""
    type: ClassVar[Literal["opaque"]] = "opaque"

    @property
    def data(self) -> FrozenJsonObject:
        """The block's data as a read-only mapping."""
        view = meta_view(self.data_json)
        if view is None:
            raise TypeError("OpaqueBlock.data_json is empty")
        return view

    @property
    def meta(self) -> FrozenJsonObject | None:
        """The block's `meta` object (read-only), or `None`."""
        return meta_view(self.meta_json)

    def __eq__(self, other: object) -> bool:
        if type(other) is not OpaqueBlock:
            return NotImplemented
        return (
            self.format == other.format
            and self.kind == other.kind
            and canonical_meta(self.data_json) == canonical_meta(other.data_json)
            and canonical_meta(self.meta_json) == canonical_meta(other.meta_json)
        )

    def __hash__(self) -> int:
        return hash((self.format, self.kind, canonical_meta(self.data_json), canonical_meta(self.meta_json)))


AssistantBlock: TypeAlias = TextBlock | ToolCall | OpaqueBlock
"""A block of an assistant message's content."""


class UserMessage(
    msgspec.Struct,
    frozen=True,
    forbid_unknown_fields=True,
    omit_defaults=True,
    repr_omit_defaults=True,
    gc=False,
    tag="user",
    tag_field="role",
):
    """A message from the user."""

    id: NonEmptyStr
    content: str
    meta_json: msgspec.Raw = msgspec.field(name="meta", default=NO_META)
    """The `meta` object as JSON text; empty when absent. Read it through `meta`."""
    role: ClassVar[Literal["user"]] = "user"

    @property
    def meta(self) -> FrozenJsonObject | None:
        """The message's `meta` object (read-only), or `None`."""
        return meta_view(self.meta_json)

    def __eq__(self, other: object) -> bool:
        if type(other) is not UserMessage:
            return NotImplemented
        return (
            self.id == other.id
            and self.content == other.content
            and canonical_meta(self.meta_json) == canonical_meta(other.meta_json)
        )

    def __hash__(self) -> int:
        return hash((self.id, self.content, canonical_meta(self.meta_json)))


class AssistantMessage(
    msgspec.Struct,
    frozen=True,
    forbid_unknown_fields=True,
    omit_defaults=True,
    repr_omit_defaults=True,
    gc=False,
    tag="assistant",
    tag_field="role",
):
    """A message from the assistant: text, tool-call and opaque blocks, in order."""

    id: NonEmptyStr
    content: tuple[AssistantBlock, ...]
    meta_json: msgspec.Raw = msgspec.field(name="meta", default=NO_META)
    """The `meta` object as JSON text; empty when absent. Read it through `meta`."""
    role: ClassVar[Literal["assistant"]] = "assistant"

    @property
    def meta(self) -> FrozenJsonObject | None:
        """The message's `meta` object (read-only), or `None`."""
        return meta_view(self.meta_json)

    def __eq__(self, other: object) -> bool:
        if type(other) is not AssistantMessage:
            return NotImplemented
        return (
            self.id == other.id
            and self.content == other.content
            and canonical_meta(self.meta_json) == canonical_meta(other.meta_json)
        )

    def __hash__(self) -> int:
        return hash((self.id, self.content, canonical_meta(self.meta_json)))


class ToolResultMessage(
    msgspec.Struct,
    frozen=True,
    forbid_unknown_fields=True,
    omit_defaults=True,
    repr_omit_defaults=True,
    gc=False,
    rename="camel",
    tag="toolResult",
    tag_field="role",
):
    """The result of one tool call, answering it by `tool_call_id`."""

    id: NonEmptyStr
    tool_call_id: NonEmptyStr
    tool_name: NonEmptyStr
    content: str
    is_error: bool
    meta_json: msgspec.Raw = msgspec.field(name="meta", default=NO_META)
    """The `meta` object as JSON text; empty when absent. Read it through `meta`."""
    role: ClassVar[Literal["toolResult"]] = "toolResult"

    @property
    def meta(self) -> FrozenJsonObject | None:
        """The message's `meta` object (read-only), or `None`."""
        return meta_view(self.meta_json)

    def __eq__(self, other: object) -> bool:
        if type(other) is not ToolResultMessage:
            return NotImplemented
        return (
            self.id == other.id
            and self.tool_call_id == other.tool_call_id
            and self.tool_name == other.tool_name
            and self.content == other.content
            and self.is_error is other.is_error
            and canonical_meta(self.meta_json) == canonical_meta(other.meta_json)
        )

    def __hash__(self) -> int:
        return hash(
            (self.id, self.tool_call_id, self.tool_name, self.content, self.is_error, canonical_meta(self.meta_json))
        )


Message: TypeAlias = UserMessage | AssistantMessage | ToolResultMessage
"""Any message of the IR."""

for _struct in (UserMessage, AssistantMessage, ToolResultMessage, TextBlock, ToolCall, OpaqueBlock):
    register_type_name(_struct, _struct.__name__)


class TextBlockJson(TypedDict):
    """The JSON shape of a `TextBlock`."""

    type: Literal["text"]
    text: str
    meta: NotRequired[dict[str, JsonData]]


class ToolCallJson(TypedDict):
    """The JSON shape of a `ToolCall`."""

    type: Literal["toolCall"]
    id: str
    name: str
    arguments: dict[str, JsonData]
    meta: NotRequired[dict[str, JsonData]]


class OpaqueBlockJson(TypedDict):
    """The JSON shape of an `OpaqueBlock`."""

    type: Literal["opaque"]
    format: str
    kind: str
    data: dict[str, JsonData]
    meta: NotRequired[dict[str, JsonData]]


AssistantBlockJson: TypeAlias = TextBlockJson | ToolCallJson | OpaqueBlockJson
"""The JSON shape of an assistant block."""


class UserMessageJson(TypedDict):
    """The JSON shape of a `UserMessage`."""

    id: str
    role: Literal["user"]
    content: str
    meta: NotRequired[dict[str, JsonData]]


class AssistantMessageJson(TypedDict):
    """The JSON shape of an `AssistantMessage`."""

    id: str
    role: Literal["assistant"]
    content: list[AssistantBlockJson]
    meta: NotRequired[dict[str, JsonData]]


class ToolResultMessageJson(TypedDict):
    """The JSON shape of a `ToolResultMessage` (camelCase keys, as on the wire)."""

    id: str
    role: Literal["toolResult"]
    toolCallId: str
    toolName: str
    content: str
    isError: bool
    meta: NotRequired[dict[str, JsonData]]


MessageJson: TypeAlias = UserMessageJson | AssistantMessageJson | ToolResultMessageJson
"""The JSON shape of any message."""
