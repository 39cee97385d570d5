"""An OTLP/JSON trace export walked span by span, each span's (and span event's) attributes
given to the format that declares it reads them."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterator
from typing import NamedTuple, cast

import msgspec

from message_ir import Diagnostic
from message_ir.adapters import FORMATS, Conversation, Format, FormatError

_decode = msgspec.json.Decoder(object).decode


class TracedConversation(NamedTuple):
    """The conversation one span (or one of its events) carries."""

    trace_id: str
    span_id: str
    parent_span_id: str
    name: str
    """The span's name."""
    event: str
    """The event's name when the messages were on one of the span's events, else `""`."""
    start: int | None
    """When the span (or event) started, in nanoseconds since the epoch, if the export says."""
    format: str
    """The format whose `load` read the messages (`otel_genai`, `vercel_ai`)."""
    conversation: Conversation | None
    """What `load` made of them; `None` when it refused them (`diagnostics` say why)."""
    diagnostics: tuple[Diagnostic, ...]
    """What the format's `check` says of them (paths into the messages as `load` was given them)."""
    path: str
    """Where the span (or event) is in the export: `$[line].resourceSpans[0].scopeSpans[0].spans[3]`."""


class Trace(NamedTuple):
    """What a trace export holds: its conversations, and what in it is no export."""

    conversations: tuple[TracedConversation, ...]
    """In the order their spans (or events) started; those with no start time last, as listed."""
    diagnostics: tuple[Diagnostic, ...]
    """`INVALID_JSON` for a line that is not JSON, `BAD_FORMAT` for a value that is no export."""


class _Found(NamedTuple):
    start: int | None
    order: int
    traced: TracedConversation


def spans(source: bytes | str | object) -> Trace:
    """The conversations of an OTLP/JSON trace export (JSON text, JSON Lines, or the parsed
    value), span by span; never raises."""
    found: list[_Found] = []
    problems: list[Diagnostic] = []
    for index, prefix, value in requests(source, problems):
        outer = plain_object(value)
        wrapped = outer is not None and "resourceSpans" not in outer
        request = plain_object(outer.get("data")) if outer is not None and wrapped else outer
        if request is None or _list(request.get("resourceSpans")) is None:
            problems.append(Diagnostic("BAD_FORMAT", index, prefix, "Expected an OTLP trace export (`resourceSpans`)"))
            continue
        for span_path, span in _spans_of(request, f"{prefix}.data" if wrapped else prefix):
            found.extend(_conversations(span, span_path, len(found)))
    found.sort(key=_order)
    return Trace(tuple(entry.traced for entry in found), tuple(problems))


def plain_object(value: object) -> dict[str, object] | None:
    """`value` when it is a JSON object (an exact `dict`: nothing of a caller's runs)."""
    return cast("dict[str, object]", value) if type(value) is dict else None


def _list(value: object) -> list[object] | None:
    return cast("list[object]", value) if type(value) is list else None


def _order(entry: _Found) -> tuple[bool, int, int]:
    return (entry.start is None, entry.start or 0, entry.order)


def requests(source: object, problems: list[Diagnostic]) -> Iterator[tuple[int | None, str, object]]:
    """Each export request: the whole value, or each line of JSON Lines."""
    if type(source) is not bytes and type(source) is not str:
        yield None, "$", source
        return
    data = source.encode("utf-8", "surrogatepass") if type(source) is str else source
    assert type(data) is bytes
    try:
        yield None, "$", _decode(data)
        return
    except (msgspec.DecodeError, RecursionError):
        pass
    for number, line in enumerate(data.split(b"\n")):
        if not line.strip():
            continue
        try:
            yield number, f"$[{number}]", _decode(line)
        except (msgspec.DecodeError, RecursionError) as error:
            problems.append(Diagnostic("INVALID_JSON", number, f"$[{number}]", f"Invalid JSON: {error}"))


def _spans_of(request: dict[str, object], prefix: str) -> Iterator[tuple[str, dict[str, object]]]:
    for number, resource in objects(request.get("resourceSpans")):
        for inner, scope in objects(resource.get("scopeSpans")):
            for position, span in objects(scope.get("spans")):
                yield f"{prefix}.resourceSpans[{number}].scopeSpans[{inner}].spans[{position}]", span


def objects(value: object) -> Iterator[tuple[int, dict[str, object]]]:
    for index, item in enumerate(_list(value) or ()):
        found = plain_object(item)
        if found is not None:
            yield index, found


def _conversations(span: dict[str, object], path: str, order: int) -> list[_Found]:
    """The conversations of a span's attributes and of its events' attributes."""
    trace, span_id, parent = (text(span.get(key)) for key in ("traceId", "spanId", "parentSpanId"))
    name = text(span.get("name"))
    found: list[_Found] = []
    places: list[tuple[str, str, object, object]] = [("", path, span.get("attributes"), span.get("startTimeUnixNano"))]
    for number, event in objects(span.get("events")):
        event_name = text(event.get("name")) or "event"
        places.append((event_name, f"{path}.events[{number}]", event.get("attributes"), event.get("timeUnixNano")))
    for event_name, place, listed, time in places:
        values = attributes(listed)
        for declared in FORMATS.values():
            reader = declared.span_messages
            source = reader(values) if reader is not None and values else None
            if source is None:
                continue
            conversation, diagnostics = loaded(declared, source)
            start = signed(time)
            traced = TracedConversation(
                trace, span_id, parent, name, event_name, start, declared.name, conversation, diagnostics, place
            )
            found.append(_Found(start, order + len(found), traced))
            break
    return found


def loaded(declared: Format, source: object) -> tuple[Conversation | None, tuple[Diagnostic, ...]]:
    """What a format's `load` makes of the messages a span or its events gave (`None` when it
    refuses them) and what its `check` says (or its refusal's diagnostics)."""
    try:
        conversation, diagnostics, _ = declared.functions.load_checked(source)
    except FormatError as error:
        return None, error.diagnostics
    return conversation, diagnostics


def text(value: object) -> str:
    return value if type(value) is str else ""


def attributes(value: object) -> dict[str, object]:
    """OTLP attributes (`[{"key", "value": AnyValue}]`) as a plain mapping."""
    found: dict[str, object] = {}
    for _, item in objects(value):
        key = item.get("key")
        if type(key) is str:
            found[key] = any_value(item.get("value"))
    return found


def any_value(value: object) -> object:
    """An OTLP `AnyValue` as plain JSON (`None` for an empty or unknown one)."""
    wrapper = plain_object(value)
    if wrapper is None or len(wrapper) != 1:
        return None
    ((kind, inner),) = wrapper.items()
    if kind in ("stringValue", "boolValue", "doubleValue"):
        return inner
    if kind == "intValue":
        return signed(inner)
    holder = plain_object(inner)
    if kind == "arrayValue" and holder is not None:
        return [any_value(item) for item in _list(holder.get("values")) or ()]
    if kind == "kvlistValue" and holder is not None:
        return attributes(holder.get("values"))
    if kind == "bytesValue" and type(inner) is str:
        try:
            return base64.b64decode(inner, validate=True).hex()
        except (binascii.Error, ValueError):
            return None
    return None


def signed(value: object) -> int | None:
    """An integer in OTLP/JSON: a number, or its decimal string (64-bit integers are strings)."""
    if type(value) is int:
        return value
    if type(value) is str and (value.isdigit() or (value[:1] == "-" and value[1:].isdigit())):
        return int(value)
    return None
