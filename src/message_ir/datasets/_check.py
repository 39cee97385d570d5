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
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Final

from message_ir import Diagnostic
from message_ir.adapters import FORMATS
from message_ir.datasets._summary import LineReport, Summary, merge
from message_ir.datasets._tokens import TokenizerError, Tokens, line_tokens, tokenizer, too_many

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
_PART_BYTES: Final = 64 * 1024 * 1024
"""About how many bytes one task of a parallel run checks (several per process, so that a
process that finishes early takes the next)."""


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


def _line_checker(format: str) -> Checker:
    """The diagnostics of one line of `format`: none when the fast path is sure it is clean,
    `BAD_FORMAT` for an empty line, else the adapter's careful `check`."""
    check = _checker(format)
    clean = _FAST.get(format, _never)

    def diagnostics(line: bytes) -> tuple[Diagnostic, ...]:
        if clean(line):
            return ()
        if not line.strip():
            return _EMPTY
        return check(line)

    return diagnostics


def _range_lines(path: str | os.PathLike[str], start: int, end: int | None) -> Iterator[bytes]:
    """The lines that start in `[start, end)` of a file, read one at a time (without their newline)."""
    with open(path, "rb") as stream:
        stream.seek(start)
        position = start
        for line in stream:
            if end is not None and position >= end:
                return
            position += len(line)
            yield line[:-1] if line.endswith(b"\n") else line


def check_file(path: str | os.PathLike[str], format: str = DEFAULT_FORMAT) -> Iterator[LineReport]:
    """A `LineReport` for every line of the file at `path`, read one line at a time."""
    return check_lines(_range_lines(path, 0, None), format)


def byte_ranges(path: str | os.PathLike[str], parts: int) -> list[tuple[int, int]]:
    """`[start, end)` byte ranges covering the file, about `parts` of them, each starting at
    the start of a line (a line belongs to the range it starts in)."""
    size = os.path.getsize(path)
    if size == 0 or parts <= 1:
        return [(0, size)]
    cuts = [0]
    with open(path, "rb") as stream:
        for part in range(1, parts):
            target = max(size * part // parts, cuts[-1])
            stream.seek(target - 1 if target > 0 else 0)
            if target > 0:
                stream.readline()  # to the end of the line that `target - 1` is in
            cut = stream.tell()
            if cut >= size:
                break
            if cut > cuts[-1]:
                cuts.append(cut)
    cuts.append(size)
    return [(cuts[number], cuts[number + 1]) for number in range(len(cuts) - 1)]


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
    """The summary of the lines that start in `[start, end)` of a file, numbered from 1 at
    `start` (`merge` makes the numbers the file's own). With `counter` (a tokenizer named
    `MODULE:FUNCTION`), each line's tokens are counted, and a line over `max_tokens` is a
    `TOO_MANY_TOKENS`; `TokenizerError` when the tokenizer fails, naming the line."""
    name = os.fspath(path)
    diagnostics = _line_checker(format)
    count_tokens = None if counter is None else tokenizer(counter)
    summary = Summary(tokens=None if counter is None else Tokens())
    count = 0
    offset = start
    for line in _range_lines(path, start, end):
        count += 1
        found = diagnostics(line)
        if count_tokens is not None and summary.tokens is not None:
            try:
                tokens = line_tokens(count_tokens, line, format)
            except TokenizerError as error:
                raise TokenizerError(f"{name}:{_line_at(name, offset)}: {error}") from None
            if tokens is not None:
                summary.tokens.add(tokens)
                if max_tokens is not None and tokens > max_tokens:
                    found = (*found, too_many(tokens, max_tokens))
        offset += len(line) + 1
        if not found:
            summary.valid += 1  # the common case, counted without a report
            continue
        summary.add(name, LineReport(count, found), examples)
    summary.lines, summary.files = count, [(name, count)]
    return summary


def _line_at(path: str, offset: int) -> int:
    """The 1-based number of the line that starts at byte `offset` (counted again, on a failure only)."""
    with open(path, "rb") as stream:
        return stream.read(offset).count(b"\n") + 1


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
    for path in paths:
        name = os.fspath(path)
        size = os.path.getsize(name)
        parts = max(-(-size // _PART_BYTES), 1 if processes <= 1 else min(processes * 4, max(processes, size // 65536)))
        tasks.extend(
            (name, start, end, format, examples, counter, max_tokens) for start, end in byte_ranges(name, parts)
        )
    summaries: list[Summary] = []
    if processes <= 1:
        for task in tasks:
            summaries.append(_part(task))
            if progress is not None:
                progress(task[2] - task[1])
        return merge(summaries, examples)
    workers = min(processes, len(tasks))  # never a process with nothing to do
    _require_open_files(workers)
    pool = ProcessPoolExecutor(max_workers=workers)
    try:
        for task, summary in zip(tasks, pool.map(_part, tasks), strict=True):
            summaries.append(summary)
            if progress is not None:
                progress(task[2] - task[1])
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
