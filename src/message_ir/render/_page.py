"""The walk of a page, the same for every output: the header's parts in order, then each
message, each call with its results, each result in its place. `Markup` is how one output
(HTML, Markdown) writes each part; it decides nothing."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import NamedTuple

from message_ir import (
    AssistantMessage,
    Diagnostic,
    Message,
    OpaqueBlock,
    TextBlock,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from message_ir.adapters import Branch, Instruction, Note
from message_ir.render._text import counts, placed_problems
from message_ir.render._view import Answer, View

CallPlace = tuple[int, int]
"""A call's message index and block index."""


class Markup(ABC):
    """How one output writes each part of a page (every transcript text escaped its way)."""

    @abstractmethod
    def begin(self, title: str, format_name: str, counts: Sequence[str]) -> str:
        """The page's start: its title and the header's counts."""

    @abstractmethod
    def remark(self, text: str) -> str:
        """A word on how the file was read."""

    @abstractmethod
    def problems_begin(self) -> str:
        """The header's list of problems."""

    @abstractmethod
    def problem(self, diagnostic: Diagnostic, index: int | None) -> str:
        """One problem of the list, with its message's index (`None`: the file)."""

    @abstractmethod
    def problems_end(self) -> str: ...

    @abstractmethod
    def no_problems(self) -> str: ...

    @abstractmethod
    def file_notes_begin(self) -> str:
        """The notes about the whole conversation."""

    @abstractmethod
    def file_note(self, note: Note) -> str: ...

    @abstractmethod
    def file_notes_end(self) -> str: ...

    @abstractmethod
    def instructions_begin(self) -> str: ...

    @abstractmethod
    def instruction(self, entry: Instruction) -> str: ...

    @abstractmethod
    def instructions_end(self) -> str: ...

    @abstractmethod
    def branches(self, branches: Sequence[Branch]) -> str: ...

    @abstractmethod
    def header_end(self) -> str: ...

    @abstractmethod
    def end(self) -> str: ...

    @abstractmethod
    def shown_with_call(self, index: int, call: CallPlace) -> str:
        """The place of a result shown inside its call's box."""

    @abstractmethod
    def message_begin(self, index: int, message: Message) -> str: ...

    @abstractmethod
    def message_end(self) -> str: ...

    @abstractmethod
    def orphan(self, message: ToolResultMessage) -> str:
        """A result no call asks for."""

    @abstractmethod
    def out_of_place(self, call: CallPlace) -> str:
        """A result shown where it stands, away from its call."""

    @abstractmethod
    def beside(self, problems: Sequence[Diagnostic], notes: Sequence[Note]) -> str:
        """The problems and notes of one message."""

    @abstractmethod
    def text(self, text: str) -> str: ...

    @abstractmethod
    def opaque(self, block: OpaqueBlock) -> str: ...

    @abstractmethod
    def call_begin(self, place: CallPlace, call: ToolCall, problems: Sequence[Diagnostic]) -> str:
        """A call's box: its name, ID, problems and arguments."""

    @abstractmethod
    def no_result(self) -> str: ...

    @abstractmethod
    def elsewhere(self, at: int) -> str:
        """A call's result that stands away from it, at message `at`."""

    @abstractmethod
    def call_end(self) -> str: ...

    @abstractmethod
    def result(self, answer: Answer, here: bool, problems: Sequence[Diagnostic], notes: Sequence[Note]) -> str:
        """A result: inside its call's box, or `here`, where it stands."""


class Listed(NamedTuple):
    """One of the header's lists, written: how many items, and their markup, piece by piece."""

    items: int
    pieces: Callable[[], Iterable[str]]


class Header(NamedTuple):
    """What the header shows: of the whole conversation, even when its messages are walked
    a segment at a time (then its lists come from where they were written meanwhile)."""

    title: str
    format_name: str
    counts: tuple[str, ...]
    remarks: tuple[str, ...]
    problems: Listed
    """Those beside a message (with its index) in message order, then those about the file."""
    file_notes: Listed
    instructions: Listed
    branches: tuple[Branch, ...]


def header_of(found: View, markup: Markup) -> Header:
    conversation = found.conversation
    problems = (*placed_problems(found), *((diagnostic, None) for diagnostic in found.file_problems))
    return Header(
        found.title,
        conversation.format,
        counts(len(conversation.messages), found.calls, found.results, len(found.diagnostics), len(conversation.notes)),
        found.remarks,
        Listed(len(problems), lambda: (markup.problem(*problem) for problem in problems)),
        Listed(len(found.file_notes), lambda: map(markup.file_note, found.file_notes)),
        Listed(len(conversation.instructions), lambda: map(markup.instruction, conversation.instructions)),
        found.branches,
    )


def page(found: View, markup: Markup) -> Iterator[str]:
    """The page, piece by piece."""
    yield from header(header_of(found, markup), markup)
    yield from messages(found, markup)
    yield markup.end()


def header(head: Header, markup: Markup) -> Iterator[str]:
    """The page's start, to the end of its header."""
    yield markup.begin(head.title, head.format_name, head.counts)
    for remark in head.remarks:
        yield markup.remark(remark)
    if head.problems.items:
        yield markup.problems_begin()
        yield from head.problems.pieces()
        yield markup.problems_end()
    else:
        yield markup.no_problems()
    if head.file_notes.items:
        yield markup.file_notes_begin()
        yield from head.file_notes.pieces()
        yield markup.file_notes_end()
    if head.instructions.items:
        yield markup.instructions_begin()
        yield from head.instructions.pieces()
        yield markup.instructions_end()
    if head.branches:
        yield markup.branches(head.branches)
    yield markup.header_end()


def messages(found: View, markup: Markup) -> Iterator[str]:
    """Each message of the view, numbered from its first (see `view`'s `first`)."""
    first = found.first
    for index, message in enumerate(found.conversation.messages, first):
        yield from _message(found, markup, index, message)


def _message(found: View, markup: Markup, index: int, message: Message) -> Iterator[str]:
    problems, notes = found.beside.get(index, ()), found.notes.get(index, ())
    if type(message) is ToolResultMessage:
        call = found.answered.get(index)
        if call is not None and any(
            answer.at == index and answer.in_place for answer in found.answers[call[0]][call[1]]
        ):
            yield markup.shown_with_call(index, call)
            return
        yield markup.message_begin(index, message)
        yield markup.orphan(message) if call is None else markup.out_of_place(call)
        yield markup.result(Answer(index, message, in_place=False), True, problems, notes)
        yield markup.message_end()
        return
    yield markup.message_begin(index, message)
    yield markup.beside(problems, notes)
    if type(message) is AssistantMessage:
        for number, block in enumerate(message.content):
            if type(block) is TextBlock:
                yield markup.text(block.text)
            elif type(block) is ToolCall:
                yield from _call(found, markup, (index, number), block)
            elif type(block) is OpaqueBlock:
                yield markup.opaque(block)
    elif type(message) is UserMessage:
        yield markup.text(message.content)
    yield markup.message_end()


def _call(found: View, markup: Markup, place: CallPlace, call: ToolCall) -> Iterator[str]:
    yield markup.call_begin(place, call, found.call_problems.get(place, ()))
    answers = found.answers.get(place[0], {}).get(place[1], ())
    if not answers:
        yield markup.no_result()
    for answer in answers:
        if answer.in_place:
            yield markup.result(answer, False, found.beside.get(answer.at, ()), found.notes.get(answer.at, ()))
        else:
            yield markup.elsewhere(answer.at)
    yield markup.call_end()
