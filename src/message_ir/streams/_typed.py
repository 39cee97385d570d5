"""Where msgspec's typed decoding and its encoder meet the stream formats (the one module of
`streams` where mypy allows `Any`: a decoder of a union built at run time is untyped to it, and
the encoder takes `Any`).

A stream format's fast path decodes each payload of a batch into a msgspec struct, one per
event type it knows: the frequent ones with their fields, the others empty (their payload is
then read the careful way). A payload that is not one of them, or not JSON, fails, and is
read the careful way. Each struct is read as soon as it is decoded and dropped: a batch's
structs are never all held (holding them would set the garbage collector going over them).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Union

import msgspec

_encode = msgspec.json.Encoder().encode


def encode(value: object) -> bytes:
    """msgspec's compact JSON encoding of `value` (parsed JSON: nothing of a caller's runs)."""
    return _encode(value)


def payload_decoder(*types: type[msgspec.Struct]) -> Callable[[bytes], object]:
    """`decode` of the union of `types` (tagged structs: each payload's `type` picks one);
    raises `msgspec.DecodeError` (or its `ValidationError`) for a payload that is none."""
    decoder = msgspec.json.Decoder(Union[types])  # noqa: UP007  # a union built at run time  # type: ignore[valid-type]
    decode: Callable[[bytes], object] = decoder.decode
    return decode


def tags(*names: str) -> tuple[type[msgspec.Struct], ...]:
    """An empty tagged struct for each event type named: known, but read the careful way."""
    return tuple(msgspec.defstruct(f"_{name}", [], tag=name, gc=False) for name in names)
