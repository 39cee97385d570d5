"""The one boundary with the optional JSON Schema library (`jsonschema-rs`, the `[schema]` extra).

Chosen by measurement (`benchmarks/compare_schema_validators.py`, docs/performance.md):
`jsonschema-rs` and `jsonschema` pass the same cases of the official JSON Schema Test Suite
for draft 2020-12, and `jsonschema-rs` checks tool-call arguments about 150 times faster.
Its API takes and returns `Any`, so, like `_json`, this module is exempt from
`disallow_any_expr`; what leaves it is typed.

Compiled validators are cached per distinct schema text (a bounded LRU), so a dataset whose
million lines declare the same few tools compiles each schema once per process.

A schema comes from the data being checked, so it is untrusted: references (`$ref`,
`$dynamicRef`, a `$schema` that names no known draft) are resolved only inside the schema
itself. The library's retriever is replaced by one that refuses every URI, so no URL is
requested and no local file is read (`file://`); such a schema is not a valid one here.
A `pattern` whose regular expression hits the engine's backtracking limit is not a failure
of the instance: it is reported as unchecked (`SchemaError.checked` false).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Final, NamedTuple, NoReturn

import msgspec

EXTRA: Final = "message-ir[schema]"
"""What to install for schema checks."""


class SchemaError(NamedTuple):
    """One way an instance fails a schema: where (a path into the instance), the keyword,
    and the library's message."""

    location: tuple[str | int, ...]
    keyword: str
    message: str
    checked: bool = True
    """False when the keyword could not be evaluated (a regular expression that gave up)."""


Validate = Callable[[object], list[SchemaError]]
"""A compiled schema: the errors of an instance (none when it is valid)."""
Accepts = Callable[[object], bool]
"""A compiled schema's verdict alone: whether an instance is valid."""


class Compiled(NamedTuple):
    """A compiled schema: every error of an instance, or the verdict alone (faster)."""

    errors: Validate
    accepts: Accepts


def available() -> bool:
    """Whether the schema library can be imported."""
    return _library() is not None


@functools.lru_cache(maxsize=1)
def _library() -> object | None:
    try:
        import jsonschema_rs
    except ImportError:
        return None
    return jsonschema_rs


@functools.lru_cache(maxsize=4096)
def compiled(schema_text: bytes) -> Compiled | str:
    """The validator of a schema (its compact JSON text), or why it is not a valid schema.

    Raises `ModuleNotFoundError` when the extra is not installed.
    """
    library = _library()
    if library is None:
        raise ModuleNotFoundError(f"JSON Schema checks need the extra: pip install '{EXTRA}'")
    import jsonschema_rs

    schema = msgspec.json.decode(schema_text)
    refused: list[str] = []

    def refuse(uri: str, /) -> NoReturn:
        refused.append(uri)
        raise ValueError(f"{uri} is outside the schema")

    try:
        validator = jsonschema_rs.validator_for(schema, retriever=refuse)
    except (jsonschema_rs.ValidationError, jsonschema_rs.ReferencingError, ValueError) as error:
        if refused:
            return f"it refers to {refused[0]!r}, outside itself (references are not fetched)"
        return str(getattr(error, "message", error)).split("\n", 1)[0]
    gave_up = jsonschema_rs.ValidationErrorKind.BacktrackLimitExceeded

    def validate(instance: object) -> list[SchemaError]:
        if validator.is_valid(instance):
            return []
        found: list[SchemaError] = []
        for error in validator.iter_errors(instance):
            keywords = [part for part in error.schema_path if type(part) is str]
            location = tuple(part if type(part) is int else str(part) for part in error.instance_path)
            keyword = keywords[-1] if keywords else "schema"
            found.append(SchemaError(location, keyword, str(error.message), not isinstance(error.kind, gave_up)))
        return found

    return Compiled(validate, validator.is_valid)
