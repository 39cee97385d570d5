"""`__all__` is exactly the public surface: everything listed exists, nothing public is missing."""

from __future__ import annotations

import message_ir


def test_every_name_in_all_exists() -> None:
    for name in message_ir.__all__:
        assert hasattr(message_ir, name), name


def test_all_lists_every_public_name_and_nothing_private() -> None:
    public = {name for name in vars(message_ir) if not name.startswith("_")}
    assert public == set(message_ir.__all__)
    assert len(message_ir.__all__) == len(set(message_ir.__all__))
    assert all(not name.startswith("_") for name in message_ir.__all__)
