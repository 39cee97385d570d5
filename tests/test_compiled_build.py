"""The opt-in compiled build's list of modules (pyproject.toml's mypyc `include`), held to the
rules design.md gives for it: no module on it defines a msgspec Struct (mypyc drops their
class keywords) or an exception class, none defines a name of the public API (compiled code
answers a wrong argument type with `TypeError`) or is a public module (a compiled module has
no docstrings), and noxfile.py's `COMPILED`, which the compiled test session checks are
extension modules, lists the same modules."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from pathlib import Path

import msgspec
import pytest

import message_ir
import message_ir.adapters

ROOT = Path(__file__).resolve().parents[1]


def _included() -> list[str]:
    """The modules of pyproject.toml's mypyc `include`, as dotted names."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    section = text.split("[tool.hatch.build.targets.wheel.hooks.mypyc]", 1)[1]
    block = re.search(r"^include = \[(.*?)^\]", section, re.MULTILINE | re.DOTALL)
    assert block is not None
    paths = re.findall(r'"src/([^"]+)\.py"', block.group(1))
    return [path.replace("/", ".") for path in paths]


def _nox_compiled() -> list[str]:
    """noxfile.py's `COMPILED` list (read from its source: nox need not be installed here)."""
    tree = ast.parse((ROOT / "noxfile.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == "COMPILED":
            assert isinstance(node.value, ast.List)
            return [
                element.value
                for element in node.value.elts
                if isinstance(element, ast.Constant) and isinstance(element.value, str)
            ]
    raise AssertionError("noxfile.py has no `COMPILED`")


COMPILED = _included()


def test_the_compiled_list_is_the_noxfiles() -> None:
    assert sorted(COMPILED) == sorted(_nox_compiled())
    assert "message_ir.adapters._records" in COMPILED  # the list was read


@pytest.mark.parametrize("name", COMPILED)
def test_a_compiled_module_defines_no_struct_and_no_exception(name: str) -> None:
    module = importlib.import_module(name)
    defined = [value for value in vars(module).values() if inspect.isclass(value) and value.__module__ == name]
    assert [cls.__name__ for cls in defined if issubclass(cls, (msgspec.Struct, BaseException))] == []


def test_no_public_name_is_defined_in_a_compiled_module() -> None:
    public = [(package, name) for package in (message_ir, message_ir.adapters) for name in package.__all__]
    defined_there = [
        f"{package.__name__}.{name}"
        for package, name in public
        if getattr(getattr(package, name), "__module__", None) in COMPILED
    ]
    assert defined_there == []


def test_every_compiled_module_is_private() -> None:
    """A compiled module loses its docstrings, which a public module (a format's) is read by."""
    assert [name for name in COMPILED if not name.rsplit(".", 1)[1].startswith("_")] == []
