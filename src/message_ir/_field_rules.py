"""The rules for single fields, shared by the constructors and the validator.

Each function takes any object and returns `None` when it is acceptable, or the house-style
sentence saying what is wrong. Exact type checks come first, so nothing the caller wrote
(a `str` subclass's `__eq__`, an `IntEnum`'s `__bool__`) runs.
"""

from __future__ import annotations

from message_ir._json_rule import str_problem, type_name


def text_problem(value: object) -> str | None:
    """A `str` that can be encoded as UTF-8 (it may be empty)."""
    if type(value) is not str:
        return f"Expected `str`, got `{type_name(value)}`"
    return str_problem(value)


def identifier_problem(value: object) -> str | None:
    """An ID or a name: a non-empty `str` that can be encoded as UTF-8."""
    if type(value) is not str:
        return f"Expected `str`, got `{type_name(value)}`"
    if not value:
        return "Expected a non-empty `str`, got `''`"
    return str_problem(value)


def bool_problem(value: object) -> str | None:
    """A real `bool`: `0`, `1` and other truthy or falsy values are refused."""
    if type(value) is not bool:
        return f"Expected `bool`, got `{type_name(value)}`"
    return None


def missing_field(wire_name: str) -> str:
    """The sentence for a required field that is absent."""
    return f"Object missing required field `{wire_name}`"


def unknown_field(key: object) -> str:
    """The sentence for a key the record does not define (or a key that is not a `str`)."""
    if type(key) is not str:
        return f"Expected object keys of type `str`, got `{type_name(key)}`"
    problem = str_problem(key)
    if problem is not None:
        return f"Object key: {problem}"
    return f"Object contains unknown field `{key}`"
