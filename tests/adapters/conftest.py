"""Fixtures shared by the adapters' tests."""

from __future__ import annotations

import pytest

from message_ir.adapters import _first_pass, _segments, _tree


@pytest.fixture
def planned(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The sources `check` and `repair` plan (run their first pass on) from here on, in order."""
    found: list[object] = []
    plan = _first_pass.plan

    def counted(
        source: object, keys: _tree.Keys, leaf: str | None, *, with_notes: bool = False, size: int = 0
    ) -> _first_pass.Plan:
        found.append(source)
        return plan(source, keys, leaf, with_notes=with_notes, size=size)

    monkeypatch.setattr(_segments, "plan", counted)
    return found
