"""Limits shared by the constructors, the validator and the JSON boundary."""

from __future__ import annotations

from typing import Final

MAX_DEPTH: Final = 64
"""The deepest nesting allowed in tool-call arguments.

The arguments object itself is level 1; every array or object inside it adds one level.
The constructors, `validate_transcript` and `decode_transcript` all refuse deeper values,
so whatever one of them accepts, the others accept too.
"""
