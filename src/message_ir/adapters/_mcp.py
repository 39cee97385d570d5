"""An MCP tool's answer as an IR tool result, nothing of it lost.

A Model Context Protocol server answers `tools/call` with a `CallToolResult`: `content` (a
list of text, image, audio, resource and resource-link items), `isError`, and, for tools
with an output schema, `structuredContent`. Harnesses that pass only the text on drop the
rest; here the text items become the result's `content` (joined by a newline), `isError` its
`is_error`, and everything the text does not say (`structuredContent`, any item that is not
plain text, `_meta`, other fields) stays in the result's `meta` under `mcp`.
"""

from __future__ import annotations

from typing import Final

from message_ir import ConstructionError, Diagnostic, ToolCall, ToolResultMessage, is_json_value
from message_ir.adapters._build import meta_raw
from message_ir.adapters._conversation import FormatError
from message_ir.adapters._json import as_array, as_object, kind, parse
from message_ir.adapters._unparsable import Unparsable

NAME: Final = "mcp"
TEXT_SEPARATOR: Final = "\n"
"""How the text items of a result's `content` are joined into the IR's `content`."""


def _refused(path: str, message: str) -> FormatError:
    return FormatError(NAME, (Diagnostic("BAD_FORMAT", None, path, message),))


def tool_result_from_mcp(call: ToolCall, result: bytes | str | object, *, id: str | None = None) -> ToolResultMessage:
    """The IR result of `call` that an MCP `CallToolResult` makes: `result` is JSON text or the
    parsed value, the result object or the JSON-RPC response holding it. The message's ID is
    `id`, else `mcp-` and the call's ID.

    Raises `FormatError` for what is not a `CallToolResult` (a JSON-RPC error response, a
    `content` that is not a list of items, a text item without text, an `isError` that is not
    a boolean), naming where."""
    value: object = result
    if type(result) is bytes or type(result) is str:
        try:
            value = parse(result)
        except Unparsable as error:
            raise FormatError(NAME, (error.diagnostic,)) from None
    elif not is_json_value(value):  # a caller's value: nothing of it runs, nothing odd is kept
        raise _refused("$", "Not a JSON value by the IR's rule (exact builtins, finite numbers, UTF-8, depth)")
    body = as_object(value)
    prefix = "$"
    if body is not None and "jsonrpc" in body:
        if "error" in body:
            raise _refused("$.error", "Expected a result, got a JSON-RPC error response (the call itself failed)")
        value, prefix = body.get("result"), "$.result"
        body = as_object(value)
    if body is None:
        raise _refused(prefix, f"Expected a CallToolResult object, got `{kind(value)}`")
    items = as_array(body.get("content", []))
    if items is None:
        raise _refused(f"{prefix}.content", f"Expected a list of content items, got `{kind(body.get('content'))}`")
    texts: list[str] = []
    plain = True
    for number, item in enumerate(items):
        entry = as_object(item)
        item_type = None if entry is None else entry.get("type")
        if entry is None or type(item_type) is not str:
            raise _refused(f"{prefix}.content[{number}]", "Expected a content item with a `type`")
        if item_type == "text":
            text = entry.get("text")
            if type(text) is not str:
                raise _refused(f"{prefix}.content[{number}].text", f"Expected `str`, got `{kind(text)}`")
            texts.append(text)
            plain = plain and list(entry) == ["type", "text"]
        else:
            plain = False
    is_error = body.get("isError", False)
    if type(is_error) is not bool:
        raise _refused(f"{prefix}.isError", f"Expected `bool`, got `{kind(is_error)}`")
    kept = {key: item for key, item in body.items() if key not in ("content", "isError")}
    if not plain:
        kept["content"] = items  # images, resources, annotations: what the joined text does not say
    if "content" not in body:
        kept["no_content"] = True
    try:
        return ToolResultMessage(
            id=f"mcp-{call.id}" if id is None else id,
            tool_call_id=call.id,
            tool_name=call.name,
            content=TEXT_SEPARATOR.join(texts),
            is_error=is_error,
            meta_json=meta_raw(NAME, kept),
        )
    except ConstructionError as error:  # an `id` the IR refuses, a result nested too deeply
        raise _refused(prefix, error.problem) from None
