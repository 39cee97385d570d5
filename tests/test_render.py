"""`message_ir.render` and `message-ir render`: what a page shows and where, escaping under
hostile text (checked by parsing the page, and the Markdown through a CommonMark parser),
the same bytes for the same input (snapshots of transcripts built here), every real file."""

from __future__ import annotations

import io
import json
from html.parser import HTMLParser
from pathlib import Path
from typing import NamedTuple

import pytest
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from syrupy.assertion import SnapshotAssertion

from message_ir import (
    Message,
    TextBlock,
    ToolCall,
    assistant_message,
    opaque_block,
    tool_call,
    tool_result_message,
    user_message,
)
from message_ir._cli import main
from message_ir.adapters import FORMATS, Conversation, FormatError, Note, detect, openai_chat
from message_ir.render import Output, render, render_file_bytes
from message_ir.streams import STREAM_FORMATS, script
from tests.adapters.real import REAL, openai_chat_messages
from tests.property.strategies import broken_transcripts

PAGE_TAGS = frozenset(
    {"html", "head", "meta", "title", "style", "body", "header", "main", "section", "div", "p", "h1", "h2"}
    | {"ul", "li", "b", "code", "pre", "a", "details", "summary", "span", "table", "tr", "th", "td"}
)
"""Every element the HTML page may hold: nothing a transcript's text could add."""
MARKDOWN_TAGS = frozenset(
    {"h1", "h2", "h3", "p", "ul", "li", "strong", "em", "code", "pre", "a", "details", "summary"}
    | {"table", "thead", "tbody", "tr", "th", "td"}
)


class Parsed(HTMLParser):
    """An HTML document's elements (with their attributes) and its text."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def run(*argv: str, stdin: bytes = b"") -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    stdout.buffer = io.BytesIO()  # type: ignore[misc]  # the page is written as bytes, as to a real stdout
    status = main(list(argv), stdin=io.BytesIO(stdin), stdout=stdout, stderr=stderr)
    assert "Traceback" not in stderr.getvalue()
    return status, stdout.buffer.getvalue().decode(), stderr.getvalue()


def session() -> tuple[Message, ...]:
    """A session with a bit of everything: an answered call, a late result, an orphan, a call
    with no result, an error, reasoning, and one long output."""
    return (
        user_message(id="u1", content="List the files, then read the notes."),
        assistant_message(
            id="a1",
            content=[
                opaque_block(format="anthropic", kind="thinking", data={"thinking": "Start with ls."}),
                {"type": "text", "text": "Listing first."},
                tool_call(id="call_ls", name="shell", arguments={"command": "ls"}),
                tool_call(id="call_cat", name="shell", arguments={"command": "cat notes.txt"}),
            ],
        ),
        tool_result_message(id="r1", tool_call_id="call_ls", tool_name="shell", content="notes.txt\nplan.md"),
        user_message(id="u2", content="Why did that stop?"),
        tool_result_message(id="r2", tool_call_id="call_cat", tool_name="shell", content="line\n" * 40, is_error=False),
        tool_result_message(id="r3", tool_call_id="call_gone", tool_name="shell", content="from a lost call"),
        assistant_message(
            id="a2", content=[tool_call(id="call_rm", name="shell", arguments={"command": "rm -rf build"})]
        ),
    )


def test_each_call_is_shown_with_its_result_and_every_problem_beside_its_message() -> None:
    page = render(session(), title="built")
    # The answered call (block 2, after the reasoning and the text): its result inside the
    # call's box; the result's own place links back to it.
    call = page.index('<div class="call" id="m1-c2">')
    assert call < page.index("notes.txt\nplan.md") < page.index('<div class="call" id="m1-c3">')
    assert 'id="m2">message 2: the result of the call in <a href="#m1-c2">message 1</a>, shown with it' in page
    # The late result: shown where it stands, linked both ways.
    assert '<span class="badge bad">out of place</span> its result is <a href="#m4">message 4</a>' in page
    assert 'out of place</span> the result of the call in <a href="#m1-c3">message 1</a>' in page
    # The orphan and the call with no result, each with its diagnostic beside it.
    orphan = page.split('<section class="msg toolResult" id="m5">', 1)[1].split("</section>", 1)[0]
    assert "no call has the ID <code>call_gone</code>" in orphan
    assert "<b>ORPHAN_TOOL_RESULT</b> Tool result answers &#x27;call_gone&#x27;, but no tool call has that ID" in orphan
    rm_call = page.split('<div class="call" id="m6-c0">', 1)[1].split("</div>\n</section>", 1)[0]
    assert "<b>MISSING_TOOL_RESULT</b> Tool call &#x27;call_rm&#x27; has no result after it" in rm_call
    assert '<p class="missing">No result: nothing answers this call.</p>' in rm_call
    # The header lists both, linked to their messages.
    assert '<code>$[5]</code> — <a href="#m5">message 5</a></li>' in page
    assert '<code>$[6].content[0]</code> — <a href="#m6">message 6</a></li>' in page
    # Collapsed: the reasoning and the long output; not the short output.
    assert "<details><summary>thinking (anthropic)</summary>" in page
    assert "<details><summary>output (41 lines, 200 characters)</summary>" in page
    assert "message_ir · 7 messages · 3 tool calls · 3 tool results · 2 problems · 0 notes" in page


def test_the_page_is_self_contained_and_loads_nothing() -> None:
    page = render(session())
    parsed = Parsed(page)
    assert {tag for tag, _ in parsed.elements} <= PAGE_TAGS
    assert "<script" not in page
    assert "<link" not in page
    assert "src=" not in page
    policy = [attributes for tag, attributes in parsed.elements if attributes.get("http-equiv")]
    assert policy == [
        {"http-equiv": "Content-Security-Policy", "content": "default-src 'none'; style-src 'unsafe-inline'"}
    ]
    for tag, attributes in parsed.elements:
        if tag == "a":
            assert (attributes.get("href") or "").startswith("#m")


def test_the_same_input_gives_the_same_bytes(snapshot: SnapshotAssertion) -> None:
    assert render(session(), title="built") == snapshot(name="html")
    assert render(session(), title="built", to="markdown") == snapshot(name="markdown")


def test_a_clean_conversation_with_notes_and_instructions(snapshot: SnapshotAssertion) -> None:
    body = {
        "model": "m",
        "messages": [
            {"role": "system", "content": "Answer briefly."},
            {"role": "user", "content": "Weather?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "weather", "arguments": "not json"}}
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        ],
    }
    data = json.dumps(body).encode()
    conversation = openai_chat.load(data)
    assert [note.code for note in conversation.notes] == ["ARGUMENTS_NOT_AN_OBJECT"]
    page = render(conversation, openai_chat.check(data), title="notes")
    assert "<h2>Instructions</h2>" in page
    assert "<b>ARGUMENTS_NOT_AN_OBJECT</b>" in page.split('id="m1"', 1)[1]  # beside the call's message
    # The format's diagnostic (source path `$.messages[2]...`) is placed by the note's path.
    assert "<b>BAD_TOOL_ARGUMENTS</b>" in page.split('id="m1"', 1)[1]
    assert render_file_bytes(data, title="notes") == page
    assert render_file_bytes(data, title="notes", to="markdown") == snapshot(name="markdown")


HOSTILE = st.one_of(
    st.sampled_from(
        [
            "<script>alert(1)</script>",
            "</pre></details></section><img src=x onerror=alert(1)>",
            '" onmouseover="x',
            "' autofocus '",
            "&amp; &lt; &#0;",
            "```\n# heading\n```",
            "~~~\n<details open>",
            "[link](javascript:alert(1))",
            "![i](http://example.invalid/x.png)",
            "| a | b |\n|---|---|",
            "-->\n<!--",
            "\x00\x07\x1b[31m\x7f",
            "<a href='//x'>x</a>",
            "*emphasis* _under_ \\",
            "\n\n- list\n1. item\n> quote",
        ]
    ),
    st.text(max_size=30),
)
"""Text made to break out of where it is put, and any text."""


@st.composite
def hostile_session(draw: st.DrawFn) -> Conversation:
    def text() -> str:
        return draw(HOSTILE)

    def name() -> str:
        return draw(HOSTILE.filter(lambda value: value != ""))

    call_id, other = name(), name()
    messages = (
        user_message(id=name(), content=text()),
        assistant_message(
            id=name(),
            content=[
                opaque_block(format=name(), kind=name(), data={text(): text()}),
                {"type": "text", "text": text()},
                tool_call(id=call_id, name=name(), arguments={text(): text()}),
            ],
        ),
        tool_result_message(id=name(), tool_call_id=call_id, tool_name=name(), content=text(), is_error=True),
        tool_result_message(id=name(), tool_call_id=other + "x", tool_name=name(), content=text() * 20),
    )
    note = Note("RETYPED_ARGUMENTS", 1, text(), text())
    return Conversation(name(), messages, notes=(note, Note("DROPPED_META", None, text(), text())))


def _texts(conversation: Conversation) -> list[str]:
    """The texts a page shows as they are (arguments and opaque data are shown as JSON)."""
    found = [conversation.format]
    for message in conversation.messages:
        found.append(message.id)
        if message.role == "assistant":
            for block in message.content:
                if type(block) is TextBlock:
                    found.append(block.text)
                elif type(block) is ToolCall:
                    found.extend((block.id, block.name))
        elif message.role == "user":
            found.append(message.content)
        else:
            found.extend((message.tool_call_id, message.tool_name, message.content))
    for note in conversation.notes:
        found.extend((note.path, note.message))
    return found


def _shown(text: str) -> str:
    """A text as the page shows it: control characters as escapes."""
    return "".join(
        f"\\x{ord(char):02x}" if (ord(char) < 32 and char not in "\t\n\r") or char == "\x7f" else char for char in text
    )


def _lines(text: str) -> str:
    """Line ends as HTML reads them."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


@given(hostile_session())
def test_hostile_text_stays_text_in_html(conversation: Conversation) -> None:
    page = render(conversation, title="<title>")
    parsed = Parsed(page)
    assert {tag for tag, _ in parsed.elements} <= PAGE_TAGS
    assert "<script" not in page.lower()
    for tag, attributes in parsed.elements:
        assert set(attributes) <= {"lang", "charset", "http-equiv", "content", "name", "class", "id", "href"}
        if tag == "a":
            assert (attributes["href"] or "").startswith("#m")
    shown = "".join(parsed.text)
    for text in _texts(conversation):
        assert _lines(_shown(text)) in _lines(shown)


@given(hostile_session())
def test_hostile_text_stays_text_in_markdown(conversation: Conversation) -> None:
    markdown = render(conversation, title="<title>", to="markdown")
    page = MarkdownIt("commonmark", {"html": True}).enable("table").render(markdown)
    parsed = Parsed(page)
    assert {tag for tag, _ in parsed.elements} <= MARKDOWN_TAGS
    for tag, attributes in parsed.elements:
        if tag == "a":
            assert set(attributes) in ({"href"}, {"id"})
            assert (attributes.get("href") or "#m").startswith("#m")
            assert (attributes.get("id") or "m").startswith("m")
        elif tag == "code" and attributes:
            assert attributes in ({"class": "language-text"}, {"class": "language-json"})
        else:
            assert attributes == {}
    assert "<script" not in page.lower()
    shown = " ".join("".join(parsed.text).split())
    for text in _texts(conversation):
        assert " ".join(_shown(text).split()) in shown


@given(broken_transcripts())
def test_any_transcript_renders_and_names_every_problem(messages: tuple[Message, ...]) -> None:
    page = render(messages)
    markdown = render(messages, to="markdown")
    from message_ir import validate_transcript

    for diagnostic in validate_transcript(messages):
        assert f"<b>{diagnostic.code}</b>" in page
        assert f"**{diagnostic.code}**" in markdown


def test_a_half_written_last_line_is_left_out_and_said(tmp_path: Path) -> None:
    lines = [
        {"role": "user", "id": "u1", "content": "hi"},
        {"role": "assistant", "id": "a1", "content": [{"type": "text", "text": "hello"}]},
    ]
    data = "".join(json.dumps(line) + "\n" for line in lines).encode() + b'{"role": "us'
    path = tmp_path / "cut.jsonl"
    path.write_bytes(data)
    status, page, errors = run("render", str(path))
    assert (status, errors) == (0, "")
    assert "The last line (3) is half-written (not JSON, no newline): the lines before it are shown." in page
    assert (
        "<li><b>INVALID_JSON</b> Line 3: Invalid JSON: Unterminated string starting at: line 1 column 10 (char 9)"
        " <code>$[2]</code></li>"
    ) in page
    assert "2 messages" in page


def test_a_half_written_line_of_a_session_log() -> None:
    path = REAL / "anthropic" / "spotter_claude-code_short.jsonl"
    if not path.is_file():
        pytest.skip("the real files are not here")
    data = path.read_bytes()
    whole = render_file_bytes(data, title="log")
    cut = render_file_bytes(data[: data.rindex(b"\n", 0, len(data) - 1) + 40], title="log")
    assert "is half-written (not JSON, no newline)" in cut
    assert "<b>INVALID_JSON</b>" in cut
    assert "is half-written" not in whole


def test_the_command_line(tmp_path: Path) -> None:
    source = tmp_path / "t.json"
    source.write_text(json.dumps([{"role": "user", "id": "u", "content": "hi"}]))
    out = tmp_path / "t.html"
    assert run("render", str(source), "-o", str(out)) == (0, "", "")
    assert out.read_text().startswith("<!DOCTYPE html>")
    assert "<title>t.json</title>" in out.read_text()
    status, markdown, _ = run("render", "--format", "markdown", str(source))
    assert status == 0
    assert markdown.startswith("# t\\.json\n\n` message_ir ` · 1 message · 0 tool calls")
    status, page, _ = run("render", "-", stdin=source.read_bytes())
    assert status == 0
    assert "<title>standard input</title>" in page or "<title>-</title>" in page


def test_a_file_not_of_the_named_format_renders_nothing(tmp_path: Path) -> None:
    source = tmp_path / "t.json"
    source.write_text(json.dumps([{"role": "user", "id": "u", "content": "hi"}]))
    out = tmp_path / "out.html"
    status, page, errors = run("render", "--from", "gemini", str(source), "-o", str(out))
    assert (status, page) == (2, "")
    assert not out.exists()
    assert errors.splitlines()[-1] == f"message-ir: error: {source}: nothing rendered: not gemini data"
    status, _, errors = run("render", str(tmp_path / "missing.json"))
    assert status == 2
    assert errors.startswith("message-ir: error: cannot read")
    status, _, errors = run("render", "--branch", "x", str(source))
    assert (status, errors) == (2, f"message-ir: error: {source}: the IR's own files have no branches\n")


def test_a_recorded_stream_renders_as_the_message_it_makes(tmp_path: Path) -> None:
    pieces = script(
        assistant_message(id="resp_1", content=[tool_call(id="call_9", name="search", arguments={"q": "tides"})]),
        "anthropic",
        chunks=3,
    )
    cut = tmp_path / "cut.sse"
    cut.write_bytes(b"".join(pieces[:-2]))  # no `message_delta`, no `message_stop`
    status, page, errors = run("render", "--stream", "anthropic", str(cut))
    assert (status, errors) == (0, "")
    assert "anthropic stream · 1 message · 1 tool call · 0 tool results · 1 problem" in page
    assert "The stream ended before its last event: the message is what arrived." in page
    assert "<li><b>STREAM_TRUNCATED</b> The stream ended before its last event; what arrived is kept" in page
    assert "<div><b>search</b> <code>call_9</code></div>\n<pre>{\n  &quot;q&quot;: &quot;tides&quot;\n}</pre>" in page
    status, _, errors = run("render", "--stream", "anthropic", "--from", "anthropic", str(cut))
    assert (status, errors) == (2, f"message-ir: error: {cut}: a stream has no other format and no branches\n")
    stderr = io.StringIO()
    with pytest.raises(SystemExit) as exited:
        main(["render", "--stream", "bedrock", str(cut)], stderr=stderr)
    assert exited.value.code == 2
    assert stderr.getvalue().endswith(
        "argument --stream: not a stream format: 'bedrock'"
        " (choose from openai-chat, anthropic, openai-responses, gemini)\n"
    )


def test_a_tree_log_lists_its_branches_and_renders_another() -> None:
    path = (
        REAL
        / "claude-code-inline-sidechain"
        / "d-kimuson-claude-code-viewer_claude-code-1.0.108_session-5c0375b4.jsonl"
    )
    if not path.is_file():
        pytest.skip("the real files are not here")
    data = path.read_bytes()
    page = render_file_bytes(data, title="tree")
    assert "<h2>Branches</h2>" in page
    assert "<td>resumed</td>" in page
    assert "<td>sub-agent</td>" in page
    with pytest.raises(ValueError, match=r"^No line of this log has the ID 'not-a-leaf'$"):
        render_file_bytes(data, leaf="not-a-leaf")
    with pytest.raises(ValueError, match=r"^openai-chat has no branches: only a log whose lines form a tree has$"):
        render_file_bytes(b"[]", format="openai_chat", leaf="a")


class RealSource(NamedTuple):
    name: str
    data: bytes
    stream: str | None = None
    """The stream format of a recorded stream."""

    def render(self, to: Output = "html") -> str:
        return render_file_bytes(self.data, title=self.name, to=to, stream=self.stream)


def _real_sources() -> list[RealSource]:
    """Every real file, as the bytes of what it holds: a trajectory's messages taken out, a
    dataset's rows one by one, a recorded stream with its format."""
    if not REAL.is_dir():
        pytest.skip("the real files are not here", allow_module_level=True)
    found: list[RealSource] = []
    for path in sorted(REAL.rglob("*")):
        if not path.is_file() or path.name == "PROVENANCE.md":
            continue
        data = path.read_bytes()
        name = str(path.relative_to(REAL))
        stream = path.parent.name.replace("-", "_")
        if path.parent.parent == REAL / "streams" and stream in STREAM_FORMATS:
            found.append(RealSource(name, data, stream))
        elif path.parent == REAL / "openai-chat" and detect(data) is None:
            found.append(RealSource(name, json.dumps(openai_chat_messages(path)).encode()))
        elif path.parent == REAL / "sharegpt" and path.name.startswith("llama-factory_glaive-"):
            rows = json.loads(data)  # a dataset: one conversation a row
            found.extend(RealSource(f"{name}[{number}]", json.dumps(row).encode()) for number, row in enumerate(rows))
        else:
            found.append(RealSource(name, data))
    return found


def test_every_real_file_renders_or_is_refused_with_its_reasons() -> None:
    rendered: list[str] = []
    refused: list[str] = []
    for source in _real_sources():
        name = source.name
        try:
            page = source.render()
        except FormatError:
            refused.append(name)
            continue
        assert source.render() == page
        assert source.render("markdown").startswith(f"# {name[0]}")
        rendered.append(name)
    # Whatever these folders gain is of a format the package reads, and renders.
    assert [name for name in refused if name.startswith(READ) and name not in NOT_TRANSCRIPTS] == []
    # What is no conversation of a registered format is refused, saying why.
    assert set(NOT_TRANSCRIPTS) <= set(refused)
    assert len(rendered) >= 195, (len(rendered), refused)


READ = (
    "anthropic/",
    "bedrock/pydantic-ai_converse-request",
    "broken/",
    "claude-code-inline-sidechain/",
    "gemini/",
    "hf-chat/",
    "openai-chat/",
    "openai-responses/",
    "pi/",
    "sharegpt/llama-factory_glaive-",
    "streams/anthropic/",
    "streams/gemini/",
    "streams/openai-chat/",
    "streams/openai-responses/",
)
"""The real folders (and file kinds) whose every file is of a format the package reads."""
NOT_TRANSCRIPTS = (
    "bedrock/vercel-ai_converse-response_tooluse.json",  # a Converse response
    "pi/pi-mono_assistant-message-with-thinking-code.json",  # one message alone
    "sharegpt/llama-factory_dataset_info.json",  # a dataset's description
    "mcp/pydantic-ai_deepwiki_tools-call-result.json",  # an MCP result
)


def test_the_broken_real_sessions_show_their_problems_beside_the_calls() -> None:
    shown = 0
    for path in sorted((REAL / "broken").glob("*.jsonl")):
        data = path.read_bytes()
        name = detect(data)
        assert name is not None
        page = render_file_bytes(data, title=path.name)
        calls = page.split('<div class="call" id="m')[1:]
        beside = sum(call.split('<p class="missing">', 1)[0].count("<b>MISSING_TOOL_RESULT</b>") for call in calls)
        missing = page.count('<p class="missing">')
        assert beside == missing, path.name
        shown += missing
    assert shown > 0


def damaged(data: st.DataObject, original: bytes) -> bytes:
    """`original` with bytes cut, repeated or changed anywhere, one to three times."""
    text = bytearray(original)
    for _ in range(data.draw(st.integers(1, 3), label="damages")):
        at = data.draw(st.integers(0, max(len(text) - 1, 0)))
        action = data.draw(st.sampled_from(["cut", "repeat", "byte"]))
        if action == "cut":
            del text[at:]
        elif action == "repeat":
            text[at:at] = text[at : at + data.draw(st.integers(1, 200))]
        elif text:
            text[at] = data.draw(st.sampled_from(b'{}[]":,\n\\x0'))
    return bytes(text)


@given(data=st.data())
def test_a_damaged_file_renders_or_is_refused_never_anything_else(data: st.DataObject) -> None:
    """Real files with bytes cut, repeated or changed anywhere: a page, or a `FormatError`
    (the command line's exit 2 with the reasons); never another exception."""
    sources = [source for source in _real_sources() if source.stream is None and len(source.data) < 200_000]
    source = data.draw(st.sampled_from(sources), label="file")
    text = damaged(data, source.data)
    try:
        page = render_file_bytes(text, title=source.name)
    except FormatError:
        return
    assert page.startswith("<!DOCTYPE html>")
    assert render_file_bytes(text, title=source.name, to="markdown").startswith("# ")


def test_load_and_check_in_one_pass_give_what_each_gives() -> None:
    """What `render` reads with: `load_checked` (and a tree log's), on every real file of a
    format, equals `load` and `check` each on their own."""
    compared = 0
    for source in _real_sources():
        name = None if source.stream else detect(source.data)
        if name is None:
            continue
        declared = FORMATS[name]
        try:
            conversation = declared.load(source.data)
        except FormatError:
            with pytest.raises(FormatError):
                declared.functions.load_checked(source.data)
            continue
        checked = declared.functions.load_checked(source.data)
        assert (checked.conversation, checked.diagnostics) == (conversation, declared.check(source.data))
        assert set(checked.places.values()) == set(range(len(conversation.messages)))  # each message placed
        if declared.trees is not None:
            branch = declared.trees.load_checked(source.data, None)
            assert (branch.conversation, branch.diagnostics) == (conversation, declared.check(source.data))
        compared += 1
    assert compared >= 179
