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

from message_ir import Diagnostic, Message, OpaqueBlock, ToolCall, ToolResultMessage
from message_ir.adapters import Branch, Instruction, Note
from message_ir.render import _page
from message_ir.render._page import CallPlace, Markup
from message_ir.render._text import NO_PROBLEMS, branch_kind, is_long, pretty_json, printable, role_word, size
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
    return _page.page(found, MarkdownMarkup())


def _diagnostic(diagnostic: Diagnostic) -> str:
    return f"**{diagnostic.code}** {inline(diagnostic.message)} {code(diagnostic.path)}"


def _note(note: Note) -> str:
    return f"- note **{note.code}** {inline(note.message)} {code(note.path)}\n"


def _notes(notes: Sequence[Note]) -> str:
    return "".join(map(_note, notes)) + "\n"


def _problems(problems: Sequence[Diagnostic]) -> str:
    if not problems:
        return ""
    return "".join(f"- ⚠ {_diagnostic(diagnostic)}\n" for diagnostic in problems) + "\n"


def _collapsible(text: str, label: str, language: str = "text") -> str:
    if is_long(text):
        return (
            f"<details><summary>{summary(label)} ({size(text)})</summary>\n\n{fenced(text, language)}\n</details>\n\n"
        )
    return (f"{inline(label)}:\n\n" if label else "") + fenced(text, language) + "\n"


def _call_link(call: CallPlace) -> str:
    return f"[message {call[0]}](#m{call[0]}-c{call[1]})"


class MarkdownMarkup(Markup):
    """CommonMark, with GitHub's `<details>`."""

    def begin(self, title: str, format_name: str, counts: Sequence[str]) -> str:
        said = " · ".join((code(format_name), *counts))
        return f"# {inline(title)}\n\n{said}\n\n"

    def remark(self, text: str) -> str:
        return f"*{inline(text)}*\n\n"

    def problems_begin(self) -> str:
        return "## Problems\n\n"

    def problem(self, diagnostic: Diagnostic, index: int | None) -> str:
        return f"- {_diagnostic(diagnostic)}" + ("" if index is None else f" — [message {index}](#m{index})") + "\n"

    def problems_end(self) -> str:
        return "\n"

    def no_problems(self) -> str:
        return f"{NO_PROBLEMS}\n\n"

    def file_notes_begin(self) -> str:
        return "## Notes\n\n"

    def file_note(self, note: Note) -> str:
        return _note(note)

    def file_notes_end(self) -> str:
        return "\n"

    def instructions_begin(self) -> str:
        return "## Instructions\n\n"

    def instruction(self, entry: Instruction) -> str:
        return _collapsible(entry.text, f"{entry.role} {entry.path}")

    def instructions_end(self) -> str:
        return ""

    def branches(self, branches: Sequence[Branch]) -> str:
        rows = "".join(
            f"| {inline(branch.leaf)} | {branch.line + 1} | {inline(branch.timestamp or '')} | {branch.messages}"
            f" | {branch_kind(branch)} |\n"
            for branch in branches
        )
        return f"## Branches\n\n| leaf | line | last time | messages | |\n|---|---|---|---|---|\n{rows}\n"

    def header_end(self) -> str:
        return "## Messages\n\n"

    def end(self) -> str:
        return ""

    def shown_with_call(self, index: int, call: CallPlace) -> str:
        return (
            f'<a id="m{index}"></a>*message {index}: the result of the call in {_call_link(call)}, shown with it*\n\n'
        )

    def message_begin(self, index: int, message: Message) -> str:
        return f'### <a id="m{index}"></a>{role_word(message)} · message {index} · {code(message.id)}\n\n'

    def message_end(self) -> str:
        return ""

    def orphan(self, message: ToolResultMessage) -> str:
        return f"**orphan**: no call has the ID {code(message.tool_call_id)}\n\n"

    def out_of_place(self, call: CallPlace) -> str:
        return f"**out of place**: the result of the call in {_call_link(call)}\n\n"

    def beside(self, problems: Sequence[Diagnostic], notes: Sequence[Note]) -> str:
        return _problems(problems) + (_notes(notes) if notes else "")

    def text(self, text: str) -> str:
        return fenced(text) + "\n"

    def opaque(self, block: OpaqueBlock) -> str:
        data = fenced(pretty_json(bytes(block.data_json)), "json")
        return f"<details><summary>{summary(f'{block.kind} ({block.format})')}</summary>\n\n{data}\n</details>\n\n"

    def call_begin(self, place: CallPlace, call: ToolCall, problems: Sequence[Diagnostic]) -> str:
        arguments = _collapsible(pretty_json(bytes(call.arguments_json)), "", "json")
        return (
            f'<a id="m{place[0]}-c{place[1]}"></a>**call** {code(call.name)} {code(call.id)}\n\n'
            f"{_problems(problems)}{arguments}"
        )

    def no_result(self) -> str:
        return "**No result**: nothing answers this call.\n\n"

    def elsewhere(self, at: int) -> str:
        return f"**out of place**: its result is [message {at}](#m{at})\n\n"

    def call_end(self) -> str:
        return ""

    def result(self, answer: Answer, here: bool, problems: Sequence[Diagnostic], notes: Sequence[Note]) -> str:
        result = answer.result
        label = "error" if result.is_error else "result"
        where = "" if here else f" · message {answer.at} · {code(result.id)}"
        output = _collapsible(result.content, "output" if is_long(result.content) else "")
        return f"**{label}** of {code(result.tool_name)}{where}\n\n{self.beside(problems, notes)}{output}"
