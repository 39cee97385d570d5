"""Redact secrets from transcripts and session logs without breaking them.

`redact_file_bytes` works on a file's own bytes (any format: the JSON is scanned, never
rewritten), so everything without a secret is written back byte for byte, and IDs, names,
roles, types and signatures are never touched: a redacted log validates as before and still
resumes. `redact` does the same for a `Conversation` or IR messages. See docs/redact.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, cast, overload

import msgspec

from message_ir import JsonInput, Message, decode_transcript, encode_transcript, frozen_json_object
from message_ir.adapters import Conversation
from message_ir.redact._rules import RULES, Rule, literal_rule, pattern_rule
from message_ir.redact._scan import PROTECTED, Placeholders, Redaction, redact_json_text


class Redacted(NamedTuple):
    """A file's bytes with its secrets replaced, and every redaction made (none: the bytes
    are the input's)."""

    data: bytes
    redactions: tuple[Redaction, ...]


def redact_file_bytes(data: bytes, *, json_lines: bool, rules: Sequence[Rule] = RULES) -> Redacted:
    """Redact the bytes of a JSON file, or of a JSON Lines file (`json_lines`: each line one
    JSON value; paths start `$[line]`, 0-based).

    Raises `ValueError` for bytes that are not UTF-8 or text that is not JSON (nothing is
    redacted then).
    """
    text = data.decode("utf-8")
    placeholders = Placeholders()
    if not json_lines:
        redacted, found = redact_json_text(text, rules, placeholders)
        return Redacted(redacted.encode("utf-8") if found else data, tuple(found))
    lines = text.split("\n")
    redactions: list[Redaction] = []
    for number, line in enumerate(lines):
        if line.strip():
            lines[number], found = redact_json_text(line, rules, placeholders, f"$[{number}]")
            redactions.extend(found)
    return Redacted("\n".join(lines).encode("utf-8") if redactions else data, tuple(redactions))


@overload
def redact(value: Conversation, *, rules: Sequence[Rule] = RULES) -> tuple[Conversation, tuple[Redaction, ...]]: ...
@overload
def redact(
    value: Sequence[Message], *, rules: Sequence[Rule] = RULES
) -> tuple[tuple[Message, ...], tuple[Redaction, ...]]: ...
def redact(
    value: Conversation | Sequence[Message], *, rules: Sequence[Rule] = RULES
) -> tuple[Conversation | tuple[Message, ...], tuple[Redaction, ...]]:
    """A conversation (or messages) with the secrets of every text, argument value, result
    and `meta` replaced, and every redaction (paths into the IR: `$[3].content[0].arguments`).

    IDs, tool names and linkage are never changed.
    """
    placeholders = Placeholders()
    messages = value.messages if isinstance(value, Conversation) else tuple(value)
    text, found = redact_json_text(encode_transcript(messages).decode("utf-8"), rules, placeholders)
    redactions = list(found)
    new_messages = decode_transcript(text, check_linkage=False) if found else tuple(messages)
    if not isinstance(value, Conversation):
        return new_messages, tuple(redactions)
    instructions = []
    for number, entry in enumerate(value.instructions):
        encoded = msgspec.json.encode(entry.text).decode("utf-8")
        written, found = redact_json_text(encoded, rules, placeholders, f"$.instructions[{number}].text")
        redactions.extend(found)
        instructions.append(
            msgspec.structs.replace(entry, text=msgspec.json.decode(written, type=str)) if found else entry
        )
    meta = value.meta
    if meta is not None:
        written, found = redact_json_text(
            msgspec.json.encode(meta.thaw()).decode("utf-8"), rules, placeholders, "$.meta"
        )
        redactions.extend(found)
        thawed = msgspec.json.decode(written, type=dict[str, object])
        meta = frozen_json_object(cast("dict[str, JsonInput]", thawed)) if found else meta  # checked there
    conversation = Conversation(
        format=value.format, messages=new_messages, instructions=tuple(instructions), notes=value.notes, meta=meta
    )
    return conversation, tuple(redactions)


__all__ = [
    "PROTECTED",
    "RULES",
    "Redacted",
    "Redaction",
    "Rule",
    "literal_rule",
    "pattern_rule",
    "redact",
    "redact_file_bytes",
]
