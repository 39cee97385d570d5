"""The speed of the OpenAI Chat adapter, as ratios against msgspec's untyped decode (the floor).

Run it with `python benchmarks/bench_adapters.py [--messages 20000] [--rounds N]`. The data are
the real tau-bench transcripts of `../shared/real/openai-chat` (read in place), repeated to
about `--messages` messages in one list (their reused call IDs are renamed on load, as in the
real files). Every measurement runs in this one process, round by round, with the garbage
collector off while timing; the table reports medians as ratios to the floor. What a user
would pick instead, LangChain's `convert_to_messages` (and back with
`convert_to_openai_messages`), runs on the same data for comparison (it is not lossless: it
drops unknown fields and reorders keys; it is a benchmark dependency only).
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import msgspec
from langchain_core.messages import convert_to_messages, convert_to_openai_messages

from message_ir.adapters import openai_chat

REAL = Path(__file__).resolve().parents[2] / "shared" / "real" / "openai-chat"


def dataset(count: int) -> bytes:
    records: list[object] = []
    for path in sorted(REAL.glob("tau-bench_*.json")):
        record = json.loads(path.read_bytes())
        records.extend(record["traj"])
    messages: list[object] = []
    while len(messages) < count:
        messages.extend(records)
    return json.dumps(messages[:count]).encode()


def median_seconds(function: Callable[[], object], rounds: int) -> float:
    times: list[float] = []
    for _ in range(rounds):
        gc.disable()
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
        gc.enable()
        gc.collect()
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    arguments = parser.parse_args()
    data = dataset(arguments.messages)
    conversation = openai_chat.load(data)
    assert openai_chat.dumps(conversation) == msgspec.json.encode(msgspec.json.decode(data))
    floor = median_seconds(lambda: msgspec.json.decode(data), arguments.rounds)
    rows = {
        "msgspec.json.decode (floor)": floor,
        "openai_chat.load": median_seconds(lambda: openai_chat.load(data), arguments.rounds),
        "openai_chat.dumps": median_seconds(lambda: openai_chat.dumps(conversation), arguments.rounds),
        "openai_chat.check": median_seconds(lambda: openai_chat.check(data), arguments.rounds),
        "LangChain: convert_to_messages(json)": median_seconds(
            lambda: convert_to_messages(msgspec.json.decode(data)), arguments.rounds
        ),
        "LangChain: ... then convert_to_openai_messages": median_seconds(
            lambda: convert_to_openai_messages(convert_to_messages(msgspec.json.decode(data))), arguments.rounds
        ),
    }
    print(f"{arguments.messages:,} OpenAI Chat messages ({len(data) / 1e6:.1f} MB): time as a multiple of the floor")
    for name, seconds in rows.items():
        print(f"  {name:<48}{seconds / floor:6.2f}x")


if __name__ == "__main__":
    main()
