"""The steps the JSON and the JSON Lines decoders share (`_codec`, `_jsonl`).

After msgspec's typed decode, `finish_decoded` makes one Python pass over the messages: it
tests linkage and collects the calls, whose arguments text `adopt_arguments` checks on the
bytes of all of them at once, compacts and copies into buffers of their own (the same for
the `meta` of any message or block and the `data` of opaque blocks, `adopt_objects`). When
anything fails, `explain` parses the text again (`parse_json`, the way `json.loads` reads it)
and hands the result to `validate_transcript`, so the diagnostics are the guard's own; a
`role` or `type` repeated with another value is `DUPLICATE_KEY` (`retagged_diagnostics`);
`message_from_json` builds a message the validator accepted through the constructors.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, NamedTuple, TypeAlias, cast

import msgspec

from message_ir._argument_text import arguments_text, compact_all, depth_exceeds, quick_arguments_check_all
from message_ir._constructors import BlockInput, assistant_message, tool_result_message, user_message
from message_ir._diagnostics import LINKAGE_CODES, Diagnostic, by_message_index
from message_ir._frozen_values import JsonInput
from message_ir._linkage import LinkEvent
from message_ir._model import (
    AssistantBlock,
    AssistantMessage,
    Message,
    OpaqueBlock,
    ToolCall,
    ToolResultMessage,
    mark_checked,
)
from message_ir._untyped import (
    exact_dict_items,
    exact_sequence_items,
    force_setattr,
    loads_tracking_tags,
)
from message_ir._validate import validate_transcript

PARSE_DEPTH: Final = 512
"""Text nested deeper than this is refused before it is parsed (`JSON_TOO_DEEP`).

A valid transcript nests at most `MAX_DEPTH + 4` levels; the margin lets the validator
explain moderately deep text precisely, and the bound keeps the parser's recursion small.
"""


LINKED: Final = "linked"
UNLINKED: Final = "unlinked"
REFUSED: Final = "refused"


def finish_decoded(messages: list[Message], *, track_linkage: bool = True) -> str:
    """Finish what msgspec decoded, in one pass: canonical arguments, and linkage yes or no.

    `REFUSED` when some arguments are not acceptable (the explaining path says why),
    `UNLINKED` when linkage is broken (all messages being well-formed, their link events
    give the diagnostics), else `LINKED`. The linkage test is the validator's rules for
    well-formed messages: each result pops its call from `pending`, so an orphan, a second
    result or an early one pops nothing; a repeated call ID is in `seen`; a call left in
    `pending` at the end has no result. Without `track_linkage` (a log whose linkage is
    followed elsewhere), it is `LINKED` whenever it is not `REFUSED`.
    """
    pending: dict[str, str] = {}
    seen: set[str] = set()
    linked = True
    calls: list[ToolCall] = []
    objects: list[tuple[Message | AssistantBlock, str, msgspec.Raw]] = []
    for message in messages:
        if message.meta_json:
            objects.append((message, "meta_json", message.meta_json))
        if type(message) is ToolResultMessage:
            if track_linkage and pending.pop(message.tool_call_id, None) != message.tool_name:
                linked = False
        elif type(message) is AssistantMessage:
            for block in message.content:
                if block.meta_json:
                    objects.append((block, "meta_json", block.meta_json))
                if type(block) is ToolCall:
                    calls.append(block)
                    if track_linkage:
                        call_id = block.id
                        if call_id in seen:
                            linked = False
                        seen.add(call_id)
                        pending[call_id] = block.name
                elif type(block) is OpaqueBlock:
                    objects.append((block, "data_json", block.data_json))
    if not adopt_arguments(calls) or not adopt_objects(objects):
        return REFUSED
    return LINKED if linked and not pending else UNLINKED


def adopt_arguments(calls: list[ToolCall]) -> bool:
    """Check the arguments text of decoded calls and give each a compact buffer of its own.

    False when some text is not acceptable (nothing is changed then). The checks a `Raw`
    skip leaves open are made on the bytes of all the texts at once, and one by one only
    when that is in doubt. The new buffers let the input go: the `Raw` msgspec decodes
    points into the whole of it.
    """
    texts = _checked_texts([bytes(call.arguments_json) for call in calls])
    if texts is None:
        return False
    for call, text in zip(calls, texts, strict=True):
        force_setattr(call, "arguments_json", msgspec.Raw(text))
        mark_checked(call)
    return True


def adopt_objects(fields: list[tuple[Message | AssistantBlock, str, msgspec.Raw]]) -> bool:
    """`adopt_arguments` for the other JSON objects kept as text: `meta` and opaque `data`.

    Each entry names a decoded struct, the attribute holding the text (`meta_json`,
    `data_json`) and its value; false when some text is not a JSON object the IR accepts.
    """
    if not fields:
        return True
    texts = _checked_texts([bytes(raw) for _, _, raw in fields])
    if texts is None:
        return False
    for (struct, attribute, _), text in zip(fields, texts, strict=True):
        force_setattr(struct, attribute, msgspec.Raw(text))
    return True


def _checked_texts(texts: list[bytes]) -> list[bytes] | None:
    """The texts compacted, if each is an acceptable JSON object (as tool arguments are)."""
    if not quick_arguments_check_all(texts):
        for index, text in enumerate(texts):
            kept, _ = arguments_text(text, syntax_checked=True)
            if kept is None:
                return None
            texts[index] = kept
    compact_all(texts)
    return texts


def link_events(index: int, message: Message, events: list[LinkEvent]) -> None:
    """Append the link events of one well-formed message."""
    if type(message) is AssistantMessage:
        for block_index, block in enumerate(message.content):
            if type(block) is ToolCall:
                events.append(LinkEvent(True, index, block_index, block.id, block.name, True))
    elif type(message) is ToolResultMessage:
        events.append(LinkEvent(False, index, -1, message.tool_call_id, message.tool_name, True))


class Parsed(NamedTuple):
    """What `parse_json` read: the value (as `json.loads` reads it, keeping the last of a
    repeated key), the `id()`s of its objects whose `role` or `type` key was repeated with
    another value, or the diagnostic for text that is not one JSON value."""

    value: object
    retagged: dict[int, str]
    problem: Diagnostic | None


def parse_json(data: bytes | str) -> Parsed:
    """Read `data` as `json.loads` does, noting repeated discriminants (see `Parsed`)."""
    if type(data) is bytes:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            return Parsed(None, {}, Diagnostic("INVALID_JSON", None, "$", f"Invalid UTF-8 at byte {error.start}"))
        raw = data
    else:
        assert type(data) is str
        text = data
        raw = data.encode("utf-8", "surrogatepass")
    if depth_exceeds(raw, PARSE_DEPTH):
        problem = Diagnostic("JSON_TOO_DEEP", None, "$", f"JSON nested deeper than {PARSE_DEPTH} levels")
        return Parsed(None, {}, problem)
    try:
        value, retagged = loads_tracking_tags(text, _TAGS)
    except RecursionError:
        return Parsed(None, {}, Diagnostic("JSON_TOO_DEEP", None, "$", "JSON nested too deeply to parse"))
    except ValueError as error:  # JSONDecodeError, and int too large to convert
        return Parsed(None, {}, Diagnostic("INVALID_JSON", None, "$", f"Invalid JSON: {error}"))
    return Parsed(value, retagged, None)


_TAGS: Final = ("role", "type")
_RETAGGED: Final = "Key appears twice with different values; refused rather than keeping the last"


def retagged_diagnostics(index: int, message: object, retagged: dict[int, str]) -> list[Diagnostic]:
    """`DUPLICATE_KEY` for a message at `index`, and its blocks, whose discriminant was repeated
    with another value: taking the last `role` silently is how a forged message gets in."""
    if not retagged:
        return []
    found: list[Diagnostic] = []
    key = retagged.get(id(message))
    if key is not None:
        found.append(Diagnostic("DUPLICATE_KEY", index, f"$[{index}].{key}", _RETAGGED))
    items = exact_dict_items(message)
    content = None if items is None else dict(items).get("content")
    for number, block in enumerate(exact_sequence_items(content) or ()):
        key = retagged.get(id(block))
        if key is not None and type(block) is dict:
            found.append(Diagnostic("DUPLICATE_KEY", index, f"$[{index}].content[{number}].{key}", _RETAGGED))
    return found


class Explained(NamedTuple):
    """The explaining path's answer: the diagnostics, or (none found) the messages as read."""

    diagnostics: tuple[Diagnostic, ...]
    messages: tuple[Message, ...]


def explain(data: bytes | str, check_linkage: bool) -> Explained:
    """The diagnostics for text the fast path refused (see the module docstring), or, when
    `json.loads`'s reading of it is valid, its messages built from that reading.

    msgspec refuses a repeated key whose first value is wrong even when the last (which
    `json.loads`, the validator and JavaScript keep) is right; such a transcript is valid,
    and decoding it gives what the validator accepted.
    """
    value, retagged, problem = parse_json(data)
    if problem is not None:
        return Explained((problem,), ())
    found = list(validate_transcript(value))
    if not check_linkage:
        found = [diagnostic for diagnostic in found if diagnostic.code not in LINKAGE_CODES]
    explained = {diagnostic.message_index for diagnostic in found}
    for index, message in enumerate(exact_sequence_items(value) or ()):
        if index not in explained:  # a message the validator finds nothing wrong with
            found.extend(retagged_diagnostics(index, message, retagged))
    if found:
        found.sort(key=by_message_index)
        return Explained(tuple(found), ())
    return Explained((), tuple(message_from_json(message) for message in exact_sequence_items(value) or ()))


JsonObjectInput: TypeAlias = Mapping[str, JsonInput]


def message_from_json(message: object) -> Message:
    """The message of a JSON-form record that the shape pass has accepted, via the constructors."""
    fields = dict(exact_dict_items(message) or ())
    role, message_id, meta = (
        fields["role"],
        cast("str", fields["id"]),
        cast("JsonObjectInput | None", fields.get("meta")),
    )
    if role == "user":
        return user_message(id=message_id, content=cast("str", fields["content"]), meta=meta)
    if role == "assistant":
        return assistant_message(id=message_id, content=cast("list[BlockInput]", fields["content"]), meta=meta)
    return tool_result_message(
        id=message_id,
        tool_call_id=cast("str", fields["toolCallId"]),
        tool_name=cast("str", fields["toolName"]),
        content=cast("str", fields["content"]),
        is_error=cast("bool", fields["isError"]),
        meta=meta,
    )
