"""What both writers say the same way: the header's counts and problem list, a branch's kind,
a message's role, a long text told from a short one, and a JSON value laid out for reading."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

import msgspec

from message_ir import Diagnostic, Message
from message_ir.adapters import Branch
from message_ir.render._view import View

NO_PROBLEMS: Final = "No problems: the conversation passes its format's check."

LONG_CHARACTERS: Final = 1500
"""A text longer than this (or with more lines than `LONG_LINES`) is collapsed."""
LONG_LINES: Final = 25

_UNPRINTABLE: Final = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")
"""Control characters (but tab and line ends) and lone surrogates: shown as `\\xNN` / `\\uNNNN`."""


def printable(text: str) -> str:
    """`text` with control characters and lone surrogates written as escapes, so that the page
    is valid UTF-8 and shows them instead of hiding them."""
    return _UNPRINTABLE.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def is_long(text: str) -> bool:
    return len(text) > LONG_CHARACTERS or text.count("\n") >= LONG_LINES


def size(text: str) -> str:
    """`12 lines, 3,456 characters`."""
    lines = text.count("\n") + 1
    return f"{lines:,} {'line' if lines == 1 else 'lines'}, {len(text):,} characters"


def pretty_json(raw: bytes) -> str:
    """JSON text indented for reading (as it is, when it is not JSON)."""
    try:
        return msgspec.json.format(raw, indent=2).decode("utf-8", "replace")
    except msgspec.DecodeError:
        return raw.decode("utf-8", "replace")


def plural(count: int, word: str) -> str:
    return f"{count:,} {word}" if count == 1 else f"{count:,} {word}s"


ROLE_WORDS: Final = {"user": "user", "assistant": "assistant", "toolResult": "tool result"}


def role_word(message: Message) -> str:
    return ROLE_WORDS[message.role]


def counts(messages: int, calls: int, results: int, problems: int, notes: int) -> tuple[str, ...]:
    """The header's counts, after the format's name."""
    return (
        plural(messages, "message"),
        plural(calls, "tool call"),
        plural(results, "tool result"),
        plural(problems, "problem"),
        plural(notes, "note"),
    )


def placed_problems(found: View) -> Iterator[tuple[Diagnostic, int]]:
    """The problems beside a message (with its index), in message order."""
    for index in sorted(found.problems):
        for diagnostic in found.problems[index]:
            yield diagnostic, index


def branch_kind(branch: Branch) -> str:
    return "resumed" if branch.resumed else "sub-agent" if branch.sidechain else ""
