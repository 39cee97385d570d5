"""Tool declarations: the tools a transcript was allowed to call, and its calls checked
against them (`UNDECLARED_TOOL`, `ARGUMENTS_DO_NOT_MATCH_SCHEMA`, `BAD_TOOL_DECLARATION`).

Each provider declares tools its own way (its format's `ToolReader`); `read_declarations` reads them into
`ToolDeclaration`s: a `name`, the JSON Schema of the arguments (`parameters`; `None` when the
tool takes free input or declares none), and where it stood in the source. A request body's
`tools` (and OpenAI's older `functions`) are read by the adapter's `check`; `check_tool_calls`
checks IR messages against any list of declarations.

Schema checks use the optional `[schema]` extra (`jsonschema-rs`); without it a check that
needs a schema gives one `SCHEMA_CHECK_UNAVAILABLE` diagnostic saying so, and the name checks
still run.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from typing import Final, NamedTuple

import msgspec

from message_ir import (
    AssistantMessage,
    Diagnostic,
    FrozenJsonObject,
    Message,
    ToolCall,
    is_json_value,
)
from message_ir.adapters import _schema_engine
from message_ir.adapters._json import as_array, as_object, decode, decoded_object, encode, freeze_info


class ToolDeclaration(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One tool a transcript may call.

    `name` is what calls name; `parameters` the JSON Schema their arguments must match
    (`None`: any arguments, as for a custom tool taking free text, or a built-in one); `path`
    where it was declared in the source (`$.tools[2]`); `problem` why the declaration cannot
    be used (no name, parameters that are not a schema object), or `None`.
    """

    name: str
    parameters: FrozenJsonObject | None = None
    path: str = "$"
    problem: str | None = None


def tool_declaration(name: str, parameters: dict[str, object] | None = None, *, path: str = "$") -> ToolDeclaration:
    """A `ToolDeclaration` from plain data (the schema is copied and frozen; a schema that is
    not JSON by the IR's rule makes a declaration with a `problem`)."""
    if parameters is None:
        return ToolDeclaration(name, None, path)
    checked: object = parameters
    if not is_json_value(checked):
        return ToolDeclaration(name, None, path, "The parameters are not a JSON value by the IR's rule")
    return ToolDeclaration(name, freeze_info(parameters), path)


# --- reading each format's declarations ----------------------------------------------------


class ToolReader(NamedTuple):
    """How one format declares tools: what its `tools` list's items are, and where a call's
    name and arguments stand in its call record (suffixes of the call's path)."""

    read: Callable[[dict[str, object], str], list[ToolDeclaration]]
    """The declarations one item of `tools` (an object, at a path) makes: none for a tool
    called by no name (a built-in one)."""
    name_key: str = ".name"
    arguments_key: str = ".arguments"
    functions: bool = False
    """Whether a body's older `functions` list (OpenAI Chat's) declares tools too."""
    text: bool = False
    """Whether `tools` may be JSON text holding the list (as datasets store it)."""
    at: tuple[str, ...] = ("tools",)
    """Where a request body holds the list: its key, or the keys of the objects down to it
    (Bedrock: `("toolConfig", "tools")`)."""

    def tools_in(self, body: dict[str, object]) -> object:
        """The body's list of tools (or what stands in its place), or `None`."""
        value: object = body
        for key in self.at:
            container = as_object(value)
            value = None if container is None else container.get(key)
        return value


_MAX_REMEMBERED: Final = 256
_remembered: dict[tuple[ToolReader, bytes], tuple[ToolDeclaration, ...]] = {}


def read_declarations(
    reader: ToolReader, body: dict[str, object], *, parsed_here: bool = False
) -> tuple[ToolDeclaration, ...] | None:
    """The tools a request body declares, or `None` when it declares none (then nothing is
    checked: a transcript without declarations may call anything).

    With `parsed_here` (the body was parsed from text by this package, so encoding it runs
    no caller's code), the declarations are remembered per text of `tools` and `functions`:
    a dataset's lines repeat the same tools, and reading them is most of a line's check.
    """
    tools = reader.tools_in(body)
    functions = body.get("functions") if reader.functions else None
    if tools is None and functions is None:
        return None
    if not parsed_here:
        return _read_declarations(reader, tools, functions)
    try:
        key = (reader, encode([tools, functions]))
    except (msgspec.EncodeError, UnicodeError):  # a lone surrogate the decoder let through
        return _read_declarations(reader, tools, functions)
    found = _remembered.get(key)
    if found is None:
        found = _read_declarations(reader, tools, functions)
        if len(_remembered) >= _MAX_REMEMBERED:
            _remembered.clear()
        _remembered[key] = found
    return found


def _read_declarations(reader: ToolReader, tools: object, functions: object) -> tuple[ToolDeclaration, ...]:
    found: list[ToolDeclaration] = []
    where = "$." + ".".join(reader.at)
    if tools is not None:
        items = _tool_list(tools) if reader.text and type(tools) is str else as_array(tools)
        if items is None:
            expected = "a list of tools, or JSON text holding one" if reader.text else "a list of tools"
            return (ToolDeclaration("", None, where, f"Expected {expected}"),)
        for number, item in enumerate(items):
            tool = as_object(item)
            path = f"{where}[{number}]"
            found.extend(
                [ToolDeclaration("", None, path, "Expected a tool object")] if tool is None else reader.read(tool, path)
            )
    for number, item in enumerate(as_array(functions) or []):
        found.append(function(as_object(item), f"$.functions[{number}]", "parameters"))
    return tuple(found)


def _tool_list(text: str) -> list[object] | None:
    """The list of tools JSON text holds, or `None`."""
    try:
        return as_array(decode(text))
    except (msgspec.DecodeError, RecursionError, UnicodeError):
        return None


def named(tool: dict[str, object] | None, path: str) -> ToolDeclaration:
    """A tool declared by name only (free input)."""
    name = None if tool is None else tool.get("name")
    if type(name) is not str or not name:
        return ToolDeclaration("", None, path, "Expected a tool with a non-empty `name`")
    return ToolDeclaration(name, None, path)


def function(tool: dict[str, object] | None, path: str, key: str) -> ToolDeclaration:
    declared = named(tool, path)
    if declared.problem is not None or tool is None or tool.get(key) is None:
        return declared
    schema = as_object(tool[key])
    if schema is None:
        return ToolDeclaration(declared.name, None, f"{path}.{key}", "Expected the parameters' JSON Schema object")
    return tool_declaration(declared.name, schema, path=f"{path}.{key}")


def gemini_function(tool: dict[str, object] | None, path: str) -> ToolDeclaration:
    """A Gemini function declaration: `parametersJsonSchema` is JSON Schema; `parameters` is
    Gemini's OpenAPI-style schema, read as JSON Schema with its `type` names lowercased
    (`OBJECT` -> `object`) and `nullable: true` as a `null` type."""
    declared = named(tool, path)
    if declared.problem is not None or tool is None:
        return declared
    for key in ("parametersJsonSchema", "parameters_json_schema"):
        if tool.get(key) is not None:
            return function(tool, path, key)
    value = tool.get("parameters")
    if value is None:
        return declared
    schema = as_object(value)
    if schema is None:
        return ToolDeclaration(declared.name, None, f"{path}.parameters", "Expected the parameters' schema object")
    converted = as_object(_openapi_to_json_schema(schema))
    assert converted is not None
    return tool_declaration(declared.name, converted, path=f"{path}.parameters")


def _openapi_to_json_schema(value: object) -> object:
    items = as_array(value)
    if items is not None:
        return [_openapi_to_json_schema(item) for item in items]
    schema = as_object(value)
    if schema is None:
        return value
    converted: dict[str, object] = {}
    for key, entry in schema.items():
        if key == "type" and type(entry) is str:
            converted[key] = entry.lower()
        elif key in ("properties", "items", "anyOf", "prefixItems", "additionalProperties"):
            converted[key] = _openapi_values(key, entry)
        elif key != "nullable":
            converted[key] = entry
    if schema.get("nullable") is True and type(converted.get("type")) is str:
        converted["type"] = [converted["type"], "null"]
    return converted


def _openapi_values(key: str, entry: object) -> object:
    if key == "properties":
        properties = as_object(entry)
        if properties is not None:
            return {name: _openapi_to_json_schema(schema) for name, schema in properties.items()}
    return _openapi_to_json_schema(entry)


# --- checking calls --------------------------------------------------------------------------

_SHOWN_NAMES: Final = 5


def check_tool_calls(messages: Sequence[Message], tools: Sequence[ToolDeclaration]) -> tuple[Diagnostic, ...]:
    """The calls of `messages` checked against `tools`, in the IR's terms (`$[i].content[j]...`).

    - `BAD_TOOL_DECLARATION` for a declaration that has a `problem` or whose parameters are
      not a valid JSON Schema (`message_index` `None`, `path` the declaration's);
    - `UNDECLARED_TOOL` for a call whose name no declaration has;
    - `ARGUMENTS_DO_NOT_MATCH_SCHEMA` for each way a call's arguments fail its tool's
      schema, the path into the arguments, the message naming the failing keyword;
    - `SCHEMA_CHECK_UNAVAILABLE` (once) when a schema is declared but the `[schema]` extra
      is not installed, and at a call's argument whose `pattern` could not be evaluated
      (the regular expression hit the engine's backtracking limit).

    Never raises for any declarations and messages that passed the shape checks.
    """
    found: list[Diagnostic] = []
    validators: dict[str, _schema_engine.Validate | None] = {}
    unavailable = False
    for tool in tools:
        if tool.problem is not None:  # calls to it are not checked (nor called undeclared)
            found.append(Diagnostic("BAD_TOOL_DECLARATION", None, tool.path, tool.problem))
            if tool.name:
                validators.setdefault(tool.name, None)
            continue
        validate: _schema_engine.Validate | None = None
        if tool.parameters is not None:
            if not _schema_engine.available():
                unavailable = True
            else:
                compiled = _schema_engine.compiled(schema_text(tool.parameters))
                if isinstance(compiled, str):  # our own value: why the schema is not one
                    found.append(
                        Diagnostic("BAD_TOOL_DECLARATION", None, tool.path, f"Not a valid JSON Schema: {compiled}")
                    )
                    validators.setdefault(tool.name, None)
                    continue
                validate = compiled.errors
        validators.setdefault(tool.name, validate)
    if unavailable:
        found.append(
            Diagnostic(
                "SCHEMA_CHECK_UNAVAILABLE",
                None,
                "$.tools",
                f"Arguments were not checked against the tools' schemas: install `{_schema_engine.EXTRA}`",
            )
        )
    names = sorted(validators)
    for index, number, block in placed_calls(messages):
        path = f"$[{index}].content[{number}]"
        if block.name not in validators:
            shown = ", ".join(repr(name) for name in names[:_SHOWN_NAMES])
            more = f" and {len(names) - _SHOWN_NAMES} more" if len(names) > _SHOWN_NAMES else ""
            declared = f"declared: {shown}{more}" if names else "no tool is declared"
            found.append(
                Diagnostic(
                    "UNDECLARED_TOOL", index, path + ".name", f"Tool {block.name!r} is not declared ({declared})"
                )
            )
            continue
        check = validators[block.name]
        if check is None:
            continue
        for error in check(arguments_value(block)):  # as `json.loads` gives them
            where = path + ".arguments" + _location(error.location)
            if not error.checked:
                text = f"Arguments of {block.name!r} could not be checked against `{error.keyword}`: {error.message}"
                found.append(Diagnostic("SCHEMA_CHECK_UNAVAILABLE", index, where, text))
                continue
            text = f"Arguments of {block.name!r} fail `{error.keyword}`: {error.message}"
            found.append(Diagnostic("ARGUMENTS_DO_NOT_MATCH_SCHEMA", index, where, text))
    return tuple(found)


_SCHEMA_TEXTS: dict[int, tuple[FrozenJsonObject, bytes]] = {}
_MAX_SCHEMA_TEXTS: Final = 4096


def schema_text(parameters: FrozenJsonObject) -> bytes:
    """The compact JSON text of a declared schema (the key of its compiled validator),
    remembered per object: a dataset's careful path reads each distinct `tools` text once, so
    its lines share their declarations' objects. An entry holds its object, so its `id` is
    not reused while remembered; a frozen object does not change."""
    entry = _SCHEMA_TEXTS.get(id(parameters))
    if entry is not None and entry[0] is parameters:
        return entry[1]
    text = encode(parameters.thaw())
    if len(_SCHEMA_TEXTS) >= _MAX_SCHEMA_TEXTS:
        _SCHEMA_TEXTS.clear()
    _SCHEMA_TEXTS[id(parameters)] = (parameters, text)
    return text


def arguments_value(call: ToolCall) -> dict[str, object]:
    """A call's arguments as plain data, the values `call.arguments.thaw()` gives: its own JSON
    text decoded, without building the read-only view first (a writer's and a schema check's
    hot path). Text that holds no object (a call made without its constructor) raises as the
    view does."""
    value = decoded_object(decode(call.arguments_json))  # decoded here: `str` keys
    return {**call.arguments.thaw()} if value is None else value


def placed_calls(messages: Sequence[Message]) -> Iterator[tuple[int, int, ToolCall]]:
    """Each tool call of `messages`, with the index of its message and its place in the content."""
    for index, message in enumerate(messages):
        if type(message) is AssistantMessage:
            for number, block in enumerate(message.content):
                if type(block) is ToolCall:
                    yield index, number, block


def _location(location: tuple[str | int, ...]) -> str:
    text = ""
    for part in location:
        if type(part) is int:
            text += f"[{part}]"
        elif type(part) is str and part.isidentifier():
            text += f".{part}"
        else:
            text += f"[{json.dumps(part)}]"
    return text
