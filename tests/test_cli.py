"""The command line, end to end through a subprocess: every exit status and both formats."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import message_ir
from message_ir import decode_transcript, encode_transcript, user_message

EXAMPLES = Path(__file__).parent.parent / "src" / "message_ir" / "examples"


def run(*arguments: str, stdin: bytes = b"") -> subprocess.CompletedProcess[str]:
    completed = subprocess.run(
        [sys.executable, "-m", "message_ir", *arguments],
        input=stdin.decode(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "Traceback" not in completed.stderr
    return completed


def test_examples_are_listed() -> None:
    completed = run("examples")
    assert completed.returncode == 0
    assert completed.stdout.split() == [
        "duplicate-tool-call-id.json",
        "duplicate-tool-result.json",
        "missing-tool-result.json",
        "orphan-tool-result.json",
        "tool-name-mismatch.json",
        "tool-result-before-call.json",
        "valid-round-log.jsonl",
        "valid-round.json",
    ]


def test_a_valid_example_exits_0() -> None:
    completed = run("validate", "--example", "valid-round", "--example", "valid-round-log.jsonl")
    assert (completed.returncode, completed.stdout) == (0, "valid-round.json: valid\nvalid-round-log.jsonl: valid\n")


@pytest.mark.parametrize(
    ("example", "line"),
    [
        (
            "orphan-tool-result",
            "orphan-tool-result.json:1: ORPHAN_TOOL_RESULT Tool result answers 'call-missing', "
            "but no tool call has that ID (at $[1])",
        ),
        (
            "missing-tool-result",
            "missing-tool-result.json:1: MISSING_TOOL_RESULT Tool call 'call-read-001' has no result after it "
            "(at $[1].content[1])",
        ),
    ],
)
def test_a_broken_example_exits_1_with_one_line_per_diagnostic(example: str, line: str) -> None:
    completed = run("validate", "--example", example)
    assert (completed.returncode, completed.stdout) == (1, line + "\n")


def test_files_stdin_and_json_format(tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_bytes(encode_transcript([user_message(id="u", content="x")]))
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"role":"user","id":"u","content":"x"}\n{"role":"robot"}\n')
    completed = run("validate", "--format", "json", str(good), str(bad), "-", stdin=b"[7]")
    assert completed.returncode == 1
    assert json.loads(completed.stdout) == [
        {"file": str(good), "valid": True, "diagnostics": []},
        {
            "file": str(bad),
            "valid": False,
            "diagnostics": [
                {
                    "code": "UNKNOWN_ROLE",
                    "messageIndex": 1,
                    "path": "$[1].role",
                    "message": "Invalid role 'robot'; expected one of `user`, `assistant`, `toolResult`",
                }
            ],
        },
        {
            "file": "-",
            "valid": False,
            "diagnostics": [
                {
                    "code": "MESSAGE_NOT_A_RECORD",
                    "messageIndex": 0,
                    "path": "$[0]",
                    "message": "Expected a message (`dict` or a message struct), got `int`",
                }
            ],
        },
    ]


def test_not_json_is_reported_with_a_dash_for_the_index(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_bytes(b"\xff")
    completed = run("validate", str(path))
    assert (completed.returncode, completed.stdout) == (1, f"{path}:-: INVALID_JSON Invalid UTF-8 at byte 0 (at $)\n")


def test_stdin_as_jsonl() -> None:
    completed = run("validate", "--jsonl", "-", stdin=b'{"role":"user","id":"u","content":"x"}\n')
    assert (completed.returncode, completed.stdout) == (0, "-: valid\n")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (("validate",), "validate: give at least one PATH or --example NAME"),
        (("validate", "/nonexistent/t.json"), "cannot read /nonexistent/t.json: No such file or directory"),
        (("validate", "--example", "nope"), "no example named 'nope'; `message-ir examples` lists them"),
        (("validate", "--format", "xml", "x"), "invalid choice: 'xml'"),
        (("frobnicate",), "invalid choice: 'frobnicate'"),
        (("repair", "/nonexistent/t.json"), "cannot read /nonexistent/t.json: No such file or directory"),
    ],
)
def test_usage_errors_and_unreadable_files_exit_2(arguments: tuple[str, ...], message: str) -> None:
    completed = run(*arguments)
    assert completed.returncode == 2
    assert message in completed.stderr


def test_version_prints_the_packages_version() -> None:
    completed = run("--version")
    assert completed.returncode == 0
    assert completed.stdout == f"message-ir {message_ir.__version__}\n"
    assert completed.stderr == ""


def test_the_command_line_starts_without_what_few_commands_need(tmp_path: Path) -> None:
    # A process pool (15 ms to import) only for `-j` above 1, the shipped examples' reader only
    # for `examples` and `--example`, `render`, `redact` and the streams for their commands
    # (the stream formats' names only in the help of `assemble` and `render`): a one-process
    # `check-dataset` starts without any of them.
    path = tmp_path / "train.jsonl"
    path.write_text('{"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]}\n')
    script = (
        "import sys; from message_ir._cli import main; code = main(['check-dataset', sys.argv[1]]);"
        " print(code, sorted(name for name in sys.modules"
        " if name.startswith(('concurrent', 'importlib.resources', 'message_ir.render', 'message_ir.redact',"
        " 'message_ir.streams'))))"
    )
    completed = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, check=True)
    assert completed.stdout.splitlines()[-1] == "0 []"


def test_no_command_prints_help_and_exits_2() -> None:
    completed = run()
    assert completed.returncode == 2
    assert "usage: message-ir" in completed.stderr


def test_schema_describes_the_wire_format() -> None:
    completed = run("schema")
    assert completed.returncode == 0
    schema = json.loads(completed.stdout)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["type"] == "array"
    assert set(schema["$defs"]) == {
        "UserMessage",
        "AssistantMessage",
        "ToolResultMessage",
        "TextBlock",
        "ToolCall",
        "OpaqueBlock",
    }
    result = schema["$defs"]["ToolResultMessage"]
    assert result["required"] == ["role", "id", "toolCallId", "toolName", "content", "isError"]
    assert result["additionalProperties"] is False
    assert schema["$defs"]["ToolCall"]["properties"]["arguments"]["type"] == "object"


def test_repair_writes_a_valid_transcript_and_reports_fixes(tmp_path: Path) -> None:
    out = tmp_path / "fixed.json"
    completed = run("repair", str(EXAMPLES / "missing-tool-result.json"), "-o", str(out))
    assert completed.returncode == 0
    assert completed.stderr == (
        f"{EXAMPLES / 'missing-tool-result.json'}:1: MISSING_TOOL_RESULT inserted_result: "
        "Inserted an error result for 'call-read-001', which had none\n"
    )
    repaired = decode_transcript(out.read_bytes())
    assert [message.role for message in repaired] == ["user", "assistant", "toolResult", "user"]
    assert run("validate", str(out)).returncode == 0


def test_repair_to_stdout_as_jsonl_and_unrepaired_exits_1(tmp_path: Path) -> None:
    completed = run("repair", str(EXAMPLES / "valid-round-log.jsonl"))
    assert (completed.returncode, completed.stderr) == (0, "")
    assert completed.stdout == (EXAMPLES / "valid-round-log.jsonl").read_text()  # left as it is: byte for byte
    completed = run("repair", str(EXAMPLES / "duplicate-tool-call-id.json"))
    assert completed.returncode == 1
    assert "DUPLICATE_TOOL_CALL_ID unrepaired" in completed.stderr
    assert json.loads(completed.stdout)


def test_repair_refuses_a_malformed_transcript() -> None:
    completed = run("repair", "-", stdin=b'[{"role":"user","id":"","content":"x"}]')
    assert completed.returncode == 1
    assert completed.stderr == (
        "-:0: BAD_MESSAGE_ID Expected a non-empty `str`, got `''` (at $[0].id)\n"
        "message-ir: -: not repaired: repair fixes linkage only\n"
    )


@pytest.mark.parametrize(("length", "count", "shown"), [(150, 60_000, b"11 MB"), (9_000, 1_000, b"9 MB")])
def test_progress_shows_on_a_terminal_for_a_large_log(tmp_path: Path, length: int, count: int, shown: bytes) -> None:
    """By bytes: many short lines and a few long ones alike."""
    import os
    import pty

    log = tmp_path / "big.jsonl"
    line = b'{"role":"user","id":"u","content":"' + b"x" * length + b'"}\n'
    log.write_bytes(line * count)  # over 8 MB
    primary, secondary = pty.openpty()
    try:
        completed = subprocess.run(
            [sys.executable, "-m", "message_ir", "validate", str(log)],
            stderr=secondary,
            stdout=subprocess.PIPE,
            timeout=120,
            check=False,
        )
        os.close(secondary)
        output = b""
        while True:
            try:
                chunk = os.read(primary, 4096)
            except OSError:
                break
            if not chunk:
                break
            output += chunk
    finally:
        os.close(primary)
    assert completed.returncode == 0
    assert completed.stdout == f"{log}: valid\n".encode()
    assert b"message-ir: " + str(log).encode() + b": " + shown + b", done" in output


def test_no_progress_when_stderr_is_not_a_terminal(tmp_path: Path) -> None:
    log = tmp_path / "big.jsonl"
    log.write_bytes((b'{"role":"user","id":"u","content":"' + b"x" * 150 + b'"}\n') * 60_000)
    completed = run("validate", str(log))
    assert (completed.returncode, completed.stderr) == (0, "")


def test_validate_writes_github_annotations_on_1_based_lines(tmp_path: Path) -> None:
    log = tmp_path / "a,b:c%.jsonl"
    log.write_text(
        '{"role":"user","id":"u","content":"hi"}\n'
        '{"role":"toolResult","id":"r","toolCallId":"gone","toolName":"read","content":"50%\\nmore","isError":false}\n'
    )
    whole = tmp_path / "t.json"
    whole.write_text(json.dumps([json.loads(line) for line in log.read_text().splitlines()]))
    done = run("validate", "--format", "github", str(log), str(whole))
    assert done.returncode == 1
    shown = str(log).replace("%", "%25").replace(":", "%3A").replace(",", "%2C")
    message = "Tool result answers 'gone', but no tool call has that ID (at $[1])"
    assert done.stdout.splitlines() == [
        f"::error file={shown},line=2,title=ORPHAN_TOOL_RESULT::{message}",
        f"::error file={whole},title=ORPHAN_TOOL_RESULT::{message}",  # a JSON file: no line to name
    ]
    assert run("validate", "--format", "github", "--example", "valid-round.json").stdout == ""
    odd = tmp_path / "odd.json"
    odd.write_text('[{"role": "50%", "id": "u", "content": "hi"}]')
    assert run("validate", "--format", "github", str(odd)).stdout == (
        f"::error file={odd},title=BAD_FORMAT::Invalid role '50%25'; expected one of system, developer, user,"
        " assistant, tool (at $[0].role)\n"  # a plain list of messages reads as OpenAI Chat
    )
