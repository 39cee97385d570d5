"""What a tree log's format adds to its four functions: `load` of a branch, `branches`, and
`check` of a branch (a log given as text or as a `LogFile` is checked a segment at a time:
see `_segments`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple, Protocol

from message_ir import Diagnostic
from message_ir.adapters._checks import Checked, Rules, checked, loaded_and_checked
from message_ir.adapters._conversation import Conversation
from message_ir.adapters._load_state import LoadState, Origins, Reader, read_source
from message_ir.adapters._log_branches import text_branches
from message_ir.adapters._log_file import is_text
from message_ir.adapters._segments import Clean, CleanAlone, check_segments
from message_ir.adapters._tree import Branch, Keys, OnBranch, branches

LeafReader = Callable[[object, frozenset[str], bool, "str | OnBranch | None"], LoadState]
"""A tree log's pass over its source: a `Reader` that also takes the leaf to read to."""


class LeafLoad(Protocol):
    """`load` of a tree log: the branch the agent resumes, or the one ending at `leaf`."""

    def __call__(self, source: bytes | str | object, leaf: str | None = None) -> Conversation: ...


class Trees(NamedTuple):
    """What a tree log's format adds to the four functions (its declaration's `trees`)."""

    load: LeafLoad
    """`load(source, leaf=None)`."""
    branches: Callable[[object], tuple[Branch, ...]]
    """`branches(source)`."""
    check: Callable[[object, str | None], tuple[Diagnostic, ...]]
    """`check` of the branch ending at a leaf (`None`: the resumed one); never raises."""
    load_checked: Callable[[object, str | None], Checked]
    """`load` and `check` of a branch in one pass (raises as `load` does)."""


def tree_functions(
    format: str,
    read: LeafReader,
    keys: Keys,
    rules: Rules,
    resumed: str,
    *,
    clean: Clean | None = None,
    alone: CleanAlone | None = None,
    streams: bool = False,
) -> Trees:
    """`load`, `branches` and the branch `check` of a tree log (`resumed` says which branch
    `load` reads by default, for its docstring; `clean`, the fast path of its `check`;
    `alone`, that of a log shorter than a segment, asked before the first pass; `streams`:
    `alone` reads a log of any size, see `check_segments`)."""

    def reader(leaf: str | None) -> Reader:
        def read_to_leaf(value: object, avoid: frozenset[str], trusted: bool) -> LoadState:
            return read(value, avoid, trusted, leaf)

        return read_to_leaf

    def load(source: bytes | str | object, leaf: str | None = None) -> Conversation:
        conversation, _ = read_source(format, source, reader(leaf), lines=True)
        return conversation

    def whole(leaf: str | None) -> Callable[[object], tuple[Conversation, Origins]]:
        return lambda value: read_source(format, value, reader(leaf), lines=True)

    def check(source: object, leaf: str | None) -> tuple[Diagnostic, ...]:
        if is_text(source):  # read twice, a segment at a time: never held whole
            return check_segments(source, read, keys, rules, leaf, clean=clean, alone=alone, streams=streams)
        return checked(format, source, whole(leaf), rules)

    def found(source: object) -> tuple[Branch, ...]:
        if is_text(source):  # on compact arrays, each branch walked along its path
            return text_branches(source, keys)
        return branches(format, source, keys)

    load.__module__ = f"message_ir.adapters.{format}"
    load.__qualname__ = load.__name__ = "load"
    load.__doc__ = (
        "The conversation in `source` (JSON Lines text, or a list of the lines' values): "
        f"{resumed}, or the one ending at the line whose ID is `leaf`.\n\n"
        "Raises `FormatError` for what is not such a log, `ValueError` for a `leaf` no line has; "
        "never for broken linkage."
    )

    def load_checked(source: object, leaf: str | None) -> Checked:
        return loaded_and_checked(source, whole(leaf), rules)

    return Trees(load, found, check, load_checked)
