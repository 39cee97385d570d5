"""Counting a dataset's tokens with the user's own tokenizer: totals, a histogram, lines over
`--max-tokens`, and clear errors for a tokenizer that cannot be used."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from message_ir.adapters import FormatError, openai_chat
from message_ir.datasets import Summary, TokenizerError, Tokens, check_dataset, merge
from tests.dataset_factory import write_dataset

TOKENIZER = """
def words(text):
    return len(text.split())

def fails(text):
    raise ValueError("no vocabulary")

def text(text):
    return str(len(text))

def yes(text):
    return True
"""


@pytest.fixture
def dataset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "mytokens.py").write_text(TOKENIZER)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "train.jsonl"
    write_dataset(path, 120, seed=3, valid_share=0.9)
    return path


def words_of(line: bytes) -> int | None:
    """The count the tokenizer `words` gives a line, computed here from the IR."""
    try:
        conversation = openai_chat.load(line)
    except FormatError:  # a line that is no conversation is not counted
        return None
    texts = [instruction.text for instruction in conversation.instructions]
    for message in conversation.messages:
        if message.role == "assistant":
            for block in message.content:
                if block.type == "text":
                    texts.append(block.text)
                elif block.type == "toolCall":
                    texts.extend((block.name, bytes(block.arguments_json).decode()))
        else:
            texts.append(message.content)
    return sum(len(text.split()) for text in texts)


def test_totals_longest_histogram_and_lines_over_the_limit(dataset: Path) -> None:
    counts = [words_of(line) for line in dataset.read_bytes().splitlines()]
    counted = [count for count in counts if count is not None]
    most = sorted(counted)[len(counted) // 2]
    summary = check_dataset([dataset], counter="mytokens:words", max_tokens=most, examples=200)
    expected = Tokens()
    for count in counted:
        expected.add(count)
    assert summary.tokens == expected
    assert summary.tokens.total == sum(counted)
    assert summary.tokens.longest == max(counted)
    over = [number for number, count in enumerate(counts, start=1) if count is not None and count > most]
    assert [example.line for example in summary.examples["TOO_MANY_TOKENS"]] == over
    assert summary.examples["TOO_MANY_TOKENS"][0].diagnostic.message == (
        f"{counts[over[0] - 1]:,} tokens, more than the {most:,} allowed"
    )
    assert check_dataset([dataset], counter="mytokens:words", max_tokens=most, examples=200, processes=3) == summary
    assert check_dataset([dataset]).tokens is None


def test_the_histogram_buckets_lines_by_powers_of_two() -> None:
    tokens = Tokens()
    for count in (0, 128, 129, 5000, 2_000_000):
        tokens.add(count)
    assert tokens.histogram == {"128": 2, "256": 1, "8192": 1, "more": 1}
    assert tokens.merged(tokens) == Tokens(2 * tokens.total, 2_000_000, {"128": 4, "256": 2, "8192": 2, "more": 2})


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("mytokens:fails", "train.jsonl:1: the tokenizer raised ValueError: no vocabulary"),
        ("mytokens:text", "train.jsonl:1: the tokenizer returned str '"),
        ("mytokens:yes", "train.jsonl:1: the tokenizer returned bool True, not a count of tokens"),
        ("mytokens:nothing", "--tokenizer 'mytokens:nothing': mytokens has no function nothing"),
        ("absent_module:count", "--tokenizer 'absent_module:count': cannot import absent_module: No module named"),
        ("mytokens", "--tokenizer 'mytokens': expected MODULE:FUNCTION, such as mytokens:count"),
    ],
)
def test_a_tokenizer_that_cannot_be_used_is_named(dataset: Path, name: str, message: str) -> None:
    with pytest.raises(TokenizerError) as raised:
        check_dataset([dataset], counter=name)
    assert str(raised.value).replace(str(dataset), "train.jsonl").startswith(message)
    done = subprocess.run(
        [sys.executable, "-m", "message_ir", "check-dataset", "train.jsonl", "--tokenizer", name, "-j", "2"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith(f"message-ir: error: {message}")
    assert "Traceback" not in done.stderr


def test_the_command_line_prints_the_tokens(dataset: Path) -> None:
    def run(*arguments: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "message_ir", "check-dataset", "train.jsonl", *arguments]
        return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)

    summary = check_dataset([dataset], counter="mytokens:words")
    assert summary.tokens is not None
    text = run("--tokenizer", "mytokens:words").stdout.splitlines()
    at = text.index(f"tokens: {summary.tokens.total:,} in all, {summary.tokens.longest:,} in the longest line")
    assert [line.split()[:3] for line in text[at + 1 :]] == [
        ["<=", f"{int(label):,}", str(count)] for label, count in summary.tokens.histogram.items()
    ]
    shown = json.loads(run("--tokenizer", "mytokens:words", "--format", "json").stdout)
    assert shown["tokens"] == {
        "total": summary.tokens.total,
        "longest": summary.tokens.longest,
        "histogram": summary.tokens.histogram,
    }
    refused = run("--max-tokens", "5")
    assert (refused.returncode, refused.stderr) == (
        2,
        "message-ir: error: --max-tokens needs --tokenizer MODULE:FUNCTION to count with\n",
    )


def test_a_summary_s_histogram_is_in_bucket_order() -> None:
    part = Summary(tokens=Tokens())
    assert part.tokens is not None
    for count in (5000, 7, 300, 2_000_000):  # buckets met out of order, as lines come
        part.tokens.add(count)
    merged = merge([part])
    assert merged.tokens is not None
    assert list(merged.tokens.histogram) == ["128", "512", "8192", "more"]
