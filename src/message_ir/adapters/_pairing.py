"""Calls without an ID and the results answering them by order: the pairing of formats whose
IDs are optional (Gemini, Hugging Face chat rows) or absent (ShareGPT).

A call without an ID gets one made up from where it stood (`<prefix>_<record>_<part>`, with a
`MADE_UP_CALL_ID` note, and a mark in the package's `meta` entry, so that `convert` can say
when it writes one); a result without one answers the earliest unanswered call of its name
that had none. Made-up IDs are never written back by the format that made them.
"""

from __future__ import annotations

from typing import Final

from message_ir.adapters._conversation import Note
from message_ir.adapters._load_state import LoadState
from message_ir.adapters._records import Info

MADE_UP: Final = "made_up_id"
"""The flag in the package's `meta` entry of a call whose ID `load` made up."""
MADE_UP_INFO: Final[Info] = {MADE_UP: True}
"""The package's `meta` entry of a call whose ID `load` made up."""


class Pairing:
    """Calls without an ID, waiting for a result without one: paired by order and name."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.waiting: list[tuple[str, str]] = []  # (IR ID, name), in order

    def made_up(self, state: LoadState, message_index: int, name: str, path: str, part: int) -> str:
        """The ID of a call that has none (with a note), remembered for its result."""
        wanted = f"{self.prefix}_{state.index}_{part}"
        ir_id = state.call_id(message_index, wanted, name, path)
        state.notes.append(
            Note(
                "MADE_UP_CALL_ID",
                message_index,
                path,
                f"The call has no `id`; the IR calls it {ir_id!r} (never written back)",
            )
        )
        self.waiting.append((ir_id, name))
        return ir_id

    def answer(self, name: str | None) -> str | None:
        """The IR ID of the earliest waiting call named `name` (any name when `None`; no
        longer waiting), or `None` when none waits."""
        for number, (ir_id, call_name) in enumerate(self.waiting):
            if name is None or call_name == name:
                del self.waiting[number]
                return ir_id
        return None
