"""Where msgspec's typed decoding meets the stream formats (the one module of `streams`
where mypy allows `Any`: a decoder of a union built at run time is untyped to it).

A stream format's fast path decodes a batch of payload lines in one call into msgspec
structs, one per event type it knows: the frequent ones with their fields, the others empty
(their payload is then read the careful way). A payload that is not one of them, or not
JSON, fails the batch, which is then read the careful way, event by event.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Union

import msgspec


def lines_decoder(*types: type[msgspec.Struct]) -> Callable[[bytes], list[object]]:
    """`decode_lines` of the union of `types` (tagged structs: each payload's `type` picks
    one); raises `msgspec.DecodeError` (or its `ValidationError`) for a line that is none."""
    decoder = msgspec.json.Decoder(Union[types])  # noqa: UP007  # a union built at run time  # type: ignore[valid-type]
    decode: Callable[[bytes], list[object]] = decoder.decode_lines
    return decode


def tags(*names: str) -> tuple[type[msgspec.Struct], ...]:
    """An empty tagged struct for each event type named: known, but read the careful way."""
    return tuple(msgspec.defstruct(f"_{name}", [], tag=name, gc=False) for name in names)
