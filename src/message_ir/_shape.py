"""The shape pass of `validate_transcript`: is every message well-formed?

It accepts two forms of message, never mixed inside one message:

- the JSON form: an exact `dict` with `str` keys, as `json.loads` gives (arrays may be
  `list` or `tuple`, objects inside tool arguments may also be `FrozenJsonObject`);
- the struct form: an exact `UserMessage`, `AssistantMessage` or `ToolResultMessage`, whose
  blocks are exact `TextBlock`s, `ToolCall`s and `OpaqueBlock`s. msgspec does not check
  field types in `__init__`, so every field is checked here as well.

Which keys each record has comes from the wire table (`message_ir._wire`). The optional
`meta` of every message and block must be a JSON object (`BAD_META`); nothing else about it
is checked.

Every container is listed once (`list(...)` of an exact `list`, `tuple` or `dict`, which
runs no caller code), every field is read once, and every value's exact type is checked
before the value is used, so a value cannot change between being checked and being
recorded. Only exact `str`s are ever hashed. Each field with a problem gives one diagnostic;
a message with an unreadable role gives one and nothing else. Alongside, it records a
`LinkEvent` for every tool call and tool result whose ID it can read, for `check_linkage`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, TypeAlias

import msgspec

from message_ir._argument_text import arguments_text
from message_ir._diagnostics import Diagnostic, DiagnosticCode
from message_ir._field_rules import (
    bool_problem,
    identifier_problem,
    missing_field,
    text_problem,
    unknown_field,
)
from message_ir._frozen_values import FrozenJsonObject
from message_ir._json_rule import check_json_tree, type_name
from message_ir._linkage import LinkEvent
from message_ir._model import (
    NO_META,
    AssistantMessage,
    OpaqueBlock,
    TextBlock,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    is_marked_checked,
)
from message_ir._paths import format_segment, join_path
from message_ir._untyped import exact_dict_items, exact_sequence_items
from message_ir._wire import BLOCKS, MESSAGES, META, WireRecord

_MISSING: Final = object()  # the field is absent from a JSON-form record
_UNSET: Final = object()  # the struct field is unset; already reported as UNREADABLE_VALUE

_Rule: TypeAlias = Callable[[object], "str | None"]


class ShapeCheck:
    """One run of the shape pass: diagnostics and link events, both in transcript order."""

    def __init__(self) -> None:
        self.diagnostics: list[Diagnostic] = []
        self.events: list[LinkEvent] = []

    def report(self, code: DiagnosticCode, index: int | None, path: str, message: str) -> None:
        self.diagnostics.append(Diagnostic(code, index, path, message))

    def transcript(self, value: object) -> None:
        if type(value) is not list and type(value) is not tuple:
            self.report(
                "TRANSCRIPT_NOT_A_LIST",
                None,
                "$",
                f"Expected a transcript (`list` or `tuple` of messages), got `{type_name(value)}`",
            )
            return
        for index, message in enumerate(exact_sequence_items(value) or ()):
            self.checked_message(index, message)

    def checked_message(self, index: int, message: object) -> None:
        """Check one message at `index`; whatever happens, end in diagnostics, never a raise."""
        reported, recorded = len(self.diagnostics), len(self.events)
        try:
            self.message(index, message)
        except Exception as error:  # noqa: BLE001  # the guard never raises
            # No input is known to get here: every read is of an exact builtin or of the
            # package's own structs. Kept so that a surprise in a future Python or msgspec
            # still ends in a diagnostic rather than in the caller's crash.
            del self.diagnostics[reported:], self.events[recorded:]
            self.report("UNREADABLE_VALUE", index, f"$[{index}]", f"Message could not be read: `{type_name(error)}`")

    def message(self, index: int, message: object) -> None:
        path = f"$[{index}]"
        bad_keys = False
        items = exact_dict_items(message)
        if items is not None:
            record = self.record_fields(index, path, items, "role", MESSAGES, "UNKNOWN_ROLE")
            if record is None:
                return
            fields, bad_keys = record
            role = fields["role"]
            structs = False
        elif type(message) is UserMessage:
            role, structs = "user", True
            fields = self.struct_fields(index, path, message, MESSAGES["user"])
        elif type(message) is AssistantMessage:
            role, structs = "assistant", True
            fields = self.struct_fields(index, path, message, MESSAGES["assistant"])
        elif type(message) is ToolResultMessage:
            role, structs = "toolResult", True
            fields = self.struct_fields(index, path, message, MESSAGES["toolResult"])
        else:
            self.report(
                "MESSAGE_NOT_A_RECORD",
                index,
                path,
                f"Expected a message (`dict` or a message struct), got `{type_name(message)}`",
            )
            return
        id_ok = self.field(index, path, fields, "id", "BAD_MESSAGE_ID", identifier_problem)
        meta_ok = self.meta(index, path, fields, structs)
        if role == "user":
            self.field(index, path, fields, "content", "BAD_CONTENT", text_problem)
        elif role == "assistant":
            self.assistant_content(index, path, fields.get("content", _MISSING), structs)
        else:
            content_ok = self.field(index, path, fields, "content", "BAD_CONTENT", text_problem)
            call_id_ok = self.field(index, path, fields, "toolCallId", "BAD_TOOL_RESULT_FIELD", identifier_problem)
            name_ok = self.field(index, path, fields, "toolName", "BAD_TOOL_RESULT_FIELD", identifier_problem)
            error_ok = self.field(index, path, fields, "isError", "BAD_TOOL_RESULT_FIELD", bool_problem)
            if call_id_ok:
                call_id, tool_name = fields["toolCallId"], fields["toolName"] if name_ok else ""
                assert type(call_id) is str  # checked by field()
                assert type(tool_name) is str
                well_formed = id_ok and content_ok and name_ok and error_ok and meta_ok and not bad_keys
                self.events.append(LinkEvent(False, index, -1, call_id, tool_name, well_formed))

    def record_fields(
        self,
        index: int,
        path: str,
        items: list[tuple[object, object]],
        tag: str,
        known: dict[str, WireRecord],
        tag_code: DiagnosticCode,
    ) -> tuple[dict[str, object], bool] | None:
        """The fields of a JSON-form record by key, and whether it had keys it should not.

        `None` (after a `tag_code` diagnostic) when the tag is absent or unknown. Keys that
        are not exact `str`s, and keys the tagged record does not define, are each reported
        as `UNKNOWN_FIELD`.
        """
        fields: dict[str, object] = {}
        odd_keys: list[object] = []
        for key, value in items:
            if type(key) is str:
                fields[key] = value
            else:
                odd_keys.append(key)
        tag_value = fields.get(tag, _MISSING)
        if tag_value is _MISSING:
            self.report(tag_code, index, path, missing_field(tag))
            return None
        if type(tag_value) is not str:
            self.report(tag_code, index, path + format_segment(tag), f"Expected `str`, got `{type_name(tag_value)}`")
            return None
        if tag_value not in known:
            choices = ", ".join(f"`{name}`" for name in known)
            self.report(
                tag_code, index, path + format_segment(tag), f"Invalid {tag} {tag_value!r}; expected one of {choices}"
            )
            return None
        allowed = known[tag_value].keys
        for key in odd_keys:
            self.report("UNKNOWN_FIELD", index, path, unknown_field(key))
        unknown = [key for key in fields if key not in allowed]
        for key in unknown:
            self.report("UNKNOWN_FIELD", index, path + format_segment(key), unknown_field(key))
        return fields, bool(odd_keys or unknown)

    def struct_fields(self, index: int, path: str, struct: object, record: WireRecord) -> dict[str, object]:
        """The fields of an exact package struct by wire name; unset ones are reported."""
        fields: dict[str, object] = {}
        for wire_name, attribute, _ in record.fields:
            value = getattr(struct, attribute, _MISSING)  # a slot of an exact package struct
            if value is _MISSING:
                self.report(
                    "UNREADABLE_VALUE", index, path + format_segment(wire_name), f"Field `{attribute}` is unset"
                )
                value = _UNSET
            fields[wire_name] = value
        return fields

    def meta(self, index: int, path: str, fields: dict[str, object], structs: bool) -> bool:
        """Check the optional `meta` of a record: a JSON object when present. True when fine."""
        return self.json_object(index, path + format_segment(META), fields.get(META, _MISSING), structs, "BAD_META")

    def json_object(self, index: int, path: str, value: object, structs: bool, code: DiagnosticCode) -> bool:
        """Check a JSON object field kept as text in a struct (`meta`, `data`); true when fine.

        In the struct form it is a `msgspec.Raw` (empty for an absent `meta`); in the JSON
        form a `dict` (or the package's `FrozenJsonObject`), absent for no `meta`.
        """
        if value is _MISSING or value is _UNSET:
            return value is _MISSING
        problem: str | None = None
        if structs:
            if type(value) is not msgspec.Raw:
                problem = f"Expected `msgspec.Raw`, got `{type_name(value)}`"
            elif not value and value is not NO_META and code == "BAD_META":  # the encoder would write `"meta":}`
                problem = "Expected a JSON object, got an empty `msgspec.Raw`; leave `meta_json` out for no `meta`"
            elif value or code != "BAD_META":
                _, problem = arguments_text(value, syntax_checked=False)
        elif type(value) is not dict and type(value) is not FrozenJsonObject:
            problem = f"Expected `dict`, got `{type_name(value)}`"
        else:
            tree_problem, _ = check_json_tree(value, copy=False)
            if tree_problem is not None:
                path = join_path(path, tree_problem.segments)
                problem = tree_problem.message
        if problem is not None:
            self.report(code, index, path, problem)
            return False
        return True

    def field(
        self,
        index: int,
        path: str,
        fields: dict[str, object],
        wire_name: str,
        code: DiagnosticCode,
        rule: _Rule,
    ) -> bool:
        """Check one field by `rule`, reporting under `code`; true when it is fine."""
        value = fields.get(wire_name, _MISSING)
        if value is _UNSET:
            return False
        if value is _MISSING:
            self.report(code, index, path, missing_field(wire_name))
            return False
        problem = rule(value)
        if problem is not None:
            self.report(code, index, path + format_segment(wire_name), problem)
            return False
        return True

    def assistant_content(self, index: int, path: str, content: object, structs: bool) -> None:
        content_path = path + ".content"
        if content is _UNSET:
            return
        if content is _MISSING:
            self.report("BAD_CONTENT", index, path, missing_field("content"))
            return
        blocks = exact_sequence_items(content) if type(content) is tuple or not structs else None
        if blocks is None:
            expected = "`tuple`" if structs else "`list`"
            self.report(
                "BAD_CONTENT", index, content_path, f"Expected {expected} of blocks, got `{type_name(content)}`"
            )
            return
        for block_index, block in enumerate(blocks):
            block_path = f"{content_path}[{block_index}]"
            if structs:
                self.struct_block(index, block_index, block_path, block)
            else:
                self.json_block(index, block_index, block_path, block)

    def json_block(self, index: int, block_index: int, path: str, block: object) -> None:
        items = exact_dict_items(block)
        if items is None:
            self.report("BAD_BLOCK", index, path, f"Expected a block (`dict`), got `{type_name(block)}`")
            return
        record = self.record_fields(index, path, items, "type", BLOCKS, "BAD_BLOCK")
        if record is None:
            return
        fields, bad_keys = record
        meta_ok = self.meta(index, path, fields, structs=False)
        if fields["type"] == "text":
            self.field(index, path, fields, "text", "BAD_BLOCK", text_problem)
            return
        if fields["type"] == "opaque":
            self.opaque(index, path, fields, structs=False)
            return
        arguments = fields.get("arguments", _MISSING)
        arguments_path = path + ".arguments"
        problem: str | None = None
        if arguments is _MISSING:
            self.report("BAD_TOOL_CALL", index, path, missing_field("arguments"))
        elif type(arguments) is not dict and type(arguments) is not FrozenJsonObject:
            problem = f"Expected `dict`, got `{type_name(arguments)}`"
        else:
            tree_problem, _ = check_json_tree(arguments, copy=False)
            if tree_problem is not None:
                arguments_path = join_path(arguments_path, tree_problem.segments)
                problem = tree_problem.message
        if problem is not None:
            self.report("BAD_TOOL_ARGUMENTS", index, arguments_path, problem)
        arguments_ok = arguments is not _MISSING and problem is None
        self.tool_call(index, block_index, path, fields, arguments_ok and meta_ok and not bad_keys)

    def opaque(self, index: int, path: str, fields: dict[str, object], structs: bool) -> None:
        """Check an opaque block's `format`, `kind` (non-empty names) and `data` (an object)."""
        self.field(index, path, fields, "format", "BAD_BLOCK", identifier_problem)
        self.field(index, path, fields, "kind", "BAD_BLOCK", identifier_problem)
        data = fields.get("data", _MISSING)
        if data is _MISSING:
            self.report("BAD_BLOCK", index, path, missing_field("data"))
        else:
            self.json_object(index, path + ".data", data, structs, "BAD_BLOCK")

    def struct_block(self, index: int, block_index: int, path: str, block: object) -> None:
        if type(block) is TextBlock:
            fields = self.struct_fields(index, path, block, BLOCKS["text"])
            self.meta(index, path, fields, structs=True)
            self.field(index, path, fields, "text", "BAD_BLOCK", text_problem)
            return
        if type(block) is OpaqueBlock:
            fields = self.struct_fields(index, path, block, BLOCKS["opaque"])
            self.meta(index, path, fields, structs=True)
            self.opaque(index, path, fields, structs=True)
            return
        if type(block) is not ToolCall:
            self.report(
                "BAD_BLOCK",
                index,
                path,
                f"Expected a block (`TextBlock`, `ToolCall` or `OpaqueBlock`), got `{type_name(block)}`",
            )
            return
        fields = self.struct_fields(index, path, block, BLOCKS["toolCall"])
        meta_ok = self.meta(index, path, fields, structs=True)
        arguments = fields["arguments"]
        problem: str | None = None
        if arguments is _UNSET:
            problem = ""  # already reported as UNREADABLE_VALUE
        elif type(arguments) is not msgspec.Raw:
            problem = f"Expected `msgspec.Raw`, got `{type_name(arguments)}`"
        elif not is_marked_checked(block):
            _, problem = arguments_text(arguments, syntax_checked=False)
        if problem:
            self.report("BAD_TOOL_ARGUMENTS", index, path + ".arguments", problem)
        self.tool_call(index, block_index, path, fields, problem is None and meta_ok)

    def tool_call(self, index: int, block_index: int, path: str, fields: dict[str, object], others_ok: bool) -> None:
        """Check a call's `id` and `name`, and record it for linkage if its ID is readable."""
        id_ok = self.field(index, path, fields, "id", "BAD_TOOL_CALL", identifier_problem)
        name_ok = self.field(index, path, fields, "name", "BAD_TOOL_CALL", identifier_problem)
        if id_ok:
            call_id, name = fields["id"], fields["name"] if name_ok else ""
            assert type(call_id) is str  # checked by field()
            assert type(name) is str
            self.events.append(LinkEvent(True, index, block_index, call_id, name, name_ok and others_ok))
