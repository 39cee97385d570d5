"""check-dataset on many processes under faults: a killed worker, out of memory, too many
open files, more processes than parts. One line and exit 2, never a traceback or a hang."""

from __future__ import annotations

import concurrent.futures
import io
import multiprocessing.context
import os
import resource
import signal
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

import message_ir.datasets._check as check
from message_ir._cli import main
from message_ir.datasets import Summary, check_dataset

LINE = b'{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"yo"}]}\n'


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    path = tmp_path / "train.jsonl"
    path.write_bytes(LINE * 400)
    return path


def _killed(*task: object, **options: object) -> Summary:
    os.kill(os.getpid(), signal.SIGKILL)  # what the OOM killer does
    raise AssertionError


def _out_of_memory(*task: object, **options: object) -> Summary:
    raise MemoryError


def _cli(*arguments: str) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    status = main(list(arguments), stdout=stdout, stderr=stderr)
    return status, stdout.getvalue(), stderr.getvalue()


# Forked on purpose (to inherit the patch), from a test process where pyarrow's threads may run.
@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")
def test_a_killed_worker_is_one_line_and_status_2(dataset: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(check, "_pool_context", lambda: None)  # forked even if pyarrow is loaded:
    monkeypatch.setattr(check, "check_part", _killed)  # the workers are forked: they inherit it
    with pytest.raises(BrokenProcessPool):
        check_dataset([dataset], processes=2)
    assert _cli("check-dataset", "-j", "2", str(dataset)) == (
        2,
        "",
        "message-ir: error: a worker process died (killed, or out of memory): the dataset was not checked;"
        " try fewer processes (-j)\n",
    )


# Forked on purpose (to inherit the patch), from a test process where pyarrow's threads may run.
@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")
def test_out_of_memory_in_a_worker_is_one_line_and_status_2(dataset: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(check, "_pool_context", lambda: None)  # forked, to inherit the patch
    monkeypatch.setattr(check, "check_part", _out_of_memory)
    for jobs in ("1", "2"):
        assert _cli("check-dataset", "-j", jobs, str(dataset)) == (
            2,
            "",
            "message-ir: error: out of memory: the dataset was not checked\n",
        )


def _open_files(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))


def test_more_processes_than_open_files_allow_is_refused_before_starting(dataset: Path) -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "message_ir", "check-dataset", "-j", "30", str(dataset)],
        capture_output=True,
        preexec_fn=lambda: _open_files(40),  # only sets a limit
        timeout=60,
        check=False,
    )
    assert (completed.returncode, completed.stdout) == (2, b"")
    assert completed.stderr == (
        b"message-ir: error: 30 processes need about 92 open files, and this process may open 40 (ulimit -n):"
        b" use at most 4 processes\n"
    )


def test_a_low_soft_limit_is_raised_up_to_the_hard_one(dataset: Path) -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "message_ir", "check-dataset", "-j", "30", str(dataset)],
        capture_output=True,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (40, 4096)),  # only sets a limit
        timeout=60,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout == f"{dataset}: 400 lines, 400 valid, 0 invalid\n".encode()


def test_never_more_processes_than_parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "two.jsonl"
    path.write_bytes(LINE * 2)
    started: list[int] = []

    def recording(max_workers: int, mp_context: multiprocessing.context.BaseContext | None = None) -> object:
        started.append(max_workers)
        return ProcessPoolExecutor(max_workers=max_workers, mp_context=mp_context)

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", recording)  # check_dataset imports it from there
    assert check_dataset([path], processes=1024).lines == 2
    assert started == [2]
