"""`object_raw` refuses exactly the values that nest deeper than `MAX_DEPTH`, whichever way it
tells (short text; a long one whose few containers are looked at; the brackets counted; the
careful walk), and keeps the text it is given."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from message_ir import MAX_DEPTH, ConstructionError
from message_ir.adapters._build import _VISITS, object_raw
from message_ir.adapters._json import encode


def nested(depth: int, width: int, padding: str) -> dict[str, object]:
    """An object `depth` levels deep, each level holding `width` shallow siblings and a string
    of `padding` (which makes the text long, and may hold brackets)."""
    value: dict[str, object] = {"text": padding}
    for level in range(depth - 1):
        value = {"text": padding, "siblings": [{"n": number} for number in range(width)], "next": value, "level": level}
    return value


def levels(value: object) -> int:
    """How deep `value` nests (the object itself is level 1)."""
    if type(value) is dict:
        return 1 + max((levels(child) for child in value.values()), default=0)
    if type(value) is list:
        return 1 + max((levels(child) for child in value), default=0)
    return 0


@given(
    st.integers(1, MAX_DEPTH // 2 + 40),
    st.integers(0, 3),
    st.text(alphabet='ab{[]}"\\', max_size=60),
    st.integers(0, 3000),
)
def test_object_raw_refuses_exactly_what_nests_too_deep(depth: int, width: int, padding: str, extra: int) -> None:
    value = nested(depth, width, padding + "x" * extra)
    if levels(value) > MAX_DEPTH:
        with pytest.raises(ConstructionError) as raised:
            object_raw(value)
        assert raised.value.problem == f"Nesting deeper than {MAX_DEPTH} levels"
    else:
        assert bytes(object_raw(value)) == encode(value)


def test_a_long_text_of_few_containers_and_one_of_many_both_pass_or_fail_by_depth() -> None:
    """Not a test that cannot fail: both ways of telling a long text are taken, at the limit."""
    at_limit = nested(MAX_DEPTH, 0, "{" * 2000)  # a level a step: exactly the limit
    assert levels(at_limit) == MAX_DEPTH
    object_raw(at_limit)
    wide = {"rows": [{"cell": [number]} for number in range(200)], "text": "[" * 2000}
    object_raw(wide)  # more containers than are looked at: the brackets are counted, then walked
    too_deep: object = {"text": "x" * 2000}
    for _ in range(MAX_DEPTH):
        too_deep = {"next": too_deep}
    with pytest.raises(ConstructionError):
        object_raw(too_deep)


def test_a_value_of_few_containers_is_surely_shallow() -> None:
    """What `_few_levels` lets through unchecked nests at most `_VISITS + 1` levels."""
    assert _VISITS + 1 < MAX_DEPTH
