"""The registry is the only list of formats: a format's module name stands nowhere else in the
package's code but in the registry and, for a session log, in the module of its provider's
(and, for a stream format, in the streams' own registry)."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

import message_ir
from message_ir.adapters import FORMATS

PACKAGE = Path(message_ir.__file__).parent
REGISTRY = PACKAGE / "adapters" / "_registry.py"
STREAM_REGISTRY = PACKAGE / "streams" / "_registry.py"
"""The stream formats' own registry (a stream format is a module of `message_ir.streams`)."""


def _code_words(path: Path) -> list[str]:
    """The names and string literals of a module, comments and docstrings left out."""
    text = path.read_text()
    documentation: set[int] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            documentation.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return [
        token.string
        for token in tokenize.generate_tokens(io.StringIO(text).readline)
        if token.type == tokenize.NAME or (token.type == tokenize.STRING and token.start[0] not in documentation)
    ]


@pytest.mark.parametrize("name", list(FORMATS))
def test_a_format_is_named_only_in_its_module_the_registry_and_its_logs_module(name: str) -> None:
    word = re.compile(rf"(?<![A-Za-z0-9_-]){name}(?![A-Za-z0-9_-])")  # `anthropic-key` names no format
    naming = {
        path
        for path in PACKAGE.rglob("*.py")
        if path.stem != name and any(word.search(part) for part in _code_words(path))
    }
    logs = {PACKAGE / "adapters" / f"{log.name}.py" for log in FORMATS.values() if log.payload == name}
    streams = {STREAM_REGISTRY} if (PACKAGE / "streams" / f"{name}.py").exists() else set()
    assert naming == {REGISTRY} | logs | streams


def test_every_declaration_is_consistent() -> None:
    for name, declared in FORMATS.items():
        assert declared.cli_name == name.replace("_", "-")
        assert declared.description
        assert declared.payload in ("", *FORMATS)
        assert not (declared.dataset_line and declared.json_lines)
        assert bool(declared.messages_key) == declared.dataset_line
    assert [declared.name for declared in FORMATS.values() if declared.recognize.fallback] == ["openai_chat"]
