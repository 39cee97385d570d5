"""`check`, never raising: the IR's diagnostics and the provider's rules in the source's
terms, the rules several providers share (results adjacent to their calls, an ID rule), and
tool declarations checked against the calls."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Final, NamedTuple

from message_ir import (
    AssistantMessage,
    ConstructionError,
    Diagnostic,
    Message,
    ToolResultMessage,
    validate_transcript,
)
from message_ir.adapters import _tools
from message_ir.adapters._conversation import Conversation, FormatError
from message_ir.adapters._ids import IdRule
from message_ir.adapters._load_state import Origins

Rules = Callable[[Conversation, Origins], list[Diagnostic]]


def no_rules(conversation: Conversation, origins: Origins) -> list[Diagnostic]:
    """The rules of a format whose agent enforces none beyond the IR's own (pi, gemini-cli)."""
    return []


def checked(
    format: str,
    source: object,
    load: Callable[[object], tuple[Conversation, Origins]],
    rules: Rules,
    *,
    example: bool = False,
) -> tuple[Diagnostic, ...]:
    """`check`: format problems, or the IR's diagnostics and the provider's rules, in the
    source's terms, sorted by source index. Never raises. With `example`, the source is a
    training example (see `training_example`)."""
    try:
        try:
            conversation, origins = load(source)
        except FormatError as error:
            return tuple(sorted(error.diagnostics, key=by_index))
        return _found(conversation, origins, rules, example)
    except Exception as error:  # noqa: BLE001  # check never raises (too deep, out of memory, a bug)
        return unreadable(error)


class Checked(NamedTuple):
    """A source loaded and checked in one pass."""

    conversation: Conversation
    diagnostics: tuple[Diagnostic, ...]
    """What `check` says of the source."""
    places: dict[str, int]
    """Where each IR message came from: the source path of its record, and of each of its
    blocks that has a record of its own (a log's line), to the message's index."""


def loaded_and_checked(source: object, load: Callable[[object], tuple[Conversation, Origins]], rules: Rules) -> Checked:
    """`load` and `check` in one pass. Raises `FormatError` (and what `load` raises) as `load`
    does."""
    return checked_loaded(*load(source), rules)


def checked_loaded(conversation: Conversation, origins: Origins, rules: Rules) -> Checked:
    """What `check` says of a conversation just loaded, with where its messages came from
    (never raises)."""
    places = places_of(origins)
    try:
        return Checked(conversation, _found(conversation, origins, rules, example=False), places)
    except Exception as error:  # noqa: BLE001  # as in check: said, never raised
        return Checked(conversation, unreadable(error), places)


def places_of(origins: Origins) -> dict[str, int]:
    """`Checked.places`: the source path of each message's record, and of each of its blocks
    that has a record of its own, to the message's index."""
    places: dict[str, int] = {}
    for index, (_, path) in enumerate(origins.messages):
        places.setdefault(path, index)
    for (index, _), path in origins.blocks.items():
        places.setdefault(path, index)
    return places


def found_parts(
    conversation: Conversation, origins: Origins, rules: Rules, example: bool
) -> tuple[list[Diagnostic], list[Diagnostic], list[Diagnostic], list[Diagnostic]]:
    """What `check` says of a loaded source, in the source's terms, before sorting: the IR's
    diagnostics, those found while loading, the provider's rules, the tool declarations'."""
    own = validate_transcript(conversation.messages)
    if example:
        own = training_example(conversation.messages, own)
    provider = rules(conversation, origins)
    tools: list[Diagnostic] = []
    if origins.tools is not None and origins.tool_reader is not None:
        tools = _tool_diagnostics(origins.tool_reader, conversation, origins, origins.tools)
    return [origins.to_source(diagnostic) for diagnostic in own], list(origins.extra), provider, tools


def _found(conversation: Conversation, origins: Origins, rules: Rules, example: bool) -> tuple[Diagnostic, ...]:
    own, extra, provider, tools = found_parts(conversation, origins, rules, example)
    return tuple(sorted((*own, *extra, *provider, *tools), key=by_index))


def by_index(diagnostic: Diagnostic) -> int:
    """The sort key of `check`'s diagnostics: by source index, the whole source's first."""
    return -1 if diagnostic.message_index is None else diagnostic.message_index


def unreadable(error: Exception) -> tuple[Diagnostic, ...]:
    """What `check` says of a source it could not read (an unexpected error, said, never raised)."""
    if isinstance(error, RecursionError):
        return (Diagnostic("JSON_TOO_DEEP", None, "$", "Nested too deeply to read"),)
    if isinstance(error, MemoryError):
        return (Diagnostic("UNREADABLE_VALUE", None, "$", "Could not be read: out of memory"),)
    return (
        Diagnostic(
            "UNREADABLE_VALUE",
            None,
            "$",
            f"Could not be read ({_error_name(error)}): a bug in message-ir, please report it",
        ),
    )


_ERRORS: Final = (ConstructionError, FormatError, ValueError, TypeError, KeyError, IndexError, AttributeError)


def training_example(messages: Sequence[Message], found: Sequence[Diagnostic]) -> tuple[Diagnostic, ...]:
    """The IR's diagnostics of a training example: the calls of its last message, when that is
    an assistant message, are the target the model learns to make, and need no result (no
    `MISSING_TOOL_RESULT` for them; a call earlier still needs one); an example without an
    assistant message teaches nothing (`NO_ASSISTANT_MESSAGE`)."""
    last = len(messages) - 1
    target = last if messages and type(messages[last]) is AssistantMessage else None
    kept = tuple(
        diagnostic
        for diagnostic in found
        if not (diagnostic.code == "MISSING_TOOL_RESULT" and diagnostic.message_index == target)
    )
    if not any(type(message) is AssistantMessage for message in messages):
        kept += (
            Diagnostic("NO_ASSISTANT_MESSAGE", None, "$", "Expected an assistant message to learn from, got none"),
        )
    return kept


def _error_name(error: Exception) -> str:
    """The name of an unexpected error's class, from a fixed list (nothing of it is read)."""
    for known in _ERRORS:
        if isinstance(error, known):
            return known.__name__
    return "an unexpected error"


def _tool_diagnostics(
    reader: _tools.ToolReader, conversation: Conversation, origins: Origins, tools: tuple[_tools.ToolDeclaration, ...]
) -> list[Diagnostic]:
    """`check_tool_calls` in the source's terms: paths into the call's name or arguments there.
    Arguments that are not a JSON object (`BAD_TOOL_ARGUMENTS` already) are not checked again."""
    keys = (reader.name_key, reader.arguments_key)
    bad_arguments = {diagnostic.path for diagnostic in origins.extra}
    found: list[Diagnostic] = []
    for diagnostic in _tools.check_tool_calls(conversation.messages, tools):
        index = diagnostic.message_index
        if index is None:
            found.append(diagnostic)
            continue
        number, _, rest = diagnostic.path.removeprefix(f"$[{index}].content[").partition("]")
        block = origins.blocks.get((index, int(number)), origins.messages[index][1])
        source = origins.to_source(diagnostic).message_index
        if rest.startswith(".arguments"):
            if block + keys[1] in bad_arguments:
                continue
            path = block + keys[1] + rest.removeprefix(".arguments")
        else:
            path = block + keys[0]
        found.append(Diagnostic(diagnostic.code, source, path, diagnostic.message))
    return found


def adjacency(conversation: Conversation, origins: Origins, *, merge_turns: bool) -> list[Diagnostic]:
    """`RESULT_NOT_ADJACENT` for each result that is not in the turn right after its call.

    Without `merge_turns` (OpenAI Chat), a call's results must be the tool messages right
    after its assistant message; with it (Anthropic), consecutive messages of one side are one
    turn, and results must be in the user turn right after the assistant turn of the call.
    A result whose call is nowhere before it is the IR's linkage diagnostic, not this one.
    """
    call_turn: dict[str, int] = {}
    found: list[Diagnostic] = []
    turn = -1
    previous = ""
    for item in origins.items:
        side = item.side
        message = None if item.message_index is None else conversation.messages[item.message_index]
        is_result = type(message) is ToolResultMessage
        group = "user" if merge_turns and side == "user" else ("result" if is_result else side)
        if not (group == previous and (merge_turns or group == "result")) or item.message_index is None:
            turn += 1
        previous = group if item.message_index is not None else ""
        if type(message) is AssistantMessage:
            for block in message.content:
                if block.type == "toolCall":
                    call_turn[block.id] = turn
        elif type(message) is ToolResultMessage:
            call = call_turn.get(message.tool_call_id)
            if call is not None and call != turn - 1:
                found.append(
                    Diagnostic(
                        "RESULT_NOT_ADJACENT",
                        item.source_index,
                        item.path,
                        f"The result for {message.tool_call_id!r} is not in the turn right after its call",
                    )
                )
    return found


def id_rule_problems(origins: Origins, rule: IdRule) -> list[Diagnostic]:
    """`BAD_TOOL_CALL_ID_FORMAT` at each call of the source whose ID breaks `rule`."""
    found: list[Diagnostic] = []
    for call in origins.calls:
        problem = rule.problem(call.source_id)
        if problem is not None:
            found.append(Diagnostic("BAD_TOOL_CALL_ID_FORMAT", call.source_index, call.path, problem))
    return found


def result_counts(conversation: Conversation, origins: Origins, provider: str) -> list[Diagnostic]:
    """`RESULT_COUNT_MISMATCH` for a turn after a turn of calls whose results are not as many
    as the calls (consecutive messages of one side are one turn)."""
    turns: list[tuple[str, int, int, int, str]] = []  # (side, calls, results, source index, path)
    for item in origins.items:
        if item.message_index is None:
            continue
        message = conversation.messages[item.message_index]
        side = "assistant" if type(message) is AssistantMessage else "user"
        if not turns or turns[-1][0] != side:
            turns.append((side, 0, 0, item.source_index, _turn_path(item.path)))
        side, calls, results, source, path = turns[-1]
        if type(message) is AssistantMessage:
            calls += sum(1 for block in message.content if block.type == "toolCall")
        elif type(message) is ToolResultMessage:
            results += 1
        turns[-1] = (side, calls, results, source, path)
    found: list[Diagnostic] = []
    for before, turn in itertools.pairwise(turns):
        if before[0] == "assistant" and before[1] and turn[2] != before[1]:
            found.append(
                Diagnostic(
                    "RESULT_COUNT_MISMATCH",
                    turn[3],
                    turn[4],
                    f"The turn after {before[1]} function call(s) holds {turn[2]} function response(s);"
                    f" {provider} needs as many",
                )
            )
    return found


def _turn_path(path: str) -> str:
    """The path of the message a block's path is in (`$[3].parts[0]` -> `$[3]`)."""
    for marker in (".parts[", ".content["):
        path = path.split(marker, 1)[0]
    return path
