"""`validate` on JSON Lines prints as it reads, and stops where it is told to."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from message_ir import iter_jsonl_diagnostics, validate_jsonl
from message_ir._cli import main

CALL = b'{"role":"assistant","id":"a","content":[{"type":"toolCall","id":"c","name":"n","arguments":{}}]}\n'


def run(*argv: str) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    status = main(list(argv), stdout=stdout, stderr=stderr)
    return status, stdout.getvalue(), stderr.getvalue()


def test_diagnostics_stream_and_a_cap_stops_the_read(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    log.write_bytes(b"{}\n" * 1000 + CALL)
    status, out, err = run("validate", "--max-diagnostics", "3", str(log))
    assert status == 1
    assert out.splitlines() == [
        f"{log}:{index + 1}: UNKNOWN_ROLE Object missing required field `role` (at $[{index}])" for index in range(3)
    ]
    assert err == "message-ir: stopped after 3 diagnostics (--max-diagnostics 3)\n"


def test_shape_problems_come_first_then_the_linkage_known_at_the_end(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    log.write_bytes(CALL + b"{}\n")
    status, out, _ = run("validate", str(log))
    assert status == 1
    assert out.splitlines() == [
        f"{log}:2: UNKNOWN_ROLE Object missing required field `role` (at $[1])",
        f"{log}:1: MISSING_TOOL_RESULT Tool call 'c' has no result after it (at $[0].content[0])",
    ]
    lines = (CALL + b"{}\n").splitlines()
    assert [d.message_index for d in iter_jsonl_diagnostics(lines)] == [1, 0]
    assert [d.message_index for d in validate_jsonl(lines)] == [0, 1]


def test_max_diagnostics_must_be_a_positive_number() -> None:
    stdout, stderr = io.StringIO(), io.StringIO()
    with pytest.raises(SystemExit) as exited:
        main(["validate", "--max-diagnostics", "0", "x.jsonl"], stdout=stdout, stderr=stderr)
    assert exited.value.code == 2
    assert "expected a whole number from 1, got '0'" in stderr.getvalue()


def test_repair_takes_a_shipped_example(tmp_path: Path) -> None:
    fixed = tmp_path / "fixed.json"
    status, _, err = run("repair", "--example", "missing-tool-result", "-o", str(fixed))
    assert status == 0
    assert err == (
        "missing-tool-result.json:1: MISSING_TOOL_RESULT inserted_result: "
        "Inserted an error result for 'call-read-001', which had none\n"
    )
    assert run("validate", str(fixed))[:2] == (0, f"{fixed}: valid\n")


def test_repair_wants_one_input() -> None:
    stdout, stderr = io.StringIO(), io.StringIO()
    with pytest.raises(SystemExit):
        main(["repair"], stdout=stdout, stderr=stderr)
    assert stderr.getvalue().splitlines()[-1] == "message-ir: error: repair: give IN or --example NAME (one of them)"


def test_help_goes_to_standard_output() -> None:
    stdout, stderr = io.StringIO(), io.StringIO()
    with pytest.raises(SystemExit) as exited:
        main(["--help"], stdout=stdout, stderr=stderr)
    assert exited.value.code == 0
    assert stdout.getvalue().startswith("usage: message-ir")


def test_max_diagnostics_refuses_what_is_not_a_number() -> None:
    stdout, stderr = io.StringIO(), io.StringIO()
    with pytest.raises(SystemExit):
        main(["validate", "--max-diagnostics", "many", "x"], stdout=stdout, stderr=stderr)
    assert "expected a whole number from 1, got 'many'" in stderr.getvalue()


def test_repair_and_convert_say_why_they_cannot(tmp_path: Path) -> None:
    assert run("repair", "--example", "no-such-example")[0] == 2
    bad = tmp_path / "bad.json"
    bad.write_text('[{"role": "function", "content": "x"}]')
    status, _, err = run("repair", "--from", "openai-chat", str(bad))
    assert status == 1
    assert err.splitlines()[-1] == f"message-ir: {bad}: not repaired: not openai-chat data"
    status, _, err = run("convert", "--from", "openai-chat", "--to", "anthropic", str(bad))
    assert status == 1
    assert err.splitlines()[-1] == f"message-ir: {bad}: not converted: not openai-chat data"
    unknown = tmp_path / "unknown.json"
    unknown.write_text("42")
    status, _, err = run("convert", "--to", "anthropic", str(unknown))
    assert (status, err) == (2, f"message-ir: error: {unknown}: cannot tell its format; name it with --from\n")


def test_a_write_that_fails_is_one_line(tmp_path: Path) -> None:
    status, _, err = run("repair", "--example", "valid-round", "-o", str(tmp_path / "missing" / "out.json"))
    assert status == 2
    assert (
        err.splitlines()[-1]
        == f"message-ir: error: cannot write {tmp_path / 'missing' / 'out.json'}: No such file or directory"
    )
