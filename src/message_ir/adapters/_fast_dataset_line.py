"""The fast path of `check-dataset` for OpenAI Chat fine-tuning records: is this line clean?

Most lines of a real dataset are valid, and the careful path (`openai_chat.check`: the whole
lossless load into the IR, every rule, tool declarations) spends most of its time on
what a valid line does not need. This path decodes a line straight into typed structs
(msgspec, in C), walks the messages once, and answers `True` only for the plain shape it
knows: a body `{"messages": [...], "tools": [...]}`, string contents, function calls whose
results are the tool messages right after them, IDs unique and at most 40 characters,
arguments that are JSON objects following the IR's JSON rule, every call naming a declared
tool and matching its schema. Anything else (a list content, a missing result, an unknown
tool, a schema the extra cannot check, legacy `functions`, ...) answers `False`, and the
careful path then gives the diagnostics — or none. So it is never more lenient than the
careful path (a property test pins this), only faster on the lines it accepts.
"""

from __future__ import annotations

import re
from typing import Final

import msgspec

from message_ir import is_json_value
from message_ir.adapters import _schema_engine

_MAX_ID: Final = 40  # OpenAI Chat's limit on a tool-call ID
_MAX_BRACKETS: Final = 32  # at most this many `{`/`[` in a schema or arguments text: well within MAX_DEPTH
_LONG_NUMBER: Final = re.compile(rb"[0-9]{3000}")  # an integer the IR's JSON rule may refuse
_USER_ROLES: Final = ("system", "developer", "user")


_NULL: Final = msgspec.Raw(b"null")


# The shapes this path knows, every field named: an unknown field fails the decode and the
# line goes to the careful path, so no value the fast path does not see (which the careful
# path keeps in `meta`, and checks) can hide here. The extra fields it accepts are scalars.


class _Function(msgspec.Struct, forbid_unknown_fields=True):
    name: str
    arguments: str


class _Call(msgspec.Struct, forbid_unknown_fields=True):
    id: str
    function: _Function
    type: str = "function"


class _Message(msgspec.Struct, forbid_unknown_fields=True):
    role: str
    content: str | None = None
    tool_calls: list[_Call] | None = None
    tool_call_id: str | None = None
    name: str | None = None
    weight: int | None = None  # OpenAI fine-tuning: whether to train on an assistant message


class _ToolFunction(msgspec.Struct, forbid_unknown_fields=True):
    name: str
    description: str | None = None
    parameters: msgspec.Raw = _NULL  # absent: as `null`
    strict: bool | None = None


class _Tool(msgspec.Struct, forbid_unknown_fields=True):
    type: str
    function: _ToolFunction


class _Record(msgspec.Struct, forbid_unknown_fields=True):
    messages: list[_Message]
    tools: msgspec.Raw = _NULL  # decoded once per distinct text (lines repeat their tools)
    parallel_tool_calls: bool | None = None


_record: Final = msgspec.json.Decoder(_Record).decode
_tool_list: Final = msgspec.json.Decoder(list[_Tool]).decode
_arguments: Final = msgspec.json.Decoder(dict[str, object]).decode
_ANY: Final = "any"  # a declared tool without parameters: any arguments


_MAX_TOOL_LISTS: Final = 4096


def _schema(text: bytes) -> _schema_engine.Accepts | None:
    """The validator of a declared schema (raw text), or `None` when the careful path would
    have something to say about it (not an object, not JSON by the IR's rule, not a schema).
    Called once per distinct `tools` text (`_declared_in`); the compile itself is cached by
    the schema engine."""
    if text.count(b"{") + text.count(b"[") > _MAX_BRACKETS:
        return None  # deep (the careful path nests it further in `meta`): left to it
    try:
        schema = msgspec.json.decode(text, type=dict[str, object])
    except msgspec.DecodeError:
        return None
    checked: object = schema
    if not is_json_value(checked):
        return None
    compiled = _schema_engine.compiled(msgspec.json.encode(schema))
    return None if isinstance(compiled, str) else compiled.accepts


Declared = dict[str, _schema_engine.Accepts | str]
"""Each declared tool's validator, by name (`_ANY`: a tool without a schema)."""
_declarations: dict[tuple[bytes, bool], Declared | None] = {}


def _declared_in(text: bytes) -> Declared | None:
    """`_declared` of a `tools` text, remembered per text (up to `_MAX_TOOL_LISTS` of them)."""
    key = (text, _schema_engine.available())
    if key in _declarations:
        return _declarations[key]
    try:
        found = _declared(_tool_list(text))
    except msgspec.DecodeError:
        found = None
    if len(_declarations) >= _MAX_TOOL_LISTS:
        _declarations.clear()
    _declarations[key] = found
    return found


def _declared(tools: list[_Tool]) -> Declared | None:
    """Each declared name's validator, or `None` to leave the line to the careful path."""
    declared: Declared = {}
    for tool in tools:
        function = tool.function
        if tool.type != "function" or not function.name or function.name in declared:
            return None
        raw = function.parameters
        if bytes(raw) == b"null":
            declared[function.name] = _ANY
            continue
        if not _schema_engine.available():
            return None  # the careful path says the extra is missing
        validate = _schema(bytes(raw))
        if validate is None:
            return None
        declared[function.name] = validate
    return declared


def is_clean(line: bytes) -> bool:
    """Whether the careful path would find nothing wrong with this line, when it can tell
    quickly; `False` means "ask the careful path"."""
    try:
        record = _record(line)
    except msgspec.DecodeError:
        return False
    declared = None
    tools = bytes(record.tools)
    if tools != b"null":
        declared = _declared_in(tools)
        if declared is None:
            return False
    seen: set[str] = set()
    pending: dict[str, str] = {}  # the calls of the last assistant message awaiting results
    taught = False  # whether an assistant message is there to learn from
    for message in record.messages:
        role = message.role
        if role == "tool":
            call_id = message.tool_call_id
            if call_id is None or call_id not in pending or message.content is None:
                return False
            name = pending.pop(call_id)
            if message.name is not None and message.name != name:
                return False
            continue
        if pending:
            return False  # a call without its result right after it
        if role in _USER_ROLES:
            if message.content is None or message.tool_calls is not None or message.tool_call_id is not None:
                return False
        elif role == "assistant":
            taught = True
            if message.tool_call_id is not None:
                return False
            calls = message.tool_calls
            if not calls:
                if message.content is None:
                    return False
                continue
            for call in calls:
                call_id, function = call.id, call.function
                if (
                    call.type != "function"
                    or not call_id
                    or len(call_id) > _MAX_ID
                    or call_id in seen
                    or not function.name
                ):
                    return False
                seen.add(call_id)
                pending[call_id] = function.name
                text = function.arguments
                if len(text) > _MAX_BRACKETS and text.count("{") + text.count("[") > _MAX_BRACKETS:
                    return False
                try:
                    arguments = _arguments(text)
                except msgspec.DecodeError:
                    return False  # not an object (msgspec also refuses lone surrogates, NaN, overflow)
                if len(text) >= 3000 and _LONG_NUMBER.search(text.encode()) is not None:
                    return False
                if declared is not None:
                    validate = declared.get(function.name)
                    if validate is None:
                        return False
                    if not isinstance(validate, str) and not validate(arguments):
                        return False
        else:
            return False
    return taught and not pending  # trailing calls (a training target) are left to the careful path
