"""The command line on provider formats: validate --from, repair --from, convert, formats."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.adapters.real import openai_chat_messages, real_files

TAU = "tau-bench_gpt-4o-airline_rec006.json"


def run(*arguments: str) -> subprocess.CompletedProcess[str]:
    completed = subprocess.run(
        [sys.executable, "-m", "message_ir", *arguments], capture_output=True, text=True, timeout=60, check=False
    )
    assert "Traceback" not in completed.stderr
    return completed


def tau_file(folder: Path, *, drop_result: bool) -> Path:
    messages = openai_chat_messages(real_files("openai-chat", TAU)[0])
    if drop_result:
        del messages[5]
    path = folder / ("broken.json" if drop_result else "tau.json")
    path.write_text(json.dumps(messages))
    return path


def test_formats_lists_every_format_by_its_command_line_name() -> None:
    completed = run("formats")
    assert completed.returncode == 0
    assert [line.split()[0] for line in completed.stdout.splitlines()] == [
        "openai-chat",
        "anthropic",
        "openai-responses",
        "gemini",
        "hf-chat",
        "sharegpt",
        "mistral",
        "bedrock",
        "vercel-ai",
        "otel-genai",
        "claude-code",
        "codex",
        "pi",
        "gemini-cli",
    ]


def test_validate_detects_the_format_and_reports_in_source_terms(tmp_path: Path) -> None:
    assert run("validate", str(tau_file(tmp_path, drop_result=False))).stdout.endswith("tau.json: valid\n")
    broken = tau_file(tmp_path, drop_result=True)
    completed = run("validate", "--from", "openai-chat", str(broken))
    assert completed.returncode == 1
    assert completed.stdout == (
        f"{broken}:4: MISSING_TOOL_RESULT Tool call 'call_ztbxGlsMpczBygT2okQo2s7W' has no result after it"
        " (at $[4].tool_calls[0])\n"
    )


def test_repair_writes_the_same_format_back_over_the_input(tmp_path: Path) -> None:
    broken = tau_file(tmp_path, drop_result=True)
    before = json.loads(broken.read_text())
    completed = run("repair", "--from", "openai-chat", str(broken), "-o", str(broken))
    assert completed.returncode == 0
    assert completed.stderr.startswith(f"{broken}:4: MISSING_TOOL_RESULT inserted_result")  # the file's index
    after = json.loads(broken.read_text())
    assert after[:5] == before[:5]
    assert after[6:] == before[5:]
    assert after[5]["role"] == "tool"
    assert run("validate", str(broken)).returncode == 0
    assert list(tmp_path.iterdir()) == [broken]  # no temporary file left behind


def test_convert_writes_the_target_format_with_notes_on_stderr(tmp_path: Path) -> None:
    source = tau_file(tmp_path, drop_result=False)
    target = tmp_path / "anthropic.json"
    completed = run("convert", "--to", "anthropic", str(source), "-o", str(target))
    assert completed.returncode == 0
    assert "DROPPED_META" in completed.stderr
    body = json.loads(target.read_text())
    assert list(body) == ["system", "messages"]
    assert run("validate", "--from", "anthropic", str(target)).returncode == 0


def test_an_unknown_format_is_a_usage_error() -> None:
    completed = run("validate", "--from", "bogus", "x.json")
    assert completed.returncode == 2
    choices = (
        "openai-chat, anthropic, openai-responses, gemini, hf-chat, sharegpt, mistral, bedrock, vercel-ai, otel-genai,"
        " claude-code, codex, pi, gemini-cli"
    )
    assert f"unknown format 'bogus' (choose from {choices})" in completed.stderr


def test_a_recording_repair_leaves_alone_is_written_back_byte_for_byte(tmp_path: Path) -> None:
    # Two calls of one record sharing an ID: repair cannot tell their results apart and leaves
    # them; the file (pretty-printed, with numbers as gemini-cli wrote them) comes back as it was.
    source = json.loads(real_files("gemini", "*parallel-calls.json")[0].read_bytes())
    calls = source["messages"][1]["toolCalls"]
    calls[1]["id"] = calls[0]["id"]
    path = tmp_path / "session.json"
    path.write_text(json.dumps(source, indent=2))
    completed = run("repair", str(path), "-o", str(tmp_path / "out.json"))
    assert completed.returncode == 1
    assert completed.stderr == (
        f"{path}:1: DUPLICATE_TOOL_CALL_ID unrepaired: Tool call ID {calls[0]['id']!r} is used twice; left as it is\n"
    )
    assert (tmp_path / "out.json").read_bytes() == path.read_bytes()


def test_repair_exits_1_and_says_what_it_does_not_fix(tmp_path: Path) -> None:
    path = tmp_path / "turns.json"
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "read", "input": {}}]},
        {"role": "user", "content": "wait"},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}]},
    ]
    path.write_text(json.dumps(messages))
    completed = run("repair", "--from", "anthropic", str(path), "-o", str(tmp_path / "out.json"))
    assert completed.returncode == 1
    assert completed.stderr == (
        f"{tmp_path / 'out.json'}:3: RESULT_NOT_FIRST not fixed: The result for 'toolu_1' comes after other "
        "content in its user turn (at $[3].content[0])\n"
        f"message-ir: {path}: repair does not fix 1 problem (see above)\n"
    )
    assert (tmp_path / "out.json").read_bytes() == path.read_bytes()


def test_repair_detects_a_log_whose_first_line_is_longer_than_a_read_batch(tmp_path: Path) -> None:
    lines = [
        {"type": "summary", "summary": "x" * 300_000, "leafUuid": "a1"},  # over 256 KB
        {"type": "user", "uuid": "u1", "parentUuid": None, "message": {"role": "user", "content": "hi"}},
        {
            "type": "assistant",
            "uuid": "a1",
            "parentUuid": "u1",
            "message": {
                "id": "m1",
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}],
            },
        },
    ]
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    completed = run("repair", str(path), "-o", str(tmp_path / "out.jsonl"))
    assert (completed.returncode, completed.stderr) == (
        0,
        f"{path}:3: MISSING_TOOL_RESULT inserted_result: Inserted an error result for 'toolu_1', which had none\n",
    )
    written = (tmp_path / "out.jsonl").read_bytes().splitlines()
    assert [json.loads(line)["type"] for line in written] == ["summary", "user", "assistant", "user"]


def test_validate_and_repair_name_the_same_1_based_line_for_a_call_of_a_split_message(tmp_path: Path) -> None:
    # Claude Code writes one assistant message over several lines (one per block): the call
    # stands on the message's second line, line 3 of the file.
    message = {"id": "m1", "role": "assistant"}
    lines = [
        {"type": "user", "uuid": "u1", "sessionId": "s", "message": {"role": "user", "content": "hi"}},
        {"type": "assistant", "uuid": "a1", "message": {**message, "content": [{"type": "text", "text": "look"}]}},
        {
            "type": "assistant",
            "uuid": "a2",
            "message": {**message, "content": [{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}]},
        },
        {"type": "user", "uuid": "u2", "message": {"role": "user", "content": "next"}},
    ]
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert run("validate", str(path)).stdout == (
        f"{path}:3: MISSING_TOOL_RESULT Tool call 'toolu_1' has no result after it (at $[2].message.content[0])\n"
    )
    assert run("repair", str(path), "-o", str(tmp_path / "out.jsonl")).stderr == (
        f"{path}:3: MISSING_TOOL_RESULT inserted_result: Inserted an error result for 'toolu_1', which had none\n"
    )
