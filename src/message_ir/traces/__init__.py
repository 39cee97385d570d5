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
Never raises for bad input: what cannot be read is a diagnostic.
"""

from __future__ import annotations

from message_ir.traces._spans import Trace, TracedConversation, spans

__all__ = ["Trace", "TracedConversation", "spans"]
