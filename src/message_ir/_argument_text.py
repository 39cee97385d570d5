"""The JSON rule for the text of tool arguments, which a `ToolCall` keeps as JSON text.

msgspec refuses NaN, infinities (`Number out of range`), bad UTF-8 and lone surrogates when it
decodes; what is checked on the bytes first is the depth (before anything recurses) and, for
text msgspec has only skipped over while decoding a transcript, the few things a skip does
not check, so that the common case needs no second parse. `canonical_json` is what equality
and hashing compare.
"""

from __future__ import annotations

import re
from typing import Final

import msgspec

from message_ir._json_rule import type_name
from message_ir._limits import MAX_DEPTH
from message_ir._untyped import decode_json, encode_json

_STRING_TOKEN: Final = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_INNERMOST: Final = re.compile(rb"\[\]|\{\}")
_NOT_BRACKET: Final = bytes(byte for byte in range(256) if byte not in b"[]{}")
_NOT_BRACKET_OR_NUL: Final = bytes(byte for byte in range(256) if byte not in b"[]{}\x00")


def depth_exceeds(text: bytes, limit: int = MAX_DEPTH) -> bool:
    """Whether JSON `text` nests deeper than `limit`, found without recursion.

    Few brackets in all means shallow; otherwise strings are removed, everything but
    brackets is deleted, and one level of innermost empty containers is peeled per round.
    """
    if text.count(b"[") + text.count(b"{") <= limit:
        return False
    brackets = _STRING_TOKEN.sub(b"", text).translate(None, _NOT_BRACKET)
    for _ in range(limit):
        brackets = _INNERMOST.sub(b"", brackets)
        if not brackets:
            return False
    return True


def _shape_byte(byte: int) -> int:
    if byte in b"0123456789":
        return ord("d")
    if byte in b"eE":
        return ord("e")
    if byte in b"[{":
        return ord("(")
    return ord(" ")


_SHAPE: Final = bytes(_shape_byte(byte) for byte in range(256))
_LONG_DIGITS: Final = b"d" * 300


def quick_arguments_check(text: bytes) -> bool:
    """Whether JSON text that msgspec has parsed is surely acceptable as tool arguments.

    One translation of the bytes answers the questions a parse by skipping leaves open:
    an object (`{` first); at most `MAX_DEPTH` containers in all, so surely not too deep;
    no digit followed by an exponent and no 300 digits in a row, so no number that could
    overflow to infinity (strings count too: a false answer is only a maybe); and valid
    UTF-8. When it answers false, `arguments_text` decides.
    """
    shape = text.translate(_SHAPE)
    return (
        text.startswith(b"{")
        and shape.count(b"(") <= MAX_DEPTH
        and b"de" not in shape
        and (len(shape) < 300 or _LONG_DIGITS not in shape)
        and (text.isascii() or _is_utf8(text))
    )


def quick_arguments_check_all(texts: list[bytes]) -> bool:
    """`quick_arguments_check` for many texts at once, in a few passes over their concatenation.

    Joined by NUL (which valid JSON text never holds), the texts are all objects when every
    NUL is followed by `{`; one translation finds risky numbers; and each text holds at most
    `MAX_DEPTH` containers when its share of the brackets is at most twice that (brackets
    inside strings count too, so they can only turn the answer into a false maybe). False
    means: check the texts one by one.
    """
    if not texts:
        return True
    joined = b"\x00".join(texts)
    if not joined.startswith(b"{") or joined.count(b"\x00{") != len(texts) - 1:
        return False
    shape = joined.translate(_SHAPE)
    if b"de" in shape or _LONG_DIGITS in shape or not (joined.isascii() or _is_utf8(joined)):
        return False
    brackets = joined.translate(None, _NOT_BRACKET_OR_NUL)
    return max(map(len, brackets.split(b"\x00"))) <= 2 * MAX_DEPTH


_raw_elements: Final = msgspec.json.Decoder(list[msgspec.Raw]).decode


def compact_all(texts: list[bytes]) -> None:
    """Remove insignificant whitespace from JSON texts, in place: the texts joined as one
    array, formatted in one C pass, and (when that changed anything) cut back into its
    elements by a decode that skips each one (a copy of each, so that none holds the array)."""
    if not texts:
        return
    array = b"[" + b",".join(texts) + b"]"
    compact = msgspec.json.format(array, indent=-1)
    if compact == array:
        return
    texts[:] = [bytes(element) for element in _raw_elements(compact)]


def arguments_text(raw: bytes | memoryview | msgspec.Raw, *, syntax_checked: bool) -> tuple[bytes | None, str | None]:
    """`(text to keep, None)` for JSON text holding acceptable tool arguments, else `(None, problem)`.

    With `syntax_checked` (msgspec has already parsed the text, as the decoder's `Raw` skip
    does, refusing bad syntax, bad escapes and lone surrogates), the common case is decided
    on the bytes: an object (`{` first), not too deep, valid UTF-8, and no number that could
    overflow to infinity. The text is then kept as it is. Anything uncertain, and any text
    msgspec has not parsed, is decoded in full and its canonical encoding kept instead.
    """
    text = bytes(raw)
    if syntax_checked and quick_arguments_check(text):
        return text, None
    if depth_exceeds(text):
        return None, f"Nesting deeper than {MAX_DEPTH} levels"
    try:
        value = decode_json(text)
    except (msgspec.DecodeError, RecursionError) as error:  # ValidationError is a DecodeError
        return None, f"Invalid JSON: {str(error).split(' - at `')[0]}"  # msgspec's own path is not ours
    if type(value) is not dict:
        return None, f"Expected `dict`, got `{type_name(value)}`"
    return encode_json(value), None


def is_arguments_text(raw: bytes | memoryview | msgspec.Raw) -> bool:
    """Whether `arguments_text(raw, syntax_checked=False)` would accept `raw`, answered without
    making the canonical text it would keep (a validator only needs the verdict)."""
    text = bytes(raw)
    # Each level takes two characters at least: short text is surely shallow enough (and text
    # that is not JSON fails the decode, as it fails `arguments_text`).
    if len(text) > 2 * MAX_DEPTH and depth_exceeds(text):
        return False
    try:
        value = decode_json(text)
    except (msgspec.DecodeError, RecursionError):  # ValidationError is a DecodeError
        return False
    return type(value) is dict


def _is_utf8(text: bytes) -> bool:
    try:
        text.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def canonical_json(text: bytes | msgspec.Raw) -> bytes:
    """msgspec's compact encoding of JSON text (the text itself if it cannot be decoded)."""
    try:
        return encode_json(decode_json(text))
    except (msgspec.DecodeError, RecursionError):
        return bytes(text)
