"""The HTML page: one self-contained file (inline CSS, no script, nothing fetched), every text
of the transcript escaped, the same bytes for the same input."""

from __future__ import annotations

import html
from collections.abc import Iterator, Sequence
from typing import Final

from message_ir import Diagnostic, Message, OpaqueBlock, ToolCall, ToolResultMessage
from message_ir.adapters import Branch, Instruction, Note
from message_ir.render import _page
from message_ir.render._page import CallPlace, Markup
from message_ir.render._text import NO_PROBLEMS, branch_kind, is_long, pretty_json, printable, role_word, size
from message_ir.render._view import Answer, View

STYLE: Final = """
:root{color-scheme:light dark;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#fff;
--soft:#f6f8fa;--user:#ddf4ff;--call:#fff8c5;--ok:#dafbe1;--bad:#ffebe9;--badline:#cf222e;--note:#eef1f4}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--bg:#0d1117;
--soft:#151b23;--user:#0c2d4b;--call:#2e2a10;--ok:#0f2e1a;--bad:#3a1418;--badline:#f85149;--note:#1c232b}}
*{box-sizing:border-box}
body{margin:0 auto;max-width:60rem;padding:1rem;font:15px/1.5 system-ui,sans-serif;
color:var(--fg);background:var(--bg)}
header{border-bottom:1px solid var(--line);margin-bottom:1rem}
h1{font-size:1.3rem;margin:.2rem 0;overflow-wrap:anywhere}
h2{font-size:1.05rem;margin:1rem 0 .3rem}
.counts{color:var(--muted)}
pre,code{font:13px/1.45 ui-monospace,monospace}
pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:.3rem 0;padding:.4rem .6rem;background:var(--soft);
border-radius:4px}
.text{white-space:pre-wrap;overflow-wrap:anywhere}
.msg{border:1px solid var(--line);border-radius:6px;margin:.6rem 0;padding:.4rem .7rem}
.msg>.head{color:var(--muted);font-size:.85rem}
.msg>.head b{color:var(--fg)}
.user{background:var(--user)}
.call{border-left:4px solid #d4a72c;background:var(--call);margin:.4rem 0;padding:.3rem .6rem;border-radius:4px}
.result{border-left:4px solid #1a7f37;background:var(--ok);margin:.3rem 0 .3rem 1rem;padding:.3rem .6rem;
border-radius:4px}
.result.error{border-left-color:var(--badline);background:var(--bad)}
.missing{color:var(--badline);font-weight:600}
.badge{display:inline-block;padding:0 .4rem;border-radius:1rem;font-size:.8rem;border:1px solid var(--line)}
.badge.bad{border-color:var(--badline);color:var(--badline)}
.placed{color:var(--muted);font-size:.85rem}
ul.problems,ul.notes{list-style:none;margin:.3rem 0;padding:.3rem .6rem;border-left:4px solid var(--line)}
ul.problems{border-left-color:var(--badline);background:var(--bad)}
ul.notes{background:var(--note)}
ul.problems li,ul.notes li{overflow-wrap:anywhere}
details{margin:.3rem 0}
summary{cursor:pointer;color:var(--muted)}
table{border-collapse:collapse}
td,th{border:1px solid var(--line);padding:.1rem .5rem;text-align:left}
"""
"""The page's only style: GitHub-like colours, light and dark."""

POLICY: Final = "default-src 'none'; style-src 'unsafe-inline'"
"""The page's Content Security Policy: it may load nothing at all, and runs no script."""


def esc(text: str) -> str:
    """Text as HTML text or a quoted attribute value: `& < > " '` escaped, control
    characters and lone surrogates shown as escapes."""
    return html.escape(printable(text), quote=True)


def page(found: View) -> Iterator[str]:
    """The page, piece by piece."""
    return _page.page(found, HtmlMarkup())


def _diagnostic(diagnostic: Diagnostic) -> str:
    return f"<b>{esc(diagnostic.code)}</b> {esc(diagnostic.message)} <code>{esc(diagnostic.path)}</code>"


def _note(note: Note) -> str:
    return f"<li><b>{esc(note.code)}</b> {esc(note.message)} <code>{esc(note.path)}</code></li>\n"


def _notes(notes: Sequence[Note]) -> str:
    return '<ul class="notes">\n' + "".join(map(_note, notes)) + "</ul>\n"


def _problems(problems: Sequence[Diagnostic]) -> str:
    if not problems:
        return ""
    items = "".join(f"<li>{_diagnostic(diagnostic)}</li>\n" for diagnostic in problems)
    return f'<ul class="problems">\n{items}</ul>\n'


def _collapsible(text: str, summary: str) -> str:
    """A text, in `<details>` when it is long."""
    if is_long(text):
        return f"<details><summary>{summary} ({size(text)})</summary><pre>{esc(text)}</pre></details>\n"
    return f'<div class="placed">{summary}</div><div class="text">{esc(text)}</div>\n'


def _call_link(call: CallPlace) -> str:
    return f'<a href="#m{call[0]}-c{call[1]}">message {call[0]}</a>'


class HtmlMarkup(Markup):
    """The HTML page: one self-contained file."""

    def begin(self, title: str, format_name: str, counts: Sequence[str]) -> str:
        said = " · ".join((esc(format_name), *counts))
        return (
            '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{esc(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
            f'<header>\n<h1>{esc(title)}</h1>\n<p class="counts">{said}</p>\n'
        )

    def remark(self, text: str) -> str:
        return f'<p class="placed">{esc(text)}</p>\n'

    def problems_begin(self) -> str:
        return '<h2>Problems</h2>\n<ul class="problems">\n'

    def problem(self, diagnostic: Diagnostic, index: int | None) -> str:
        placed = "" if index is None else f' — <a href="#m{index}">message {index}</a>'
        return f"<li>{_diagnostic(diagnostic)}{placed}</li>\n"

    def problems_end(self) -> str:
        return "</ul>\n"

    def no_problems(self) -> str:
        return f'<p class="placed">{esc(NO_PROBLEMS)}</p>\n'

    def file_notes_begin(self) -> str:
        return '<h2>Notes</h2>\n<ul class="notes">\n'

    def file_note(self, note: Note) -> str:
        return _note(note)

    def file_notes_end(self) -> str:
        return "</ul>\n"

    def instructions_begin(self) -> str:
        return "<h2>Instructions</h2>\n"

    def instruction(self, entry: Instruction) -> str:
        return _collapsible(entry.text, f"{esc(entry.role)} <code>{esc(entry.path)}</code>")

    def instructions_end(self) -> str:
        return ""

    def branches(self, branches: Sequence[Branch]) -> str:
        rows = "".join(
            f"<tr><td><code>{esc(branch.leaf)}</code></td><td>{branch.line + 1}</td>"
            f"<td>{esc(branch.timestamp or '')}</td><td>{branch.messages}</td><td>{branch_kind(branch)}</td></tr>\n"
            for branch in branches
        )
        head = "<tr><th>leaf</th><th>line</th><th>last time</th><th>messages</th><th></th></tr>\n"
        return f"<h2>Branches</h2>\n<table>\n{head}{rows}</table>\n"

    def header_end(self) -> str:
        return "</header>\n<main>\n"

    def end(self) -> str:
        return "</main>\n</body>\n</html>\n"

    def shown_with_call(self, index: int, call: CallPlace) -> str:
        return (
            f'<div class="placed" id="m{index}">message {index}: the result of the call in '
            f"{_call_link(call)}, shown with it</div>\n"
        )

    def message_begin(self, index: int, message: Message) -> str:
        return (
            f'<section class="msg {message.role}" id="m{index}">\n'
            f'<div class="head"><b>{role_word(message)}</b> · message {index} · <code>{esc(message.id)}</code></div>\n'
        )

    def message_end(self) -> str:
        return "</section>\n"

    def orphan(self, message: ToolResultMessage) -> str:
        call_id = esc(message.tool_call_id)
        return f'<p><span class="badge bad">orphan</span> no call has the ID <code>{call_id}</code></p>\n'

    def out_of_place(self, call: CallPlace) -> str:
        return f'<p><span class="badge bad">out of place</span> the result of the call in {_call_link(call)}</p>\n'

    def beside(self, problems: Sequence[Diagnostic], notes: Sequence[Note]) -> str:
        return _problems(problems) + (_notes(notes) if notes else "")

    def text(self, text: str) -> str:
        return f'<div class="text">{esc(text)}</div>\n'

    def opaque(self, block: OpaqueBlock) -> str:
        return (
            f"<details><summary>{esc(block.kind)} ({esc(block.format)})</summary>"
            f"<pre>{esc(pretty_json(bytes(block.data_json)))}</pre></details>\n"
        )

    def call_begin(self, place: CallPlace, call: ToolCall, problems: Sequence[Diagnostic]) -> str:
        arguments = pretty_json(bytes(call.arguments_json))
        shown = _collapsible(arguments, "arguments") if is_long(arguments) else f"<pre>{esc(arguments)}</pre>\n"
        return (
            f'<div class="call" id="m{place[0]}-c{place[1]}">\n'
            f"<div><b>{esc(call.name)}</b> <code>{esc(call.id)}</code></div>\n{_problems(problems)}{shown}"
        )

    def no_result(self) -> str:
        return '<p class="missing">No result: nothing answers this call.</p>\n'

    def elsewhere(self, at: int) -> str:
        badge = '<span class="badge bad">out of place</span>'
        return f'<p class="placed">{badge} its result is <a href="#m{at}">message {at}</a></p>\n'

    def call_end(self) -> str:
        return "</div>\n"

    def result(self, answer: Answer, here: bool, problems: Sequence[Diagnostic], notes: Sequence[Note]) -> str:
        result = answer.result
        kind, label = ("result error", "error") if result.is_error else ("result", "result")
        where = "" if here else f" · message {answer.at} · <code>{esc(result.id)}</code>"
        output = f"<pre>{esc(result.content)}</pre>"
        if is_long(result.content):
            output = f"<details><summary>output ({size(result.content)})</summary>{output}</details>"
        said = f'<div class="placed"><b>{label}</b> of <code>{esc(result.tool_name)}</code>{where}</div>'
        return f'<div class="{kind}">\n{said}\n{self.beside(problems, notes)}{output}\n</div>\n'
