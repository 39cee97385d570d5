"""`__all__` is exactly the public surface: everything listed exists, nothing public is missing."""

from __future__ import annotations

from types import ModuleType

import message_ir
import message_ir.adapters


def test_every_name_in_all_exists() -> None:
    for name in message_ir.__all__:
        assert hasattr(message_ir, name), name


def test_all_lists_every_public_name_and_nothing_private() -> None:
    public = {
        name for name, value in vars(message_ir).items() if not name.startswith("_") and type(value) is not ModuleType
    }  # public subpackages (`message_ir.adapters`) are modules of their own
    assert public == set(message_ir.__all__)
    assert len(message_ir.__all__) == len(set(message_ir.__all__))
    assert all(not name.startswith("_") for name in message_ir.__all__)


def test_adapters_all_lists_every_public_name() -> None:
    public = {name for name in vars(message_ir.adapters) if not name.startswith("_")}
    assert public == set(message_ir.adapters.__all__)
