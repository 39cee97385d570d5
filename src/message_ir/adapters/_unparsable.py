"""`Unparsable`: text that is not one JSON value, as `_json.parse` says it.

In a module of its own so that `_json`, which defines no exception class, can be compiled in
the opt-in build (design.md: mypyc and exception classes)."""

from __future__ import annotations

from message_ir import Diagnostic


class Unparsable(Exception):
    """Text that is not one JSON value; `diagnostic` says why (`INVALID_JSON`, `JSON_TOO_DEEP`)."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic
