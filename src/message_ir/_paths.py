"""JSONPath-style locations in wire (camelCase) names: `$[1].content[0].arguments.limit`."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

PathSegment = str | int


def format_segment(segment: PathSegment) -> str:
    """One step of a path: `[3]` for an index, `.name` or `["odd key"]` for a key."""
    if isinstance(segment, int):
        return f"[{segment}]"
    if _IDENTIFIER.match(segment):
        return f".{segment}"
    return f"[{json.dumps(segment)}]"


def join_path(root: str, segments: Iterable[PathSegment]) -> str:
    """`root` followed by every segment, formatted."""
    return root + "".join(format_segment(segment) for segment in segments)
