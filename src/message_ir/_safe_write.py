"""Writing a user's file without losing it: the command line's `-o OUT`.

- A regular file (or a new one) is written to a temporary file in the folder of the file it
  will replace, flushed to disk, given the old file's mode (and owner, where the process may
  set it; a new file gets the mode the umask allows), then renamed over it: a failed write
  leaves the old file as it was.
- A symbolic link is followed: its target is replaced, and the link stays a link (a dangling
  link gets its target created, as the shell's `>` does).
- A file with more than one hard link is written in place, after the same bytes were written
  to a temporary file beside it (so that a full disk shows before the file is touched): the
  links stay one file.
- A device, a pipe or a socket is written directly: `-o /dev/null` stays the device.
- When the file written is the one that was read (`repair IN -o IN`), its size and
  modification time are compared with those seen when it was read, just before the rename:
  a file that changed meanwhile (an agent still appending to its log) is left as it is and
  the write is refused (`FileChanged`), never dropping what was appended.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable
from typing import BinaryIO, NamedTuple

Writer = Callable[[BinaryIO], None]
"""What writes the output to an open file (a page written piece by piece, never held whole)."""


class FileStamp(NamedTuple):
    """What identifies a file's content as it was read: its inode, size and modification time."""

    device: int
    inode: int
    size: int
    mtime_ns: int


def stamp(status: os.stat_result) -> FileStamp:
    return FileStamp(status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns)


class WriteFailed(Exception):
    """The output could not be written; the message says why (the old file is as it was)."""


class FileChanged(WriteFailed):
    """The file to be replaced changed since it was read; it was left as it is."""


def write_file(path: str, data: bytes, *, read_as: FileStamp | None = None) -> None:
    """Write `data` to `path` as the module docstring says.

    `read_as` is the stamp of the input as it was read: when `path` is that same file, it
    must still match it, or `FileChanged` is raised and the file left alone.
    """

    def write(stream: BinaryIO) -> None:
        stream.write(data)

    write_with(path, write, read_as=read_as)


def write_with(path: str, write: Writer, *, read_as: FileStamp | None = None) -> None:
    """`write_file` of what `write` writes to the open file (called once; what it raises
    leaves the old file as it was, but for a device, a pipe or a socket, written directly)."""
    target = os.path.realpath(path)
    try:
        status: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        status = None
    except OSError as error:
        raise WriteFailed(f"cannot write {path}: {error.strerror or error}") from None
    if status is not None and stat.S_ISDIR(status.st_mode):
        raise WriteFailed(f"cannot write {path}: Is a directory")
    if status is not None and not stat.S_ISREG(status.st_mode):
        _write_directly(path, target, write)
        return
    temporary = _written_beside(path, target, write, status)
    try:
        if (
            status is not None
            and read_as is not None
            and (status.st_dev, status.st_ino) == (read_as.device, read_as.inode)
        ):
            _require_unchanged(path, target, read_as)
        if status is None or status.st_nlink == 1:
            os.replace(temporary, target)
            return
    except (OSError, FileChanged) as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(error, FileChanged):
            raise
        raise WriteFailed(f"cannot write {path}: {error.strerror or error}") from None
    try:
        _write_directly(path, target, lambda stream: _copied(temporary, stream))
    except WriteFailed as error:  # the file is cut short now: say where its whole new content is
        raise WriteFailed(f"{error}; its new content is in {temporary}") from None
    with contextlib.suppress(OSError):
        os.unlink(temporary)


def _copied(path: str, stream: BinaryIO) -> None:
    import shutil  # here, as `tempfile` below: a write needs them, the command line's start does not

    with open(path, "rb") as source:
        shutil.copyfileobj(source, stream)


def _write_directly(path: str, target: str, write: Writer) -> None:
    try:
        with open(target, "wb") as stream:
            write(stream)
    except OSError as error:
        raise WriteFailed(f"cannot write {path}: {error.strerror or error}") from None


def _written_beside(path: str, target: str, write: Writer, status: os.stat_result | None) -> str:
    """A temporary file beside `target` holding what `write` wrote, on disk, with `target`'s
    mode and owner. What `write` raises is raised, the temporary file removed."""
    import tempfile  # here: 4 ms of the command line's start otherwise (with `shutil`)

    temporary: str | None = None
    try:
        descriptor, temporary = tempfile.mkstemp(prefix=".message-ir-", suffix=".tmp", dir=os.path.dirname(target))
        with os.fdopen(descriptor, "wb") as stream:
            write(stream)
            stream.flush()
            os.fsync(stream.fileno())
        if status is None:
            os.chmod(temporary, 0o666 & ~_umask())
        else:
            os.chmod(temporary, stat.S_IMODE(status.st_mode))
            with contextlib.suppress(OSError):  # only a privileged process may give a file away
                os.chown(temporary, status.st_uid, status.st_gid)
            os.chmod(temporary, stat.S_IMODE(status.st_mode))  # chown clears set-ID bits
    except BaseException as error:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        if isinstance(error, OSError):
            raise WriteFailed(f"cannot write {path}: {error.strerror or error}") from None
        raise
    return temporary


def _require_unchanged(path: str, target: str, read_as: FileStamp) -> None:
    now = stamp(os.stat(target))
    if now != read_as:
        grown = now.size - read_as.size
        what = f"grew by {grown} bytes" if grown > 0 else "changed"
        raise FileChanged(
            f"{path} {what} since it was read (is an agent still writing it?); left as it is: run again when it is done"
        )


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
