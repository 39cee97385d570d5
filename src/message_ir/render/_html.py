"""The HTML page: one self-contained file (inline CSS, no script, nothing fetched), every text
of the transcript escaped, the same bytes for the same input."""

from __future__ import annotations

import html
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
    conversation = found.conversation
    yield '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
    yield f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">\n'
    yield '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
    yield f"<title>{esc(found.title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
    yield from _header(found)
    yield "<main>\n"
    for index in range(len(conversation.messages)):
        yield from _message(found, index)
    yield "</main>\n</body>\n</html>\n"


def _header(found: View) -> Iterator[str]:
    conversation = found.conversation
    counts = " · ".join((esc(conversation.format), *text_counts(found)))
    yield f'<header>\n<h1>{esc(found.title)}</h1>\n<p class="counts">{counts}</p>\n'
    for remark in found.remarks:
        yield f'<p class="placed">{esc(remark)}</p>\n'
    if found.diagnostics:
        yield '<h2>Problems</h2>\n<ul class="problems">\n'
        for diagnostic, index in listed_problems(found):
            where = "" if index is None else f' — <a href="#m{index}">message {index}</a>'
            yield f"<li>{_diagnostic(diagnostic)}{where}</li>\n"
        yield "</ul>\n"
    else:
        yield f'<p class="placed">{esc(NO_PROBLEMS)}</p>\n'
    if found.file_notes:
        yield "<h2>Notes</h2>\n"
        yield from _notes(found.file_notes)
    if conversation.instructions:
        yield "<h2>Instructions</h2>\n"
        for instruction in conversation.instructions:
            yield from _collapsible(instruction.text, f"{esc(instruction.role)} <code>{esc(instruction.path)}</code>")
    if found.branches:
        yield "<h2>Branches</h2>\n<table>\n"
        yield "<tr><th>leaf</th><th>line</th><th>last time</th><th>messages</th><th></th></tr>\n"
        for branch in found.branches:
            kind = branch_kind(branch)
            yield (
                f"<tr><td><code>{esc(branch.leaf)}</code></td><td>{branch.line + 1}</td>"
                f"<td>{esc(branch.timestamp or '')}</td><td>{branch.messages}</td><td>{kind}</td></tr>\n"
            )
        yield "</table>\n"
    yield "</header>\n"


def _diagnostic(diagnostic: Diagnostic) -> str:
    return f"<b>{esc(diagnostic.code)}</b> {esc(diagnostic.message)} <code>{esc(diagnostic.path)}</code>"


def _notes(notes: Sequence[Note]) -> Iterator[str]:
    yield '<ul class="notes">\n'
    for note in notes:
        yield f"<li><b>{esc(note.code)}</b> {esc(note.message)} <code>{esc(note.path)}</code></li>\n"
    yield "</ul>\n"


def _beside(found: View, index: int) -> Iterator[str]:
    """The problems and notes placed beside one message."""
    problems = found.beside.get(index, ())
    if problems:
        yield '<ul class="problems">\n'
        for diagnostic in problems:
            yield f"<li>{_diagnostic(diagnostic)}</li>\n"
        yield "</ul>\n"
    notes = found.notes.get(index, ())
    if notes:
        yield from _notes(notes)


def _collapsible(text: str, summary: str) -> Iterator[str]:
    """A text, in `<details>` when it is long."""
    if is_long(text):
        yield f"<details><summary>{summary} ({size(text)})</summary><pre>{esc(text)}</pre></details>\n"
    else:
        yield f'<div class="placed">{summary}</div><div class="text">{esc(text)}</div>\n'


def _message(found: View, index: int) -> Iterator[str]:
    message = found.conversation.messages[index]
    if type(message) is ToolResultMessage:
        call = found.answered.get(index)
        in_place = call is not None and any(
            answer.at == index and answer.in_place for answer in found.answers[call[0]][call[1]]
        )
        if in_place and call is not None:
            yield (
                f'<div class="placed" id="m{index}">message {index}: the result of the call in '
                f'<a href="#m{call[0]}-c{call[1]}">message {call[0]}</a>, shown with it</div>\n'
            )
            return
    yield f'<section class="msg {message.role}" id="m{index}">\n'
    yield f'<div class="head"><b>{role_word(message)}</b> · message {index} · <code>{esc(message.id)}</code></div>\n'
    if type(message) is ToolResultMessage:
        yield from _result_here(found, index, message)
        yield "</section>\n"
        return
    yield from _beside(found, index)
    if type(message) is AssistantMessage:
        for number, block in enumerate(message.content):
            if type(block) is TextBlock:
                yield f'<div class="text">{esc(block.text)}</div>\n'
            elif type(block) is ToolCall:
                yield from _call(found, index, number, block)
            elif type(block) is OpaqueBlock:
                yield (
                    f"<details><summary>{esc(block.kind)} ({esc(block.format)})</summary>"
                    f"<pre>{esc(pretty_json(bytes(block.data_json)))}</pre></details>\n"
                )
    elif type(message) is UserMessage:
        yield f'<div class="text">{esc(message.content)}</div>\n'
    yield "</section>\n"


def _result_here(found: View, index: int, message: ToolResultMessage) -> Iterator[str]:
    """A result shown where it stands: an orphan, or one that comes late."""
    call = found.answered.get(index)
    if call is None:
        call_id = esc(message.tool_call_id)
        yield f'<p><span class="badge bad">orphan</span> no call has the ID <code>{call_id}</code></p>\n'
    else:
        yield (
            f'<p><span class="badge bad">out of place</span> the result of the call in '
            f'<a href="#m{call[0]}-c{call[1]}">message {call[0]}</a></p>\n'
        )
    yield from _result(found, Answer(index, message, in_place=False), here=True)


def _call(found: View, index: int, number: int, call: ToolCall) -> Iterator[str]:
    arguments = pretty_json(bytes(call.arguments_json))
    yield f'<div class="call" id="m{index}-c{number}">\n'
    yield f"<div><b>{esc(call.name)}</b> <code>{esc(call.id)}</code></div>\n"
    problems = found.call_problems.get((index, number), ())
    if problems:
        yield '<ul class="problems">\n'
        for diagnostic in problems:
            yield f"<li>{_diagnostic(diagnostic)}</li>\n"
        yield "</ul>\n"
    yield from _collapsible(arguments, "arguments") if is_long(arguments) else (f"<pre>{esc(arguments)}</pre>\n",)
    answers = found.answers.get(index, {}).get(number, ())
    if not answers:
        yield '<p class="missing">No result: nothing answers this call.</p>\n'
    for answer in answers:
        if answer.in_place:
            yield from _result(found, answer, here=False)
        else:
            yield (
                f'<p class="placed"><span class="badge bad">out of place</span> its result is '
                f'<a href="#m{answer.at}">message {answer.at}</a></p>\n'
            )
    yield "</div>\n"


def _result(found: View, answer: Answer, *, here: bool) -> Iterator[str]:
    result = answer.result
    kind = "result error" if result.is_error else "result"
    label = "error" if result.is_error else "result"
    yield f'<div class="{kind}">\n'
    where = "" if here else f" · message {answer.at} · <code>{esc(result.id)}</code>"
    yield f'<div class="placed"><b>{label}</b> of <code>{esc(result.tool_name)}</code>{where}</div>\n'
    yield from _beside(found, answer.at)
    if is_long(result.content):
        yield f"<details><summary>output ({size(result.content)})</summary><pre>{esc(result.content)}</pre></details>\n"
    else:
        yield f"<pre>{esc(result.content)}</pre>\n"
    yield "</div>\n"
