"""Peak memory and speed of `message-ir validate` on large JSON Lines logs.

Run it with `python benchmarks/bench_memory.py [--gigabytes 1.0] [--folder DIR]`. It writes
three logs into a temporary folder (removed afterwards), then runs the command line on each
in a child process and reports the child's peak resident memory (`ru_maxrss`) and its
throughput:

- a valid log of call/result pairs (about 1.45 million pairs per GB);
- 9 MB of `{}` lines (3 million diagnostics, printed to /dev/null as they come);
- one 200 MB line (a single message with a long content);
- a Claude Code session log (`--session-megabytes`, 100 by default) shaped like the real
  ones: a prompt, then turns whose assistant message is split over a text line and a
  `tool_use` line sharing one `message.id`, each answered by a `tool_result` line, with
  `progress` lines between. It is read by the `claude_code` adapter, which holds the whole
  conversation (every message, and every line that is not one) once loaded.
"""

from __future__ import annotations

import argparse
import json
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


def write_claude_code(path: Path, size: int) -> int:
    """A Claude Code session log of about `size` bytes; returns its number of tool calls."""
    session = {"parentUuid": None, "isSidechain": False, "userType": "external", "cwd": "/work", "sessionId": "s1"}
    turns = 0
    with path.open("wb") as stream:

        def line(value: dict[str, object]) -> int:
            data = json.dumps({**session, **value}, separators=(",", ":")).encode() + b"\n"
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


_MEASURE = """
import os, resource, subprocess, sys
with open(os.devnull, "wb") as sink:
    command = [sys.executable, "-m", "message_ir", "validate", sys.argv[1]]
    status = subprocess.run(command, stdout=sink, stderr=sink).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, status)
"""


def run(path: Path) -> tuple[float, float, int]:
    """(peak RSS in MB, seconds, exit status) of `message-ir validate PATH`.

    A fresh parent process runs each child, so that `RUSAGE_CHILDREN` holds that child only.
    """
    start = time.perf_counter()
    measured = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(path)], capture_output=True, text=True, check=True
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
        print(f"Python {sys.version.split()[0]}; peak RSS of the child process (ru_maxrss); one run each")
        for label, path in (
            (f"valid log, {pairs:,} call/result pairs", pairs_log),
            ("3,000,000 lines of {} (3,000,000 diagnostics)", empty_log),
            ("one 200 MB line", long_log),
            (f"Claude Code session log, {calls:,} calls", session_log),
        ):
            size = path.stat().st_size / 1e6
            peak, seconds, status = run(path)
            print(f"  {label:<48} {size:8,.0f} MB  peak {peak:6,.0f} MB  {size / seconds:6,.0f} MB/s  exit {status}")


if __name__ == "__main__":
    main()
