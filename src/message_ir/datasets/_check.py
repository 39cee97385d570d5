"""Checking a dataset: one conversation per line, each line checked by its format's adapter.

A line's diagnostics are those of the adapter's `check` on that line's record (its paths
point into the record: `$.messages[3].tool_calls[0]`), tool declarations included when the
record has `tools`. A line that is not JSON, or not the format, is reported like any other;
nothing stops the run. Files are read one line at a time, so memory stays bounded by the
longest line; `processes` splits the files into byte ranges at line boundaries and checks
them in that many worker processes, and `merge` adds their summaries up in order.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Final

from message_ir import Diagnostic
from message_ir.adapters import FORMATS
from message_ir.datasets._rows import JSON_LINES, RowFile, row_file
from message_ir.datasets._summary import LineReport, Summary, merge
from message_ir.datasets._tokens import TokenizerError, Tokens, line_tokens, tokenizer, too_many

if TYPE_CHECKING:
    import multiprocessing.context

Checker = Callable[[bytes], tuple[Diagnostic, ...]]

CHECKERS: Final[dict[str, Checker]] = {
    declared.name: declared.functions.check_example for declared in FORMATS.values() if declared.dataset_line
}
"""The formats a dataset line can be in: those whose one record is one conversation."""
DEFAULT_FORMAT: Final = next(iter(CHECKERS))
"""The format of a dataset's lines when none is named: the registry's first dataset format."""


def _never(line: bytes) -> bool:
    return False


_FAST: Final[dict[str, Callable[[bytes], bool]]] = {
    declared.name: declared.fast_path for declared in FORMATS.values() if declared.fast_path is not None
}
"""Formats with a fast path: `True` when a line is surely clean (else the careful check runs)."""
_EMPTY: Final = (Diagnostic("BAD_FORMAT", None, "$", "Expected a conversation, got an empty line"),)


def _checker(format: str) -> Checker:
    try:
        return CHECKERS[format]
    except KeyError:
        raise ValueError(f"Unknown dataset format {format!r}; expected one of {', '.join(CHECKERS)}") from None


def check_lines(
    lines: Iterable[bytes | str], format: str = DEFAULT_FORMAT, *, first_line: int = 1
) -> Iterator[LineReport]:
    """A `LineReport` for every line of `lines` (`bytes` or `str`, with or without their
    newline), numbered from `first_line`. An empty line is a `BAD_FORMAT`."""
    diagnostics = _line_checker(format)
    for number, line in enumerate(lines, start=first_line):
        data = line.encode("utf-8", "surrogatepass") if type(line) is str else line
        assert type(data) is bytes
        yield LineReport(number, diagnostics(data))


def _line_checker(format: str, *, fast: bool = True) -> Checker:
    """The diagnostics of one line of `format`, with or without its newline: none when the fast
    path is sure it is clean, `BAD_FORMAT` for an empty line, else the adapter's careful `check`
    of the line without its newline. Without `fast`, the caller asked the fast path already."""
    check = _checker(format)
    clean = _FAST.get(format, _never) if fast else _never

    def diagnostics(line: bytes) -> tuple[Diagnostic, ...]:
        if clean(line):  # a newline after the JSON is whitespace to the fast path
            return ()
        if not line.strip():
            return _EMPTY
        return check(line[:-1] if line.endswith(b"\n") else line)  # a cut line says "truncated"

    return diagnostics


def check_file(path: str | os.PathLike[str], format: str = DEFAULT_FORMAT) -> Iterator[LineReport]:
    """A `LineReport` for every row of the file at `path` (a line of JSON Lines, an element of
    a `.json` file's one array, a row of a `.parquet` file), read a part at a time."""
    _checker(format)
    name = os.fspath(path)
    kind = row_file(name)
    diagnostics = _row_checker(format, kind)
    number = 0
    for start, end in kind.parts(name, 1, format):
        for row in kind.rows(name, start, end, format):
            number += 1
            yield LineReport(number, diagnostics(row))


def _row_checker(format: str, kind: RowFile, *, fast: bool = True) -> Checker:
    """`_line_checker`, and what the kind of file adds (Parquet: `PADDED_BY_ARROW`)."""
    diagnostics = _line_checker(format, fast=fast)
    extra = kind.extra
    if extra is None:
        return diagnostics

    def with_extra(row: bytes) -> tuple[Diagnostic, ...]:
        added = extra(row, format)
        return (*diagnostics(row), *added) if added else diagnostics(row)

    return with_extra


def check_part(
    path: str | os.PathLike[str],
    start: int,
    end: int | None,
    format: str = DEFAULT_FORMAT,
    examples: int = 3,
    *,
    counter: str | None = None,
    max_tokens: int | None = None,
) -> Summary:
    """The summary of the rows of the part `[start, end)` of a file (JSON Lines: the lines that
    start in that byte range; a `.json` array: those elements; Parquet: those row groups),
    numbered from 1 at `start` (`merge` makes the numbers the file's own). With `counter` (a tokenizer named
    `MODULE:FUNCTION`), each line's tokens are counted, and a line over `max_tokens` is a
    `TOO_MANY_TOKENS`; `TokenizerError` when the tokenizer fails, naming the line."""
    name = os.fspath(path)
    kind = row_file(name)
    # The fast path asked here, in the loop: a line it takes costs no call beyond its own.
    clean = _FAST.get(format, _never) if kind.extra is None else _never
    diagnostics = _row_checker(format, kind, fast=clean is _never)
    count_tokens = None if counter is None else tokenizer(counter)
    summary = Summary(tokens=None if counter is None else Tokens())
    count = valid = 0
    for line in kind.rows(name, start, end, format):
        count += 1
        found = () if clean(line) else diagnostics(line)
        if count_tokens is not None and summary.tokens is not None:
            try:
                tokens = line_tokens(count_tokens, line, format)
            except TokenizerError as error:
                raise TokenizerError(f"{name}:{kind.first_row(name, start) + count - 1}: {error}") from None
            if tokens is not None:
                summary.tokens.add(tokens)
                if max_tokens is not None and tokens > max_tokens:
                    found = (*found, too_many(tokens, max_tokens))
        if not found:
            valid += 1  # the common case, counted without a report
            continue
        summary.add(name, LineReport(count, found), examples)
    summary.valid += valid
    summary.lines, summary.files = count, [(name, count)]
    return summary


_Task = tuple[str, int, int, str, int, "str | None", "int | None"]


def _part(task: _Task) -> Summary:
    path, start, end, format, examples, counter, max_tokens = task
    return check_part(path, start, end, format, examples, counter=counter, max_tokens=max_tokens)


def check_dataset(
    paths: Sequence[str | os.PathLike[str]],
    format: str = DEFAULT_FORMAT,
    *,
    processes: int = 1,
    examples: int = 3,
    progress: Callable[[int], None] | None = None,
    counter: str | None = None,
    max_tokens: int | None = None,
) -> Summary:
    """The summary of every line of every file in `paths`, in `processes` worker processes;
    with `counter` (`MODULE:FUNCTION`, see `check_part`), their tokens too.

    With more than one process, each file is split into byte ranges at line boundaries (a
    few per process), the ranges are checked in parallel, and their summaries are merged in
    order: the counts and examples are those of one process. `progress` is called with the
    number of bytes done after each range (each file, with one process).
    """
    _checker(format)
    if counter is not None:
        tokenizer(counter)  # an import that fails, fails here, before any process starts
    tasks: list[_Task] = []
    weights: list[int] = []  # the bytes each task stands for, for `progress`
    for path in paths:
        name = os.fspath(path)
        kind = row_file(name)
        parts = kind.parts(name, processes, format)
        tasks.extend((name, start, end, format, examples, counter, max_tokens) for start, end in parts)
        if kind is JSON_LINES:
            weights.extend(end - start for start, end in parts)
        else:  # a share of the file each
            size = os.path.getsize(name)
            weights.extend(
                size * (number + 1) // len(parts) - size * number // len(parts) for number in range(len(parts))
            )
    summaries: list[Summary] = []
    if processes <= 1:
        for task, weight in zip(tasks, weights, strict=True):
            summaries.append(_part(task))
            if progress is not None:
                progress(weight)
        return merge(summaries, examples)
    # Imported here: 15 ms of a one-process run's start (the command line's), for nothing.
    from concurrent.futures import ProcessPoolExecutor

    workers = min(processes, len(tasks))  # never a process with nothing to do
    _require_open_files(workers)
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=_pool_context())
    try:
        for weight, summary in zip(weights, pool.map(_part, tasks), strict=True):
            summaries.append(summary)
            if progress is not None:
                progress(weight)
    except TokenizerError:
        # The user's tokenizer failed in a worker, which lives on: stop the others in order
        # (left running, they would write to a closed pipe at exit).
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    except BaseException:
        # A worker killed (the OOM killer), out of memory, or out of file descriptors: stop
        # at once, leaving no process behind and nothing to wait for.
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    return merge(summaries, examples)


def _pool_context() -> multiprocessing.context.BaseContext | None:
    """How the worker processes start: forked (the default) unless pyarrow is loaded. pyarrow
    runs threads of its own, and a process with threads is not safely forked (a child can
    inherit a lock some thread held); then they start from a fresh server process."""
    import multiprocessing  # beside the pool's own import (see `check_dataset`)

    if "pyarrow" in sys.modules and "forkserver" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("forkserver")
    return None


_FILES_PER_PROCESS: Final = 2
"""The file descriptors one worker process holds in the parent (measured: 2, and 12 more)."""
_FILES_BESIDE: Final = 32


def _require_open_files(workers: int) -> None:
    """Make sure this process may open the descriptors `workers` processes need: raise the
    soft limit up to the hard one if need be, else raise `ValueError` before starting any."""
    try:
        import resource
    except ImportError:  # not on this platform: nothing to check
        return
    needed = workers * _FILES_PER_PROCESS + _FILES_BESIDE
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= needed:
        return
    if hard == resource.RLIM_INFINITY or hard >= needed:
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))
        return
    raise ValueError(
        f"{workers} processes need about {needed} open files, and this process may open {hard} (ulimit -n):"
        f" use at most {max((hard - _FILES_BESIDE) // _FILES_PER_PROCESS, 1)} processes"
    )
