"""The contract every registered format keeps, checked over `FORMATS` (a format is covered by
being registered; its samples are listed in `SAMPLES`, and a format without any fails here).

- its samples (real files of `../shared/real`) load and write back exactly, values and key
  order, as parsed values and as text;
- `check` never raises, whatever it is given;
- `convert` into it from every format, of every sample whose linkage is valid, passes its
  `check`;
- every code a `Diagnostic` or a `Note` can carry is documented.
"""

from __future__ import annotations

import json
import typing
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from message_ir import DiagnosticCode, Message, TranscriptError, UserMessage, encode_transcript, user_message
from message_ir.adapters import FORMATS, Format, NoteCode, convert, gemini, gemini_cli, mistral, openai_chat
from tests.adapters.real import anthropic_messages, openai_chat_messages, real_files
from tests.adapters.test_adapters import _json
from tests.property.strategies import malformed_structs

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _lines(path: Path) -> list[object]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def _recording(path: Path) -> object:
    return json.loads(path.read_bytes())


def _responses_items(path: Path) -> list[object]:
    """The Responses items a real Codex rollout holds: its `response_item` lines' payloads."""
    return [
        line["payload"] for line in map(json.loads, path.read_bytes().splitlines()) if line["type"] == "response_item"
    ]


def _as_gemini(path: Path) -> object:
    """No real Gemini request is at hand: a real gemini-cli recording converted to one."""
    return gemini.dump(convert(gemini_cli.load(path.read_bytes()), "gemini"))


def _as_mistral(path: Path) -> object:
    """No real Mistral request is at hand: a real OpenAI Chat transcript converted to one."""
    return mistral.dump(convert(openai_chat.load(openai_chat_messages(path)), "mistral"))


def ai_sdk_prompts(path: Path) -> list[list[object]]:
    """The `ai.prompt.messages` of an OTLP export of AI SDK spans (JSON text of ModelMessages), parsed."""
    found: list[list[object]] = []
    for line in path.read_bytes().splitlines():
        for resource in json.loads(line)["data"]["resourceSpans"]:
            for scope in resource["scopeSpans"]:
                for span in scope["spans"]:
                    for attribute in span.get("attributes", []):
                        if attribute["key"] == "ai.prompt.messages":
                            found.append(json.loads(attribute["value"]["stringValue"]))
    return found


def _ai_sdk_prompt(path: Path) -> object:
    """The longest prompt of an AI SDK trace export (every one: `tests/adapters/test_vercel_ai.py`)."""
    return max(ai_sdk_prompts(path), key=len)


def _otel_messages(path: Path) -> object:
    """A span's GenAI attributes as they are, or the longest message array of a Langfuse export
    (every one: `tests/adapters/test_otel_genai.py`)."""
    value = json.loads(path.read_bytes())
    if "observations" not in value:
        return value
    from tests.adapters.test_otel_genai import langfuse_messages

    return max(langfuse_messages(path), key=len)


def _hf_row(path: Path) -> object:
    """A TRL row's `messages` (the files hold the list; TRL computes `tools` in its script)."""
    return json.loads(path.read_bytes())


def _sharegpt_row(path: Path) -> object:
    """The first row of a LLaMA-Factory dataset window (every row: `tests/adapters/test_training_formats.py`)."""
    rows = json.loads(path.read_bytes())
    assert type(rows) is list
    return rows[0]


SAMPLES: dict[str, tuple[Callable[[Path], object], list[Path]]] = {
    "openai_chat": (openai_chat_messages, real_files("openai-chat", "*.json")),
    "anthropic": (anthropic_messages, real_files("anthropic", "*.jsonl")),
    "openai_responses": (_responses_items, real_files("openai-responses", "*.jsonl")),
    "gemini": (_as_gemini, real_files("gemini", "*.json")),
    "hf_chat": (_hf_row, real_files("hf-chat", "*.json")),
    "sharegpt": (_sharegpt_row, real_files("sharegpt", "llama-factory_glaive-*.json")),
    "mistral": (_as_mistral, real_files("openai-chat", "*.json")),
    "bedrock": (_recording, real_files("bedrock", "pydantic-ai_converse-request_*.json")),
    "vercel_ai": (_ai_sdk_prompt, real_files("vercel-ai", "*.jsonl")),
    "otel_genai": (
        _otel_messages,
        real_files("otel-genai", "langfuse_pydantic-ai-*.json")
        + real_files("otel-genai", "langfuse_microsoft-agent-*.json")
        + real_files("otel-genai", "openinference_otel-genai-*.json"),
    ),
    "claude_code": (_lines, real_files("anthropic", "*.jsonl") + real_files("claude-code-inline-sidechain", "*.jsonl")),
    "codex": (_lines, real_files("openai-responses", "*.jsonl")),
    "pi": (_lines, real_files("pi", "*.jsonl")),
    "gemini_cli": (_recording, real_files("gemini", "*.json")),
}
"""Each format's samples: how a real file becomes one, and the files."""


def _samples(name: str) -> list[tuple[str, object]]:
    read, paths = SAMPLES[name]
    return [(path.name, read(path)) for path in paths]


CASES = [(name, label, value) for name in FORMATS for label, value in _samples(name)]


def test_every_registered_format_has_samples() -> None:
    assert set(SAMPLES) == set(FORMATS)
    assert all(_samples(name) for name in FORMATS)


@pytest.mark.parametrize(("name", "label", "sample"), CASES, ids=[f"{name}-{label}" for name, label, _ in CASES])
def test_a_sample_loads_and_writes_back_exactly(name: str, label: str, sample: object) -> None:
    declared = FORMATS[name]
    conversation = declared.load(sample)
    assert json.dumps(declared.dump(conversation)) == json.dumps(sample)
    text = declared.dumps(conversation)
    written = [json.loads(line) for line in text.splitlines()] if declared.json_lines else json.loads(text)
    assert json.dumps(written) == json.dumps(sample)
    assert json.dumps(declared.dump(declared.load(text))) == json.dumps(sample)


@pytest.mark.parametrize("name", list(FORMATS))
@given(junk=st.one_of(_json, st.binary(max_size=40), st.text(max_size=40)))
def test_check_never_raises(name: str, junk: object) -> None:
    assert type(FORMATS[name].check(junk)) is tuple


@pytest.mark.parametrize("name", list(FORMATS))
@given(transcript=malformed_structs())
def test_dump_of_a_malformed_message_raises_nothing_but_a_transcript_error(name: str, transcript: list[object]) -> None:
    """A message built by calling the Struct classes directly with a field of the wrong type:
    `dump`, `dumps` and `convert` into the format write it when they can, and when that fails
    they raise the `TranscriptError` that `encode_transcript` raises, never their own error."""
    messages = cast("list[Message]", transcript)  # what a caller may pass: the types lie
    for function in (FORMATS[name].dump, FORMATS[name].dumps, partial(convert, to=name)):
        raised: list[TranscriptError] = []
        try:
            function(messages)
        except TranscriptError as error:  # anything else fails the test
            raised.append(error)
        if raised:
            with pytest.raises(TranscriptError) as expected:
                encode_transcript(messages)
            assert raised[0].diagnostics == expected.value.diagnostics


def test_a_dump_that_fails_on_a_malformed_message_names_the_field() -> None:
    """Every format's writer, and `convert` into it, reads a user message's `meta`: an `int`
    there fails each one."""
    messages: list[Message] = [
        user_message(id="u", content="hi"),
        UserMessage(id="v", content="again", meta_json=5),  # type: ignore[arg-type]  # the mistake
    ]
    for name in FORMATS:
        for function in (FORMATS[name].dump, FORMATS[name].dumps, partial(convert, to=name)):
            with pytest.raises(TranscriptError) as raised:
                function(messages)
            assert [(d.code, d.message_index, d.path, d.message) for d in raised.value.diagnostics] == [
                ("BAD_META", 1, "$[1].meta", "Expected `msgspec.Raw`, got `int`")
            ], name


def _valid(declared: Format, sample: object) -> bool:
    return declared.check(sample) == ()


PAIRS = [(source, target) for source in FORMATS for target in FORMATS]


@pytest.mark.parametrize(("source", "target"), PAIRS, ids=[f"{source}-to-{target}" for source, target in PAIRS])
def test_convert_into_a_format_passes_its_check(source: str, target: str) -> None:
    from_format, to_format = FORMATS[source], FORMATS[target]
    converted_any = False
    for _, sample in _samples(source):
        if not _valid(from_format, sample):
            continue  # a broken sample converts to a broken one: nothing to promise
        converted = convert(from_format.load(sample), target)
        assert to_format.check(to_format.dumps(converted)) == (), (source, target)
        converted_any = True
    assert converted_any, f"no {source} sample checks clean"


def test_every_code_is_documented() -> None:
    documented = (DOCS / "diagnostics.md").read_text() + (DOCS / "formats.md").read_text()
    codes = [*typing.get_args(DiagnosticCode), *typing.get_args(NoteCode)]
    flat: list[str] = []
    for code in codes:  # `DiagnosticCode` is a Literal of Literals
        flat.extend(typing.get_args(code) or (code,))
    assert [code for code in flat if f"`{code}`" not in documented] == []
