"""Every Python example in the docs runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
_PYTHON = re.compile(r"```python\n(.*?)```", re.DOTALL)


def examples() -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for page in sorted(DOCS.glob("*.md")):
        for number, match in enumerate(_PYTHON.finditer(page.read_text())):
            found.append((f"{page.name}#{number}", match.group(1)))
    return found


@pytest.mark.parametrize(("name", "code"), examples(), ids=[name for name, _ in examples()])
def test_example_runs(name: str, code: str) -> None:
    exec(compile(code, name, "exec"), {})  # the docs' own examples
