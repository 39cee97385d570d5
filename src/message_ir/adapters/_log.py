"""What the session-log adapters share: reading JSON Lines, and writing every line back in place.

A log is a list of lines, each one JSON value. Some lines are messages (their payload is
read into IR messages); the others (progress, metadata, compaction records) are kept as
they are in the conversation's `meta`, with their line numbers. Each IR message read from a
line carries, in its `meta` under the log's format, that line's number and its *envelope*:
the line with the payload set to `null`. `dump` renders each message's payload from the IR
and puts it back into its envelope, and `Placement` puts every line where it was:

- a line keeps its number when its message comes after the messages written before it;
- a message without a line (one `repair` made, or one another format loaded) goes right
  after the lines of the messages before it, and so does a message that was moved ahead of
  one that stood before it;
- kept lines keep their numbers.

So a log that was not changed is written back line for line, and a repaired one keeps every
original line with the new messages in place.
"""

from __future__ import annotations

import operator
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Final

import msgspec

from message_ir import ConstructionError, Diagnostic, FrozenJsonObject, Message, frozen_json_object
from message_ir.adapters._build import object_raw
from message_ir.adapters._conversation import FormatError
from message_ir.adapters._json import as_array, as_object, decode, decoded_object, encode, json_input, parse
from message_ir.adapters._load_state import LoadState
from message_ir.adapters._log_file import is_text, text_lines
from message_ir.adapters._records import Info, frozen_info
from message_ir.adapters._unparsable import Unparsable

Lines = list[tuple[int | None, object]]
"""Lines to write: each with its number in the source (`None`: a new line)."""

_NEW_LINE_NAMESPACE: Final = uuid.UUID("7d0f6a52-3c53-4f1e-9a51-5b1f4c2e8d10")


def read_lines(state: LoadState, source: object) -> Iterable[object]:
    """The JSON value of each line of `source` (JSON Lines text, or a list of parsed lines).

    Text is read one line at a time, and each value is parsed when the reader asks for it,
    so only the lines the reader keeps stay in memory. A line that is not JSON is a problem
    at `$[line]` (the 0-based line number), and so is an empty line (it would not be
    written back); its value is `None`.
    """
    lines = text_lines(source)
    if lines is not None:
        state.trusted = True
        return _parsed_lines(state, lines)
    items = as_array(source)
    if items is None and type(source) is tuple:
        items = list(source)
    if items is None:
        raise FormatError(
            state.format,
            (Diagnostic("BAD_FORMAT", None, "$", "Expected JSON Lines text, or a list of the lines' values"),),
        )
    return items


def reading(format: str, source: object, avoid: frozenset[str], trusted: bool) -> tuple[LoadState, Iterable[object]]:
    """The state of a pass over a log, and its lines' values (see `read_lines`)."""
    state = LoadState(format, avoid)
    state.trusted = trusted
    return state, read_lines(state, source)


def objects(format: str, source: object) -> Iterator[tuple[int, dict[str, object]]]:
    """Each line of a log that is a JSON object, with its 0-based number, read one at a time
    (a line that is not JSON or no object is passed over: `check` reports it)."""
    _, values = reading(format, source, frozenset(), is_text(source))
    for number, value in enumerate(values):
        line = as_object(value)
        if line is not None:
            yield number, line


def readable_lines(
    state: LoadState, values: Iterable[object]
) -> Iterator[tuple[int, str, object, dict[str, object] | None]]:
    """Each line that may be read, as `(number, path, value, the value if it is an object)`;
    `state` is at that line. A line `json_ok` refuses (a caller's value that is no JSON) is
    reported there and skipped."""
    trusted = state.trusted
    for number, path, value in state.readable(values, "$"):
        # Parsed here, a `dict` is a JSON object: msgspec gives `str` keys only.
        yield number, path, value, (decoded_object(value) if trusted else as_object(value))


def _parsed_lines(state: LoadState, lines: Iterable[bytes]) -> Iterator[object]:
    for number, line in enumerate(lines, state.first_record):  # (a segment's: its first line's, see `_tree.resume`)
        if not line.strip():
            state.problems.append(
                Diagnostic("BAD_FORMAT", number, f"$[{number}]", "Expected a JSON value, got an empty line")
            )
            yield None
        else:
            try:
                yield parse(line)
            except Unparsable as error:
                found = error.diagnostic
                state.problems.append(Diagnostic(found.code, number, f"$[{number}]", found.message))
                yield None


def envelope(line: dict[str, object], key: str) -> dict[str, object]:
    """The line without its payload: the same keys in order, `key` set to `null`."""
    return {name: (None if name == key else value) for name, value in line.items()}


def with_info(state: LoadState, path: str, message: Message, format: str, info: Info) -> Message:
    """`message` with `info`'s keys set under `format` in its `meta` (everything else kept).

    A line that nests too deeply to be kept in `meta` (its envelope goes in a few levels down)
    is a problem at `path`, the line; `message` then comes back as it was.

    The `meta` of a message read in this load is msgspec's compact text of its object (the
    readers encode it), so when `format`'s key is surely not in it (its quoted name is nowhere
    in the text), the new entry is joined to the text as it is: the bytes decoding, adding the
    key and encoding again give, without the decode and the second encode of the rest. Each
    part nests no deeper than the limit, so neither does the whole.
    """
    meta = bytes(message.meta_json)
    try:
        if not meta or meta == b"{}":
            return msgspec.structs.replace(message, meta_json=object_raw({format: info}))
        if _quoted(format) not in meta:
            added = bytes(object_raw({format: info}))  # `{"format":{...}}`, checked for depth
            return msgspec.structs.replace(message, meta_json=msgspec.Raw(meta[:-1] + b"," + added[1:]))
        entries = as_object(decode(meta)) or {}
        entries[format] = {**(as_object(entries.get(format)) or {}), **info}
        return msgspec.structs.replace(message, meta_json=object_raw(entries))
    except ConstructionError as error:
        state.problem(path, error.problem)
        return message


def _quoted(format: str) -> bytes:
    """A format's name as a JSON string, as its `meta` key is written."""
    return encode(format)


def mark(
    state: LoadState, start: int, format: str, line: int, line_envelope: dict[str, object], first: Info | None = None
) -> None:
    """Tie the IR messages read from `line` (from index `start` on) to it: the first carries
    the envelope (and `first`'s keys), the others the line number."""
    problems = len(state.problems)
    for index in range(start, len(state.messages)):
        info: Info = {"line": line}
        if index == start:
            info["envelope"] = line_envelope
            info.update(first or {})
        state.messages[index] = with_info(state, f"$[{line}]", state.messages[index], format, info)
        if len(state.problems) > problems:
            return  # the line is too deep: said once


def kept_meta(state: LoadState, kept: list[object], prefix: str = "$") -> FrozenJsonObject | None:
    """The conversation's `meta`: the lines that are not messages, with their numbers, beside
    what `state` has in it already. A kept line too deep to be held in `meta` is a problem at
    `{prefix}[line]`."""
    if not kept:
        return state.container_meta
    container = {**frozen_info(state.container_meta, state.format), "kept": kept}
    try:
        return frozen_json_object(json_input({state.format: container}))
    except ConstructionError:  # find the lines to blame (only on this path: it costs a pass)
        for item in kept:
            pair = as_array(item)
            assert pair is not None  # each is `[number, value]`
            try:
                frozen_json_object(json_input({state.format: {"kept": [pair]}}))
            except ConstructionError as error:
                number = pair[0]
                assert type(number) is int
                state.problems.append(Diagnostic("BAD_FORMAT", number, f"{prefix}[{number}]", error.problem))
        return state.container_meta


def kept_lines(meta: FrozenJsonObject | None, format: str, *, texts: bool = False) -> list[tuple[int, object]]:
    """The kept lines of a conversation's `meta`, as `(number, value)`: plain data, or with
    `texts` each line that is an object as its JSON text (a `msgspec.Raw`, which `encode_lines`
    writes as it is and `plain_line` reads): a kept line is written without a copy of it made
    first (thawing and encoding them was a quarter of `dumps` of a Codex rollout)."""
    if texts:
        entry = None if meta is None else meta.get(format)
        pairs = entry.get("kept") if type(entry) is FrozenJsonObject else None
        if type(pairs) is tuple:
            lines = _kept_texts(pairs)
            if lines is not None:
                return lines
    kept: list[tuple[int, object]] = []
    for item in as_array(frozen_info(meta, format).get("kept")) or []:
        pair = as_array(item)
        if pair is not None and len(pair) == 2 and type(pair[0]) is int:
            kept.append((pair[0], pair[1]))
    return kept


def _kept_texts(pairs: tuple[object, ...]) -> list[tuple[int, object]] | None:
    """`kept_lines` with `texts`, of the frozen `kept` pairs; `None` when a line is an array (its
    frozen items are written from plain data)."""
    lines: list[tuple[int, object]] = []
    for pair in pairs:
        if type(pair) is not tuple or len(pair) != 2 or type(pair[0]) is not int:
            continue
        value = pair[1]
        if type(value) is FrozenJsonObject:
            lines.append((pair[0], msgspec.Raw(value.to_json())))
        elif type(value) is tuple:
            return None
        else:
            lines.append((pair[0], value))
    return lines


def plain_line(value: object) -> object:
    """A written line as plain data: a kept line's text (see `kept_lines`) decoded."""
    return decode(value) if type(value) is msgspec.Raw else value


def line_in(info: Info) -> tuple[int | None, dict[str, object] | None]:
    """The line a message was read from, and its envelope if it is the line's first message,
    from what the log format kept of the message (its `meta` entry)."""
    line = info.get("line")
    return (line if type(line) is int else None), decoded_object(info.get("envelope"))


def filled(line_envelope: dict[str, object], key: str, payload: object) -> dict[str, object]:
    """The envelope with its payload put back in its place (where `key` stands; nowhere when
    the line had none), in place: every writer's envelope is its own (decoded from `meta` for
    this write, or new), and copying it cost a dict a line."""
    if key in line_envelope:
        line_envelope[key] = payload
    return line_envelope


def new_uuid(*parts: str) -> str:
    """A deterministic UUID for a line the package writes (the same input, the same UUID)."""
    return str(uuid.uuid5(_NEW_LINE_NAMESPACE, "\x00".join(parts)))


class Placement:
    """Where each written line goes (see the module's docstring)."""

    def __init__(self) -> None:
        self._units: list[tuple[tuple[int, int], int | None, object]] = []  # where, the line read, the line
        self._first_max = -1  # the latest line a message started on, so far
        self._all_max = -1  # the latest line written for a message, so far
        self._sequence = 0
        self._used: set[int] = set()

    def add(self, lines: Lines) -> None:
        """The lines of one message (or instruction), the line it started on first."""
        for position, (number, value) in enumerate(lines):
            if number is None or number in self._used or (position == 0 and number <= self._first_max):
                self._sequence += 1
                key = (self._all_max, self._sequence)
            else:
                key = (number, 0)
                self._used.add(number)
                if position == 0:
                    self._first_max = number
                self._all_max = max(self._all_max, number)
            self._units.append((key, number, value))

    def lines(self, kept: Sequence[tuple[int, object]]) -> list[object]:
        """Every line in order: the messages' and the kept ones."""
        return [value for _, value in self.numbered(kept)]

    @property
    def message_lines(self) -> frozenset[int]:
        """The lines read that the messages are written back from (where they stand or not)."""
        return frozenset(number for _, number, _ in self._units if number is not None)

    def numbered(self, kept: Sequence[tuple[int, object]]) -> list[tuple[int | None, object]]:
        """Every line in order, with the line it was read from (`None` for a new line)."""
        units = list(self._units)
        units.extend(((number, 0), number, value) for number, value in kept if number not in self._used)
        units.sort(key=_place)
        return [(number, value) for _, number, value in units]


_place: Final[Callable[[tuple[tuple[int, int], int | None, object]], tuple[int, int]]] = operator.itemgetter(0)
"""Where a unit goes (its first item), as a sort key: the standard library's `itemgetter`,
written in C, so sorting calls no Python function a line."""


encode_lines: Final[Callable[[Iterable[object]], bytes]] = msgspec.json.Encoder().encode_lines
"""JSON Lines: each value as compact JSON (key order kept; a `msgspec.Raw`, a kept line's text,
as it is), each line ending in a newline: msgspec's own, which writes into one buffer."""
