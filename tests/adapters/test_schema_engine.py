"""Tool schemas come from the data: nothing they name outside themselves is fetched or read."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from message_ir import Diagnostic
from message_ir.adapters import openai_chat
from message_ir.datasets import check_file
from tests.adapters.test_tools import _openai


class _Recorder(http.server.BaseHTTPRequestHandler):
    """Answers every GET with a schema that would reject the arguments, and records it."""

    seen: list[str] = []  # noqa: RUF012  # the class is the server's handler: one list for the test

    def do_GET(self) -> None:
        self.seen.append(self.path)
        body = b'{"type": "string"}'
        self.send_response(200)
        self.send_header("Content-Type", "application/schema+json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        return


@pytest.fixture
def server() -> Iterator[str]:
    """A local HTTP server on the loopback address; yields its base URL."""
    _Recorder.seen = []
    httpd = http.server.HTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def _tools(parameters: Mapping[str, object]) -> list[object]:
    return [{"type": "function", "function": {"name": "get_weather", "parameters": parameters}}]


def _declaration_problems(parameters: Mapping[str, object]) -> list[str]:
    found = openai_chat.check(_openai('{"city": "Paris"}', tools=_tools(parameters)))
    assert all(diagnostic.code == "BAD_TOOL_DECLARATION" for diagnostic in found), found
    return [diagnostic.message for diagnostic in found]


def test_a_remote_ref_is_refused_and_never_requested(server: str) -> None:
    url = f"{server}/city.json"
    schema = {"type": "object", "properties": {"city": {"$ref": url}}}
    assert _declaration_problems(schema) == [
        f"Not a valid JSON Schema: it refers to {url!r}, outside itself (references are not fetched)"
    ]
    relative = {"$id": f"{server}/root.json", "properties": {"city": {"$ref": "other.json"}}}
    assert _declaration_problems(relative) == [
        f"Not a valid JSON Schema: it refers to '{server}/other.json', outside itself (references are not fetched)"
    ]
    assert _Recorder.seen == []


def test_a_remote_meta_schema_is_refused_and_never_requested(server: str) -> None:
    assert _declaration_problems({"$schema": f"{server}/meta.json", "type": "object"}) == [
        f"Not a valid JSON Schema: it refers to '{server}/meta.json', outside itself (references are not fetched)"
    ]
    assert _Recorder.seen == []


def test_a_file_ref_reads_nothing_and_shows_nothing_of_the_file(tmp_path: Path) -> None:
    secret = tmp_path / "secret.json"
    secret.write_text('{"enum": ["the-secret-value"]}')
    url = secret.as_uri()
    found = openai_chat.check(_openai('{"city": "Paris"}', tools=_tools({"properties": {"city": {"$ref": url}}})))
    assert found == (
        Diagnostic(
            "BAD_TOOL_DECLARATION",
            None,
            "$.tools[0].function.parameters",
            f"Not a valid JSON Schema: it refers to {url!r}, outside itself (references are not fetched)",
        ),
    )


def test_references_inside_the_schema_still_resolve() -> None:
    schema = {"$defs": {"city": {"type": "string"}}, "properties": {"city": {"$ref": "#/$defs/city"}}}
    assert openai_chat.check(_openai('{"city": "Paris"}', tools=_tools(schema))) == ()
    assert [d.code for d in openai_chat.check(_openai('{"city": 7}', tools=_tools(schema)))] == [
        "ARGUMENTS_DO_NOT_MATCH_SCHEMA"
    ]
    known = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}
    assert openai_chat.check(_openai('{"city": "Paris"}', tools=_tools(known))) == ()


def test_a_dataset_line_cannot_make_check_dataset_fetch_a_url(server: str, tmp_path: Path) -> None:
    line = {
        "messages": [
            {"role": "user", "content": "weather?"},
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"x"}'}}
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        ],
        "tools": _tools({"properties": {"city": {"$ref": f"{server}/city.json"}}}),
    }
    path = tmp_path / "train.jsonl"
    path.write_text(json.dumps(line) + "\n")
    reports = list(check_file(path, "openai_chat"))
    assert [d.code for report in reports for d in report.diagnostics] == ["BAD_TOOL_DECLARATION"]
    assert _Recorder.seen == []


def test_a_pattern_that_gives_up_is_unchecked_not_failed() -> None:
    # A backreference makes the engine backtrack; 40 characters pass its backtracking limit.
    schema = {"properties": {"city": {"type": "string", "pattern": r"^(a|a)*\1b$"}}}
    found = openai_chat.check(_openai(json.dumps({"city": "a" * 40 + "!"}), tools=_tools(schema)))
    assert found == (
        Diagnostic(
            "SCHEMA_CHECK_UNAVAILABLE",
            1,
            "$.messages[1].tool_calls[0].function.arguments.city",
            "Arguments of 'get_weather' could not be checked against `pattern`: "
            "Error executing regex: Max limit for backtracking count exceeded",
        ),
    )
    assert openai_chat.check(_openai(json.dumps({"city": "aab"}), tools=_tools(schema))) == ()
