"""Redaction: every family of secret found and replaced, consistently, without breaking what
it is in; IDs, names and linkage untouched; everything else byte for byte."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from message_ir import assistant_message, tool_call, tool_result_message, user_message
from message_ir.adapters import FORMATS, openai_chat
from message_ir.redact import RULES, redact, redact_file_bytes
from message_ir.redact._scan import protected
from tests.adapters.test_contract import SAMPLES
from tests.test_cli import run as cli_run

# Fake secrets of every family, made up here (none is anyone's).
FAKE: dict[str, str] = {
    "private-key": "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA0fakefakefake\n-----END RSA PRIVATE KEY-----",
    "aws-access-key": "AKIA" + "Z7FAKE0KEY0FOR0TEST"[:16],
    "aws-secret-key": "aws_secret_access_key = " + "wJalrXUtnFEMI/K7MDENG/bPxRfiCYFAKEKEY0TE",
    "google-api-key": "AIza" + "SyFake0Key0For0Tests0Only0123456789",
    "anthropic-key": "sk-ant-api03-" + "FakeKeyForTests0123456789abcdefXYZ",
    "openai-key": "sk-proj-" + "FakeKeyForTests0123456789abcdef",
    "github-token": "ghp_" + "FakeTokenForTests0123456789abcdefghij",
    "gitlab-token": "glpat-" + "FakeTokenForTests0123",
    "slack-token": "xoxb-" + "123456789012-FakeTokenTests",
    "stripe-key": "sk_live_" + "FakeKeyForTests01234",
    "huggingface-token": "hf_" + "FakeTokenForTests0123456789abcdefgh",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJmYWtlIn0.FakeSignatureForTests0123",
    "url-credentials": "postgres://admin:" + "FakePassword123" + "@db.example.org/app",
    "email": "someone.fake@example.org",
    "high-entropy": "Zq8vR3xK9mP2wL7nB4tY6cH1jD5fG0sA",
}
SECRET_PART = {"aws-secret-key": FAKE["aws-secret-key"].split("= ")[1], "url-credentials": "FakePassword123"}
NOT_SECRETS = [
    "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678",  # a commit
    "3f2504e0-4f89-11d3-9a0c-0305e82c3301",  # a UUID
    "toolu_01QVA9ZtQhiqWU7kKBrXThFY",  # a call ID
    "/Users/someone/projects/message-ir/src/message_ir/adapters/_registry.py",
    "The quick brown fox jumps over the lazy dog, twice over for good measure.",
    "data:image/png;base64," + "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk" * 8,
]


def _text(value: str) -> str:
    return json.dumps(value)[1:-1]  # a string's raw text inside JSON


@pytest.mark.parametrize("rule", sorted(FAKE))
def test_every_family_is_found_and_replaced(rule: str) -> None:
    data = json.dumps({"content": f"before {FAKE[rule]} after"}).encode()
    redacted = redact_file_bytes(data, json_lines=False)
    assert [item.rule for item in redacted.redactions] == [rule]
    assert _text(SECRET_PART.get(rule, FAKE[rule])).encode() not in redacted.data
    assert json.loads(redacted.data)["content"].startswith("before ")
    assert f"[REDACTED:{rule}:1]" in json.loads(redacted.data)["content"]


def test_the_rules_cover_the_families_of_the_corpus() -> None:
    assert {rule.name for rule in RULES} == set(FAKE)


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_what_is_no_secret_is_left_alone(text: str) -> None:
    data = json.dumps({"content": text}).encode()
    assert redact_file_bytes(data, json_lines=False) == (data, ())


def test_the_same_secret_gets_the_same_placeholder_and_others_another() -> None:
    other = "ghp_" + "AnotherFakeTokenForTests0123456789abc"
    lines = [{"content": FAKE["github-token"]}, {"content": f"{other} and {FAKE['github-token']}"}]
    data = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
    redacted = redact_file_bytes(data, json_lines=True)
    assert [item.placeholder for item in redacted.redactions] == [
        "[REDACTED:github-token:1]",
        "[REDACTED:github-token:2]",
        "[REDACTED:github-token:1]",
    ]
    assert [item.path for item in redacted.redactions] == ["$[0].content", "$[1].content", "$[1].content"]


def test_every_other_byte_stays_and_arguments_stay_json_of_their_type() -> None:
    arguments = json.dumps({"token": FAKE["github-token"], "n": 1.50, "list": [FAKE["email"]]})
    messages = [
        {"role": "user", "content": "hi", "n": 1.50e0},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": arguments}}
        ]},
        {"role": "tool", "tool_call_id": "call_1", "content": "ok"},
    ]  # fmt: skip
    data = json.dumps(messages, indent=1).encode()
    redacted = redact_file_bytes(data, json_lines=False)
    expected = data.replace(_text(FAKE["github-token"]).encode(), b"[REDACTED:github-token:1]").replace(
        FAKE["email"].encode(), b"[REDACTED:email:1]"
    )
    assert redacted.data == expected
    written = json.loads(json.loads(redacted.data)[1]["tool_calls"][0]["function"]["arguments"])
    assert written == {"token": "[REDACTED:github-token:1]", "n": 1.5, "list": ["[REDACTED:email:1]"]}
    assert openai_chat.check(redacted.data) == ()


def test_ids_names_and_signatures_are_never_touched() -> None:
    record = {"id": FAKE["aws-access-key"], "name": FAKE["email"], "toolUseID": FAKE["high-entropy"]}
    record["thinkingSignature"] = FAKE["high-entropy"]
    data = json.dumps(record).encode()
    assert redact_file_bytes(data, json_lines=False) == (data, ())
    assert protected("parentUuid")
    assert protected("tool_call_id")
    assert not protected("content")


def _inject(value: object, key: str | None = None) -> object:
    """Every string a redaction may touch, with a fake secret appended (JSON texts kept JSON)."""
    if type(value) is dict:
        return {name: _inject(item, name) for name, item in value.items()}
    if type(value) is list:
        return [_inject(item, key) for item in value]
    if type(value) is str and not protected(key):
        try:
            inner = json.loads(value)
        except ValueError:
            return f"{value} {FAKE['aws-access-key']}"
        if type(inner) in (dict, list):
            return json.dumps(_inject(inner))
    return value


def _real_cases() -> list[tuple[str, Path]]:
    cases: list[tuple[str, Path]] = []
    for name in ("openai_chat", "claude_code", "codex", "pi", "gemini_cli"):
        cases.extend((name, path) for path in SAMPLES[name][1][:3])
    return cases


@pytest.mark.parametrize(("name", "path"), _real_cases(), ids=[f"{n}-{p.name}" for n, p in _real_cases()])
def test_secrets_injected_into_a_real_file_are_gone_and_it_checks_as_before(name: str, path: Path) -> None:
    declared = FORMATS[name]
    lines = declared.json_lines
    values = [json.loads(line) for line in path.read_bytes().splitlines()] if lines else [json.loads(path.read_bytes())]
    injected = [_inject(value) for value in values]
    data = (
        (b"".join(json.dumps(value).encode() + b"\n" for value in injected))
        if lines
        else json.dumps(injected[0]).encode()
    )
    redacted = redact_file_bytes(data, json_lines=lines)
    assert FAKE["aws-access-key"].encode() not in redacted.data
    assert redacted.redactions
    assert declared.check(redacted.data) == declared.check(data)
    if name == "claude_code":  # every link and ID of the session, byte for byte
        for before, after in zip(data.splitlines(), redacted.data.splitlines(), strict=True):
            old, new = json.loads(before), json.loads(after)
            for key in ("uuid", "parentUuid", "sessionId"):
                assert old.get(key) == new.get(key)
            assert (old.get("message") or {}).get("id") == (new.get("message") or {}).get("id")


def test_redact_a_conversation_keeps_ids_and_linkage() -> None:
    messages = (
        user_message(id="u", content=f"my key {FAKE['openai-key']}"),
        assistant_message(
            id="a", content=[tool_call(id="c1", name="login", arguments={"password_url": FAKE["url-credentials"]})]
        ),
        tool_result_message(id="r", tool_call_id="c1", tool_name="login", content=f"welcome {FAKE['email']}"),
    )  # fmt: skip
    redacted, redactions = redact(messages)
    assert [message.id for message in redacted] == ["u", "a", "r"]
    assert [(item.path, item.rule) for item in redactions] == [
        ("$[0].content", "openai-key"),
        ("$[1].content[0].arguments.password_url", "url-credentials"),
        ("$[2].content", "email"),
    ]
    text = json.dumps([m.content if type(m.content) is str else "" for m in redacted])
    assert FAKE["openai-key"] not in text
    assert FAKE["email"] not in text
    conversation = openai_chat.load([{"role": "system", "content": FAKE["email"]}, {"role": "user", "content": "hi"}])
    cleaned, found = redact(conversation)
    assert cleaned.instructions[0].text == "[REDACTED:email:1]"
    assert [item.path for item in found] == ["$.instructions[0].text"]


def run(*arguments: str) -> subprocess.CompletedProcess[str]:
    return cli_run("redact", *arguments)


@pytest.fixture
def session(tmp_path: Path) -> Path:
    path = tmp_path / "session.jsonl"
    path.write_text(
        json.dumps({"type": "user", "uuid": "u1", "message": {"role": "user", "content": FAKE["jwt"]}}) + "\n"
    )
    return path


def test_the_command_line_writes_reports_and_checks(session: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    completed = run(str(session), "-o", str(out))
    assert (completed.returncode, completed.stderr) == (
        0,
        f"{session}: jwt (at $[0].message.content) -> [REDACTED:jwt:1]\n",
    )
    assert FAKE["jwt"] not in out.read_text()
    checked = run("--check", str(session), str(out))
    assert (checked.returncode, checked.stdout, checked.stderr) == (
        1,
        "",
        f"{session}: jwt (at $[0].message.content)\n",
    )
    assert run("--check", str(out)).returncode == 0
    report = run("--format", "json", "--check", str(session))
    assert json.loads(report.stderr) == [{"file": str(session), "path": "$[0].message.content", "rule": "jwt"}]
    assert FAKE["jwt"] not in completed.stderr + checked.stderr + report.stderr


def test_literals_and_patterns_of_the_user(session: Path) -> None:
    session.write_text(json.dumps({"content": "project Zephyr-42 at acme"}) + "\n")
    completed = run(str(session), "--literal", "acme", "--pattern", r"Zephyr-\d+")
    assert json.loads(completed.stdout) == {"content": "project [REDACTED:pattern:1] at [REDACTED:literal:1]"}


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            ["--pattern", "("],
            "message-ir: error: --pattern '(' is not a valid regular expression: "
            "missing ), unterminated subpattern at position 0",
        ),
        (["--pattern", "x*"], "message-ir: error: --pattern 'x*' matches the empty string"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_the_input_untouched(
    session: Path, arguments: list[str], message: str
) -> None:
    before = session.read_bytes()
    completed = run(*arguments, str(session), "-o", str(session))
    assert (completed.returncode, completed.stderr.splitlines()[-1]) == (2, message)
    assert session.read_bytes() == before
    missing = run(str(session.with_name("missing.jsonl")))
    assert (missing.returncode, missing.stderr) == (
        2,
        f"message-ir: error: cannot read {session.with_name('missing.jsonl')}: No such file or directory\n",
    )
    session.write_text("{not json\n")
    broken = run(str(session))
    assert broken.returncode == 2
    assert broken.stderr.startswith(f"message-ir: error: {session}: not JSON Lines: ")


_SECRETS = st.sampled_from(sorted(FAKE.values()))
_STRINGS = st.one_of(
    st.text(max_size=20), _SECRETS, st.builds(lambda a, s: f"{a} {s} {a}", st.text(max_size=8), _SECRETS)
)
_KEYS = st.sampled_from(["content", "id", "name", "text", "toolUseID", "input", "x"])
_TREES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), _STRINGS),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(_KEYS, children, max_size=4),
    max_leaves=20,
)


def _same_shape(before: object, after: object, key: str | None = None) -> None:
    """The same JSON shape and types; strings differ only where a rule may replace, never under
    a protected key."""
    assert type(before) is type(after)
    if type(before) is dict and type(after) is dict:
        assert list(before) == list(after)
        for name in before:
            _same_shape(before[name], after[name], name)
    elif type(before) is list and type(after) is list:
        assert len(before) == len(after)
        for old, new in zip(before, after, strict=True):
            _same_shape(old, new, key)
    elif type(before) is not str or protected(key):
        assert before == after
    elif type(after) is str:
        assert not any(secret in after for secret in FAKE.values() if secret in before)


@given(_TREES, st.booleans())
def test_redaction_keeps_every_json_value_valid_and_its_shape(tree: object, indent: bool) -> None:
    data = json.dumps(tree, indent=1 if indent else None).encode()
    redacted = redact_file_bytes(data, json_lines=False)
    _same_shape(tree, json.loads(redacted.data))
    if not redacted.redactions:
        assert redacted.data == data


def test_several_files_only_with_check(session: Path) -> None:
    completed = run(str(session), str(session))
    assert (completed.returncode, completed.stderr) == (
        2,
        "message-ir: error: redact: give one FILE (several only with --check)\n",
    )
