"""Codex's paginated rollouts: every line numbered (`ordinal`), read like the single file; a
missing or repeated number is `LOG_RECORD_GAP`. The rollout is a real one, numbered here the
way the paginated layout numbers its lines (after `timestamp`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import msgspec

from message_ir.adapters import LogFile, codex

REAL = Path(__file__).resolve().parents[3] / "shared" / "real" / "openai-responses"
ROLLOUT = REAL / "codemie-code_codex-cli-0.125.0_rollout-019e1625_lines0-62.jsonl"


def paginated(first: int = 0) -> list[dict[str, object]]:
    lines = [json.loads(line) for line in ROLLOUT.read_bytes().splitlines()]
    numbered = []
    for ordinal, line in enumerate(lines, start=first):
        entry = {"timestamp": line["timestamp"], "ordinal": ordinal}
        entry.update((key, value) for key, value in line.items() if key != "timestamp")
        numbered.append(entry)
    meta = numbered[0]["payload"]
    assert type(meta) is dict
    meta["history_mode"] = "paginated"
    return numbered


def jsonl(lines: list[dict[str, object]]) -> bytes:
    return b"".join(msgspec.json.encode(line) + b"\n" for line in lines)


def gaps(data: bytes) -> list[str]:
    return [str(found) for found in codex.check(data) if found.code == "LOG_RECORD_GAP"]


def test_a_paginated_rollout_reads_like_the_single_file() -> None:
    data = jsonl(paginated())
    single = ROLLOUT.read_bytes()
    assert codex.check(data) == codex.check(single)
    assert [m.id for m in codex.load(data).messages] == [m.id for m in codex.load(single).messages]
    assert codex.dumps(codex.load(data)) == data
    assert codex.check(LogFile(ROLLOUT)) == codex.check(single)


def test_a_missing_record_is_a_gap() -> None:
    lines = paginated(first=7)
    del lines[10:13]
    assert gaps(jsonl(lines)) == [
        "LOG_RECORD_GAP: Record 20 follows record 16: 3 records missing; Codex cannot resume past a gap"
        " - at `$[10].ordinal`"
    ]


def test_a_repeated_record_and_a_missing_number_are_gaps() -> None:
    lines = paginated()
    lines.insert(5, lines[4])
    lines[20] = {key: value for key, value in lines[20].items() if key != "ordinal"}
    assert gaps(jsonl(lines)) == [
        "LOG_RECORD_GAP: Record 4 comes again after record 4; Codex cannot resume past it - at `$[5].ordinal`",
        "LOG_RECORD_GAP: Expected the record number (`ordinal`, an `int` of at least 0), got `null`"
        " - at `$[20].ordinal`",
    ]
    assert codex.dumps(codex.load(jsonl(lines))) == jsonl(lines)


def test_a_compressed_archived_rollout_is_refused_with_how_to_read_it(tmp_path: Path) -> None:
    archived = tmp_path / "rollout.jsonl.zst"
    archived.write_bytes(b"\x28\xb5\x2f\xfd")
    for command in ("validate", "usage", "repair"):
        done = subprocess.run(
            [sys.executable, "-m", "message_ir", command, str(archived)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert (command, done.returncode, done.stderr) == (
            command,
            2,
            f"message-ir: error: {archived}: compressed with zstd (Codex compresses archived rollouts):"
            " decompress it first, `zstd -d FILE`\n",
        )
