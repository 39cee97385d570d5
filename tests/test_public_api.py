"""`__all__` is exactly the public surface: everything listed exists, nothing public is missing."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import typing
from types import ModuleType

import message_ir
import message_ir.adapters
from tests.api_reference import constant_docstrings


def test_every_name_in_all_exists() -> None:
    for name in message_ir.__all__:
        assert hasattr(message_ir, name), name


def test_all_lists_every_public_name_and_nothing_private() -> None:
    public = {
        name for name, value in vars(message_ir).items() if not name.startswith("_") and type(value) is not ModuleType
    }  # public subpackages (`message_ir.adapters`) are modules of their own
    public.add("__version__")
    assert public == set(message_ir.__all__)
    assert len(message_ir.__all__) == len(set(message_ir.__all__))
    assert all(not name.startswith("_") or name == "__version__" for name in message_ir.__all__)


def test_adapters_all_lists_every_public_name() -> None:
    # Besides `__all__`, the public names are the registered formats' modules, one per format
    # (named in the registry only, so that a new format is its module and a registry line).
    public = {name for name in vars(message_ir.adapters) if not name.startswith("_")}
    assert public - set(message_ir.adapters.__all__) == set(message_ir.adapters.FORMATS)
    for name, declared in message_ir.adapters.FORMATS.items():
        module = getattr(message_ir.adapters, name)
        assert type(module) is ModuleType
        assert module.FORMAT is declared
        assert module.NAME == declared.name == name


def test_format_name_is_the_registry() -> None:
    assert typing.get_args(message_ir.adapters.FormatName) == tuple(message_ir.adapters.FORMATS)


def test_every_public_name_has_a_docstring() -> None:
    documented = set(constant_docstrings())
    for module in (message_ir, message_ir.adapters):
        for name in module.__all__:
            value = getattr(module, name)
            has_own = type(value) in (type, ModuleType) or (callable(value) and type(value) is not type(int | str))
            if has_own and getattr(value, "__doc__", None):
                continue
            assert name in documented, f"{module.__name__}.{name} has no docstring"


def test_the_version_is_the_installed_distributions() -> None:
    # Written once, in `_version.py`; the build reads it from there into the metadata. Checked
    # against the metadata here so that importing the package never needs `importlib.metadata`.
    assert message_ir.__version__ == importlib.metadata.version("message-ir")
    assert subprocess.run(
        [sys.executable, "-c", "import sys, message_ir; print('importlib.metadata' in sys.modules)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split() == ["False"]
