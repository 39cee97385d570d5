"""Token usage of session logs: every API call counted once, summed by session, model or day.

`calls(source, format)` reads a session log's calls (Claude Code, Codex, pi, gemini-cli: each
format that declares how) one line at a time, so memory grows with the number of calls, not
with the log. `summarize` sums them; a cost comes only from a price table the caller gives
(`read_prices`), never from the network.
"""

from __future__ import annotations

from collections.abc import Iterator

from message_ir.adapters import FORMATS, Call
from message_ir.usage._prices import Price, read_prices
from message_ir.usage._summary import UNKNOWN, By, Row, Summary, key_of, summarize


def calls(source: bytes | str | object, format: str) -> Iterator[Call]:
    """The API calls of the session log `source` in `format`, each once, in the order they were
    made. Raises `ValueError` for a format that does not record usage."""
    declared = FORMATS.get(format)
    if declared is None or declared.usage is None:
        known = ", ".join(name for name, each in FORMATS.items() if each.usage is not None)
        raise ValueError(f"{format!r} does not record token usage (formats that do: {known})")
    return declared.usage(source)


__all__ = ["UNKNOWN", "By", "Call", "Price", "Row", "Summary", "calls", "key_of", "read_prices", "summarize"]
