"""Prices per model, from a table the user gives (nothing is fetched)."""

from __future__ import annotations

from typing import Final, NamedTuple

import msgspec

_FIELDS: Final = ("input", "output", "cache_read", "cache_write")


class Price(NamedTuple):
    """What a model's tokens cost, in the table's currency per million tokens."""

    input: float
    output: float
    cache_read: float = 0.0
    cache_write: float = 0.0


def read_prices(data: bytes | str) -> dict[str, Price]:
    """The price table in JSON text: `{"MODEL": {"input": N, "output": N, "cache_read": N,
    "cache_write": N}, ...}`, prices per million tokens (`cache_read` and `cache_write` may
    be left out: 0). Raises `ValueError` naming the first thing that is not so."""
    try:
        table = msgspec.json.decode(data, type=dict[str, dict[str, object]])
    except msgspec.ValidationError as error:
        raise ValueError(f"the price table is not an object of models, each an object of prices: {error}") from None
    except msgspec.DecodeError as error:
        raise ValueError(f"the price table is not JSON: {error}") from None
    prices: dict[str, Price] = {}
    for model, entry in table.items():
        unknown = [key for key in entry if key not in _FIELDS]
        if unknown:
            raise ValueError(f"the price of {model!r} has an unknown key {unknown[0]!r} (known: {', '.join(_FIELDS)})")
        values: list[float] = []
        for field in _FIELDS:
            value = entry.get(field, 0 if field.startswith("cache") else None)
            if (type(value) is not int and type(value) is not float) or value < 0:
                raise ValueError(f"the price of {model!r} needs `{field}`, a number of at least 0")
            values.append(float(value))
        prices[model] = Price(*values)
    return prices
