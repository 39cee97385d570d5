"""The rows of a dataset file, whatever holds them: JSON Lines, one JSON array, or Parquet.

Each kind says how a file splits into parts checked apart (byte ranges at line boundaries,
the one array, row groups), gives the rows of a part as JSON bytes, and says which row a part
starts at. A file is Parquet when its name ends in `.parquet`; a `.json` file holding one JSON
array is read as the array's elements (LLaMA-Factory's datasets are such files); any other file
is JSON Lines.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Final, NamedTuple

import msgspec

from message_ir import Diagnostic
from message_ir.datasets import _arrow

Path = str | os.PathLike[str]


class RowFile(NamedTuple):
    """How one kind of file is read: in parts, row by row."""

    kind: str
    parts: Callable[[str, int, str], list[tuple[int, int]]]
    """The parts `[start, end)` covering the file, for `n` processes and a format (what
    `start` counts is the kind's); `ValueError` for a file the format cannot be read from."""
    rows: Callable[[str, int, int | None, str], Iterator[bytes]]
    """The rows of the part `[start, end)` as JSON bytes (for a format: Parquet reads its columns)."""
    first_row: Callable[[str, int], int]
    """The 1-based number of the first row of the part starting at `start`."""
    extra: Callable[[bytes, str], list[Diagnostic]] | None = None
    """What the kind itself adds to a row's diagnostics (Parquet: `PADDED_BY_ARROW`)."""


# --- JSON Lines ------------------------------------------------------------------------------


_READ_BUFFER: Final = 256 * 1024
"""The read buffer of a JSON Lines file. Reading a 200 MB file of 2 KB lines, line by line, took
0.05 s with it and 0.11 s with Python's default of 8 KB."""


def range_lines(path: Path, start: int, end: int | None) -> Iterator[bytes]:
    """The lines that start in `[start, end)` of a file, read one at a time, each with its
    newline (the last line may have none): every checker takes a line either way, and not
    cutting it saves a copy of every line."""
    with open(path, "rb", buffering=_READ_BUFFER) as stream:
        stream.seek(start)
        if end is None:
            yield from stream
            return
        position = start
        for line in stream:
            if position >= end:
                return
            position += len(line)
            yield line


def byte_ranges(path: Path, parts: int) -> list[tuple[int, int]]:
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


def _line_at(path: str, offset: int) -> int:
    """The 1-based number of the line that starts at byte `offset` (counted on demand only)."""
    with open(path, "rb") as stream:
        return stream.read(offset).count(b"\n") + 1


def _lines(path: str, start: int, end: int | None, format: str) -> Iterator[bytes]:
    return range_lines(path, start, end)


_PART_BYTES: Final = 64 * 1024 * 1024
"""About how many bytes one task of a parallel run checks (several per process, so that a
process that finishes early takes the next)."""


def _line_parts(path: str, processes: int, format: str) -> list[tuple[int, int]]:
    size = os.path.getsize(path)
    parts = max(-(-size // _PART_BYTES), 1 if processes <= 1 else min(processes * 4, max(processes, size // 65536)))
    return byte_ranges(path, parts)


JSON_LINES: Final = RowFile("JSON Lines", _line_parts, _lines, _line_at)


# --- one JSON array ----------------------------------------------------------------------------

_ELEMENTS: Final = msgspec.json.Decoder(list[msgspec.Raw])


_WHOLE: Final = 1 << 62
"""The end of the one part of a JSON array file: past any array's last element."""


def _starts_an_array(path: str) -> bool:
    with open(path, "rb") as stream:
        return stream.read(4096).lstrip().startswith(b"[")


def _array_parts(path: str, processes: int, format: str) -> list[tuple[int, int]]:
    return [(0, _WHOLE)]  # read whole: one part


def _array_rows(path: str, start: int, end: int | None, format: str) -> Iterator[bytes]:
    """The elements `[start, end)` of the file's array, decoded once; a file that turns out not
    to be one array (JSON Lines whose lines are lists) is read as its lines."""
    with open(path, "rb") as stream:
        data = stream.read()
    try:
        elements = _ELEMENTS.decode(data)
    except msgspec.DecodeError:
        del data
        yield from range_lines(path, 0, None)
        return
    del data
    for element in elements[start:end]:
        yield bytes(element)


def _array_first_row(path: str, start: int) -> int:
    return start + 1


JSON_ARRAY: Final = RowFile("JSON array", _array_parts, _array_rows, _array_first_row)


# --- Parquet ---------------------------------------------------------------------------------

PARQUET: Final = RowFile(
    "Parquet", _arrow.row_group_parts, _arrow.row_group_rows, _arrow.first_row, _arrow.padded_by_arrow
)


def row_file(path: Path) -> RowFile:
    """How the file at `path` is read (by its name, and for `.json`, by whether it starts an array)."""
    name = os.fspath(path)
    if name.endswith(".parquet"):
        return PARQUET
    if name.endswith(".json") and _starts_an_array(name):
        return JSON_ARRAY
    return JSON_LINES
