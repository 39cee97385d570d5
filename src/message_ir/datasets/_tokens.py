"""Counting a dataset line's tokens with the user's own tokenizer (nothing is downloaded).

The user names a function `str -> int` as `MODULE:FUNCTION` (their `tiktoken` encoding's, a
Hugging Face tokenizer's, or any other); it is imported in each process that checks lines.
A line's count is the sum of the function over the texts the model reads in its
conversation, in order: each instruction (system text), each message's text, each call's
name and arguments (as JSON text) and each result's text. Tool declarations and the chat
template's own tokens are not counted: they depend on the model, not on the line.
"""

from __future__ import annotations

import importlib
from typing import Final, Protocol

import msgspec

from message_ir import AssistantMessage, Diagnostic, TextBlock, ToolCall, ToolResultMessage, UserMessage
from message_ir.adapters import FORMATS, FormatError


class Tokenizer(Protocol):
    """What the user names: a function of a text, returning its number of tokens."""

    def __call__(self, text: str, /) -> object: ...


BUCKETS: Final = tuple(1 << power for power in range(7, 21))
"""The histogram's upper bounds: lines of at most 128 tokens, 256, ..., 1,048,576, then more."""


class TokenizerError(Exception):
    """The tokenizer cannot be imported, or raised, or returned something that is no count."""


class Tokens(msgspec.Struct, forbid_unknown_fields=True, rename="camel"):
    """The tokens of the lines counted: in all, in the longest line, and how many lines fall in
    each bucket of the histogram (`"128"`: at most 128; `"more"`: above the last bound)."""

    total: int = 0
    longest: int = 0
    histogram: dict[str, int] = msgspec.field(default_factory=dict)

    def add(self, count: int) -> None:
        """Count one line of `count` tokens."""
        self.total += count
        self.longest = max(self.longest, count)
        label = next((str(bound) for bound in BUCKETS if count <= bound), "more")
        self.histogram[label] = self.histogram.get(label, 0) + 1

    def merged(self, other: Tokens) -> Tokens:
        """The counts of both, added."""
        histogram = dict(self.histogram)
        for label, lines in other.histogram.items():
            histogram[label] = histogram.get(label, 0) + lines
        order = [*map(str, BUCKETS), "more"]
        return Tokens(
            self.total + other.total,
            max(self.longest, other.longest),
            {label: histogram[label] for label in order if label in histogram},
        )


_resolved: dict[str, Tokenizer] = {}


def tokenizer(spec: str) -> Tokenizer:
    """The function `MODULE:FUNCTION` names (imported once per process); `TokenizerError` when
    it cannot be imported or is not callable."""
    found = _resolved.get(spec)
    if found is not None:
        return found
    module_name, _, function_name = spec.partition(":")
    if not module_name or not function_name:
        raise TokenizerError(f"--tokenizer {spec!r}: expected MODULE:FUNCTION, such as mytokens:count")
    try:
        module = importlib.import_module(module_name)
    except Exception as error:  # noqa: BLE001  # any failure to import the user's module is theirs to see
        raise TokenizerError(f"--tokenizer {spec!r}: cannot import {module_name}: {error}") from None
    function: object = getattr(module, function_name, None)
    if not callable(function):
        raise TokenizerError(f"--tokenizer {spec!r}: {module_name} has no function {function_name}")
    _resolved[spec] = function
    return function


def _count(count: Tokenizer, text: str) -> int:
    try:
        found = count(text)
    except Exception as error:  # noqa: BLE001  # the user's function: its failure is reported, not raised
        raise TokenizerError(f"the tokenizer raised {type(error).__name__}: {error}") from None
    if type(found) is not int or found < 0:
        raise TokenizerError(f"the tokenizer returned {type(found).__name__} {found!r}, not a count of tokens")
    return found


def line_tokens(count: Tokenizer, line: bytes, format: str) -> int | None:
    """The tokens of one dataset line of `format` (see the module's docstring); `None` for a
    line that is not a conversation of that format (its diagnostics say why)."""
    try:
        conversation = FORMATS[format].load(line)
    except FormatError:
        return None
    total = sum(_count(count, instruction.text) for instruction in conversation.instructions)
    for message in conversation.messages:
        if type(message) is UserMessage or type(message) is ToolResultMessage:
            total += _count(count, message.content)
        elif type(message) is AssistantMessage:
            for block in message.content:
                if type(block) is TextBlock:
                    total += _count(count, block.text)
                elif type(block) is ToolCall:
                    total += _count(count, block.name) + _count(count, bytes(block.arguments_json).decode())
    return total


def too_many(count: int, most: int) -> Diagnostic:
    """The diagnostic of a line over `--max-tokens`."""
    return Diagnostic("TOO_MANY_TOKENS", None, "$", f"{count:,} tokens, more than the {most:,} allowed")
