"""A coverage-guided fuzz harness (atheris) for the JSON boundary and the validator.

Each input is tried as a JSON transcript, as JSON Lines, and (when `json.loads` reads it)
given to `validate_transcript`. A finding is any exception other than `TranscriptError`
from the decoders, any exception at all from the validator, or a decoded transcript that
does not validate and round-trip. Run it through nox: `nox -s fuzz -- SECONDS`.
"""

from __future__ import annotations

import json
import sys

import atheris

with atheris.instrument_imports(include=["message_ir"]):
    from message_ir import (
        Diagnostic,
        TranscriptError,
        decode_jsonl,
        decode_transcript,
        encode_jsonl,
        encode_transcript,
        validate_transcript,
    )


def test_one_input(data: bytes) -> None:
    try:
        messages = decode_transcript(data)
    except TranscriptError as error:
        diagnostics = error.diagnostics
    else:
        diagnostics = validate_transcript(messages)
        assert diagnostics == (), diagnostics  # a decoded transcript is valid
        assert decode_transcript(encode_transcript(messages)) == messages
    assert type(diagnostics) is tuple
    try:
        lines = decode_jsonl(data)
    except TranscriptError as error:
        diagnostics = error.diagnostics
    else:
        diagnostics = ()
        assert decode_jsonl(encode_jsonl(lines)) == lines
    assert all(type(diagnostic) is Diagnostic for diagnostic in diagnostics)
    try:
        parsed = json.loads(data)
    except (ValueError, RecursionError):
        return
    found = validate_transcript(parsed)
    assert type(found) is tuple
    assert all(type(diagnostic) is Diagnostic for diagnostic in found)


def main() -> None:
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
