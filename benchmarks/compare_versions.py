"""Time two versions of the package on the same data: `python benchmarks/compare_versions.py SRC`.

`SRC` is the `src` folder of a checkout (a `git worktree` of an older commit, or this one);
the package is imported from there, so run it once per version, alternating, and compare the
lines. It prints ratios to `msgspec.json.decode` of the same bytes (10,000 messages of the
boundary benchmark's data, medians of 7 rounds, the garbage collector off while timing).
"""

from __future__ import annotations

import gc
import importlib
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import msgspec


def median_ratio(function: Callable[[], object], floor: float, rounds: int = 7) -> float:
    times: list[float] = []
    for _ in range(rounds):
        gc.disable()
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
        gc.enable()
        gc.collect()
    return round(statistics.median(times) / floor, 3)


def main() -> None:
    sys.path.insert(0, str(Path(sys.argv[1]).resolve()))
    sys.path.insert(1, str(Path(__file__).resolve().parent))
    package = importlib.import_module("message_ir")
    bench = importlib.import_module("bench_boundary")
    print(f"# {package.__file__}")
    dicts = bench.transcript_dicts(10_000)
    data = json.dumps(dicts).encode()
    parsed = json.loads(data)
    floor = median_ratio(lambda: msgspec.json.decode(data), 1.0)
    messages = package.decode_transcript(data)
    print(
        "decode", median_ratio(lambda: package.decode_transcript(data), floor),
        "validate", median_ratio(lambda: package.validate_transcript(parsed), floor),
        "validate structs", median_ratio(lambda: package.validate_transcript(messages), floor),
        "encode", median_ratio(lambda: package.encode_transcript(messages), floor),
        "constructors", median_ratio(lambda: bench.build_with_constructors(dicts), floor),
    )  # fmt: skip


if __name__ == "__main__":
    main()
