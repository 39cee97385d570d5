"""Peak memory and speed of `message-ir validate` (and `render`) on large JSON Lines logs.

Run it with `python benchmarks/bench_memory.py [--gigabytes 1.0] [--folder DIR]`. It writes
its logs into a temporary folder (removed afterwards), then runs the command line on each
in a child process and reports the child's peak resident memory (`ru_maxrss`) and its
throughput:

- a valid log of call/result pairs (about 1.45 million pairs per GB);
- 9 MB of `{}` lines (3 million diagnostics, printed to /dev/null as they come);
- one 200 MB line (a single message with a long content);
- a Claude Code session log (`--session-megabytes`, 100 by default) shaped like the real
  ones: a prompt, then turns whose assistant message is split over a text line and a
  `tool_use` line sharing one `message.id`, each answered by a `tool_result` line, with
  `progress` lines between (short lines: the most lines per megabyte); only the user's lines
  have a `uuid` and none a parent, so the lines form no tree;
- the same log with every line linked to the one before (`uuid` and `parentUuid` on every
  line, as Claude Code writes them): one tree without branches, which the first pass walks;
- a Claude Code log of `--gigabytes` made of real logs repeated (`write_tree_log`): one
  long tree, a sub-agent's branch in every other copy; then `render` of it, a segment at a
  time, its page written to /dev/null.

The Claude Code logs are checked by the `claude_code` adapter a segment at a time (two passes over the
file, see docs/performance.md).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def write_pairs(path: Path, size: int) -> int:
    """A valid log of about `size` bytes: a user message, then call/result pairs."""
    pairs = 0
    with path.open("wb") as stream:
        stream.write(b'{"role":"user","id":"u","content":"go"}\n')
        written = 0
        filler = "x" * 300
        while written < size:
            call = json.dumps(
                {
                    "role": "assistant",
                    "id": f"a{pairs}",
                    "content": [
                        {"type": "text", "text": "Reading the file."},
                        {
                            "type": "toolCall",
                            "id": f"call_{pairs:012d}",
                            "name": "read",
                            "arguments": {"path": f"src/{pairs}.py", "limit": 200},
                        },
                    ],
                },
                separators=(",", ":"),
            ).encode()
            result = json.dumps(
                {
                    "role": "toolResult",
                    "id": f"r{pairs}",
                    "toolCallId": f"call_{pairs:012d}",
                    "toolName": "read",
                    "content": filler,
                    "isError": False,
                },
                separators=(",", ":"),
            ).encode()
            stream.write(call + b"\n" + result + b"\n")
            written += len(call) + len(result) + 2
            pairs += 1
    return pairs


def write_claude_code(path: Path, size: int, *, linked: bool = False) -> int:
    """A Claude Code session log of about `size` bytes; returns its number of tool calls.

    `linked`: every line has a `uuid` and hangs from the line before by `parentUuid`, as
    Claude Code writes them (the lines form one tree without branches, which the first pass
    walks); else only the user's lines have a `uuid`, and no line a parent (no tree)."""
    session = {"parentUuid": None, "isSidechain": False, "userType": "external", "cwd": "/work", "sessionId": "s1"}
    turns = 0
    written_lines = 0
    with path.open("wb") as stream:

        def line(value: dict[str, object]) -> int:
            nonlocal written_lines
            fields = {**session, **value}
            if linked:
                fields["uuid"] = f"00000000-0000-4000-8000-{written_lines:012d}"
                fields["parentUuid"] = f"00000000-0000-4000-8000-{written_lines - 1:012d}" if written_lines else None
            written_lines += 1
            data = json.dumps(fields, separators=(",", ":")).encode() + b"\n"
            stream.write(data)
            return len(data)

        written = line({"type": "user", "message": {"role": "user", "content": "Fix the failing tests."}, "uuid": "u"})
        while written < size:
            message = {"model": "claude-sonnet-4-5", "id": f"msg_{turns:010d}", "type": "message", "role": "assistant"}
            usage = {"input_tokens": 3, "cache_read_input_tokens": 35066, "output_tokens": 120}
            text = {"type": "text", "text": "Reading the next file to see what the test expects. " * 3}
            call = {
                "type": "tool_use",
                "id": f"toolu_{turns:020d}",
                "name": "Read",
                "input": {"file_path": f"/work/src/module_{turns}.py"},
            }
            written += line({"type": "assistant", "message": {**message, "content": [text], "usage": usage}})
            written += line({"type": "assistant", "message": {**message, "content": [call], "usage": usage}})
            written += line({"type": "progress", "data": {"type": "hook_progress", "hookName": "PostToolUse"}})
            result = {"type": "tool_result", "tool_use_id": call["id"], "content": "    1\timport os\n" * 40}
            written += line({"type": "user", "message": {"role": "user", "content": [result]}, "uuid": f"r{turns}"})
            turns += 1
    return turns


REAL = Path(__file__).resolve().parents[2] / "shared" / "real"
TREE_SOURCES = (
    REAL / "anthropic" / "spotter_claude-code_subagent.jsonl",
    REAL / "claude-code-inline-sidechain" / "d-kimuson-claude-code-viewer_claude-code-1.0.108_session-5c0375b4.jsonl",
)
"""The real Claude Code logs `write_tree_log` repeats, in turn: Claude Code 2.1 (thinking,
parallel calls, `progress`, `system` and `file-history-snapshot` lines) and 1.0.108 (a
sub-agent's lines inline, so every copy leaves a branch off the resumed one)."""

_ID_KEYS = ("uuid", "leafUuid", "messageId", "requestId", "id", "tool_use_id", "toolUseID", "parentToolUseID")


def _ids(value: object, found: set[str]) -> None:
    """Every string held under one of `_ID_KEYS`, anywhere in `value`."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key in _ID_KEYS and isinstance(item, str) and item:
                found.add(item)
            _ids(item, found)
    elif isinstance(value, list):
        for item in value:
            _ids(item, found)


def _template(source: Path) -> tuple[list[list[bytes]], list[bool], str]:
    """A log's lines split around its IDs, which lines are main-conversation roots, and the
    `uuid` of its last main-conversation line."""
    lines = source.read_bytes().splitlines()
    found: set[str] = set()
    roots: list[bool] = []
    last_main = ""
    for raw in lines:
        value = json.loads(raw)
        _ids(value, found)
        roots.append(value.get("parentUuid", 0) is None and value.get("isSidechain") is False)
        if value.get("isSidechain") is False and isinstance(value.get("uuid"), str):
            last_main = value["uuid"]
    names = b"|".join(re.escape(each.encode()) for each in sorted(found, key=len, reverse=True))
    pattern = re.compile(b'"(' + names + b')"')
    return [pattern.split(raw) for raw in lines], roots, last_main  # text, ID, text, ID, ..., text


def write_tree_log(path: Path, size: int, sources: tuple[Path, ...] = TREE_SOURCES) -> int:
    """A Claude Code log of about `size` bytes made of copies of the real logs `sources`, in
    turn (read in place, never copied into the repository): each copy's IDs (line `uuid`s,
    `message.id`s, call IDs, ...) get a suffix of their own, and each copy's main-conversation
    root hangs from the last main line of the copy before, so the file is one long tree, as
    Claude Code writes it. Returns the number of copies."""
    templates = [_template(source) for source in sources]
    copies = written = 0
    before: bytes | None = None  # the last main line's ID in the copy before
    with path.open("wb") as stream:
        while written < size:
            lines, roots, last_main = templates[copies % len(templates)]
            suffix = f"_{copies}".encode()
            chunk: list[bytes] = []
            for template, root in zip(lines, roots, strict=True):
                parts = [part if at % 2 == 0 else b'"' + part + suffix + b'"' for at, part in enumerate(template)]
                line = b"".join(parts)
                if root and before is not None:
                    line = line.replace(b'"parentUuid":null', b'"parentUuid":' + before, 1)
                chunk.append(line)
            data = b"\n".join(chunk) + b"\n"
            stream.write(data)
            written += len(data)
            before = b'"' + last_main.encode() + suffix + b'"'
            copies += 1
    return copies


_MEASURE = """
import os, resource, subprocess, sys
with open(os.devnull, "wb") as sink:
    command = [sys.executable, "-m", "message_ir", *sys.argv[1:]]
    status = subprocess.run(command, stdout=sink, stderr=sink).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, status)
"""


def run(path: Path, command: str = "validate") -> tuple[float, float, int]:
    """(peak RSS in MB, seconds, exit status) of `message-ir COMMAND PATH` (`render`: its page
    written to /dev/null).

    A fresh parent process runs each child, so that `RUSAGE_CHILDREN` holds that child only.
    """
    start = time.perf_counter()
    arguments = [command, str(path)] + (["-o", os.devnull] if command == "render" else [])
    measured = subprocess.run(
        [sys.executable, "-c", _MEASURE, *arguments], capture_output=True, text=True, check=True
    ).stdout.split()
    seconds = time.perf_counter() - start
    return int(measured[0]) / 1024, seconds, int(measured[1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--gigabytes", type=float, default=1.0)
    parser.add_argument("--session-megabytes", type=float, default=100.0)
    parser.add_argument("--folder", default=None)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=arguments.folder) as folder:
        pairs_log = Path(folder) / "pairs.jsonl"
        pairs = write_pairs(pairs_log, int(arguments.gigabytes * 1e9))
        empty_log = Path(folder) / "empty-objects.jsonl"
        empty_log.write_bytes(b"{}\n" * 3_000_000)
        long_log = Path(folder) / "long-line.jsonl"
        long_log.write_bytes(b'{"role":"user","id":"u","content":"' + b"y" * 200_000_000 + b'"}\n')
        session_log = Path(folder) / "claude-code-session.jsonl"
        calls = write_claude_code(session_log, int(arguments.session_megabytes * 1e6))
        linked_log = Path(folder) / "claude-code-linked.jsonl"
        write_claude_code(linked_log, int(arguments.session_megabytes * 1e6), linked=True)
        tree_log = Path(folder) / "claude-code-tree.jsonl"
        copies = write_tree_log(tree_log, int(arguments.gigabytes * 1e9))
        print(f"Python {sys.version.split()[0]}; peak RSS of the child process (ru_maxrss); one run each")
        for label, path, command in (
            (f"valid log, {pairs:,} call/result pairs", pairs_log, "validate"),
            ("3,000,000 lines of {} (3,000,000 diagnostics)", empty_log, "validate"),
            ("one 200 MB line", long_log, "validate"),
            (f"Claude Code session log, {calls:,} calls", session_log, "validate"),
            ("the same, every line linked to the one before", linked_log, "validate"),
            (f"Claude Code tree of real logs, {copies:,} copies", tree_log, "validate"),
            ("render of that tree (HTML)", tree_log, "render"),
        ):
            size = path.stat().st_size / 1e6
            peak, seconds, status = run(path, command)
            print(f"  {label:<48} {size:8,.0f} MB  peak {peak:6,.0f} MB  {size / seconds:6,.0f} MB/s  exit {status}")


if __name__ == "__main__":
    main()
