"""What docs/api.md's index says of each public name: the first paragraph of its own docstring
(a function's or class's `__doc__`, a module's, or the string right after a constant)."""

from __future__ import annotations

import ast
import importlib
import inspect
import itertools
import re
from pathlib import Path
from types import ModuleType

MODULES = (
    "message_ir",
    "message_ir.adapters",
    "message_ir.datasets",
    "message_ir.datasets.dask",
    "message_ir.redact",
    "message_ir.render",
    "message_ir.streams",
    "message_ir.traces",
    "message_ir.usage",
)
_ROW = re.compile(r"^\| `(\w+)` \| (.*) \|$", re.MULTILINE)
_SECTION = re.compile(r"^### `(message_ir[\w.]*)`$", re.MULTILINE)


def first_paragraph(text: str) -> str:
    """A docstring's first paragraph, on one line (a `|` escaped, as a table cell holds it)."""
    return " ".join(inspect.cleandoc(text).split("\n\n")[0].split()).replace("|", "\\|")


def constant_docstrings() -> dict[str, str]:
    """Each documented top-level assignment of the package's modules: name -> its docstring."""
    found: dict[str, str] = {}
    package = Path(importlib.import_module("message_ir").__file__ or "").parent
    for path in package.rglob("*.py"):
        body = ast.parse(path.read_text()).body
        for statement, following in itertools.pairwise(body):
            target: ast.expr | None = statement.target if isinstance(statement, ast.AnnAssign) else None
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
                target = statement.targets[0]
            if (
                isinstance(target, ast.Name)
                and isinstance(following, ast.Expr)
                and isinstance(following.value, ast.Constant)
                and isinstance(following.value.value, str)
            ):
                found.setdefault(target.id, following.value.value)
    return found


def described(module: ModuleType, name: str, constants: dict[str, str]) -> str | None:
    """The first paragraph of what `module.name` says of itself, or `None`."""
    value = getattr(module, name)
    own = inspect.isfunction(value) or inspect.isclass(value) or inspect.ismodule(value)
    text = value.__doc__ if own else constants.get(name)
    return first_paragraph(text) if text else None


def expected_rows() -> dict[tuple[str, str], str | None]:
    constants = constant_docstrings()
    rows: dict[tuple[str, str], str | None] = {}
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        formats: list[str] = sorted(getattr(module, "FORMATS", {})) if module_name == "message_ir.adapters" else []
        for name in [*module.__all__, *formats]:  # and the adapters' format modules, one per format
            rows[(module_name, name)] = described(module, name, constants)
    return rows


def written_rows(text: str) -> dict[tuple[str, str], str]:
    rows: dict[tuple[str, str], str] = {}
    parts = _SECTION.split(text)
    for index in range(1, len(parts), 2):
        for match in _ROW.finditer(parts[index + 1]):
            rows[(parts[index], match.group(1))] = match.group(2)
    return rows
