"""See a transcript: any format rendered to one HTML page or to Markdown, through the IR.

Each tool call is shown with its result, paired by the linkage (a result that comes late or
answers no call is shown as such where it stands), the diagnostics beside the messages they
concern, thinking and long tool output collapsed, and the branches and notes listed. The
HTML page is one self-contained file: inline CSS, no script, nothing loaded from anywhere
(its Content Security Policy forbids it), every text of the transcript escaped. The same
input gives the same bytes. See docs/render.md.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import IO, Literal, TypeAlias, cast

from message_ir import Diagnostic, Message, validate_transcript
from message_ir.adapters import FORMATS, Branch, Conversation
from message_ir.render import _html, _log_page, _markdown
from message_ir.render._log_page import log_format
from message_ir.render._source import Source, read_source, read_stream
from message_ir.render._view import view

Output: TypeAlias = Literal["html", "markdown"]
"""What `render` writes."""


def render(
    value: Conversation | Sequence[Message],
    diagnostics: Sequence[Diagnostic] | None = None,
    *,
    to: Output = "html",
    title: str = "",
    branches: Sequence[Branch] = (),
) -> str:
    """A conversation (or IR messages) as an HTML page or Markdown.

    `diagnostics` are what its format's `check` said of the source; they are placed beside
    the messages they concern (by the source paths of the conversation's notes and by the
    call IDs they name), the others listed as about the whole file. `None`: those of
    `validate_transcript` of the messages. `branches` (from a tree log's `branches`) are
    listed in the header. Never raises for a valid `Conversation`.
    """
    if type(value) is Conversation:
        conversation = value
    else:
        conversation = Conversation("message_ir", tuple(cast("Sequence[Message]", value)))
    if diagnostics is None:
        found = view(
            conversation,
            validate_transcript(conversation.messages),
            title=title or "Transcript",
            branches=branches,
            remarks=(),
            indexed=True,
        )
    else:
        found = view(
            conversation, diagnostics, title=title or "Transcript", branches=branches, remarks=(), indexed=False
        )
    return "".join(_html.page(found) if to == "html" else _markdown.page(found))


def render_file_bytes(
    data: bytes,
    *,
    format: str | None = None,
    json_lines: bool = False,
    to: Output = "html",
    title: str = "",
    leaf: str | None = None,
    stream: str | None = None,
) -> str:
    """A file's bytes rendered: in `format` (`None`: detected, else the IR's own JSON, or
    JSON Lines when `json_lines`), with the diagnostics its format's `check` gives, a tree
    log's branches, and the branch ending at `leaf` (`None`: the one the agent resumes).
    With `stream` (a format of `message_ir.streams`), the bytes are a recorded provider
    stream: the page shows the message it assembles and the stream's diagnostics.

    A session log whose last line is half-written (no newline, not JSON) is rendered
    without it, and the page says so. Raises `FormatError` for bytes that are not of the
    format (nothing is rendered), `ValueError` for a `leaf` the log does not hold, a format
    without branches, or an unknown stream format.
    """
    if stream is not None:
        if format is not None or leaf is not None:
            raise ValueError("a stream has no other format and no branches")
        source: Source = read_stream(data, stream)
    else:
        source = read_source(data, format=format, json_lines=json_lines, leaf=leaf)
    found = view(
        source.conversation,
        source.diagnostics,
        title=title or "Transcript",
        branches=source.branches,
        remarks=source.remarks,
        indexed=source.indexed,
        places=source.places,
    )
    return "".join(_html.page(found) if to == "html" else _markdown.page(found))


def render_log(
    path: str | os.PathLike[str],
    out: IO[bytes],
    *,
    format: str | None = None,
    json_lines: bool = False,
    to: Output = "html",
    title: str = "",
    leaf: str | None = None,
) -> None:
    """The page of the file at `path`, written to `out`: a session log (a format with
    `segments`: Claude Code, pi, Codex) in memory that does not grow with the log, a
    segment at a time; any other file read whole, as `render_file_bytes` renders it.

    `format`: the file's (`None`: detected from its first lines, else from the whole file;
    `json_lines`: then read as the IR's own JSON Lines, when it is of no format).
    The page is the one `render_file_bytes` makes of the same bytes. A log that grows while it
    is read is rendered as it was when `render_log` began. Raises as `render_file_bytes`
    does, before anything is written to `out`, and `OSError` for a file that cannot be read.
    """
    path = os.fspath(path)
    name = log_format(path) if format is None else format
    if name is not None and name in FORMATS and FORMATS[name].segments is not None:
        _log_page.render_log(path, out, format=name, to=to, title=title or "Transcript", leaf=leaf)
        return
    with open(path, "rb") as stream:
        data = stream.read()
    page = render_file_bytes(data, format=format, json_lines=json_lines, to=to, title=title, leaf=leaf)
    out.write(page.encode("utf-8"))


__all__ = ["Output", "render", "render_file_bytes", "render_log"]
