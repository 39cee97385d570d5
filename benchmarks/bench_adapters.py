"""The adapters' speed, as ratios against msgspec's untyped decode of the same bytes (the floor),
beside what a user would pick instead.

Run it with `python benchmarks/bench_adapters.py [--megabytes 15] [--rounds 5]` (`nox -s bench` runs it
in the pure build and in the compiled one, each in its own venv). For each format
it builds, from the real files of `../shared/real` (read in place, never copied), one input of
about `--megabytes`, then times in this one process, round by round with the garbage collector
off while timing, `load`, `check` and `dumps` of it, the floor, and the peers, and prints each
median as a multiple of the floor's.

- `openai_chat`: the tau-bench trajectories' messages, repeated (call IDs made unique per copy).
- `anthropic`: the API messages the Claude Code logs stand for (the lines sharing a
  `message.id` joined), repeated the same way.
- `openai_responses`, `gemini`: the Codex rollouts and the gemini-cli recordings converted by
  this package (`convert`) into those formats' request bodies, then repeated.
- `claude_code`: a generated session log (`bench_memory.write_claude_code`: short lines, one
  conversation without a tree); its floor is `decode_lines` of its bytes.
- `claude_code (real tree)`: real Claude Code logs repeated into one long tree, each copy's IDs
  made its own (`bench_memory.write_tree_log`); the same floor.
- `codex`: the real Codex rollouts that `check` finds clean (the others are redacted: their
  arguments are no JSON), repeated into one long rollout, each copy's call IDs made its own;
  the same floor.
- `pi`: the real pi sessions that `check` finds clean and whose entries form no tree (pi's
  format v1: a copy of a tree would be a second root), repeated into one long session, each
  copy's call IDs made its own; the same floor.
- `gemini_cli`: the real gemini-cli recordings' records, repeated into one recording, each
  copy's call IDs made its own; its floor is `msgspec.json.decode`.

The peers, on the same bytes (decoded by msgspec first, inside the timing): LangChain's
`convert_to_messages` (OpenAI Chat and Anthropic; and back, `convert_to_openai_messages`), and
litellm's `validate_and_fix_openai_messages` (OpenAI Chat),
`transform_responses_api_input_to_messages` (Responses) and `GoogleGenAIAdapter` (Gemini). They
are benchmark dependencies only (the `bench` group), not lossless, and check little or nothing;
a peer that is not installed is left out of the table.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import cast

import msgspec

from message_ir.adapters import FORMATS, Conversation, _records, codex, convert, gemini_cli, pi

REAL = Path(__file__).resolve().parents[2] / "shared" / "real"
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_memory import write_claude_code, write_tree_log  # noqa: E402  # the generators beside this file

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # litellm: no fetch of its price table

Peer = Callable[[bytes], object]


def _peers() -> dict[str, list[tuple[str, Peer]]]:
    """The peers each format has, where they are installed."""
    peers: dict[str, list[tuple[str, Peer]]] = {name: [] for name in FORMATS}
    decode = msgspec.json.decode
    try:
        from langchain_core.messages import convert_to_messages, convert_to_openai_messages
    except ImportError:
        pass
    else:
        for name in ("openai_chat", "anthropic"):
            peers[name].append(("LangChain convert_to_messages", lambda data: convert_to_messages(_messages(data))))
        peers["openai_chat"].append(
            (
                "LangChain convert_to_messages, then back",
                lambda data: convert_to_openai_messages(convert_to_messages(decode(data))),
            )
        )
    try:
        from litellm.google_genai.adapters.transformation import (  # type: ignore[import-not-found]  # optional
            GoogleGenAIAdapter,
        )
        from litellm.responses.litellm_completion_transformation.transformation import (  # type: ignore[import-not-found]
            LiteLLMCompletionResponsesConfig,
        )
        from litellm.utils import validate_and_fix_openai_messages  # type: ignore[import-not-found]
    except ImportError:
        return peers
    peers["openai_chat"].append(
        ("litellm validate_and_fix_openai_messages", lambda data: validate_and_fix_openai_messages(decode(data)))
    )
    transform = LiteLLMCompletionResponsesConfig.transform_responses_api_input_to_messages
    peers["openai_responses"].append(
        ("litellm transform_responses_api_input_to_messages", lambda data: transform(decode(data)["input"], {}))
    )
    adapter = GoogleGenAIAdapter()
    peers["gemini"].append(
        (
            "litellm GoogleGenAIAdapter",
            lambda data: adapter.translate_generate_content_to_completion("gemini-2.5-pro", decode(data)["contents"]),
        )
    )
    return peers


def _messages(data: bytes) -> list[dict[str, object]]:
    """The messages of a body or of a list (decoded by msgspec: JSON objects)."""
    value = msgspec.json.decode(data)
    return cast("list[dict[str, object]]", value["messages"] if type(value) is dict else value)


def _unique(text: str, copies: int, prefixes: tuple[str, ...]) -> list[object]:
    """`copies` copies of a JSON list (as `json.dumps` writes it), its IDs (values starting with
    one of `prefixes`) made unique per copy."""
    items: list[object] = []
    for copy in range(copies):
        renamed = text
        for prefix in prefixes:
            renamed = renamed.replace(f': "{prefix}', f': "{prefix}{copy}x')
        items.extend(json.loads(renamed))
    return items


def _copies(size: int, megabytes: float) -> int:
    return max(1, int(megabytes * 1e6 / max(size, 1)) + 1)


def openai_chat_input(megabytes: float) -> bytes:
    messages: list[object] = []
    for path in sorted((REAL / "openai-chat").glob("tau-bench_*.json")):
        messages.extend(json.loads(path.read_bytes())["traj"])
    text = json.dumps(messages)
    return json.dumps(_unique(text, _copies(len(text), megabytes), ("call_", "toolu_"))).encode()


def anthropic_input(megabytes: float) -> bytes:
    messages: list[object] = []
    for path in sorted((REAL / "anthropic").glob("*.jsonl")):
        by_id: dict[str, dict[str, object]] = {}
        for line in path.read_bytes().splitlines():
            entry = json.loads(line)
            if type(entry) is not dict or entry.get("type") not in ("user", "assistant"):
                continue
            message = dict(entry["message"])
            key = message.get("id") if message.get("role") == "assistant" else None
            if type(key) is str and key in by_id:
                by_id[key]["content"] = [*by_id[key]["content"], *message["content"]]  # type: ignore[misc]  # JSON
                continue
            if type(key) is str:
                by_id[key] = message
            messages.append(message)
    text = json.dumps(messages)
    items = _unique(text, _copies(len(text), megabytes), ("toolu_", "msg_", "srvtoolu_"))
    return json.dumps({"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": items}).encode()


def _converted(conversations: list[Conversation], target: str, key: str, megabytes: float) -> bytes:
    items: list[object] = []
    for conversation in conversations:
        body = FORMATS[target].dump(convert(conversation, to=target))
        assert type(body) is dict
        items.extend(body[key])
    text = json.dumps(items)
    return json.dumps({key: _unique(text, _copies(len(text), megabytes), ("call_", "fc_", "toolu_"))}).encode()


def openai_responses_input(megabytes: float) -> bytes:
    logs = [codex.load(path.read_bytes()) for path in sorted((REAL / "openai-responses").glob("*.jsonl"))]
    return _converted(logs, "openai_responses", "input", megabytes)


def gemini_input(megabytes: float) -> bytes:
    recordings = [gemini_cli.load(path.read_bytes()) for path in sorted((REAL / "gemini").glob("*.json"))]
    return _converted(recordings, "gemini", "contents", megabytes)


def codex_input(megabytes: float) -> bytes:
    rollouts = [path.read_bytes() for path in sorted((REAL / "openai-responses").glob("*.jsonl"))]
    clean = [data for data in rollouts if codex.check(data) == ()]
    text = b"".join(clean)
    out = bytearray()
    for copy in range(_copies(len(text), megabytes)):
        out += text.replace(b':"call_', b':"call_%dx' % copy)
    return bytes(out)


def pi_input(megabytes: float) -> bytes:
    sessions = [path.read_bytes() for path in sorted((REAL / "pi").glob("*.jsonl"))]
    text = b"".join(data for data in sessions if b'"parentId"' not in data and pi.check(data) == ())
    out = bytearray()
    for copy in range(_copies(len(text), megabytes)):
        out += re.sub(rb'"(toolu_|call_)', b'"\\g<1>%dx' % copy, text)
    return bytes(out)


def gemini_cli_input(megabytes: float) -> bytes:
    recordings = [json.loads(path.read_bytes()) for path in sorted((REAL / "gemini").glob("*.json"))]
    records = [record for recording in recordings if type(recording) is dict for record in recording["messages"]]
    text = json.dumps(records)
    items = _unique(text, _copies(len(text), megabytes), tuple({f"{call['name']}-" for call in _calls(records)}))
    return json.dumps({"sessionId": "s", "projectHash": "p", "messages": items}).encode()


def _calls(records: list[dict[str, object]]) -> list[dict[str, object]]:
    return [call for record in records for call in cast("list[dict[str, object]]", record.get("toolCalls") or [])]


def _log_input(write: Callable[[Path, int], object], megabytes: float) -> bytes:
    """The bytes of a session log that `write` (a generator of `bench_memory`) writes."""
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "session.jsonl"
        write(log, int(megabytes * 1e6))
        return log.read_bytes()


def median_seconds(function: Callable[[], object], rounds: int) -> float:
    times: list[float] = []
    for _ in range(rounds):
        gc.disable()
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
        gc.enable()
        gc.collect()
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--megabytes", type=float, default=15.0)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", help="the inputs to time, by their labels, comma-separated (default: all)")
    arguments = parser.parse_args()
    megabytes, rounds = arguments.megabytes, arguments.rounds
    peers = _peers()
    builders: dict[str, tuple[str, Callable[[float], bytes]]] = {  # as printed: the format, its input
        "openai_chat": ("openai_chat", openai_chat_input),
        "anthropic": ("anthropic", anthropic_input),
        "openai_responses": ("openai_responses", openai_responses_input),
        "gemini": ("gemini", gemini_input),
        "claude_code": ("claude_code", partial(_log_input, write_claude_code)),
        "claude_code (real tree)": ("claude_code", partial(_log_input, write_tree_log)),
        "codex": ("codex", codex_input),
        "pi": ("pi", pi_input),
        "gemini_cli": ("gemini_cli", gemini_cli_input),
    }
    only = builders if arguments.only is None else arguments.only.split(",")
    unknown = sorted(set(only) - set(builders))
    if unknown:
        parser.error(f"no input is labelled {', '.join(unknown)} (the labels: {', '.join(builders)})")
    inputs = {label: (builders[label][0], builders[label][1](megabytes)) for label in builders if label in only}
    build = "compiled" if (_records.__file__ or "").endswith(".so") else "pure"  # mypyc's modules loaded or not
    print(f"Python {sys.version.split()[0]}; the {build} build; medians of {rounds} rounds, one process, GC off")
    print("time as a multiple of msgspec's untyped decode of the same bytes (the floor)")
    for label, (name, data) in inputs.items():
        declared = FORMATS[name]
        conversation = declared.load(data)
        if name in ("claude_code", "codex", "pi"):
            written = declared.dumps(conversation)
            lines = msgspec.json.Decoder().decode_lines
            assert written == data or (name == "pi" and lines(written) == lines(data))  # pi escapes its own way
            floor = median_seconds(partial(msgspec.json.Decoder().decode_lines, data), rounds)
        else:
            assert msgspec.json.decode(declared.dumps(conversation)) == msgspec.json.decode(data)
            floor = median_seconds(partial(msgspec.json.decode, data), rounds)
        rows = {
            "load": median_seconds(partial(declared.load, data), rounds),
            "check": median_seconds(partial(declared.check, data), rounds),
            "dumps": median_seconds(partial(declared.dumps, conversation), rounds),
        }
        for peer, function in peers.get(label, []):
            rows[peer] = median_seconds(partial(function, data), rounds)
        count = len(conversation.messages)
        print(f"  {label} ({len(data) / 1e6:.1f} MB, {count:,} messages; floor {floor * 1e3:.1f} ms)")
        for row, seconds in rows.items():
            print(f"    {row:<52}{seconds / floor:6.2f}x")


if __name__ == "__main__":
    main()
