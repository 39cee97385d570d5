"""OTLP log records read as conversations: the GenAI conventions' per-message events
(`gen_ai.user.message`, `gen_ai.choice`, ...), grouped by span."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final, NamedTuple

import msgspec

from message_ir import Diagnostic
from message_ir.adapters import FORMATS
from message_ir.traces._spans import (
    Trace,
    TracedConversation,
    any_value,
    attributes,
    loaded,
    objects,
    plain_object,
    requests,
    signed,
    text,
)

MESSAGE_EVENTS: Final = (
    "gen_ai.system.message",
    "gen_ai.user.message",
    "gen_ai.assistant.message",
    "gen_ai.tool.message",
    "gen_ai.choice",
)
"""The conventions' per-message events (deprecated since semantic conventions v1.37.0)."""
STRANDS_EVENT: Final = "strands.telemetry.tracer"
_STRANDS: Final = (
    "Expected the GenAI conventions' message events, got Strands' own tracer event"
    " (`strands.telemetry.tracer`): its input and output messages do not say the order the"
    " conversation had; not read"
)
_ANY_VALUE_KEYS: Final = frozenset({"kvlistValue", "arrayValue", "stringValue"})
"""What an OTLP/JSON body that holds a message is wrapped in (a CloudWatch export's is plain)."""
_decode = msgspec.json.Decoder(object).decode


class _Record(NamedTuple):
    """One log record that holds messages."""

    time: int | None
    order: int
    entry: int | None  # the list entry or line it is in
    trace_id: str
    span_id: str
    event: str
    body: dict[str, object]
    path: str


def log_records(source: bytes | str | object) -> Trace:
    """The conversations of OTLP log records (JSON text, JSON Lines, or the parsed value): an
    OTLP/JSON logs export (`resourceLogs`), or a list of records as CloudWatch exports them
    (`{"timestamp", "raw_otel_json"}`, the record as an object or its JSON text). Never raises."""
    problems: list[Diagnostic] = []
    records: list[_Record] = []
    for index, prefix, value in requests(source, problems):
        request = plain_object(value)
        if request is not None and isinstance(request.get("resourceLogs"), list):
            records.extend(_exported(request, prefix, len(records), index))
            continue
        listed = value if type(value) is list else None
        if listed is None:
            problems.append(Diagnostic("BAD_FORMAT", index, prefix, "Expected OTLP log records (`resourceLogs`)"))
            continue
        for number, item in objects(listed):
            raw, path = _raw_record(item, f"{prefix}[{number}]")
            if raw is not None:
                found = _record(raw, path, len(records), number)
                if found is not None:
                    records.append(found)
    records.sort(key=_when)
    for each in records:
        if each.event == STRANDS_EVENT:
            problems.append(Diagnostic("BAD_FORMAT", each.entry, each.path, _STRANDS))
    conversations = sorted(_per_message(records), key=_started)
    return Trace(tuple(conversations), tuple(sorted(problems, key=_by_index)))


def _started(traced: TracedConversation) -> tuple[bool, int]:
    return (traced.start is None, traced.start or 0)


def _by_index(diagnostic: Diagnostic) -> int:
    return -1 if diagnostic.message_index is None else diagnostic.message_index


def _when(record: _Record) -> tuple[bool, int, int]:
    return (record.time is None, record.time or 0, record.order)


def _exported(request: dict[str, object], prefix: str, order: int, index: int | None) -> Iterator[_Record]:
    for number, resource in objects(request.get("resourceLogs")):
        for inner, scope in objects(resource.get("scopeLogs")):
            for position, record in objects(scope.get("logRecords")):
                path = f"{prefix}.resourceLogs[{number}].scopeLogs[{inner}].logRecords[{position}]"
                found = _record(record, path, order, index)
                if found is not None:
                    order += 1
                    yield found


def _raw_record(item: dict[str, object], path: str) -> tuple[dict[str, object] | None, str]:
    """A CloudWatch entry's record: `raw_otel_json`, an object or its JSON text."""
    raw = item.get("raw_otel_json")
    if type(raw) is str:
        try:
            raw = _decode(raw)
        except (msgspec.DecodeError, RecursionError):
            return None, path
    return plain_object(raw), f"{path}.raw_otel_json"


def _record(record: dict[str, object], path: str, order: int, index: int | None) -> _Record | None:
    """A record that holds messages: one of the conventions' message events, or Strands'."""
    values = record.get("attributes")
    found = (plain_object(values) or {}) if type(values) is dict else attributes(values)
    event = text(record.get("eventName")) or text(found.get("event.name"))
    if event not in MESSAGE_EVENTS and event != STRANDS_EVENT:
        return None
    body = record.get("body")
    given = plain_object(body)
    wrapped = given is not None and len(given) == 1 and not _ANY_VALUE_KEYS.isdisjoint(given)
    plain = plain_object(any_value(body)) if wrapped else given  # OTLP/JSON, else plain
    if plain is None:
        return None
    time = signed(record.get("timeUnixNano"))
    if time is None:  # OTLP: an event with no time of its own has the time it was seen
        time = signed(record.get("observedTimeUnixNano"))
    trace, span = text(record.get("traceId")), text(record.get("spanId"))
    return _Record(time, order, index, trace, span, event, plain, path)


def _per_message(records: list[_Record]) -> Iterator[TracedConversation]:
    """One conversation per span from its message events, in the order they were logged."""
    spans: dict[tuple[str, str], list[_Record]] = {}
    for record in records:
        if record.event in MESSAGE_EVENTS:
            spans.setdefault((record.trace_id, record.span_id), []).append(record)
    for (trace, span), events in spans.items():
        yield _traced(trace, span, "gen_ai.*.message", events[0], [(event.event, event.body) for event in events])


def _traced(
    trace: str, span: str, event: str, first: _Record, events: list[tuple[str, dict[str, object]]]
) -> TracedConversation:
    """The conversation of one span's events, read by the first format that takes their bodies."""
    for declared in FORMATS.values():
        reader = declared.event_messages
        source = None if reader is None else reader(events)
        if source is None:
            continue
        conversation, diagnostics = loaded(declared, source)
        return TracedConversation(
            trace, span, "", "", event, first.time, declared.name, conversation, diagnostics, first.path
        )
    problem = Diagnostic("BAD_FORMAT", None, "$", "Expected message events whose content a format reads")
    return TracedConversation(trace, span, "", "", event, first.time, "", None, (problem,), first.path)
