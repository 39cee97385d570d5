"""`message_ir.datasets` and `message-ir check-dataset` on the generated dataset of
`tests/dataset_factory.py`: every kind of line gives its exact codes, a bad line never stops
the run, any number of processes and a Dask cluster give the counts and examples of one
process, and byte ranges always cut at line starts."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from message_ir import Diagnostic
from message_ir.datasets import (
    LineReport,
    Summary,
    byte_ranges,
    check_dataset,
    check_file,
    check_lines,
    check_part,
    merge,
)
from tests.dataset_factory import KINDS, kinds_of, write_dataset

LINES = 1500


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("dataset") / "train.jsonl"
    write_dataset(path, LINES, seed=7, valid_share=0.7)
    return path


def test_every_kind_of_line_gives_exactly_its_codes(dataset: Path) -> None:
    kinds = kinds_of(LINES, seed=7, valid_share=0.7)
    assert set(kinds) == set(KINDS)  # every kind occurs
    reports = list(check_file(dataset))
    assert [report.line for report in reports] == list(range(1, LINES + 1))
    for report, kind in zip(reports, kinds, strict=True):
        assert {diagnostic.code for diagnostic in report.diagnostics} == KINDS[kind][1], (report.line, kind)


def test_the_summary_counts_lines_codes_and_keeps_the_first_examples(dataset: Path) -> None:
    kinds = kinds_of(LINES, seed=7, valid_share=0.7)
    summary = check_dataset([dataset], examples=2)
    assert (summary.lines, summary.valid) == (LINES, kinds.count("valid"))
    assert summary.invalid == LINES - summary.valid
    expected: Counter[str] = Counter()
    for kind in kinds:
        expected.update(KINDS[kind][1])
    assert summary.lines_by_code == dict(sorted(expected.items()))
    for code, examples in summary.examples.items():
        first = [number + 1 for number, kind in enumerate(kinds) if code in KINDS[kind][1]][:2]
        assert [example.line for example in examples] == first
        assert all(example.diagnostic.code == code and example.file == str(dataset) for example in examples)
    assert summary.files == [(str(dataset), LINES)]


@pytest.mark.parametrize("processes", [2, 3])
def test_processes_give_the_summary_of_one(dataset: Path, processes: int) -> None:
    assert check_dataset([dataset, dataset.with_name("missing")][:1], processes=processes) == check_dataset([dataset])


def test_several_files_and_parts_merge_in_order(dataset: Path, tmp_path: Path) -> None:
    second = tmp_path / "second.jsonl"
    second.write_bytes(dataset.read_bytes()[: dataset.read_bytes().index(b"\n", 10_000) + 1])
    whole = check_dataset([dataset, second])
    parts = [check_part(dataset, start, end) for start, end in byte_ranges(dataset, 7)]
    parts.append(check_part(second, 0, None))
    assert merge(parts) == whole
    assert check_dataset([dataset, second], processes=2) == whole
    assert whole.files == [(str(dataset), LINES), (str(second), second.read_bytes().count(b"\n"))]


def test_a_bad_line_never_stops_the_run() -> None:
    lines: list[bytes | str] = [b"", b"{", b"[]", b'{"messages": []}', "\ud800", b"  "]
    reports = list(check_lines(lines))
    assert [report.line for report in reports] == [1, 2, 3, 4, 5, 6]
    assert [[(d.code, d.path, d.message) for d in report.diagnostics] for report in reports] == [
        [("BAD_FORMAT", "$", "Expected a conversation, got an empty line")],
        [("INVALID_JSON", "$", "Invalid JSON: Input data was truncated")],
        [("NO_ASSISTANT_MESSAGE", "$", "Expected an assistant message to learn from, got none")],  # nothing to learn
        [("NO_ASSISTANT_MESSAGE", "$", "Expected an assistant message to learn from, got none")],
        [("INVALID_JSON", "$", "Invalid JSON: JSON is malformed: invalid character (byte 0)")],
        [("BAD_FORMAT", "$", "Expected a conversation, got an empty line")],
    ]
    with pytest.raises(ValueError, match="Unknown dataset format 'pi'"):
        list(check_lines([b"{}"], "pi"))


def test_a_line_says_the_same_with_or_without_its_newline(dataset: Path) -> None:
    cut = b'{"messages": [{"role": "user", "content": "Hel'
    assert [report.diagnostics for report in check_lines([cut, cut + b"\n", b"\n"])] == [
        (Diagnostic("INVALID_JSON", None, "$", "Invalid JSON: Input data was truncated"),),
        (Diagnostic("INVALID_JSON", None, "$", "Invalid JSON: Input data was truncated"),),
        (Diagnostic("BAD_FORMAT", None, "$", "Expected a conversation, got an empty line"),),
    ]
    data = dataset.read_bytes()
    assert data.endswith(b"\n")
    without = list(check_lines(data.split(b"\n")[:-1]))
    assert list(check_file(dataset)) == without
    assert list(check_lines(data.splitlines(keepends=True))) == without
    assert check_dataset([dataset]).lines_by_code["INVALID_JSON"] > 0  # cut lines among them


@given(
    st.lists(st.binary(max_size=30).map(lambda data: data.replace(b"\n", b"")), max_size=30),
    st.integers(1, 12),
    st.booleans(),
)
def test_byte_ranges_cover_the_file_and_start_at_lines(lines: list[bytes], parts: int, trailing: bool) -> None:
    data = b"\n".join(lines) + (b"\n" if trailing and lines else b"")
    path = Path(f"/tmp/message-ir-ranges-{id(data)}.jsonl")
    path.write_bytes(data)
    try:
        ranges = byte_ranges(path, parts)
        assert ranges[0][0] == 0
        assert ranges[-1][1] == len(data)
        assert all(end == start for (_, end), (start, _) in itertools.pairwise(ranges))
        assert all(start == 0 or data[start - 1 : start] == b"\n" for start, _ in ranges)
        assert all(start < end for start, end in ranges) or data == b""
        counted = sum(check_part(path, start, end).lines for start, end in ranges)
        assert counted == data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    finally:
        path.unlink()


def test_the_command_line_summary(dataset: Path, tmp_path: Path) -> None:
    small = tmp_path / "small.jsonl"
    small.write_bytes(b"\n".join(dataset.read_bytes().splitlines()[:40]) + b"\n")
    completed = subprocess.run(
        [sys.executable, "-m", "message_ir", "check-dataset", str(small), "--examples", "1"],
        capture_output=True,
        text=True,
        check=False,
    )
    summary = check_dataset([small], examples=1)
    expected = [f"{small}: 40 lines, {summary.valid} valid, {summary.invalid} invalid"]
    for code, count in summary.lines_by_code.items():
        total = summary.diagnostics_by_code[code]
        expected.append(
            f"{code:<{max(map(len, summary.lines_by_code))}}  {count} line{'s' * (count != 1)},"
            f" {total} diagnostic{'s' * (total != 1)}"
        )
        example = summary.examples[code][0]
        expected.append(f"  {small}:{example.line}: {example.diagnostic.message} (at {example.diagnostic.path})")
    assert (completed.returncode, completed.stdout.splitlines(), completed.stderr) == (1, expected, "")
    as_json = subprocess.run(
        [sys.executable, "-m", "message_ir", "check-dataset", str(small), "-j", "2", "--format", "json"],
        capture_output=True,
        check=False,
    )
    assert as_json.returncode == 1
    assert msgspec.json.decode(as_json.stdout, type=Summary) == check_dataset([small])
    assert json.loads(as_json.stdout)["linesByCode"] == summary.lines_by_code
    valid = tmp_path / "valid.jsonl"
    valid.write_bytes(
        b'{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello."}]}\n'
    )
    assert (
        subprocess.run([sys.executable, "-m", "message_ir", "check-dataset", str(valid)], check=False).returncode == 0
    )
    missing = subprocess.run(
        [sys.executable, "-m", "message_ir", "check-dataset", str(tmp_path / "nope.jsonl")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (missing.returncode, missing.stderr) == (
        2,
        f"message-ir: error: cannot read {tmp_path / 'nope.jsonl'}: No such file or directory\n",
    )


def test_a_line_report_is_plain_data() -> None:
    report = LineReport(3, ())
    assert msgspec.json.decode(msgspec.json.encode(report), type=LineReport) == report


def test_dask_on_a_local_cluster_counts_what_one_process_counts(dataset: Path, tmp_path: Path) -> None:
    pytest.importorskip("dask.bag")
    distributed = pytest.importorskip("distributed")
    from message_ir.datasets.dask import check_with_dask

    second = tmp_path / "second.jsonl"
    write_dataset(second, 300, seed=8)
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        distributed.Client(cluster),
    ):
        assert len(cluster.workers) == 2
        on_dask = check_with_dask([str(dataset), str(second)], blocksize=100_000)
    single = check_dataset([dataset, second])
    assert (on_dask.lines, on_dask.valid, on_dask.invalid) == (single.lines, single.valid, single.invalid)
    assert on_dask.lines_by_code == single.lines_by_code
    assert on_dask.diagnostics_by_code == single.diagnostics_by_code
    assert [(Path(file).name, count) for file, count in on_dask.files] == [(dataset.name, LINES), (second.name, 300)]
    assert {
        code: [(Path(example.file).name, example.line, example.diagnostic) for example in examples]
        for code, examples in on_dask.examples.items()
    } == {
        code: [(Path(example.file).name, example.line, example.diagnostic) for example in examples]
        for code, examples in single.examples.items()
    }


# --- the fast path is never more lenient than the careful one ---------------------------------

_MUTATIONS = (
    "delete",
    "swap",
    "duplicate",
    "call_id",
    "tool_name",
    "arguments",
    "extra",
    "content",
    "role",
    "schema",
    "tool_result_name",
)


def _mutated(data: st.DataObject, record: dict[str, object]) -> dict[str, object]:
    messages = record["messages"]
    assert type(messages) is list
    for _ in range(data.draw(st.integers(1, 3))):
        mutation = data.draw(st.sampled_from(_MUTATIONS))
        index = data.draw(st.integers(0, len(messages) - 1)) if messages else 0
        message = messages[index] if messages else {}
        calls = [call for entry in messages for call in entry.get("tool_calls") or []]
        if mutation == "delete" and messages:
            del messages[index]
        elif mutation == "swap" and len(messages) > 1:
            other = data.draw(st.integers(0, len(messages) - 1))
            messages[index], messages[other] = messages[other], messages[index]
        elif mutation == "duplicate" and messages:
            messages.insert(index, json.loads(json.dumps(message)))
        elif mutation == "call_id" and calls:
            data.draw(st.sampled_from(calls))["id"] = data.draw(st.text(max_size=45) | st.sampled_from(["c", ""]))
        elif mutation == "tool_name" and calls:
            data.draw(st.sampled_from(calls))["function"]["name"] = data.draw(
                st.sampled_from(["get_weather", "add_event", "other", ""])
            )
        elif mutation == "arguments" and calls:
            data.draw(st.sampled_from(calls))["function"]["arguments"] = data.draw(
                st.sampled_from(['{"city": "x"}', '{"city": 1}', "{}", "[]", "null", '{"a": [[[[[[]]]]]]}', "{"])
                | st.text(max_size=10)
            )
        elif mutation == "extra":
            target = data.draw(st.sampled_from([record, message]))
            target[data.draw(st.sampled_from(["weight", "name", "x", "metadata"]))] = data.draw(
                st.sampled_from([1, 0.5, "t", None, True, [], {"a": {"b": []}}, [[[[]]]] * 2])
            )
        elif mutation == "content":
            message["content"] = data.draw(st.sampled_from([None, "", "x", [{"type": "text", "text": "x"}], 3]))
        elif mutation == "role":
            message["role"] = data.draw(st.sampled_from(["user", "assistant", "tool", "system", "developer", "bot"]))
        elif mutation == "schema":
            record["tools"] = data.draw(
                st.sampled_from(
                    [
                        None,
                        [],
                        [{"type": "function", "function": {"name": "get_weather"}}],
                        [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": 3}}}],
                        [{"type": "custom", "custom": {"name": "get_weather"}}],
                    ]
                )
            )
        elif mutation == "tool_result_name":
            message["name"] = data.draw(st.sampled_from(["get_weather", "add_event", "zzz"]))
    return record


@given(st.integers(0, 10_000), st.data())
def test_the_fast_path_accepts_only_what_the_careful_path_accepts(seed: int, data: st.DataObject) -> None:
    import random

    from message_ir.adapters import FORMATS, openai_chat
    from tests.dataset_factory import valid

    is_clean = FORMATS["openai_chat"].fast_path
    assert is_clean is not None

    line = json.dumps(_mutated(data, valid(random.Random(seed)))).encode()
    if is_clean(line):
        assert openai_chat.check(line) == ()


def test_the_fast_path_refuses_every_broken_kind_and_takes_valid_lines() -> None:
    import random

    from message_ir.adapters import FORMATS
    from tests.dataset_factory import line

    is_clean = FORMATS["openai_chat"].fast_path
    assert is_clean is not None

    rng = random.Random(3)
    for kind in KINDS:
        taken = [is_clean(line(kind, rng)) for _ in range(20)]
        assert all(taken) if kind == "valid" else not any(taken), kind


def test_check_dataset_names_the_formats_a_line_can_be_in() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "message_ir", "check-dataset", "--from", "pi", "train.jsonl"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 2
    assert completed.stderr.splitlines()[-1] == (
        "message-ir check-dataset: error: argument --from: not a dataset format: 'pi'"
        " (choose from openai-chat, anthropic, openai-responses, gemini, hf-chat, sharegpt)"
    )


# --- Dask reads hostile files as check_dataset does ----------------------------------------------

_HOSTILE_LINES = st.lists(
    st.one_of(
        st.sampled_from(
            [
                b'{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"yo"}]}',
                b'{"messages":[{"role":"user","content":"a\rb"}]}',  # a bare \r inside a string
                b'{"messages":[{"role":"user",\r"content":"hi"}]}',  # a bare \r between tokens
                b'{"messages":[{"role":"user","content":"\xff"}]}',  # not UTF-8
                b"\xc3",  # a cut UTF-8 character
                b"",
                b"\r",
                b"{",
            ]
        ),
        st.binary(max_size=12).map(lambda data: data.replace(b"\n", b"")),
    ),
    max_size=12,
)


@given(_HOSTILE_LINES, st.booleans(), st.integers(16, 200))
def test_dask_counts_what_check_dataset_counts_on_hostile_files(
    lines: list[bytes], trailing: bool, blocksize: int
) -> None:
    dask = pytest.importorskip("dask")
    from message_ir.datasets.dask import check_with_dask

    data = b"\n".join(lines) + (b"\n" if trailing and lines else b"")
    if not data:
        return  # Dask finds no block in an empty file
    path = Path(f"/tmp/message-ir-dask-{id(data)}.jsonl")
    path.write_bytes(data)
    try:
        with dask.config.set(scheduler="synchronous"):
            on_dask = check_with_dask([str(path)], blocksize=blocksize)
        assert on_dask == check_dataset([path])
    finally:
        path.unlink()


COOKBOOK = (
    Path(__file__).resolve().parents[2]
    / "shared"
    / "real"
    / "datasets"
    / "openai-cookbook_drone_training_lines0-2.jsonl"
)


def test_openai_s_own_training_file_ends_each_line_with_its_target_call() -> None:
    reports = list(check_file(COOKBOOK))
    assert [(report.line, [(d.code, d.path, d.message) for d in report.diagnostics]) for report in reports] == [
        (1, []),
        (2, []),
        (
            3,
            [
                (
                    "BAD_TOOL_ARGUMENTS",
                    "$.messages[2].tool_calls[0].function.arguments",
                    "Expected a JSON object as the arguments text, got a JSON string holding one (encoded twice)",
                )
            ],
        ),
    ]


def test_a_call_before_the_last_message_still_needs_its_result() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    lines = [
        json.dumps({"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "tool_calls": [call]}]}),
        json.dumps(
            {
                "messages": [
                    {"role": "user", "content": "q"},
                    {"role": "assistant", "tool_calls": [call]},
                    {"role": "user", "content": "and?"},
                    {"role": "assistant", "content": "done"},
                ]
            }
        ),
    ]
    assert [[d.code for d in report.diagnostics] for report in check_lines(lines)] == [[], ["MISSING_TOOL_RESULT"]]


def test_keys_openai_fine_tuning_does_not_take_are_named() -> None:
    line = json.dumps(
        {
            "messages": [
                {"role": "user", "content": "hi", "foo": 1},
                {"role": "assistant", "content": "hello", "weight": 0},
            ],
            "metadata": {"source": "x"},
        }
    )
    [report] = check_lines([line])
    assert [(d.code, d.message_index, d.path, d.message) for d in report.diagnostics] == [
        ("UNKNOWN_KEY", None, "$.metadata", "`metadata` is not a key OpenAI fine-tuning takes in a record"),
        ("UNKNOWN_KEY", 0, "$.messages[0].foo", "`foo` is not a key OpenAI fine-tuning takes in a message"),
    ]
    [as_anthropic] = check_lines([line], "anthropic")  # no trainer of its own to judge keys by
    assert "UNKNOWN_KEY" not in [d.code for d in as_anthropic.diagnostics]
