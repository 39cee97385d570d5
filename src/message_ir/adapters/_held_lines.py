"""Whether a session log's lines are held in `meta` as they are, asked by the fast paths of
`check`: a line that nests too deeply for `meta` (where `load` puts a line a few levels down:
a kept line, an envelope) is a problem of the careful path's, so a fast path takes no such line.

A line's nesting is at most its count of opening brackets (those in its strings count too, so
the count may be far above its nesting): a line with at most `SURE_DEPTH` of them is surely
held. The lines with more (`deep_lines`, found for a whole segment at once) are walked as the
fast path decoded them (`held`); lines holding code are often among them, and are long: they
are not decoded a second time. `held_object` parses a line as `load` does and asks both at
once: the one call a fast path makes of each line."""

from __future__ import annotations

from typing import Final

import msgspec

from message_ir.adapters import _json

SURE_DEPTH: Final = 56
"""A line nesting at most this deep is held in `meta` wherever `load` puts it (64 levels
allowed; the envelope of a split message's later line goes in four levels down)."""
_NOT_OPENING: Final = bytes(sorted(set(range(256)) - set(b"{[\n")))
"""Every byte but an opening bracket and the line ending: deleted from a segment's lines, what
is left of each line is its opening brackets (one C pass, where two `count`s a line cost more)."""
_NONE: Final[frozenset[int]] = frozenset()
_decode: Final = _json.decode


def deep_lines(data: bytes) -> frozenset[int]:
    """The numbers (0-based) of the lines of `data` (the last one may lack its newline) with
    more than `SURE_DEPTH` opening brackets: the only ones that may nest too deeply."""
    brackets = data.translate(None, _NOT_OPENING).split(b"\n")  # per line, its opening brackets (in strings too)
    if max(map(len, brackets)) <= SURE_DEPTH:
        return _NONE
    return frozenset([number for number, opening in enumerate(brackets) if len(opening) > SURE_DEPTH])


def held_object(raw: bytes, deep: bool) -> dict[str, object] | None:
    """The JSON object a line of a log holds, parsed as `load` parses it, when `load` holds it
    in `meta` as it is (`deep`: the line has more than `SURE_DEPTH` opening brackets, so its
    nesting is walked); `None` for a line that is no JSON object or nests too deeply, which
    the careful path reads and reports."""
    try:
        value = _decode(raw)
    except (msgspec.DecodeError, RecursionError):
        return None
    if type(value) is not dict:
        return None
    line: dict[str, object] = value  # parsed here: `str` keys
    return None if deep and not held(line) else line


def deep_line(raw: bytes) -> bool:
    """Whether one line has more than `SURE_DEPTH` opening brackets (two passes over it: for
    a fast path that asks it of a few lines only; `deep_lines` asks it of a segment's)."""
    return raw.count(b"{") + raw.count(b"[") > SURE_DEPTH


def held(line: dict[str, object], limit: int = SURE_DEPTH) -> bool:
    """Whether a decoded line is surely held in `meta`: nesting well within the limit (an
    integer longer than the IR's JSON rule allows, msgspec refused to decode already). A line
    with at most `SURE_DEPTH` brackets in all is, without asking. (`limit`: another depth, for
    a document whose records sit deeper in it than a log's lines do: gemini-cli's.)"""
    stack: list[tuple[dict[str, object] | list[object], int]] = [(line, 1)]
    while stack:  # only containers are visited: a line's strings hold most of its brackets
        container, depth = stack.pop()
        if depth > limit:
            return False
        for child in container.values() if type(container) is dict else container:
            if type(child) is dict or type(child) is list:
                stack.append((child, depth + 1))
    return True
