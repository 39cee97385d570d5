"""Redacting the JSON text of a file in place: secrets replaced inside string values, every
other byte kept.

The text is scanned as JSON (no value is decoded and written again, so numbers, spacing,
key order and escapes stay as they were): each string that is a value, and not the value of
a key that names or links something (`PROTECTED`: IDs, names, roles, types, signatures), is
searched by every rule, on its raw text. A secret is replaced by a placeholder of letters,
digits, `[`, `]` and `:` only, so the string stays a valid JSON string and a JSON text held
in it (a call's arguments, as OpenAI writes them) stays valid JSON of the same type. The
same secret gets the same placeholder everywhere in one run: `[REDACTED:<rule>:<n>]`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Final, NamedTuple

from message_ir.redact._rules import Rule

PROTECTED: Final = frozenset(
    {
        "id", "uuid", "parentUuid", "leafUuid", "logicalParentUuid", "sessionId", "requestId", "promptId",
        "tool_use_id", "tool_call_id", "toolCallId", "call_id", "callId", "parentId",
        "name", "toolName", "type", "role", "model", "stop_reason", "status",
        "signature", "thoughtSignature", "thought_signature", "encrypted_content",
        "timestamp", "version", "cli_version", "gitBranch",
    }
)  # fmt: skip
"""Keys whose string values are never changed: what links a session together or names it.
So is the value of any key ending in `id`, `uuid` or `signature` (any case): `toolUseID`,
`tool_id`, `thinkingSignature`."""
_PROTECTED_ENDINGS: Final = ("id", "uuid", "signature")


def protected(key: str | None) -> bool:
    """Whether the string value of `key` is never changed."""
    return key is not None and (key in PROTECTED or key.lower().endswith(_PROTECTED_ENDINGS))


_STRING: Final = re.compile(r'"((?:[^"\\]|\\.)*)"', re.DOTALL)
_SCALAR_END: Final = re.compile(r"[\s,\]}]")


class Redaction(NamedTuple):
    """One secret replaced: where (a `$`-rooted path into the source's JSON), by which rule,
    and its placeholder. The secret itself is never kept."""

    path: str
    rule: str
    placeholder: str


class Placeholders:
    """The placeholders of one run: the same secret, the same placeholder."""

    def __init__(self) -> None:
        self._given: dict[tuple[str, str], str] = {}
        self._counts: dict[str, int] = {}

    def of(self, rule: str, secret: str) -> str:
        key = (rule, secret)
        if key not in self._given:
            self._counts[rule] = self._counts.get(rule, 0) + 1
            self._given[key] = f"[REDACTED:{rule}:{self._counts[rule]}]"
        return self._given[key]


def _segment(key: str | int) -> str:
    if type(key) is int:
        return f"[{key}]"
    assert type(key) is str
    return f".{key}" if key.isidentifier() else f"[{key!r}]"


def _value_strings(text: str, root: str) -> Iterator[tuple[int, int, str, str | None]]:
    """Each string value of JSON `text`: the span of its raw content, its path and its key (for
    a string in an array, the key of the nearest object around it).

    Keys are not yielded. Raises `ValueError` on text that is not JSON.
    """
    stack: list[list[str | int | None]] = []  # per open container: [kind, key or index]
    path: list[str] = [root]
    position = 0
    expecting_key = False
    while position < len(text):
        char = text[position]
        if char in " \t\r\n,:":
            if char == "," and stack:
                frame = stack[-1]
                if frame[0] == "[":
                    index = frame[1]
                    assert type(index) is int
                    frame[1] = index + 1
                else:
                    expecting_key = True
            position += 1
            continue
        if char in "{[":
            stack.append([char, None if char == "{" else 0])
            expecting_key = char == "{"
            position += 1
            continue
        if char in "}]":
            stack.pop()
            expecting_key = False
            position += 1
            continue
        if char == '"':
            match = _STRING.match(text, position)
            if match is None:
                raise ValueError(f"an unterminated string at character {position}")
            if expecting_key:
                stack[-1][1] = match.group(1)
                expecting_key = False
            else:
                key = next((frame[1] for frame in reversed(stack) if frame[0] == "{"), None)  # in an array: its key's
                where = "".join(path) + "".join(_segment(frame[1]) for frame in stack if frame[1] is not None)
                yield match.start(1), match.end(1), where, key if type(key) is str else None
            position = match.end()
            continue
        end = _SCALAR_END.search(text, position)
        position = len(text) if end is None else end.start()
    if stack:
        raise ValueError("the text ends inside an object or array")


def redact_json_text(
    text: str, rules: Sequence[Rule], placeholders: Placeholders, root: str = "$"
) -> tuple[str, list[Redaction]]:
    """`text` (one JSON value) with every secret in its string values replaced, and what was."""
    pieces: list[str] = []
    redactions: list[Redaction] = []
    last = 0
    for start, end, where, key in _value_strings(text, root):
        if protected(key):
            continue
        raw = text[start:end]
        claimed: list[tuple[int, int, str]] = []
        for rule in rules:
            for found_start, found_end in rule.find(raw):
                if found_end > found_start and all(found_end <= s or found_start >= e for s, e, _ in claimed):
                    claimed.append((found_start, found_end, rule.name))
        if not claimed:
            continue
        claimed.sort()
        for found_start, found_end, rule_name in claimed:
            placeholder = placeholders.of(rule_name, raw[found_start:found_end])
            pieces.append(text[last : start + found_start])
            pieces.append(placeholder)
            last = start + found_end
            redactions.append(Redaction(where, rule_name, placeholder))
    pieces.append(text[last:])
    return "".join(pieces), redactions
