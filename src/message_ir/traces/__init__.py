"""Traces: the conversations in an OpenTelemetry trace export, span by span.

`spans(source)` reads an OTLP/JSON trace export — one `ExportTraceServiceRequest`
(`{"resourceSpans": [...]}`), JSON Lines of them, or lines that wrap one under `data` (as a
collector stores them) — and gives a `Trace`: for each span (and each span event) that
carries a conversation, a `TracedConversation` (the span's IDs, name and start, which format
its messages are in, the `Conversation` that format's `load` makes of them and what its
`check` says, or the `FormatError`'s diagnostics when it refuses them), and the diagnostics of
what in the file is no export. Which attributes hold messages is each format's own
declaration (`Format.span_messages`): the GenAI conventions' `gen_ai.input.messages` /
`gen_ai.output.messages` (`otel_genai`; on the span or on its
`gen_ai.client.inference.operation.details` event), the AI SDK's `ai.prompt.messages`
(`vercel_ai`). Exporters batch spans in any order: they come sorted by the time they started.

`log_records(source)` reads OTLP log records the same way: an OTLP/JSON logs export
(`resourceLogs`), or a list of records as CloudWatch exports them (`{"timestamp",
"raw_otel_json"}`, as AWS Bedrock AgentCore writes them). The conventions' per-message
events (`gen_ai.system.message`, `gen_ai.user.message`, `gen_ai.assistant.message`,
`gen_ai.tool.message`, `gen_ai.choice`; deprecated since the conventions moved the messages
into attributes) are grouped by span and put in the order they were logged. The first
format whose declaration reads their bodies (`Format.event_messages`: Bedrock's content
blocks, as the botocore instrumentation logs them) makes the span's conversation. Strands'
own tracer events are refused by name: their input and output messages do not give the order
the conversation had.

Never raises for bad input: what cannot be read is a diagnostic.
"""

from __future__ import annotations

from message_ir.traces._logs import log_records
from message_ir.traces._spans import Trace, TracedConversation, spans

__all__ = ["Trace", "TracedConversation", "log_records", "spans"]
