"""The JSON boundary: `encode_transcript` and `decode_transcript`.

Decoding has a fast path and an explaining path. The fast path is one typed msgspec decode
straight into the frozen Structs, which already checks every tag, field type, required and
unknown field, non-empty ID, UTF-8 string and number range; tool arguments stay as
`msgspec.Raw`, skipped without recursion. Then one Python pass over the messages tests
linkage (`finish_decoded`) and collects the calls, whose arguments text `adopt_arguments`
checks on the bytes of all of them at once (no Python walk over argument values), compacts
and copies into buffers of their own (the same for the `meta` of any message or block and
the `data` of opaque blocks, `adopt_objects`). Only when all of that passes are messages handed out;
link events, for the diagnostics, are built only when linkage failed.

When anything fails, the explaining path parses the text again with `json.loads` and hands
the result to `validate_transcript`, so the diagnostics are exactly the ones the guard gives
for the parsed JSON. Text that is not UTF-8 or not JSON, or that nests deeper than
`PARSE_DEPTH` (`_decoding`; beyond anything valid), gets a boundary diagnostic of its own instead, and
so does a message or block whose `role` or `type` key appears twice with different values
(msgspec refuses it where `json.loads` would silently keep the last one), and anything
and when `json.loads`'s reading is valid after all (msgspec refuses a repeated key whose
first value is wrong; `json.loads`, the validator and JavaScript keep the last), the
messages are built from that reading, so decoding agrees with the validator.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import msgspec

from message_ir._decoding import REFUSED, UNLINKED, explain, finish_decoded, link_events
from message_ir._diagnostics import TranscriptError
from message_ir._json_rule import type_name
from message_ir._linkage import LinkEvent
from message_ir._linkage import check_linkage as link_diagnostics
from message_ir._model import Message
from message_ir._untyped import encode_json
from message_ir._validate import require_shape

_transcript_decoder: Final = msgspec.json.Decoder(list[Message])


def encode_transcript(messages: Sequence[Message]) -> bytes:
    """The transcript as a compact JSON array in the wire format (camelCase keys).

    Raises `TranscriptError` when a message is not well-formed (which only a message built
    by calling the Struct classes directly can be): nothing malformed reaches the encoder.
    Linkage is not required, so a session can be saved while a call awaits its result.
    """
    require_shape(messages)
    return encode_json(messages)


def decode_transcript(data: bytes | str, *, check_linkage: bool = True) -> tuple[Message, ...]:
    """The messages of a JSON transcript, only if it is valid in shape and linkage.

    Raises `TranscriptError` whose `diagnostics` are what `validate_transcript` gives for
    `json.loads(data)`, or a boundary diagnostic (`INVALID_JSON`, `JSON_TOO_DEEP`,
    `DUPLICATE_KEY`) for text that cannot be read as one JSON value. Nothing else escapes.

    With `check_linkage=False` only the shape must be valid (and only shape diagnostics are
    raised): that is how a broken session is loaded to be given to `repair_transcript`.
    """
    if type(data) is not bytes and type(data) is not str:
        raise TypeError(f"decode_transcript(): Expected `bytes` or `str`, got `{type_name(data)}`")
    try:
        messages = _transcript_decoder.decode(data)
    except (msgspec.DecodeError, RecursionError, UnicodeError):
        return _explained(data, check_linkage)
    outcome = finish_decoded(messages)
    if outcome is REFUSED:
        return _explained(data, check_linkage)
    if outcome is UNLINKED and check_linkage:
        events: list[LinkEvent] = []
        for index, message in enumerate(messages):
            link_events(index, message, events)
        raise TranscriptError(tuple(link_diagnostics(events)))
    return tuple(messages)


def _explained(data: bytes | str, check_linkage: bool) -> tuple[Message, ...]:
    diagnostics, messages = explain(data, check_linkage)
    if diagnostics:
        raise TranscriptError(diagnostics)
    return messages
