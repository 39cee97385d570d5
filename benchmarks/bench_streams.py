"""Assembling provider streams: speed against msgspec, one process.

Run it with `python benchmarks/bench_streams.py [--megabytes 10] [--rounds 5]`. For each
stream format it writes, with `message_ir.streams.script`, the SSE stream of one assistant
message of text and calls (text and arguments in deltas of 8 characters, as providers send
them) of some megabytes (about `--megabytes` for OpenAI Chat's, the most verbose), then
times, interleaved over `--rounds`, in one process:

- the floor: `msgspec.json.decode` of every event's JSON payload (the same bytes, already cut
  out of the SSE framing);
- `assemble` of the whole SSE text, framing included.

It prints the median of each and the ratio (the floor's time over `assemble`'s: 1.0 would be
as fast as decoding the payloads alone).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import msgspec

from message_ir import AssistantMessage, assistant_message
from message_ir.streams import STREAM_FORMATS, assemble, script


def message(megabytes: float) -> AssistantMessage:
    """One assistant message of text and calls, about `megabytes` of SSE once scripted."""
    blocks: list[dict[str, object]] = []
    target = int(megabytes * 1e6 / 12)  # the SSE of a text delta is about 12 times its text
    size = 0
    number = 0
    while size < target:
        text = "The weather in Oslo is mild today, with some rain in the evening. " * 4
        blocks.append({"type": "text", "text": text})
        arguments = {"city": "Oslo", "days": number % 14 + 1, "units": "metric"}
        blocks.append({"type": "toolCall", "id": f"call_{number}", "name": "weather", "arguments": arguments})
        size += len(text) + 60
        number += 1
    return assistant_message(id="resp_bench", content=blocks)  # type: ignore[arg-type]  # plain block data


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--megabytes", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=5)
    arguments = parser.parse_args()
    decode = msgspec.json.Decoder().decode
    print(f"Python {sys.version.split()[0]}; medians of {arguments.rounds} interleaved rounds, one process")
    for format in STREAM_FORMATS:
        pieces = script(message(arguments.megabytes / 2), format, chunks=8)
        text = b"".join(pieces)
        payloads = [piece[len(b"data: ") :].rstrip(b"\n") for piece in pieces if piece != b"data: [DONE]\n\n"]
        floor: list[float] = []
        ours: list[float] = []
        for _ in range(arguments.rounds):
            start = time.perf_counter()
            for payload in payloads:
                decode(payload)
            floor.append(time.perf_counter() - start)
            start = time.perf_counter()
            assemble(text, format)
            ours.append(time.perf_counter() - start)
        size = len(text) / 1e6
        floor_ms, ours_ms = statistics.median(floor) * 1e3, statistics.median(ours) * 1e3
        print(
            f"  {format:<17} {size:6.1f} MB, {len(payloads):8,} events  floor {floor_ms:7.1f} ms"
            f"  assemble {ours_ms:7.1f} ms  {floor_ms / ours_ms:.2f}x"
        )


if __name__ == "__main__":
    main()
