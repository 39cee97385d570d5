"""A headless Chromium driven over the DevTools protocol on a pipe, for the render tests.

Chromium started with `--remote-debugging-pipe` reads protocol commands from its file
descriptor 3 and writes replies and events to 4, each a JSON object ended by a NUL byte: no
port, no WebSocket, nothing beyond the standard library. (docs/render.md says why this was
chosen over Playwright.)
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Final

CHROMIUM_FLAGS: Final = (
    "--headless",
    "--no-sandbox",  # the tests may run as root
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",  # else it reaches for Google's hosts at every start
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-pipe",
)
TIMEOUT: Final = 60.0


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found is not None:
            return found
    return None


class BrowserError(Exception):
    """The browser answered a command with an error, or did not answer in time."""


class Page:
    """One tab, and every event it sent."""

    def __init__(self, browser: Browser, session: str) -> None:
        self.browser = browser
        self.session = session
        self.events: list[dict[str, object]] = []

    def send(self, method: str, **params: object) -> dict[str, object]:
        return self.browser.send(method, params, session=self.session)

    def wait_for(self, method: str) -> dict[str, object]:
        """The first event `method` of this tab (waiting for it when it has not come yet)."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            for event in self.events:
                if event.get("method") == method:
                    return event
            if time.monotonic() > deadline:
                raise BrowserError(f"no {method} event")
            self.browser.read_one()

    def evaluate(self, expression: str) -> object:
        reply = self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        result = reply["result"]
        assert type(result) is dict
        if "exceptionDetails" in reply:
            raise BrowserError(f"{expression}: {reply['exceptionDetails']}")
        return result.get("value")

    def click(self, selector: str) -> None:
        """A real mouse click (pressed and released) in the middle of the element."""
        box = self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)}); e.scrollIntoView();"
            " const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()"
        )
        assert type(box) is list
        x, y = box
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def screenshot(self) -> bytes:
        reply = self.send("Page.captureScreenshot", format="png")
        data = reply["data"]
        assert type(data) is str
        return base64.b64decode(data)


class Browser:
    """Chromium with the protocol on a pipe."""

    def __init__(self, executable: str, profile: str) -> None:
        commands_read, self._commands = os.pipe()
        self._replies, replies_write = os.pipe()

        def onto_3_and_4() -> None:  # in the child, before exec
            os.dup2(commands_read, 3)
            os.dup2(replies_write, 4)

        self.process = subprocess.Popen(
            [executable, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--window-size=1100,1400", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=onto_3_and_4,  # noqa: PLW1509 - the tests start no threads that could hold a lock here
            pass_fds=(3, 4, commands_read, replies_write),  # 3 and 4: what onto_3_and_4 made, kept open
        )
        os.close(commands_read)
        os.close(replies_write)
        self._next = 0
        self._buffer = b""
        self._replies_by_id: dict[int, dict[str, object]] = {}
        self.pages: dict[str, Page] = {}

    def send(self, method: str, params: dict[str, object], *, session: str | None = None) -> dict[str, object]:
        self._next += 1
        number = self._next
        command: dict[str, object] = {"id": number, "method": method, "params": params}
        if session is not None:
            command["sessionId"] = session
        os.write(self._commands, json.dumps(command).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT
        while number not in self._replies_by_id:
            if time.monotonic() > deadline:
                raise BrowserError(f"no answer to {method}")
            self.read_one()
        reply = self._replies_by_id.pop(number)
        if "error" in reply:
            raise BrowserError(f"{method}: {reply['error']}")
        result = reply.get("result", {})
        assert type(result) is dict
        return result

    def read_one(self) -> None:
        """Read one message (a reply, or an event for its page)."""
        while b"\0" not in self._buffer:
            chunk = os.read(self._replies, 1 << 16)
            if not chunk:
                raise BrowserError("the browser closed the pipe")
            self._buffer += chunk
        text, self._buffer = self._buffer.split(b"\0", 1)
        message = json.loads(text)
        assert type(message) is dict
        if "id" in message:
            self._replies_by_id[message["id"]] = message
            return
        session = message.get("sessionId")
        if type(session) is str and session in self.pages:
            self.pages[session].events.append(message)

    def new_page(self) -> Page:
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        assert type(session) is str
        page = Page(self, session)
        self.pages[session] = page
        for domain in ("Page", "Runtime", "Log", "Network"):
            page.send(f"{domain}.enable")
        return page

    def close(self) -> None:
        with contextlib.suppress(BrowserError):
            self.send("Browser.close", {})
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._commands)
        os.close(self._replies)


@contextmanager
def browser(executable: str) -> Iterator[Browser]:
    with tempfile.TemporaryDirectory() as profile:
        running = Browser(executable, profile)
        try:
            yield running
        finally:
            running.close()
