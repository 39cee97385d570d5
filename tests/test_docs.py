"""Every Python example in the README and the docs runs as written, and the API reference
names every public name."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
_PYTHON = re.compile(r"```python\n(.*?)```", re.DOTALL)


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


@pytest.mark.parametrize("page", pages(), ids=[page.name for page in pages()])
def test_the_pages_examples_run(page: Path) -> None:
    """A page's Python examples run in order, in one namespace, as a reader would run them."""
    namespace: dict[str, object] = {}
    for number, match in enumerate(_PYTHON.finditer(page.read_text())):
        exec(compile(match.group(1), f"{page.name}#{number}", "exec"), namespace)  # the docs' own examples


def test_the_api_reference_names_every_public_name() -> None:
    import message_ir
    import message_ir.adapters

    reference = (DOCS / "api.md").read_text()
    for module in (message_ir, message_ir.adapters):
        for name in module.__all__:
            assert f"`{name}`" in reference, f"docs/api.md does not name {module.__name__}.{name}"


def test_every_page_the_readme_links_exists() -> None:
    readme = (ROOT / "README.md").read_text()
    for target in re.findall(r"\]\(([^)#]+)\)", readme):
        assert (ROOT / target).exists(), target
