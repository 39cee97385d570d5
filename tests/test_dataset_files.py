"""`check-dataset` on the files training data comes in besides JSON Lines: a `.json` file of
one array (LLaMA-Factory's), and Parquet, read by row group, with what Arrow does to rows
(`PADDED_BY_ARROW`) and the errors of a file that cannot be read."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from message_ir.datasets import check_dataset, check_file
from message_ir.datasets._check import _pool_context
from tests.adapters.real import real_files

pytest.importorskip("pyarrow")  # the `[parquet]` extra, which nox installs
import pyarrow  # after the skip
import pyarrow.parquet


def run(*arguments: str) -> subprocess.CompletedProcess[str]:
    completed = subprocess.run(
        [sys.executable, "-m", "message_ir", *arguments], capture_output=True, text=True, timeout=60, check=False
    )
    assert "Traceback" not in completed.stderr
    return completed


def test_a_json_array_file_is_read_as_its_rows() -> None:
    (path,) = real_files("sharegpt", "llama-factory_glaive-toolcall-zh-demo_elements197+293_*.json")
    reports = list(check_file(path, "sharegpt"))
    assert [(report.line, [d.code for d in report.diagnostics]) for report in reports] == [
        (1, ["ORPHAN_TOOL_RESULT"]),
        (2, ["ORPHAN_TOOL_RESULT"]),
    ]
    completed = run("check-dataset", "--from", "sharegpt", str(path))
    assert completed.returncode == 1
    assert completed.stdout.splitlines()[:2] == [
        f"{path}: 2 lines, 0 valid, 2 invalid",
        "ORPHAN_TOOL_RESULT  2 lines, 2 diagnostics",
    ]


def _call(name: str, arguments: dict[str, object]) -> dict[str, object]:
    return {"type": "function", "function": {"name": name, "arguments": arguments}}


def _row(name: str, arguments: dict[str, object], declared: list[str]) -> dict[str, object]:
    properties = {key: {"type": "string"} for key in declared}
    return {
        "messages": [
            {"role": "user", "content": "?"},
            {"role": "assistant", "tool_calls": [_call(name, arguments)]},
            {"role": "tool", "name": name, "content": "ok"},
            {"role": "assistant", "content": "done"},
        ],
        "tools": [
            {"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": properties}}}
        ],
    }


ROWS = [
    _row("weather", {"city": "Paris"}, ["city"]),
    _row("weather", {"city": "Rome"}, ["city"]),
    _row("wind", {"unit": "mph"}, ["unit"]),
    _row("weather", {"city": "Oslo"}, ["city"]),
]


def _written(tmp_path: Path) -> tuple[Path, Path]:
    parquet = tmp_path / "train.parquet"
    pyarrow.parquet.write_table(pyarrow.Table.from_pylist(ROWS), parquet, row_group_size=2)
    lines = tmp_path / "train.jsonl"
    lines.write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    return parquet, lines


def test_parquet_rows_padded_by_arrow_are_reported_at_their_rows_and_json_lines_are_not(tmp_path: Path) -> None:
    parquet, lines = _written(tmp_path)
    assert pyarrow.parquet.ParquetFile(parquet).metadata.num_row_groups == 2
    found = {
        report.line: [str(diagnostic) for diagnostic in report.diagnostics if diagnostic.code == "PADDED_BY_ARROW"]
        for report in check_file(parquet, "hf_chat")
    }
    padded_weather = [
        "PADDED_BY_ARROW: Property `unit` has no schema: `null` where Arrow gave this row a key of another row's"
        " - at `$.tools[0].function.parameters.properties.unit`",
        "PADDED_BY_ARROW: Argument `unit` is `null` and its tool does not declare it: Arrow gave this call a key of"
        " another row's - at `$.messages[1].tool_calls[0].function.arguments.unit`",
    ]
    assert found[1] == found[2] == found[4] == padded_weather
    assert found[3] == [
        "PADDED_BY_ARROW: Property `city` has no schema: `null` where Arrow gave this row a key of another row's"
        " - at `$.tools[0].function.parameters.properties.city`",
        "PADDED_BY_ARROW: Argument `city` is `null` and its tool does not declare it: Arrow gave this call a key of"
        " another row's - at `$.messages[1].tool_calls[0].function.arguments.city`",
    ]
    assert [report.diagnostics for report in check_file(lines, "hf_chat")] == [()] * 4
    assert _pool_context() is not None  # pyarrow runs threads: the workers are not forked from this process
    one, two = check_dataset([parquet], "hf_chat"), check_dataset([parquet], "hf_chat", processes=2)
    assert one == two
    assert (one.lines, one.invalid, one.lines_by_code["PADDED_BY_ARROW"]) == (4, 4, 4)
    assert [example.line for example in one.examples["PADDED_BY_ARROW"]] == [1, 2, 3]


def test_dask_checks_parquet_by_row_group_and_json_arrays_as_check_dataset_does(tmp_path: Path) -> None:
    pytest.importorskip("dask.bag")
    distributed = pytest.importorskip("distributed")
    from message_ir.datasets.dask import check_with_dask

    parquet, lines = _written(tmp_path)
    array = tmp_path / "train.json"
    array.write_text(json.dumps(ROWS[::-1]))
    files = [parquet, lines, array]
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        distributed.Client(cluster),
    ):
        on_dask = check_with_dask([str(path) for path in files], "hf_chat", blocksize=200)
        by_glob = check_with_dask(str(tmp_path / "train.*"), "hf_chat")
    single = check_dataset(files, "hf_chat")
    assert on_dask == single
    assert [(Path(name).name, count) for name, count in on_dask.files] == [
        ("train.parquet", 4),
        ("train.jsonl", 4),
        ("train.json", 4),
    ]
    assert (on_dask.lines, on_dask.invalid, [example.line for example in on_dask.examples["PADDED_BY_ARROW"]]) == (
        12,
        4,
        [1, 2, 3],
    )
    assert by_glob == check_dataset(sorted(tmp_path.glob("train.*")), "hf_chat")


def test_a_parquet_file_without_the_formats_column_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "chat.parquet"
    pyarrow.parquet.write_table(pyarrow.Table.from_pylist([{"conversation": "x"}]), path)
    completed = run("check-dataset", "--from", "hf-chat", str(path))
    assert completed.returncode == 2
    assert completed.stderr.strip().endswith(
        f"{path} has no `messages` column, which hf_chat rows need (its columns: `conversation`)"
    )


def test_a_file_named_parquet_that_is_not_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "broken.parquet"
    path.write_bytes(b'{"messages": []}\n')
    completed = run("check-dataset", "--from", "hf-chat", str(path))
    assert completed.returncode == 2
    assert f"{path} is not a Parquet file pyarrow can read:" in completed.stderr


def test_a_json_file_that_is_no_array_is_read_as_json_lines(tmp_path: Path) -> None:
    path = tmp_path / "rows.json"
    path.write_text('[{"role": "user", "content": "hi"}]\n[{"role": "assistant", "content": "hello"}]\n')
    assert [[d.code for d in report.diagnostics] for report in check_file(path)] == [["NO_ASSISTANT_MESSAGE"], []]


def test_parquet_without_pyarrow_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parquet, _ = _written(tmp_path)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)  # as if the extra were not installed
    with pytest.raises(
        ValueError, match=r"^reading Parquet \(.*train\.parquet\) needs pyarrow: install `message-ir\[parquet\]`$"
    ):
        check_dataset([parquet], "hf_chat")
