"""The Markdown page (CommonMark with GitHub's `<details>`): the same content as the HTML page.

Nothing of the transcript is read as Markdown or HTML: its texts stand in fenced blocks
longer than any run of backticks they hold, its short strings in code spans or with every
ASCII punctuation character backslash-escaped, and the summaries of `<details>` are
HTML-escaped.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator, Sequence
from typing import Final

from message_ir import AssistantMessage, Diagnostic, OpaqueBlock, TextBlock, ToolCall, ToolResultMessage, UserMessage
from message_ir.adapters import Note
from message_ir.render._text import (
    NO_PROBLEMS,
    branch_kind,
    is_long,
    listed_problems,
    pretty_json,
    printable,
    role_word,
    size,
)
from message_ir.render._text import counts as text_counts
from message_ir.render._view import Answer, View

_PUNCTUATION: Final = re.compile(r"""([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~])""")
_BACKTICKS: Final = re.compile("`+")


def inline(text: str) -> str:
    """Text on one line with nothing in it read as Markdown or HTML."""
    return _PUNCTUATION.sub(r"\\\1", _one_line(text))


def code(text: str) -> str:
    """A code span holding `text` exactly (on one line)."""
    text = _one_line(text)
    fence = "`" * (_longest_run(text) + 1)
    return f"{fence} {text} {fence}"


def fenced(text: str, language: str = "text") -> str:
    """A fenced code block holding `text`, whatever fences it holds."""
    fence = "`" * max(3, _longest_run(text) + 1)
    return f"{fence}{language}\n{printable(text)}\n{fence}\n"


def summary(text: str) -> str:
    """Text for a `<summary>` (HTML on one line: a blank line would end the HTML block)."""
    return html.escape(_one_line(text), quote=True)


def _one_line(text: str) -> str:
    return printable(text.replace("\r\n", " ").replace("\n", " ").replace("\r", " "))


def _longest_run(text: str) -> int:
    return max((run.end() - run.start() for run in _BACKTICKS.finditer(text)), default=0)


def page(found: View) -> Iterator[str]:
    """The page, piece by piece."""
    yield from _header(found)
    for index in range(len(found.conversation.messages)):
        yield from _message(found, index)


def _header(found: View) -> Iterator[str]:
    conversation = found.conversation
    counts = " · ".join((code(conversation.format), *text_counts(found)))
    yield f"# {inline(found.title)}\n\n{counts}\n\n"
    for remark in found.remarks:
        yield f"*{inline(remark)}*\n\n"
    if found.diagnostics:
        yield "## Problems\n\n"
        for diagnostic, index in listed_problems(found):
            where = "" if index is None else f" — [message {index}](#m{index})"
            yield f"- {_diagnostic(diagnostic)}{where}\n"
        yield "\n"
    else:
        yield f"{NO_PROBLEMS}\n\n"
    if found.file_notes:
        yield "## Notes\n\n"
        yield from _notes(found.file_notes)
    if conversation.instructions:
        yield "## Instructions\n\n"
        for instruction in conversation.instructions:
            yield from _collapsible(instruction.text, f"{instruction.role} {instruction.path}")
    if found.branches:
        yield "## Branches\n\n| leaf | line | last time | messages | |\n|---|---|---|---|---|\n"
        for branch in found.branches:
            kind = branch_kind(branch)
            when = inline(branch.timestamp or "")
            yield f"| {inline(branch.leaf)} | {branch.line + 1} | {when} | {branch.messages} | {kind} |\n"
        yield "\n"
    yield "## Messages\n\n"


def _diagnostic(diagnostic: Diagnostic) -> str:
    return f"**{diagnostic.code}** {inline(diagnostic.message)} {code(diagnostic.path)}"


def _notes(notes: Sequence[Note]) -> Iterator[str]:
    for note in notes:
        yield f"- note **{note.code}** {inline(note.message)} {code(note.path)}\n"
    yield "\n"


def _beside(found: View, index: int) -> Iterator[str]:
    problems = found.beside.get(index, ())
    for diagnostic in problems:
        yield f"- ⚠ {_diagnostic(diagnostic)}\n"
    if problems:
        yield "\n"
    notes = found.notes.get(index, ())
    if notes:
        yield from _notes(notes)


def _collapsible(text: str, label: str, language: str = "text") -> Iterator[str]:
    if is_long(text):
        yield f"<details><summary>{summary(label)} ({size(text)})</summary>\n\n"
        yield fenced(text, language)
        yield "\n</details>\n\n"
    else:
        yield f"{inline(label)}:\n\n" if label else ""
        yield fenced(text, language)
        yield "\n"


def _message(found: View, index: int) -> Iterator[str]:
    message = found.conversation.messages[index]
    anchor = f'<a id="m{index}"></a>'
    if type(message) is ToolResultMessage:
        call = found.answered.get(index)
        in_place = call is not None and any(
            answer.at == index and answer.in_place for answer in found.answers[call[0]][call[1]]
        )
        if in_place and call is not None:
            yield (
                f"{anchor}*message {index}: the result of the call in [message {call[0]}](#m{call[0]}-c{call[1]}),"
                " shown with it*\n\n"
            )
            return
    yield f"### {anchor}{role_word(message)} · message {index} · {code(message.id)}\n\n"
    if type(message) is ToolResultMessage:
        call = found.answered.get(index)
        if call is None:
            yield f"**orphan**: no call has the ID {code(message.tool_call_id)}\n\n"
        else:
            yield f"**out of place**: the result of the call in [message {call[0]}](#m{call[0]}-c{call[1]})\n\n"
        yield from _result(found, Answer(index, message, in_place=False), here=True)
        return
    yield from _beside(found, index)
    if type(message) is AssistantMessage:
        for number, block in enumerate(message.content):
            if type(block) is TextBlock:
                yield fenced(block.text)
                yield "\n"
            elif type(block) is ToolCall:
                yield from _call(found, index, number, block)
            elif type(block) is OpaqueBlock:
                yield f"<details><summary>{summary(f'{block.kind} ({block.format})')}</summary>\n\n"
                yield fenced(pretty_json(bytes(block.data_json)), "json")
                yield "\n</details>\n\n"
    elif type(message) is UserMessage:
        yield fenced(message.content)
        yield "\n"


def _call(found: View, index: int, number: int, call: ToolCall) -> Iterator[str]:
    yield f'<a id="m{index}-c{number}"></a>**call** {code(call.name)} {code(call.id)}\n\n'
    problems = found.call_problems.get((index, number), ())
    for diagnostic in problems:
        yield f"- ⚠ {_diagnostic(diagnostic)}\n"
    if problems:
        yield "\n"
    yield from _collapsible(pretty_json(bytes(call.arguments_json)), "", "json")
    answers = found.answers.get(index, {}).get(number, ())
    if not answers:
        yield "**No result**: nothing answers this call.\n\n"
    for answer in answers:
        if answer.in_place:
            yield from _result(found, answer, here=False)
        else:
            yield f"**out of place**: its result is [message {answer.at}](#m{answer.at})\n\n"


def _result(found: View, answer: Answer, *, here: bool) -> Iterator[str]:
    result = answer.result
    label = "error" if result.is_error else "result"
    where = "" if here else f" · message {answer.at} · {code(result.id)}"
    yield f"**{label}** of {code(result.tool_name)}{where}\n\n"
    yield from _beside(found, answer.at)
    yield from _collapsible(result.content, "output" if is_long(result.content) else "")
