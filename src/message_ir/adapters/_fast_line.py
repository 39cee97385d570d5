"""What every fast path of `check-dataset` shares: is this training line surely clean?

Most lines of a real dataset are valid, and the careful path (the format's `check`: the
whole lossless load into the IR, every rule, tool declarations) spends most of its time on
what a valid line does not need. A format's fast path decodes a line straight into typed
msgspec structs of the plain shape it knows (every field named: an unknown field fails the
decode, so nothing the careful path would keep in `meta`, and check, can hide), and walks
its messages once, telling a `Linkage` about each call and result. It answers `True` only
when the line is surely clean; anything unusual answers `False`, and the careful path gives
the diagnostics, or none. So a fast path is never more lenient than its careful path (a
property test over every format pins this), only faster on the lines it takes.

`Linkage` is stricter than every format's rules, so that one walk serves them all: a
call's results come right after the message holding it, before anything else, answering
every call of that message; IDs are non-empty, fit the format's rule, and differ from the
calls still waiting (an ID used again once answered is named anew by a load); every call
names a declared tool (when the line declares tools) and its arguments are a JSON
object that follows the IR's JSON rule and the tool's schema; an assistant message is there
to learn from, and the last one's calls (a training target) are left to the careful path.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import msgspec

from message_ir.adapters import _schema_engine
from message_ir.adapters._ids import ANY, WORD, IdRule
from message_ir.adapters._json import decode, encode
from message_ir.adapters._tools import ToolReader, read_declarations

MAX_BRACKETS: Final = 32
"""At most this many `{` / `[` in a schema or arguments text: well within the IR's depth limit
(the careful path nests both further, in `meta`)."""
LONG_TEXT: Final = 3000
"""A text at least this long may hold an integer the IR's JSON rule refuses."""
_DIGITS: Final = bytes(ord("9") if byte in b"0123456789" else ord(" ") for byte in range(256))
_DIGIT_RUN: Final = b"9" * LONG_TEXT
_ANY: Final = "any"  # a declared tool without parameters: any arguments
_MAX_TOOL_LISTS: Final = 4096

Declared = dict[str, "_schema_engine.Accepts | str"]
"""Each declared tool's validator, by name (`_ANY`: a tool without a schema)."""

REFUSED: Final = (msgspec.DecodeError, RecursionError)
"""What a fast path's typed decode of a line raises when the line is the careful path's to judge:
msgspec refusing it, or a field it only skips (`msgspec.Raw`) nesting past msgspec's own
recursion limit, which it says with `RecursionError`."""

Scalar = str | int | float | bool | None
"""A JSON scalar, as msgspec decodes it for `object` (the same values, refused alike)."""
_arguments: Final = msgspec.json.Decoder(dict[str, object]).decode
_shallow_arguments: Final = msgspec.json.Decoder(dict[str, Scalar | list[Scalar]]).decode
"""Arguments two levels deep at most: a failure only means the careful `_arguments` is asked."""
_Key = tuple[ToolReader, bytes, bool]
_declarations: dict[_Key, Declared | None] = {}
_last_of: list[tuple[ToolReader, msgspec.Raw, bool, tuple[bool, Declared | None]]] = []
"""`declared_of`'s last answer, by the raw `tools` it was given (lines in a row repeat their
tools; the raw value keeps its line alive: one line)."""


def declared_tools(reader: ToolReader, text: bytes) -> Declared | None:
    """The validators of the tools a line declares in `text` (its `tools` value, read by the
    format's own `reader`, as the careful path reads it), or `None` when the careful path would
    have something to say about them (a declaration with a problem, a duplicate name, a schema
    nested deeply or not a valid one, the `[schema]` extra missing). Remembered per text: a
    dataset's lines repeat their tools."""
    key = (reader, text, _schema_engine.available())
    if key in _declarations:
        return _declarations[key]
    found = _declared(reader, text)
    if len(_declarations) >= _MAX_TOOL_LISTS:
        _declarations.clear()
    _declarations[key] = found
    return found


def declared_of(reader: ToolReader, tools: msgspec.Raw) -> tuple[bool, Declared | None]:
    """Whether the fast path can take a line's `tools` (its raw JSON; `null` when it declares
    none), and their validators (`None`: none declared, any call goes)."""
    available = _schema_engine.available()
    if _last_of:
        last_reader, last_tools, last_available, found = _last_of[0]
        if last_reader is reader and last_available is available and last_tools == tools:
            return found  # two raw values compared (msgspec's own type), neither copied to bytes
    text = bytes(tools)
    if text == b"null":
        found = True, None
    else:
        declared = declared_tools(reader, text)
        found = declared is not None, declared
    _last_of[:] = [(reader, tools, available, found)]
    return found


def linkage(reader: ToolReader, tools: msgspec.Raw, rule: IdRule) -> Linkage | None:
    """The `Linkage` of a line whose `tools` the fast path can take (see `declared_of`), or
    `None` when they are the careful path's to judge."""
    taken, declared = declared_of(reader, tools)
    return Linkage(declared, rule) if taken else None


def _declared(reader: ToolReader, text: bytes) -> Declared | None:
    try:
        value = decode(text)
    except (msgspec.DecodeError, RecursionError, UnicodeError):
        return None
    body: dict[str, object] = {reader.at[-1]: value}
    for key in reversed(reader.at[:-1]):
        body = {key: body}
    declarations = read_declarations(reader, body)
    if declarations is None:
        return None
    declared: Declared = {}
    for tool in declarations:
        if tool.problem is not None or not tool.name or tool.name in declared:
            return None
        if tool.parameters is None:
            declared[tool.name] = _ANY
            continue
        if not _schema_engine.available():
            return None  # the careful path says the extra is missing
        schema = encode(tool.parameters.thaw())
        if schema.count(b"{") + schema.count(b"[") > MAX_BRACKETS:
            return None
        compiled = _schema_engine.compiled(schema)
        if isinstance(compiled, str):
            return None
        declared[tool.name] = compiled.accepts
    return declared


def plain(text: str | bytes) -> bool:
    """Whether JSON `text` surely nests within the IR's depth limit and holds no integer too
    long for its JSON rule (what `arguments_object` asks of arguments, or of text holding them)."""
    if len(text) <= 2 * MAX_BRACKETS:  # each level takes two characters: surely not deeper
        return True
    if isinstance(text, str):  # our own value (decoded here): no caller's code to run
        if text.count("{") + text.count("[") > MAX_BRACKETS:
            return False
    elif text.count(b"{") + text.count(b"[") > MAX_BRACKETS:
        return False
    return not long_number(text)


def long_number(text: str | bytes) -> bool:
    """Whether JSON `text` may hold an integer too long for the IR's JSON rule: a run of
    `LONG_TEXT` digits (digits in a string count too: `True` is only a maybe). Found by
    translating every digit to one byte and searching for the run: 7 times as fast as a
    regular expression's `[0-9]{3000}` on 3.5 MB of tool output."""
    if len(text) < LONG_TEXT:
        return False
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    return _DIGIT_RUN in data.translate(_DIGITS)


def arguments_object(text: str | bytes | msgspec.Raw) -> Mapping[str, object] | None:
    """The arguments in `text` (JSON text, or the raw bytes of an arguments object, as decoded),
    when they are surely a JSON object the IR's JSON rule takes; else `None`.

    Read first as scalars and lists of scalars (two levels at most: surely within the depth
    limit, however many brackets their strings hold), so that only arguments nesting further
    pay for `plain` counting their brackets."""
    try:
        found = _shallow_arguments(text)  # msgspec refuses lone surrogates, NaN and overflow too
    except msgspec.DecodeError:
        data = bytes(text) if type(text) is msgspec.Raw else text
        if not plain(data):
            return None
        try:
            return _arguments(data)
        except msgspec.DecodeError:
            return None
    if len(text) >= LONG_TEXT and long_number(bytes(text) if type(text) is msgspec.Raw else text):
        return None
    return found


def accepted(declared: Declared | None, name: str, arguments: Mapping[str, object]) -> bool:
    """Whether a call of `name` with these `arguments` passes the declared tools (any call,
    when the line declares none)."""
    if declared is None:
        return True
    accepts = declared.get(name)
    if accepts is None:
        return False
    return True if isinstance(accepts, str) else accepts(arguments)


class Linkage:
    """The calls and results of one line, checked as its messages are walked in order.

    Every method answers whether the line is still surely clean; after a `False` the walk
    stops and the careful path takes the line.
    """

    __slots__ = ("_declared", "_match", "_max_length", "_pending", "_taught", "_word")

    def __init__(self, declared: Declared | None, rule: IdRule) -> None:
        self._declared = declared
        self._max_length = rule.max_length  # the rule's fields read once a line, not once a call
        self._match = None if rule.pattern is ANY else rule.pattern.fullmatch
        self._word = rule.pattern is WORD  # an ASCII identifier surely fits, quicker asked than the pattern
        self._pending: dict[str, str] = {}  # the calls of the last assistant message awaiting results
        self._taught = False

    def message(self) -> bool:
        """A message that is not a result: no call may still be waiting for one."""
        return not self._pending

    def assistant(self) -> bool:
        """An assistant message (its calls follow): no call may still be waiting."""
        self._taught = True
        return not self._pending

    def call(self, call_id: str, name: str, arguments: str | bytes | msgspec.Raw | dict[str, object]) -> bool:
        """A call of the current assistant message, its `arguments` as JSON text (or the raw
        bytes of the object, as decoded), or decoded from text the caller found `plain`."""
        if not call_id or not name or call_id in self._pending:
            return False
        if len(call_id) > self._max_length:
            return False
        match = self._match
        if (
            match is not None
            and not (self._word and call_id.isascii() and call_id.isidentifier())
            and match(call_id) is None
        ):
            return False
        self._pending[call_id] = name
        parsed = arguments if isinstance(arguments, dict) else arguments_object(arguments)
        if parsed is None:
            return False
        declared = self._declared
        if declared is None:  # `accepted`, inlined
            return True
        accepts = declared.get(name)
        return accepts is not None and (isinstance(accepts, str) or accepts(parsed))

    def result(self, call_id: str, name: str | None = None) -> bool:
        """A result answering `call_id` (naming `name`, when it names its tool)."""
        called = self._pending.pop(call_id, None)
        return called is not None and (name is None or name == called)

    def next_result(self) -> bool:
        """A result answering the earliest waiting call (a format without IDs)."""
        if not self._pending:
            return False
        del self._pending[next(iter(self._pending))]
        return True

    def end(self) -> bool:
        """The line's end: an assistant message was there, and no call waits (trailing calls,
        a training target, are the careful path's to judge)."""
        return self._taught and not self._pending
