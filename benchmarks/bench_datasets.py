"""`message-ir check-dataset` on a generated fine-tuning dataset: speed against msgspec, on one
and two processes, peak memory per process, and a Dask LocalCluster with two workers.

Run it with `python benchmarks/bench_datasets.py [--megabytes 1000] [--valid 0.99] [--folder DIR]
[--format-megabytes 100] [--formats openai_chat,anthropic,...]`.
It writes the dataset with `tests/dataset_factory.py` (about 2 KB a line, tools declared
on every line, `--valid` of the lines valid and the rest every kind of broken line), then,
each in a fresh child process so that its peak memory is its own:

- the floor: `msgspec.json.decode` of every line (each decoded value dropped at once);
- `message-ir check-dataset FILE` (schema checks on: the lines declare their tools), and
  with `-j 2`: throughput, ratio to the floor, and the largest peak RSS of any process;
- `check_with_dask` on a `distributed.LocalCluster` of two worker processes, and the cost of
  one partition (a bag of many one-line partitions, timed per partition);
- every other dataset format: the first `--format-megabytes` of the dataset converted to it
  (`convert`, then the format's `dumps`, and the same tools declared in its terms; ShareGPT
  with one call a turn, as its position rule needs), its floor and `check-dataset --from
  FORMAT -j 1`.

Every child process reads cached bytecode (written to a temporary folder by a run of the same
command on the file's first lines, before it is measured), as an installed package does, even
where `PYTHONDONTWRITEBYTECODE` is set.
"""

from __future__ import annotations

import argparse
import atexit
import itertools
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.dataset_factory import single_calls, with_tools, write_dataset  # noqa: E402  # the repository root is on the path now

from message_ir.adapters import FORMATS, FormatError, convert, openai_chat  # noqa: E402

_FLOOR = """
import sys, msgspec
decode = msgspec.json.Decoder().decode
with open(sys.argv[1], "rb") as stream:
    for line in stream:
        try:
            decode(line)
        except msgspec.DecodeError:
            pass
"""

_MEASURE = """
import resource, subprocess, sys, time
start = time.perf_counter()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(time.perf_counter() - start, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""

_DASK = """
import sys, time
from distributed import Client, LocalCluster
import dask.bag
from message_ir.datasets.dask import check_partition, check_with_dask

cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
with cluster, Client(cluster):
    check_with_dask([sys.argv[1]], blocksize="64MiB")  # warm the workers (imports, schema cache)
    start = time.perf_counter()
    summary = check_with_dask([sys.argv[1]], blocksize="64MiB")
    seconds = time.perf_counter() - start
    lines = dask.bag.from_sequence(['{"messages": []}'] * 400, npartitions=400)
    start = time.perf_counter()
    lines.map_partitions(check_partition).compute()
    per_partition = (time.perf_counter() - start) / 400
print(seconds, per_partition, summary.lines, summary.invalid)
"""


_CACHE = tempfile.mkdtemp(prefix="bench-datasets-pycache-")
atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)
_ENVIRONMENT = {
    **{key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"},
    "PYTHONPYCACHEPREFIX": _CACHE,
}
"""Every measured process reads the package's cached bytecode, as an installed package does
(pip writes it at install time). Without this, a machine with `PYTHONDONTWRITEBYTECODE` set
compiles every module on each start: 0.28 s instead of 0.14 s for the command line's imports on
a 2-core machine, which weighs on small files and on the `-j 2` ratio."""


def _warm(path: Path, name: str) -> None:
    """Write the cached bytecode of everything `check-dataset --from name` and the floor import
    (the schema engine's imports among them: the cache prefix holds the standard library's
    bytecode too), by running both on the first lines of `path`."""
    head = path.with_name(f"head-{path.name}")
    with path.open("rb") as lines, head.open("wb") as out:
        for line in itertools.islice(lines, 200):
            out.write(line)
    subprocess.run([sys.executable, "-c", _FLOOR, str(head)], env=_ENVIRONMENT, check=True)
    command = [sys.executable, "-m", "message_ir", "check-dataset", "--from", name.replace("_", "-"), str(head)]
    subprocess.run(command, env=_ENVIRONMENT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    head.unlink()


def measure(*command: str) -> tuple[float, float]:
    """(seconds, largest peak RSS in MB of the command and its children)."""
    out = subprocess.run(
        [sys.executable, "-c", _MEASURE, *command], capture_output=True, text=True, check=True, env=_ENVIRONMENT
    ).stdout.split()
    return float(out[0]), int(out[1]) / 1024


def in_format(source: Path, target: Path, name: str, megabytes: float) -> None:
    """The first `megabytes` of the lines of `source` (OpenAI Chat records) converted to `name`."""
    budget = int(megabytes * 1e6)
    with source.open("rb") as lines, target.open("wb") as out:
        for line in lines:
            budget -= len(line)
            if budget < 0:
                break
            data = single_calls(line) if name == "sharegpt" else line
            try:
                converted = FORMATS[name].functions.dumps(convert(openai_chat.load(data), name))
                data = with_tools(converted, name) + b"\n"
            except FormatError:  # no conversation: as it was
                pass
            out.write(data)


def floor_and_check(path: Path, name: str) -> None:
    """The floor and `check-dataset --from name -j 1` on `path`, one line."""
    size = path.stat().st_size / 1e6
    _warm(path, name)
    floor, _ = measure(sys.executable, "-c", _FLOOR, str(path))
    seconds, rss = measure(
        sys.executable, "-m", "message_ir", "check-dataset", "--from", name.replace("_", "-"), str(path), "-j", "1"
    )
    print(
        f"  {name:<18} {size:5,.0f} MB  floor {size / floor:5,.0f} MB/s  check-dataset -j 1"
        f" {size / seconds:5,.0f} MB/s  {floor / seconds:5.2f}x floor  peak {rss:5,.0f} MB"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--megabytes", type=float, default=1000.0)
    parser.add_argument("--valid", type=float, default=0.99, help="the share of valid lines")
    parser.add_argument("--folder", default=None)
    parser.add_argument("--no-dask", action="store_true")
    parser.add_argument("--format-megabytes", type=float, default=100.0)
    parser.add_argument(
        "--formats",
        default=",".join(name for name, declared in FORMATS.items() if declared.dataset_line and name != "openai_chat"),
        help="the other dataset formats to measure (comma-separated; empty: none)",
    )
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=arguments.folder) as folder:
        path = Path(folder) / "dataset.jsonl"
        lines = int(arguments.megabytes * 1e6 / 2030)
        kinds = write_dataset(path, lines, seed=0, valid_share=arguments.valid)
        size = path.stat().st_size / 1e6
        print(
            f"Python {sys.version.split()[0]}; {size:,.0f} MB, {lines:,} lines, {kinds['valid'] / lines:.1%} valid;"
            " one run each, in fresh processes"
        )
        _warm(path, "openai_chat")
        floor, floor_rss = measure(sys.executable, "-c", _FLOOR, str(path))
        print(
            f"  msgspec.json.decode, every line      {size / floor:7,.0f} MB/s  (the floor)   peak {floor_rss:5,.0f} MB"
        )
        one = 0.0
        for jobs in (1, 2):
            seconds, rss = measure(sys.executable, "-m", "message_ir", "check-dataset", str(path), "-j", str(jobs))
            one = one or seconds
            print(
                f"  check-dataset -j {jobs}{'':21}{size / seconds:7,.0f} MB/s  {floor / seconds:5.2f}x floor"
                f"  peak {rss:5,.0f} MB  ({one / seconds:.2f}x -j 1)"
            )
        if not arguments.no_dask:
            out = subprocess.run(
                [sys.executable, "-c", _DASK, str(path)], capture_output=True, text=True, check=True, env=_ENVIRONMENT
            ).stdout.split()
            seconds, per_partition = float(out[0]), float(out[1])
            print(
                f"  Dask LocalCluster, 2 workers         {size / seconds:7,.0f} MB/s  {floor / seconds:5.2f}x floor"
                f"  ({one / seconds:.2f}x -j 1; {per_partition * 1e3:.1f} ms per partition of overhead)"
            )
        names = [name for name in arguments.formats.split(",") if name]
        if names:
            print("Each dataset format, the same lines converted to it:")
        for name in names:
            target = Path(folder) / f"{name}.jsonl"
            in_format(path, target, name, arguments.format_megabytes)
            floor_and_check(target, name)
            target.unlink()


if __name__ == "__main__":
    main()
