"""A format's four public functions, made from what is its own: a reader, a writer, its rules.

Every format has `load`, `dump`, `dumps` and `check` with the same contract; only the pass
over the source (`read`), the writer (`write`), the provider's rules and the words of the
docstrings differ, so the functions are made here once. A session log (`json_lines`) is read
line by line and written as JSON Lines; any other format as one JSON value.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Final, Generic, NamedTuple, Protocol, TypeVar

from message_ir import Diagnostic, Message
from message_ir.adapters._checks import Checked, Rules, by_index, checked, loaded_and_checked
from message_ir.adapters._conversation import Conversation
from message_ir.adapters._json import as_array, encode
from message_ir.adapters._load_state import Origins, Reader, read_source
from message_ir.adapters._log import encode_lines
from message_ir.adapters._log_file import is_text
from message_ir.adapters._writing import as_conversation, explain_failure

Conversational = Conversation | tuple[Message, ...] | list[Message]
"""What `dump` takes: a conversation, or IR messages alone."""


class Words(NamedTuple):
    """What a format says of itself: its one-line description and its docstrings' words."""

    description: str
    """One line: what it reads (`message-ir formats` prints it)."""
    source: str
    """What `load` and `check` take, e.g. "JSON text, or the parsed list or request body"."""
    not_it: str
    """What `load` refuses, e.g. "OpenAI Chat data"."""
    dumped: str
    """What `dump` gives, one sentence."""
    checks: str
    """What `check` reports, the rest of its docstring."""


_PROVIDER_SOURCE: Final = "JSON text, or the parsed list or request body"
_LOG_SOURCE: Final = "JSON Lines text, or a list of the lines' values"


def provider_words(description: str, not_it: str, refusing: str, messages_key: str, *, source: str = "") -> Words:
    """The words of a provider's format: `refusing` says who refuses what `check` reports (e.g.
    "OpenAI would answer with a 400"); `messages_key` is the request body's key of the messages."""
    return Words(
        description,
        source or _PROVIDER_SOURCE,
        not_it,
        "The conversation as plain data, in the form it was loaded from (else a request body).",
        f"Every problem {refusing}, and the IR's own; never raises.\n\nPaths and message indexes point into the "
        f"source's `{messages_key}`.",
    )


def log_words(description: str, not_it: str, reported: str) -> Words:
    """The words of a session log's format: `reported` says what `check` reports."""
    return Words(
        description,
        _LOG_SOURCE,
        not_it,
        "The log's lines as plain data, each in its place.",
        f"{reported}; never raises. `message_index` is the 0-based line.",
    )


_UNREAD: Final = frozenset({"INVALID_JSON", "JSON_TOO_DEEP", "BAD_FORMAT", "UNREADABLE_VALUE"})
"""Codes of a source `check` could not read: a trainer has nothing to add to them."""


Written_co = TypeVar("Written_co", covariant=True)


@dataclass(frozen=True)
class Functions(Generic[Written_co]):
    """A format's `load`, `dump`, `dumps` and `check` (a dataclass: a generic `NamedTuple`
    needs Python 3.11)."""

    name: str
    """The format's name, as its module is named (`openai_chat`)."""
    words: Words
    """What it says of itself."""
    json_lines: bool
    """Whether its files are JSON Lines (a session log), read line by line."""
    load: Callable[[bytes | str | object], Conversation]
    dump: Callable[[Conversational], Written_co]
    dumps: Callable[[Conversational], bytes]
    check: Callable[[bytes | str | object], tuple[Diagnostic, ...]]
    check_example: Callable[[bytes | str | object], tuple[Diagnostic, ...]]
    """`check` of one training example: a dataset line (`checks.training_example`)."""
    load_checked: Callable[[bytes | str | object], Checked]
    """`load` and `check` in one pass (raises as `load` does)."""

    def unpacked(
        self,
    ) -> tuple[
        Callable[[bytes | str | object], Conversation],
        Callable[[Conversational], Written_co],
        Callable[[Conversational], bytes],
        Callable[[bytes | str | object], tuple[Diagnostic, ...]],
    ]:
        """`load`, `dump`, `dumps` and `check`, for a module to name them in one line."""
        return self.load, self.dump, self.dumps, self.check


def format_functions(
    name: str,
    read: Reader,
    write: Callable[[Conversation], Written_co],
    rules: Rules,
    words: Words,
    *,
    json_lines: bool,
    trainer: Callable[[object], list[Diagnostic]] | None = None,
    own_check: Callable[[object], tuple[Diagnostic, ...]] | None = None,
    fast: Callable[[bytes], bool] | None = None,
    write_lines: Callable[[Conversation], list[object]] | None = None,
) -> Functions[Written_co]:
    """`load`, `dump`, `dumps` and `check` of the format `name` (and `check_example`, with the
    `trainer`'s own diagnostics of a training example when the format has one); `own_check`
    is a `check` of the format's own for a log given as text or as a `LogFile` (a segment at
    a time); `fast`, a fast path of `check` for text: the format's fast path of
    `check-dataset` (`Format.fast_path`), or one of its own (gemini-cli's, for a recording);
    `write_lines`, what `dumps` writes of a session log: `write`'s lines, with the kept ones as
    their JSON text (`_log.kept_lines`).

    `check` of text (bytes, or a `str` as UTF-8) that `fast` takes says nothing without
    loading it. What a fast path of `check-dataset` takes, `check_example` finds nothing wrong
    with, and `check` finds no more than `check_example` on such a source (its last assistant
    message's calls, the only thing `check_example` forgives, have their results, and it has
    an assistant message); what a format's own fast path takes, `check` says nothing of. A
    property test holds each."""

    def whole(source: object) -> tuple[Conversation, Origins]:
        return read_source(name, source, read, lines=json_lines)

    def load(source: bytes | str | object) -> Conversation:
        conversation, _ = whole(source)
        return conversation

    def dump(conversation: Conversational) -> Written_co:
        given = as_conversation(conversation)
        try:
            return write(given)
        except Exception:
            explain_failure(given)
            raise

    def dumps(conversation: Conversational) -> bytes:
        given = as_conversation(conversation)
        try:
            written: object = write(given) if write_lines is None else write_lines(given)
            lines = as_array(written)
            if json_lines and lines is not None:
                return encode_lines(lines)
            return encode(written)
        except Exception:
            explain_failure(given)
            raise

    def check(source: bytes | str | object) -> tuple[Diagnostic, ...]:
        if fast is not None and (type(source) is bytes or type(source) is str):
            # Text as UTF-8 (a lone surrogate gives bytes msgspec refuses: the careful path's).
            data = source.encode("utf-8", "surrogatepass") if type(source) is str else source
            if type(data) is bytes and fast(data):
                return ()  # surely clean (see above)
        if own_check is not None and is_text(source):
            return own_check(source)
        return checked(name, source, whole, rules)

    def check_example(source: bytes | str | object) -> tuple[Diagnostic, ...]:
        found = checked(name, source, whole, rules, example=True)
        if trainer is None or any(diagnostic.code in _UNREAD for diagnostic in found):
            return found
        return tuple(sorted((*found, *trainer(source)), key=by_index))

    def load_checked(source: bytes | str | object) -> Checked:
        return loaded_and_checked(source, whole, rules)

    for function in (load, dump, dumps, check, check_example):
        function.__module__ = f"message_ir.adapters.{name}"
        function.__qualname__ = function.__name__
    load.__doc__ = (
        f"The conversation in `source` ({words.source}).\n\n"
        f"Raises `FormatError` for what is not {words.not_it}; never for broken linkage."
    )
    dump.__doc__ = words.dumped
    dumps.__doc__ = "`dump` as JSON Lines." if json_lines else "`dump` as compact JSON."
    check.__doc__ = words.checks
    check_example.__doc__ = (
        "`check` of a training example (a dataset line): the calls of its last message, when it "
        "is an assistant's, are the target and need no result; it needs an assistant message."
    )
    return Functions(name, words, json_lines, load, dump, dumps, check, check_example, load_checked)


class LogWriter(Protocol):
    """A session log's writer: its lines, the kept ones (no messages) as plain data, or with
    `texts` as their JSON text (see `_log.kept_lines`)."""

    def __call__(self, conversation: Conversation, *, texts: bool = False) -> list[object]: ...


def log_functions(
    name: str,
    read: Reader,
    write: LogWriter,
    rules: Rules,
    words: Words,
    own_check: Callable[[object], tuple[Diagnostic, ...]],
) -> Functions[list[object]]:
    """`format_functions` of a session log (JSON Lines, checked by `own_check`): `dump` gives
    its lines as plain data, `dumps` writes the lines that are no messages from their JSON text."""
    return format_functions(
        name, read, write, rules, words, json_lines=True, own_check=own_check, write_lines=partial(write, texts=True)
    )
