"""Round trips: every shipped example and a generated corpus, through every boundary."""

from __future__ import annotations

import json
import shutil
import subprocess
from importlib import resources

import pytest

from message_ir import (
    Message,
    decode_jsonl,
    decode_transcript,
    encode_jsonl,
    encode_transcript,
    validate_transcript,
)
from tests.corpus import transcript

EXAMPLES = sorted(entry.name for entry in (resources.files("message_ir") / "examples").iterdir())


def assert_lossless(messages: tuple[Message, ...], *, linked: bool = True) -> None:
    """encode -> json.loads -> validate -> decode -> encode, bytes and values unchanged."""
    encoded = encode_transcript(messages)
    parsed = json.loads(encoded)
    if linked:
        assert validate_transcript(parsed) == ()
    decoded = decode_transcript(encoded, check_linkage=linked)
    assert decoded == messages
    assert encode_transcript(decoded) == encoded
    assert json.loads(encode_transcript(decoded)) == parsed
    assert decode_jsonl(encode_jsonl(messages), check_linkage=linked) == messages


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_shipped_example_round_trips(name: str) -> None:
    data = (resources.files("message_ir") / "examples" / name).read_bytes()
    linked = name.startswith("valid-")
    if name.endswith(".jsonl"):
        messages = decode_jsonl(data, check_linkage=linked)
    else:
        messages = decode_transcript(data, check_linkage=linked)
        assert json.loads(encode_transcript(messages)) == json.loads(data)
    assert_lossless(messages, linked=linked)


CORPUS_SIZE = 300


def test_generated_corpus_round_trips() -> None:
    for seed in range(CORPUS_SIZE):
        assert_lossless(transcript(seed))


NODE = shutil.which("node")
STRINGIFY = (
    "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>process.stdout.write(JSON.stringify(JSON.parse(s))))"
)


@pytest.mark.skipif(NODE is None, reason="node is not on PATH: JSON.stringify interoperability not checked")
def test_json_written_by_node_decodes_to_equal_messages() -> None:
    # JavaScript has one number type (integers beyond 2**53, -0.0 and integral floats do not
    # survive JSON.parse) and puts integer-like keys first; this corpus avoids both (`js_safe`).
    assert NODE is not None
    for seed in range(60):
        messages = transcript(seed, js_safe=True)
        encoded = encode_transcript(messages)
        from_node = subprocess.run(
            [NODE, "-e", STRINGIFY], input=encoded, capture_output=True, check=True, timeout=60
        ).stdout
        decoded = decode_transcript(from_node)
        assert decoded == messages
        assert encode_transcript(decoded) == encoded  # canonical again, though node writes 1e+300
