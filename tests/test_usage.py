"""Token usage: every API call of a real log counted once, summed, priced only from a table."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from message_ir.adapters import LogFile
from message_ir.usage import UNKNOWN, Call, Price, calls, read_prices, summarize
from tests.test_cli import run as cli_run

REAL = Path(__file__).resolve().parents[2] / "shared" / "real"
SPLIT = REAL / "anthropic" / "spotter_claude-code_tool_heavy.jsonl"
CODEX = REAL / "openai-responses" / "localpush_codex-desktop_rollout-019c8a4d_redacted.jsonl"
GEMINI_CLI = REAL / "gemini" / "m-gemini_gemini-cli-chat-recording_c330aea9_parallel-calls.json"
PI = REAL / "pi" / "pi-mono_before-compaction_lines0-24.jsonl"


def test_a_message_split_over_lines_is_one_call_with_its_last_usage() -> None:
    assistant = [json.loads(line) for line in SPLIT.read_bytes().splitlines() if b'"type":"assistant"' in line]
    last: dict[str, dict[str, int]] = {}
    for line in assistant:
        last[line["message"]["id"]] = line["message"]["usage"]
    assert len(last) < len(assistant)  # the log splits messages: ccusage counted each line
    found = list(calls(SPLIT.read_bytes(), "claude_code"))
    assert len(found) == len(last)
    assert [call.output for call in found] == [usage["output_tokens"] for usage in last.values()]
    assert sum(call.cache_read for call in found) == sum(usage["cache_read_input_tokens"] for usage in last.values())
    assert list(calls(LogFile(SPLIT), "claude_code")) == found  # read from disk a line at a time, the same


def test_codex_counts_a_token_count_event_once_per_new_total() -> None:
    records = [json.loads(line) for line in CODEX.read_bytes().splitlines()]
    totals: list[object] = []
    for line in records:
        payload = line["payload"]
        info = payload.get("info") if payload.get("type") == "token_count" else None
        if type(info) is dict and (not totals or info["total_token_usage"] != totals[-1]):
            totals.append(info["total_token_usage"])
    found = list(calls(CODEX.read_bytes(), "codex"))
    assert len(found) == len(totals)
    assert len(found) < sum(1 for line in records if line["payload"].get("type") == "token_count")
    last = totals[-1]
    assert type(last) is dict
    assert sum(call.input + call.cache_read for call in found) <= last["input_tokens"]
    assert {call.model for call in found} == {"gpt-5.3-codex"}


def test_gemini_cli_and_pi_count_each_answer() -> None:
    recording = json.loads(GEMINI_CLI.read_bytes())
    tokens = [record["tokens"] for record in recording["messages"] if record["type"] == "gemini" and "tokens" in record]
    found = list(calls(GEMINI_CLI.read_bytes(), "gemini_cli"))
    assert [call.output for call in found] == [count["output"] + count["thoughts"] for count in tokens]
    assert [call.input + call.cache_read for call in found] == [count["input"] for count in tokens]
    entries = [json.loads(line) for line in PI.read_bytes().splitlines()]
    pi_usage = [
        line["message"]["usage"] for line in entries if line["type"] == "message" and "usage" in line["message"]
    ]
    assert [call.cache_write for call in calls(LogFile(PI), "pi")] == [usage["cacheWrite"] for usage in pi_usage]


def call(model: str | None, session: str | None, timestamp: str | None, counts: tuple[int, int, int, int]) -> Call:
    return Call(session, model, timestamp, *counts, line=0)


def test_summaries_by_model_session_and_day_with_prices() -> None:
    found = [
        call("a", "s1", "2026-01-02T10:00:00Z", (1_000_000, 10, 20, 30)),
        call("a", "s2", "2026-01-03T10:00:00Z", (0, 1_000_000, 0, 0)),
        call(None, "s2", "yesterday", (5, 0, 0, 0)),
    ]
    by_model = summarize(found, "model", {"a": Price(2.0, 10.0, 0.5, 1.0)})
    assert [(row.key, row.calls, row.input, row.output, row.cost) for row in by_model.rows] == [
        ("(unknown)", 1, 5, 0, None),
        ("a", 2, 1_000_000, 1_000_010, 12.00014),  # 2 + 0.0001 + 0.00001 + 0.00003, and 10,
    ]
    assert by_model.total.cost is None
    assert by_model.unpriced == (UNKNOWN,)
    assert [row.key for row in summarize(found, "day").rows] == ["(unknown)", "2026-01-02", "2026-01-03"]
    by_session = summarize(found, "session")
    assert [(row.key, row.calls, row.cost) for row in by_session.rows] == [("s1", 1, None), ("s2", 2, None)]
    assert by_session.total.calls == 3
    assert summarize([], "model").total.calls == 0


@pytest.mark.parametrize(
    ("table", "message"),
    [
        (b"{", "the price table is not JSON: Input data was truncated"),
        (b"[]", "the price table is not an object of models, each an object of prices: Expected `object`, got `array`"),
        (
            b'{"m": {"input": 1, "output": 2, "fast": 1}}',
            "the price of 'm' has an unknown key 'fast' (known: input, output, cache_read, cache_write)",
        ),
        (b'{"m": {"input": 1}}', "the price of 'm' needs `output`, a number of at least 0"),
        (b'{"m": {"input": -1, "output": 2}}', "the price of 'm' needs `input`, a number of at least 0"),
        (b'{"m": {"input": true, "output": 2}}', "the price of 'm' needs `input`, a number of at least 0"),
    ],
)
def test_a_price_table_that_is_not_one_is_named(table: bytes, message: str) -> None:
    with pytest.raises(ValueError, match=r"^the price") as raised:
        read_prices(table)
    assert str(raised.value) == message


def test_prices_read() -> None:
    assert read_prices(b'{"m": {"input": 3, "output": 15.5}}') == {"m": Price(3.0, 15.5, 0.0, 0.0)}


def test_a_format_without_usage_is_a_value_error() -> None:
    with pytest.raises(ValueError, match=r"^'openai_chat' does not record token usage \(formats that do: "):
        list(calls(b"[]", "openai_chat"))


def run(*arguments: str) -> subprocess.CompletedProcess[str]:
    return cli_run("usage", *arguments)


def test_the_command_line(tmp_path: Path) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text(
        json.dumps({"claude-opus-4-6": {"input": 5, "output": 25, "cache_read": 0.5, "cache_write": 6.25}})
    )
    shown = run("--prices", str(prices), "--format", "json", str(SPLIT))
    assert shown.returncode == 0
    summary = json.loads(shown.stdout)
    found = list(calls(SPLIT.read_bytes(), "claude_code"))
    assert summary["total"]["calls"] == len(found)
    assert summary["rows"][0]["key"] == "claude-opus-4-6"
    assert type(summary["total"]["cost"]) is float
    text = run("--by", "session", str(SPLIT)).stdout.splitlines()
    assert text[0].split() == ["session", "calls", "input", "output", "cache", "read", "cache", "write"]
    assert text[-1].split()[:2] == ["total", str(len(found))]
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps([{"role": "user", "content": "hi"}]))
    refused = run(str(chat))
    assert refused.returncode == 2
    assert refused.stderr.startswith(f"message-ir: error: {chat}: not a session log that records token usage (")
    prices.write_text("{")
    bad = run("--prices", str(prices), str(SPLIT))
    assert (bad.returncode, bad.stderr) == (
        2,
        f"message-ir: error: {prices}: the price table is not JSON: Input data was truncated\n",
    )
    missing = run(str(tmp_path / "none.jsonl"), "--from", "claude-code")
    assert missing.returncode == 2
    assert missing.stderr.startswith("message-ir: error: cannot read ")


def test_a_file_that_is_not_its_format_says_why(tmp_path: Path) -> None:
    broken = tmp_path / "session.json"
    broken.write_text('{"sessionId": ')
    done = run("--from", "gemini-cli", str(broken))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"{broken}:-: INVALID_JSON Invalid JSON: Input data was truncated (at $)\n"
        f"message-ir: error: {broken}: not gemini-cli data; no usage summed\n"
    )
