"""The walk of a page, the same for every output: the header's parts in order, then each
message, each call with its results, each result in its place. `Markup` is how one output
(HTML, Markdown) writes each part; it decides nothing."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence

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
from message_ir.render._text import counts, listed_problems
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
    def problems(self, listed: Sequence[tuple[Diagnostic, int | None]]) -> str:
        """The header's list of problems, each with its message's index (`None`: the file)."""

    @abstractmethod
    def no_problems(self) -> str: ...

    @abstractmethod
    def file_notes(self, notes: Sequence[Note]) -> str:
        """The notes about the whole conversation."""

    @abstractmethod
    def instructions(self, instructions: Sequence[Instruction]) -> str: ...

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


def page(found: View, markup: Markup) -> Iterator[str]:
    """The page, piece by piece."""
    conversation = found.conversation
    yield markup.begin(found.title, conversation.format, counts(found))
    for remark in found.remarks:
        yield markup.remark(remark)
    yield markup.problems(list(listed_problems(found))) if found.diagnostics else markup.no_problems()
    if found.file_notes:
        yield markup.file_notes(found.file_notes)
    if conversation.instructions:
        yield markup.instructions(conversation.instructions)
    if found.branches:
        yield markup.branches(found.branches)
    yield markup.header_end()
    for index, message in enumerate(conversation.messages):
        yield from _message(found, markup, index, message)
    yield markup.end()


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
