"""Lone surrogate escapes: `\\ud83d` with no low half after it (or a low half alone).

JSON allows any `\\uXXXX` escape, and Node's `JSON.stringify` writes half of a UTF-16 pair
when a string was cut inside an emoji; such text is no Unicode, so msgspec (and the IR)
refuse it, and providers answer a request holding one with a 400. `parse` names the escape
in its diagnostic; `repair` on the command line replaces each with `\\ufffd` (U+FFFD, the
replacement character), line by line, and says where.

An escape is a backslash run of odd length before `u`: `\\\\ud83d` is a literal backslash
and the text `ud83d`, left alone.
"""

from __future__ import annotations

import re
from typing import Final

_SURROGATE_ESCAPE: Final = re.compile(rb"(\\+)u([dD][89a-fA-F][0-9a-fA-F]{2})")
REPLACEMENT: Final = b"\\ufffd"


def lone_surrogate_escapes(data: bytes) -> list[tuple[int, int]]:
    """The `(start, end)` of each lone surrogate escape (`\\uXXXX`) in JSON text."""
    escapes: list[tuple[int, int, bool]] = []  # start, end, high half
    for match in _SURROGATE_ESCAPE.finditer(data):
        backslashes = match.end(1) - match.start(1)
        if backslashes % 2 == 0:
            continue  # an escaped backslash, then plain text
        start = match.end(1) - 1
        second = data[match.start(2) + 1 : match.start(2) + 2].lower()  # the hex digit after `d`
        escapes.append((start, match.end(), second in b"89ab"))
    lone: list[tuple[int, int]] = []
    index = 0
    while index < len(escapes):
        start, end, high = escapes[index]
        following = escapes[index + 1] if index + 1 < len(escapes) else None
        if high and following is not None and following[0] == end and not following[2]:
            index += 2  # a high half and its low half: one character
            continue
        lone.append((start, end))
        index += 1
    return lone


def describe(data: bytes) -> str | None:
    """A sentence naming the first lone surrogate escape of `data`, or `None` when it has none."""
    found = lone_surrogate_escapes(data)
    if not found:
        return None
    start, end = found[0]
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    escape = data[start:end].decode("ascii")
    return f"A lone surrogate escape `{escape}` at byte {start}{more}: half of a UTF-16 pair, which is no text"


def replaced(data: bytes) -> tuple[bytes, int]:
    """`data` with each lone surrogate escape replaced by `\\ufffd`, and how many there were."""
    found = lone_surrogate_escapes(data)
    if not found:
        return data, 0
    pieces: list[bytes] = []
    last = 0
    for start, end in found:
        pieces.append(data[last:start])
        pieces.append(REPLACEMENT)
        last = end
    pieces.append(data[last:])
    return b"".join(pieces), len(found)
