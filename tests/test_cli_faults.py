"""The command line under faults: closed or full streams, odd file names, failed writes."""

from __future__ import annotations

import io
import json
import os
import resource
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from message_ir._cli import main

VALID = b'[{"role":"user","id":"u","content":"hi"}]'
MISSING = (
    b'[{"role":"assistant","id":"a","content":[{"type":"toolCall","id":"c","name":"read","arguments":{}}]},'
    b'{"role":"user","id":"u","content":"next"}]'
)


def run(
    *arguments: str | bytes,
    stdout: int | object = subprocess.PIPE,
    setup: Callable[[], None] | None = None,
    measured: bool = True,
) -> subprocess.CompletedProcess[bytes]:
    """The command line in a child process; `measured=False` keeps coverage out of it (its data
    file cannot be written under a file size limit)."""
    environment = None if measured else {key: value for key, value in os.environ.items() if "COVERAGE" not in key}
    completed = subprocess.run(
        [sys.executable, "-m", "message_ir", *arguments],
        env=environment,
        stdout=stdout,  # type: ignore[arg-type]  # a file or a PIPE
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        preexec_fn=setup,  # only closes a descriptor or sets a limit
        timeout=60,
        check=False,
    )
    assert b"Traceback" not in completed.stderr
    return completed


def test_a_file_name_that_is_not_utf8_is_reported_in_json(tmp_path: Path) -> None:
    name = os.fsencode(tmp_path) + b"/bad\xff.json"
    with open(name, "wb") as stream:
        stream.write(VALID)
    completed = run("validate", "--format", "json", name)
    assert completed.returncode == 0
    assert f"{tmp_path}/bad\ufffd.json".encode() in completed.stdout


def test_closed_standard_input_is_one_line_and_status_2() -> None:
    completed = run("validate", "-", setup=lambda: os.close(0))
    assert completed.returncode == 2
    assert completed.stderr == b"message-ir: error: standard input is closed\n"
    assert run("examples", setup=lambda: os.close(0)).returncode == 0  # nothing touches it at import


def test_a_full_standard_output_is_one_line_and_status_2() -> None:
    with open("/dev/full", "w") as full:
        completed = run("examples", stdout=full)
    assert completed.returncode == 2
    assert completed.stderr == b"message-ir: error: cannot write to standard output: No space left on device\n"


def test_a_closed_standard_output_is_one_line_and_status_2() -> None:
    completed = run("examples", setup=lambda: os.close(1))
    assert completed.returncode == 2
    assert completed.stderr == b"message-ir: error: standard output is closed\n"


def limit_file_size() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))


def test_repair_over_its_input_keeps_the_input_when_the_write_fails(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    path.write_bytes(MISSING)
    completed = run("repair", str(path), "-o", str(path), setup=limit_file_size, measured=False)
    assert completed.returncode == 2
    assert completed.stderr.splitlines()[-1] == f"message-ir: error: cannot write {path}: File too large".encode()
    assert path.read_bytes() == MISSING
    assert [entry.name for entry in tmp_path.iterdir()] == ["session.json"]


def test_main_takes_its_streams_and_arguments() -> None:
    stdout, stderr = io.StringIO(), io.StringIO()
    status = main(["validate", "-"], stdin=io.BytesIO(VALID), stdout=stdout, stderr=stderr)
    assert (status, stdout.getvalue(), stderr.getvalue()) == (0, "-: valid\n", "")
    status = main(["validate", "-"], stdin=io.BytesIO(MISSING), stdout=stdout, stderr=stderr)
    assert status == 1
    assert stdout.getvalue().splitlines()[-1] == (
        "-:0: MISSING_TOOL_RESULT Tool call 'c' has no result after it (at $[0].content[0])"
    )


def test_main_reports_bad_usage_on_its_own_stderr() -> None:
    stdout, stderr = io.StringIO(), io.StringIO()
    with pytest.raises(SystemExit) as exited:
        main(["validate", "--from", "bogus", "x"], stdout=stdout, stderr=stderr)
    assert exited.value.code == 2
    assert stderr.getvalue().splitlines()[-1] == (
        "message-ir validate: error: argument --from: unknown format 'bogus' "
        "(choose from openai-chat, anthropic, openai-responses, gemini, hf-chat, sharegpt, mistral, bedrock,"
        " vercel-ai, otel-genai, claude-code, codex, pi, gemini-cli)"
    )


def test_out_of_memory_is_one_line_and_status_2_and_the_input_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import message_ir._cli as cli

    def exhausted(*arguments: object, **keywords: object) -> object:
        raise MemoryError

    path = tmp_path / "session.json"
    path.write_bytes(MISSING)
    monkeypatch.setattr(cli, "repair_transcript", exhausted)
    stdout, stderr = io.StringIO(), io.StringIO()
    assert main(["repair", str(path), "-o", str(path)], stdout=stdout, stderr=stderr) == 2
    assert stderr.getvalue() == (
        "message-ir: error: out of memory (repair and convert hold a file in memory whole,"
        " several times its size); nothing was written\n"
    )
    assert path.read_bytes() == MISSING


def test_check_dataset_reports_a_file_name_that_is_not_utf8_in_json(tmp_path: Path) -> None:
    name = os.fsencode(tmp_path) + b"/bad\xff.jsonl"
    with open(name, "wb") as stream:
        stream.write(b'{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"Hi."}]}\n')
        stream.write(b'{"messages":[{"role":"assistant","content":"Hi."}]}\n{"messages":7}\n')
    completed = run("check-dataset", "--format", "json", name)
    assert completed.returncode == 1
    shown = f"{tmp_path}/bad\ufffd.jsonl"
    report = json.loads(completed.stdout)
    assert report["files"] == [[shown, 3]]
    assert [example["file"] for examples in report["examples"].values() for example in examples] == [shown]
