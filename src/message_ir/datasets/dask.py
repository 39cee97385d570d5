"""Checking a dataset on a Dask cluster: the per-partition function and the aggregation.

Dask reads the files and spreads the partitions over its workers; the package provides
what runs on each partition and how the results add up, nothing more:

    import dask.bag as db
    from message_ir.datasets import merge
    from message_ir.datasets.dask import check_partition

    bag = db.read_text(["train-*.jsonl"], blocksize="64MiB", include_path=True, **READ_TEXT)
    summary = merge(bag.map_partitions(check_partition, format="openai_chat").compute())

`READ_TEXT` (`encoding="utf-8", errors="surrogateescape", linedelimiter="\n"`) makes Dask
read the files as `check_dataset` does: a line ends at `\n` only (Dask's default also
splits at a bare `\r`, cutting a line in two), and a line that is not UTF-8 reaches
`check_partition` with its bytes kept, to be reported like any other (Dask's default
`errors="strict"` aborts the whole computation).

`check_partition` takes a partition's lines (as `read_text` gives them, with or without
`include_path=True`) and returns a one-element list holding the partition's `Summary`, its
lines numbered from 1 at the partition's start; `merge` adds the partitions up in order (a
bag keeps its partitions in file order) and makes the line numbers the files' own. The
counts equal those of `check_dataset` on the same files. `check_with_dask` does the above
with the scheduler in use (a `distributed.Client`'s cluster, when one is active), for JSON
Lines; a local `.json` file holding one array, or a `.parquet` file, it checks in the parts
`check_dataset` uses with several processes (the array whole; each row group), one task a
part, and it merges every file's summaries in the order the files are given.

Needs the `[dask]` extra (`dask[bag]` and `distributed`); this module imports Dask only
inside `check_with_dask`.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable, Sequence
from typing import Final

from message_ir.datasets._check import DEFAULT_FORMAT, check_lines, check_part
from message_ir.datasets._rows import JSON_LINES, row_file
from message_ir.datasets._summary import Summary, merge

READ_TEXT: Final = {"encoding": "utf-8", "errors": "surrogateescape", "linedelimiter": "\n"}
"""The `dask.bag.read_text` options that read lines as `check_dataset` does."""


def _line_bytes(text: str) -> bytes:
    """A line's bytes: those `READ_TEXT` read it from (its undecodable bytes kept as
    surrogate escapes), or the UTF-8 of any other text."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that is no escape: not from a file's bytes
        return text.encode("utf-8", "surrogatepass")


def check_partition(
    lines: Iterable[str | tuple[str, str]], format: str = DEFAULT_FORMAT, examples: int = 3
) -> list[Summary]:
    """The summary of one partition of `dask.bag.read_text` lines (`(line, path)` pairs with
    `include_path=True`, else the file is named `""`), as a one-element list."""
    summary = Summary()
    file = ""

    def texts() -> Iterable[str]:
        nonlocal file
        for item in lines:
            if type(item) is tuple:
                text, file = item
                yield text
            else:
                assert type(item) is str
                yield item

    for report in check_lines((_line_bytes(text.removesuffix("\n")) for text in texts()), format):
        summary.add(file, report, examples)
    return [summary]


def check_with_dask(
    paths: Sequence[str] | str, format: str = DEFAULT_FORMAT, *, blocksize: str | int = "64MiB", examples: int = 3
) -> Summary:
    """The summary of every row of `paths` (file names or globs), computed by Dask.

    JSON Lines are read by `dask.bag.read_text` in blocks of `blocksize`; a local `.json`
    array or `.parquet` file is checked in the parts `check_dataset` uses (each row group of
    a Parquet file)."""
    import dask.bag

    def partition(lines: Iterable[tuple[str, str]]) -> list[Summary]:
        return check_partition(lines, format, examples)

    def part(task: tuple[str, int, int]) -> Summary:
        return check_part(task[0], task[1], task[2], format, examples)

    bags: list[dask.bag.Bag[Summary]] = []
    lines: list[str] = []  # JSON Lines files in a row: one `read_text`

    def flush() -> None:
        if lines:
            bag = dask.bag.read_text(list(lines), blocksize=blocksize, include_path=True, **READ_TEXT)
            bags.append(bag.map_partitions(partition))
            lines.clear()

    for name in _expanded(paths):
        kind = row_file(name) if os.path.isfile(name) else JSON_LINES  # a URL: Dask reads it
        if kind is JSON_LINES:
            lines.append(name)
            continue
        flush()
        tasks = [(name, start, end) for start, end in kind.parts(name, 1 << 16, format)]
        bags.append(dask.bag.from_sequence(tasks, npartitions=len(tasks)).map(part))
    flush()
    return merge(dask.bag.concat(bags).compute(), examples)


def _expanded(paths: Sequence[str] | str) -> list[str]:
    """The files `paths` name, each local glob expanded and sorted (as `read_text` does);
    anything else (a URL, a missing file) as it is, for Dask to read or refuse."""
    found: list[str] = []
    for path in [paths] if type(paths) is str else paths:
        matches = sorted(glob.glob(path)) if glob.has_magic(path) else []
        found.extend(matches or [path])
    return found


__all__ = ["READ_TEXT", "check_partition", "check_with_dask"]
