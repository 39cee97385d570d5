"""`TypeIs` guards for parsed JSON: narrow an `object` to the IR's `TypedDict` shapes.

Each guard answers with the validator's own rules (the shape pass of `validate_transcript`,
and for a whole transcript its linkage pass too), so a guard is true exactly when the
validator would find nothing wrong with the same value in the same position. They accept
the JSON form only (exact `dict`s and `list`s, as `json.loads` gives), never the Structs.
"""

from __future__ import annotations

from typing_extensions import TypeIs

from message_ir._frozen_values import JsonInput
from message_ir._json_rule import check_json_tree
from message_ir._model import (
    AssistantMessageJson,
    MessageJson,
    OpaqueBlockJson,
    TextBlockJson,
    ToolCallJson,
    ToolResultMessageJson,
    UserMessageJson,
)
from message_ir._shape import ShapeCheck
from message_ir._untyped import exact_dict_items, exact_sequence_items
from message_ir._validate import validate_transcript


def is_transcript_json(value: object) -> TypeIs[list[MessageJson]]:
    """A `list` of message dicts that `validate_transcript` accepts, linkage included."""
    if type(value) is not list:
        return False
    elements = exact_sequence_items(value) or []
    if any(exact_dict_items(element) is None for element in elements):
        return False
    return validate_transcript(value) == ()


def _message_role(value: object) -> str | None:
    """The role of a well-formed message dict (linkage aside), or `None`."""
    items = exact_dict_items(value)
    if items is None:
        return None
    check = ShapeCheck()
    check.checked_message(0, value)
    if check.diagnostics:
        return None
    role = dict(items).get("role")
    return role if type(role) is str else None


def is_message_json(value: object) -> TypeIs[MessageJson]:
    """A well-formed message dict of any role (tool-call linkage is not a message's own)."""
    return _message_role(value) is not None


def is_user_message_json(value: object) -> TypeIs[UserMessageJson]:
    """A well-formed user message dict."""
    return _message_role(value) == "user"


def is_assistant_message_json(value: object) -> TypeIs[AssistantMessageJson]:
    """A well-formed assistant message dict (its calls need not be answered yet)."""
    return _message_role(value) == "assistant"


def is_tool_result_message_json(value: object) -> TypeIs[ToolResultMessageJson]:
    """A well-formed tool-result message dict (it need not answer a call here)."""
    return _message_role(value) == "toolResult"


def _block_type(value: object) -> str | None:
    items = exact_dict_items(value)
    if items is None:
        return None
    check = ShapeCheck()
    check.json_block(0, 0, "$", value)
    if check.diagnostics:
        return None
    block_type = dict(items).get("type")
    return block_type if type(block_type) is str else None


def is_text_block_json(value: object) -> TypeIs[TextBlockJson]:
    """A well-formed text block dict."""
    return _block_type(value) == "text"


def is_tool_call_json(value: object) -> TypeIs[ToolCallJson]:
    """A well-formed tool-call block dict (JSON-valued arguments within the depth limit)."""
    return _block_type(value) == "toolCall"


def is_opaque_block_json(value: object) -> TypeIs[OpaqueBlockJson]:
    """A well-formed opaque block dict (`format`, `kind`, and a JSON object as `data`)."""
    return _block_type(value) == "opaque"


def is_json_value(value: object) -> TypeIs[JsonInput]:
    """A JSON value by the package's one JSON rule, as the constructors take it.

    Finite numbers, exact builtins (`list`, `tuple`, `dict` with `str` keys, or the
    package's `FrozenJsonObject`), no cycles, at most `MAX_DEPTH` levels deep.
    """
    problem, _ = check_json_tree(value, copy=False)
    if problem is not None and not problem.segments and problem.message.startswith("Expected a JSON array"):
        problem, _ = check_json_tree([value], copy=False)  # a scalar: check it inside an array
    return problem is None
