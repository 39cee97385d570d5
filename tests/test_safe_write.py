"""`-o OUT` never loses or replaces what OUT is: links, devices, pipes, modes, growing files."""

from __future__ import annotations

import io
import os
import stat
import threading
from pathlib import Path

import pytest

import message_ir._cli as cli
from message_ir._cli import main
from message_ir._safe_write import FileChanged, FileStamp, WriteFailed, stamp, write_file
from tests.test_cli_faults import MISSING, run

ADDED_RESULT = b'"isError":true}'  # the result repair adds for the lost one


def test_a_symlink_stays_a_link_and_its_target_is_written(tmp_path: Path) -> None:
    session = tmp_path / "sessions" / "session.json"
    session.parent.mkdir()
    session.write_bytes(MISSING)
    link = tmp_path / "link.json"
    link.symlink_to(session)
    completed = run("repair", str(link), "-o", str(link))
    assert completed.returncode == 0
    assert link.is_symlink()
    assert os.readlink(link) == str(session)
    assert session.read_bytes().count(ADDED_RESULT) == 1
    assert sorted(entry.name for entry in tmp_path.iterdir()) == ["link.json", "sessions"]
    assert [entry.name for entry in session.parent.iterdir()] == ["session.json"]


def test_a_dangling_symlink_gets_its_target_created(tmp_path: Path) -> None:
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "new.json")
    write_file(str(link), b"[]\n")
    assert link.is_symlink()
    assert (tmp_path / "new.json").read_bytes() == b"[]\n"


def test_a_symlink_to_a_device_leaves_both_as_they_are(tmp_path: Path) -> None:
    link = tmp_path / "null"
    link.symlink_to(os.devnull)
    session = tmp_path / "session.json"
    session.write_bytes(MISSING)
    assert run("convert", str(session), "--from", "openai-chat", "--to", "anthropic", "-o", str(link)).returncode == 0
    assert link.is_symlink()
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_a_character_device_is_written_not_replaced(tmp_path: Path) -> None:
    device = tmp_path / "null"
    try:
        os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(*divmod(os.stat(os.devnull).st_rdev, 256)))
    except PermissionError:
        pytest.skip("this process may not make a device node")
    before = os.stat(device)
    write_file(str(device), b"[]\n")
    after = os.stat(device)
    assert stat.S_ISCHR(after.st_mode)
    assert (after.st_ino, after.st_rdev, after.st_mode) == (before.st_ino, before.st_rdev, before.st_mode)


def test_a_fifo_stays_a_pipe_and_its_reader_gets_the_output(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    write_file(str(fifo), b"[1]\n")
    reader.join(timeout=10)
    assert received == [b"[1]\n"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_the_mode_of_a_replaced_file_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    path.write_bytes(MISSING)
    path.chmod(0o644)
    assert run("repair", str(path), "-o", str(path)).returncode == 0
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o644
    path.chmod(0o640)
    write_file(str(path), b"[]\n")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640


def test_a_new_file_gets_the_mode_the_umask_allows(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        write_file(str(tmp_path / "new.json"), b"[]\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "new.json").st_mode) == 0o640


def test_a_hard_link_stays_one_file(tmp_path: Path) -> None:
    path = tmp_path / "session.json"
    path.write_bytes(MISSING)
    other = tmp_path / "other.json"
    os.link(path, other)
    assert run("repair", str(path), "-o", str(path)).returncode == 0
    assert os.stat(path).st_ino == os.stat(other).st_ino
    assert other.read_bytes().count(ADDED_RESULT) == 1
    assert sorted(entry.name for entry in tmp_path.iterdir()) == ["other.json", "session.json"]


def test_a_directory_is_refused_with_one_line(tmp_path: Path) -> None:
    session = tmp_path / "session.json"
    session.write_bytes(MISSING)
    completed = run("repair", str(session), "-o", str(tmp_path))
    assert completed.returncode == 2
    assert completed.stderr.splitlines()[-1] == f"message-ir: error: cannot write {tmp_path}: Is a directory".encode()


def test_a_file_that_grew_since_it_was_read_is_left_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    path.write_bytes(b'{"a":1}\n')
    read_as = stamp(os.stat(path))
    with path.open("ab") as log:  # the agent appends a line while repair works
        log.write(b'{"b":2}\n')
    with pytest.raises(FileChanged) as raised:
        write_file(str(path), b"repaired\n", read_as=read_as)
    assert str(raised.value) == (
        f"{path} grew by 8 bytes since it was read (is an agent still writing it?); "
        "left as it is: run again when it is done"
    )
    assert path.read_bytes() == b'{"a":1}\n{"b":2}\n'
    assert [entry.name for entry in tmp_path.iterdir()] == ["session.jsonl"]


def test_a_file_rewritten_since_it_was_read_is_left_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    path.write_bytes(b'{"a":1}\n')
    read_as = stamp(os.stat(path))
    path.write_bytes(b'{"a":2}\n')
    os.utime(path, ns=(read_as.mtime_ns + 1_000_000_000, read_as.mtime_ns + 1_000_000_000))
    with pytest.raises(FileChanged, match="changed since it was read"):
        write_file(str(path), b"repaired\n", read_as=read_as)
    assert path.read_bytes() == b'{"a":2}\n'


def test_an_unchanged_input_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    path.write_bytes(b'{"a":1}\n')
    write_file(str(path), b"repaired\n", read_as=stamp(os.stat(path)))
    assert path.read_bytes() == b"repaired\n"


def test_repair_in_place_of_a_growing_log_exits_2_and_keeps_every_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "session.json"
    path.write_bytes(MISSING)
    real_read = cli._read

    def read_then_agent_appends(name: str) -> tuple[bytes, FileStamp | None]:
        result = real_read(name)
        with open(name, "ab") as log:
            log.write(b" ")
        return result

    monkeypatch.setattr(cli, "_read", read_then_agent_appends)
    stdout, stderr = io.StringIO(), io.StringIO()
    status = main(["repair", str(path), "-o", str(path)], stdout=stdout, stderr=stderr)
    assert status == 2
    assert stderr.getvalue().splitlines()[-1] == (
        f"message-ir: error: {path} grew by 1 bytes since it was read (is an agent still writing it?); "
        "left as it is: run again when it is done"
    )
    assert path.read_bytes() == MISSING + b" "


def test_an_unwritable_folder_is_one_error(tmp_path: Path) -> None:
    with pytest.raises(WriteFailed) as raised:
        write_file(str(tmp_path / "missing" / "out.json"), b"[]")
    assert str(raised.value) == f"cannot write {tmp_path}/missing/out.json: No such file or directory"
