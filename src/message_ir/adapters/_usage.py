"""Token usage in a session log: one `Call` per API call, each counted once.

A session-log format declares how it finds its calls (its declaration's `usage`); this
module holds what they share: the record of one call, and the count of one usage field.
Tokens are split the same way for every provider: `input` is what was sent and not read
from a cache, `cache_read` what was read from one, `cache_write` what was written to one,
and `output` everything generated (reasoning included).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import NamedTuple


class Call(NamedTuple):
    """One API call of a session, with the tokens it used."""

    session: str | None
    """The session's ID, where the log says it."""
    model: str | None
    """The model that answered, where the log says it."""
    timestamp: str | None
    """When its (last) usage record was written, as the log says it."""
    input: int
    """Input tokens not read from a cache."""
    output: int
    """Output tokens, reasoning included."""
    cache_read: int
    """Input tokens read from a cache."""
    cache_write: int
    """Input tokens written to a cache."""
    line: int
    """Where its (last) usage record stands: the 0-based line, or the record's index."""


UsageReader = Callable[[object], Iterator[Call]]
"""A log format's reader of its calls: `source -> calls, in the order they were made`."""


def tokens(value: object) -> int:
    """A usage field's count: a non-negative `int` as it is, anything else 0."""
    return value if type(value) is int and value > 0 else 0


def text(value: object) -> str | None:
    """A string field, or `None`."""
    return value if type(value) is str else None


def call_of(
    usage: dict[str, object], keys: tuple[str, str, str, str], where: tuple[str | None, str | None, str | None, int]
) -> Call:
    """The call whose usage record is `usage`: `keys` name its input, output, cache-read and
    cache-write counts; `where` is its session, model, timestamp and line."""
    session, model, timestamp, line = where
    counts = [tokens(usage.get(key)) for key in keys]
    return Call(session, model, timestamp, counts[0], counts[1], counts[2], counts[3], line)
