"""The speed of the boundary, as ratios against msgspec's untyped decode (the floor) and pydantic v2.

Run it with `nox -s bench` (or `python benchmarks/bench_boundary.py [--sizes 1000,10000] [--rounds N]
[--compiled-python PATH]`). `nox -s bench` builds the opt-in compiled wheel (mypyc) into a
second environment and passes its interpreter as `--compiled-python`: the same measurements
then run there too (in a child process, the same rounds), and the table shows the pure and
the compiled build side by side, each as ratios to its own run's floor.
Transcripts are generated deterministically: a user message, an assistant message with text
and 1-3 tool calls with nested arguments, then results of 200-2000 characters, repeated.
Every measurement runs in this one process, interleaved round by round, with the garbage
collector off while timing (allocation-heavy decodes otherwise measure the collector); the
table reports medians and ratios, never absolute times alone, since machines are noisy.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import random
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable
from typing import Annotated, Literal

import msgspec
import pydantic

from message_ir import (
    Message,
    assistant_message,
    decode_transcript,
    encode_transcript,
    tool_result_message,
    user_message,
    validate_transcript,
)

# --- the data ---------------------------------------------------------------------------------

_WORDS = "the quick brown fox jumps over lazy dog read write file path line error value ok".split()  # noqa: SIM905


def _sentence(rng: random.Random, length: int) -> str:
    words: list[str] = []
    while sum(len(word) + 1 for word in words) < length:
        words.append(rng.choice(_WORDS))
    return " ".join(words)[:length]


def _arguments(rng: random.Random) -> dict[str, object]:
    return {
        "path": f"src/{rng.choice(_WORDS)}/{rng.choice(_WORDS)}.py",
        "limit": rng.randrange(1, 500),
        "options": {"recursive": rng.random() < 0.5, "depth": rng.randrange(5), "ratio": round(rng.random(), 4)},
        "patterns": [_sentence(rng, 12) for _ in range(rng.randrange(1, 4))],
        "context": {"lines": [rng.randrange(1000) for _ in range(3)], "note": None},
    }


def transcript_dicts(count: int, seed: int = 7) -> list[dict[str, object]]:
    """`count` messages in the wire form, generated deterministically."""
    rng = random.Random(seed)
    messages: list[dict[str, object]] = []
    turn = 0
    while len(messages) < count:
        turn += 1
        messages.append({"role": "user", "id": f"u{turn}", "content": _sentence(rng, rng.randrange(20, 200))})
        calls: list[dict[str, object]] = [
            {
                "type": "toolCall",
                "id": f"c{turn}-{i}",
                "name": rng.choice(["read", "grep", "write"]),
                "arguments": _arguments(rng),
            }
            for i in range(rng.randrange(1, 4))
        ]
        content: list[dict[str, object]] = [{"type": "text", "text": _sentence(rng, 80)}]
        for call in calls:
            content.append(call)
            if rng.random() < 0.3:
                content.append({"type": "text", "text": _sentence(rng, 40)})
        messages.append({"role": "assistant", "id": f"a{turn}", "content": content})
        for call in calls:
            messages.append(
                {
                    "role": "toolResult",
                    "id": f"r-{call['id']}",
                    "toolCallId": call["id"],
                    "toolName": call["name"],
                    "content": _sentence(rng, rng.randrange(200, 2000)),
                    "isError": rng.random() < 0.1,
                }
            )
    # Cut at a round boundary so that the transcript stays valid.
    while len(messages) > count or messages[-1]["role"] != "toolResult":
        messages.pop()
    return messages


def build_with_constructors(messages: list[dict[str, object]]) -> tuple[Message, ...]:
    """The transcript built from dicts by the package's constructors."""
    built: list[Message] = []
    for message in messages:
        role = message["role"]
        if role == "user":
            built.append(user_message(id=str(message["id"]), content=str(message["content"])))
        elif role == "assistant":
            built.append(assistant_message(id=str(message["id"]), content=message["content"]))  # type: ignore[arg-type]  # JSON-shaped blocks
        else:
            built.append(
                tool_result_message(
                    id=str(message["id"]),
                    tool_call_id=str(message["toolCallId"]),
                    tool_name=str(message["toolName"]),
                    content=str(message["content"]),
                    is_error=message["isError"] is True,
                )
            )
    return tuple(built)


# --- pydantic v2 on the same IR ----------------------------------------------------------------


class _Frozen(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(frozen=True, extra="forbid", populate_by_name=True)


class PydTextBlock(_Frozen):
    type: Literal["text"]
    text: str


class PydToolCall(_Frozen):
    type: Literal["toolCall"]
    id: Annotated[str, pydantic.StringConstraints(min_length=1)]
    name: Annotated[str, pydantic.StringConstraints(min_length=1)]
    arguments: dict[str, pydantic.JsonValue]


class PydUser(_Frozen):
    role: Literal["user"]
    id: Annotated[str, pydantic.StringConstraints(min_length=1)]
    content: str


class PydAssistant(_Frozen):
    role: Literal["assistant"]
    id: Annotated[str, pydantic.StringConstraints(min_length=1)]
    content: tuple[Annotated[PydTextBlock | PydToolCall, pydantic.Field(discriminator="type")], ...]


class PydToolResult(_Frozen):
    role: Literal["toolResult"]
    id: Annotated[str, pydantic.StringConstraints(min_length=1)]
    tool_call_id: Annotated[str, pydantic.Field(alias="toolCallId", min_length=1)]
    tool_name: Annotated[str, pydantic.Field(alias="toolName", min_length=1)]
    content: str
    is_error: Annotated[bool, pydantic.Field(alias="isError", strict=True)]


PYDANTIC_TRANSCRIPT = pydantic.TypeAdapter(
    tuple[Annotated[PydUser | PydAssistant | PydToolResult, pydantic.Field(discriminator="role")], ...]
)


# --- measuring ---------------------------------------------------------------------------------


def _time(function: Callable[[], object]) -> float:
    gc.disable()
    try:
        start = time.perf_counter()
        function()
        return time.perf_counter() - start
    finally:
        gc.enable()


def _peak_memory(function: Callable[[], object]) -> int:
    """The peak traced allocation while `function` runs, holding its result."""
    gc.collect()
    tracemalloc.start()
    try:
        kept = function()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del kept
    return peak


def measure(count: int, rounds: int) -> tuple[dict[str, float], int]:
    """Median seconds per case for a transcript of `count` messages, and its size in bytes."""
    dicts = transcript_dicts(count)
    data = json.dumps(dicts, separators=(",", ":")).encode()
    messages = decode_transcript(data)
    parsed = json.loads(data)
    assert validate_transcript(parsed) == ()
    assert encode_transcript(messages) == data
    assert build_with_constructors(dicts) == messages
    cases: dict[str, Callable[[], object]] = {
        "msgspec.json.decode (floor)": lambda: msgspec.json.decode(data),
        "decode_transcript": lambda: decode_transcript(data),
        "validate_transcript(json.loads output)": lambda: validate_transcript(parsed),
        "validate_transcript(constructed messages)": lambda: validate_transcript(messages),
        "encode_transcript": lambda: encode_transcript(messages),
        "msgspec.json.encode of the messages": lambda: msgspec.json.encode(messages),
        "json.dumps of the dicts": lambda: json.dumps(parsed),
        "constructors from dicts": lambda: build_with_constructors(dicts),
        "pydantic v2 validate_json": lambda: PYDANTIC_TRANSCRIPT.validate_json(data),
    }
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(rounds):
        for name, function in cases.items():  # interleaved: every case once per round
            samples[name].append(_time(function))
    return {name: statistics.median(times) for name, times in samples.items()}, len(data)


def _cpu() -> str:
    """The processor's name: `platform.processor()` is empty on Linux, /proc/cpuinfo is not."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown cpu"


def _build() -> str:
    """Which build of the package this process runs: `compiled` when mypyc's modules load."""
    from message_ir import _fast_path

    return "compiled" if (_fast_path.__file__ or "").endswith(".so") else "pure"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1000,10000,100000", help="message counts, comma-separated")
    parser.add_argument("--rounds", type=int, default=7, help="rounds per size (the median is reported)")
    parser.add_argument("--compiled-python", default=None, help="an interpreter with the compiled build installed")
    parser.add_argument("--ratios-to", default=None, help=argparse.SUPPRESS)  # the child's output file
    options = parser.parse_args(argv)
    sizes = [int(size) for size in str(options.sizes).split(",")]
    rounds = int(options.rounds)
    if options.ratios_to is not None:  # the child run of the compiled build: ratios only
        child: dict[str, dict[str, float]] = {}
        for size in sizes:
            times, _ = measure(size, rounds if size < 100_000 else max(3, rounds // 2))
            floor = times["msgspec.json.decode (floor)"]
            child[str(size)] = {name: seconds / floor for name, seconds in times.items()}
        with open(str(options.ratios_to), "w", encoding="utf-8") as stream:
            json.dump({"build": _build(), "ratios": child}, stream)
        return
    compiled: dict[str, dict[str, float]] = {}
    if options.compiled_python is not None:
        compiled = _compiled_ratios(str(options.compiled_python), str(options.sizes), rounds)
    print(
        f"machine: {platform.machine()}, {_cpu()}; Python {sys.version.split()[0]}; "
        f"msgspec {msgspec.__version__}; pydantic {pydantic.VERSION}; {rounds} rounds, gc off while timing"
    )
    print(f"this run: the {_build()} build" + ("; compiled column: the mypyc build, same rounds" if compiled else ""))
    medians: dict[int, dict[str, float]] = {}
    for size in sizes:
        medians[size], length = measure(size, rounds if size < 100_000 else max(3, rounds // 2))
        floor = medians[size]["msgspec.json.decode (floor)"]
        print(f"\n{size:,} messages ({length / 1e6:.1f} MB): time as a multiple of the floor")
        if compiled:
            print(f"  {'':<42} {'pure':>7} {'compiled':>9}")
        for name, seconds in medians[size].items():
            other = compiled.get(str(size), {}).get(name)
            print(f"  {name:<42} {seconds / floor:6.2f}x" + (f" {other:8.2f}x" if other is not None else ""))
        dumps = medians[size]["json.dumps of the dicts"]
        pydantic_time = medians[size]["pydantic v2 validate_json"]
        encode_speedup = dumps / medians[size]["encode_transcript"]
        decode_speedup = pydantic_time / medians[size]["decode_transcript"]
        line = f"  {'encode_transcript speed-up over json.dumps':<42} {encode_speedup:6.1f}x"
        if compiled:
            ratios = compiled[str(size)]
            line += f" {ratios['json.dumps of the dicts'] / ratios['encode_transcript']:8.1f}x"
        print(line)
        over = medians[size]["encode_transcript"] / medians[size]["msgspec.json.encode of the messages"]
        line = f"  {'encode_transcript over msgspec.json.encode':<42} {over:6.2f}x"
        if compiled:
            ratios = compiled[str(size)]
            line += f" {ratios['encode_transcript'] / ratios['msgspec.json.encode of the messages']:8.2f}x"
        print(line)
        print(f"  {'decode_transcript speed-up over pydantic':<42} {decode_speedup:6.1f}x")
    if 10_000 in medians and 100_000 in medians:
        print("\ngrowth from 10k to 100k messages (linear is about 10):")
        for name in medians[10_000]:
            print(f"  {name:<42} {medians[100_000][name] / medians[10_000][name]:6.1f}")
    if 100_000 in sizes:
        data = json.dumps(transcript_dicts(100_000), separators=(",", ":")).encode()
        floor_peak = _peak_memory(lambda: msgspec.json.decode(data))
        ours_peak = _peak_memory(lambda: decode_transcript(data))
        print(
            f"\npeak memory of the 100k decode: {ours_peak / floor_peak:.2f}x msgspec's untyped decode "
            f"({ours_peak / 1e6:.0f} MB against {floor_peak / 1e6:.0f} MB)"
        )


def _compiled_ratios(python: str, sizes: str, rounds: int) -> dict[str, dict[str, float]]:
    """The ratios of the same measurements in `python` (the compiled build), by size."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        output = f"{folder}/ratios.json"
        command = [python, __file__, "--sizes", sizes, "--rounds", str(rounds), "--ratios-to", output]
        subprocess.run(command, check=True)
        with open(output, encoding="utf-8") as stream:
            found = json.load(stream)
    if found["build"] != "compiled":
        raise SystemExit(f"{python} does not run the compiled build")
    ratios: dict[str, dict[str, float]] = found["ratios"]
    return ratios


if __name__ == "__main__":
    main()
