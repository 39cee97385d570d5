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
with the scheduler in use (a `distributed.Client`'s cluster, when one is active).

Needs the `[dask]` extra (`dask[bag]` and `distributed`); this module imports Dask only
inside `check_with_dask`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from message_ir.datasets._check import DEFAULT_FORMAT, check_lines
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
    """The summary of every line of `paths` (file names or globs), computed by Dask."""
    import dask.bag

    def partition(lines: Iterable[tuple[str, str]]) -> list[Summary]:
        return check_partition(lines, format, examples)

    bag = dask.bag.read_text(paths, blocksize=blocksize, include_path=True, **READ_TEXT)
    return merge(bag.map_partitions(partition).compute(), examples)


__all__ = ["READ_TEXT", "check_partition", "check_with_dask"]
