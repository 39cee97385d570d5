"""Calls summed by session, model or day."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final, Literal

import msgspec

from message_ir.adapters import Call
from message_ir.usage._prices import Price

By = Literal["session", "model", "day"]
"""What the calls are summed by."""

UNKNOWN: Final = "(unknown)"
"""The key of calls whose log does not say their session, model or day."""


class Row(msgspec.Struct, frozen=True, rename="camel"):
    """The calls of one session, model or day, and what they used (JSON keys in camelCase)."""

    key: str
    calls: int
    input: int
    output: int
    cache_read: int
    cache_write: int
    cost: float | None
    """What they cost by the price table; `None` without one, or when a model has no price."""


class Summary(msgspec.Struct, frozen=True, rename="camel"):
    """The rows, sorted by key, their total, and the models the price table has no price for."""

    by: str
    rows: tuple[Row, ...]
    total: Row
    unpriced: tuple[str, ...]


def key_of(call: Call, by: By) -> str:
    """The session, model or day (the timestamp's `YYYY-MM-DD`) of a call."""
    if by == "session":
        return call.session or UNKNOWN
    if by == "model":
        return call.model or UNKNOWN
    day = (call.timestamp or "")[:10]
    return day if len(day) == 10 and day[4] == "-" and day[7] == "-" else UNKNOWN


def _cost(call: Call, price: Price) -> float:
    used = (call.input, call.output, call.cache_read, call.cache_write)
    rates = (price.input, price.output, price.cache_read, price.cache_write)
    return sum(count * rate for count, rate in zip(used, rates, strict=True)) / 1_000_000


def summarize(calls: Iterable[Call], by: By = "model", prices: Mapping[str, Price] | None = None) -> Summary:
    """The calls summed by `by`; costs only from `prices` (model -> `Price`)."""
    sums: dict[str, list[int]] = {}
    costs: dict[str, float | None] = {}
    unpriced: set[str] = set()
    for call in calls:
        key = key_of(call, by)
        counts = sums.setdefault(key, [0, 0, 0, 0, 0])
        for index, count in enumerate((1, call.input, call.output, call.cache_read, call.cache_write)):
            counts[index] += count
        price = None if prices is None else prices.get(call.model or "")
        if prices is not None and price is None:
            unpriced.add(call.model or UNKNOWN)
        before = costs.get(key, 0.0)
        costs[key] = None if price is None or before is None else before + _cost(call, price)
    rows = tuple(_row(key, sums[key], costs[key]) for key in sorted(sums))
    totals = [sum(row_counts[index] for row_counts in sums.values()) for index in range(5)]
    total_cost = None if not rows or any(row.cost is None for row in rows) else sum(row.cost or 0.0 for row in rows)
    return Summary(by, rows, _row("total", totals, total_cost), tuple(sorted(unpriced)))


def _row(key: str, counts: list[int], cost: float | None) -> Row:
    calls, used_input, output, cache_read, cache_write = counts
    return Row(
        key=key,
        calls=calls,
        input=used_input,
        output=output,
        cache_read=cache_read,
        cache_write=cache_write,
        cost=None if cost is None else round(cost, 6),
    )
