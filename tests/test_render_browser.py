"""The rendered pages in a real browser (Debian's headless Chromium): they open with no
console error and no request beyond the page itself, and collapsed parts open on a click.

The nox sessions install Chromium where it is missing; elsewhere the test is skipped,
except under CI, where a missing browser fails it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from message_ir.render import render
from tests.browser import Page, browser, chromium_path
from tests.test_render import _real_sources, session

CHROMIUM = chromium_path()
if CHROMIUM is None:
    if os.environ.get("CI"):
        raise RuntimeError("no chromium on PATH: the nox sessions install it (apt-get install chromium)")
    pytest.skip("no chromium on PATH (nox installs it)", allow_module_level=True)

PROBLEM_EVENTS = ("Runtime.consoleAPICalled", "Runtime.exceptionThrown", "Log.entryAdded")


def _open(page: Page, path: Path) -> None:
    page.events.clear()
    page.send("Page.navigate", url=path.as_uri())
    page.wait_for("Page.loadEventFired")


def _problems(page: Page, path: Path) -> list[object]:
    """Console messages, errors and every request but the page's own."""
    found: list[object] = [event for event in page.events if event.get("method") in PROBLEM_EVENTS]
    for event in page.events:
        if event.get("method") == "Network.requestWillBeSent":
            params = event["params"]
            assert type(params) is dict
            request = params["request"]
            assert type(request) is dict
            if request["url"] != path.as_uri():
                found.append(request["url"])
    return found


def test_a_built_session_opens_and_its_collapsed_parts_open_on_click(tmp_path: Path) -> None:
    assert CHROMIUM is not None
    path = tmp_path / "session.html"
    path.write_text(render(session(), title="A session built by the tests"), encoding="utf-8")
    with browser(CHROMIUM) as running:
        page = running.new_page()
        _open(page, path)
        assert _problems(page, path) == []
        assert page.evaluate("document.title") == "A session built by the tests"
        assert page.evaluate("[...document.querySelectorAll('details')].map(d => d.open)") == [False, False]
        page.click("details > summary")  # the reasoning
        page.click("section#m4 details > summary")  # the long output
        assert page.evaluate("[...document.querySelectorAll('details')].map(d => d.open)") == [True, True]
        # Collapsed text is there all along, and shown once open.
        assert page.evaluate("document.querySelector('section#m4 details pre').innerText.split('\\n').length") == 41
        assert page.evaluate("getComputedStyle(document.querySelector('ul.problems')).display") == "block"
        assert _problems(page, path) == []
        screenshot = os.environ.get("MESSAGE_IR_SCREENSHOT")
        if screenshot:  # `MESSAGE_IR_SCREENSHOT=docs/render.png pytest ...` makes the docs' picture
            page.evaluate("window.scrollTo(0, 0)")
            Path(screenshot).write_bytes(page.screenshot())


def test_every_real_file_opens_cleanly(tmp_path: Path) -> None:
    assert CHROMIUM is not None
    opened = 0
    with browser(CHROMIUM) as running:
        page = running.new_page()
        for number, source in enumerate(_real_sources()):
            name = source.name
            try:
                text = source.render()
            except ValueError:
                continue  # refused: test_render says which and why
            path = tmp_path / f"{number}.html"
            path.write_text(text, encoding="utf-8")
            _open(page, path)
            assert _problems(page, path) == [], name
            shown = page.evaluate("document.querySelectorAll('main > *').length")
            counts = page.evaluate("document.querySelector('.counts').innerText")
            assert type(counts) is str
            assert counts.split(" · ")[1] in (f"{shown} messages", f"{shown} message"), name
            opened += 1
    assert opened >= 195
