"""`adapters._records.split_record`: what a source record keeps in `meta` (its key order when
not the usual one, its unknown fields), the same whether its key order was seen before or not."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from message_ir.adapters import _records

_USUAL = ("role", "content", "tool_calls")
_KNOWN = (*_USUAL, "name")


def _expected(record: dict[str, object], known: tuple[str, ...], usual: tuple[str, ...]) -> _records.Info:
    """The rule, read off the keys directly: the order when it is not the usual keys' own, and
    the fields no known key names."""
    info: _records.Info = {}
    if list(record) != [key for key in usual if key in record]:
        info["keys"] = list(record)
    extra = {key: value for key, value in record.items() if key not in known}
    if extra:
        info["extra"] = extra
    return info


@given(
    st.lists(st.sampled_from([*_KNOWN, "refusal", "audio"]), unique=True).map(
        lambda keys: {key: index for index, key in enumerate(keys)}
    ),
    st.booleans(),
)
def test_a_record_keeps_its_order_and_unknown_fields_whether_its_order_was_seen_or_not(
    record: dict[str, object], forget: bool
) -> None:
    if forget:
        _records._shapes.clear()
    expected = _expected(record, _KNOWN, _USUAL)
    assert _records.split_record(record, _KNOWN, _USUAL) == expected
    assert _records.split_record(record, _KNOWN, _USUAL) == expected  # the order is known now
    assert _records.split_record(record, _KNOWN, _KNOWN) == _expected(record, _KNOWN, _KNOWN)  # another usual order


def test_the_remembered_orders_are_bounded() -> None:
    _records._shapes.clear()
    for number in range(_records._MAX_SHAPES + 10):
        record: dict[str, object] = {f"k{number}": 1, "role": "user"}
        assert _records.split_record(record, _KNOWN, _USUAL) == {
            "keys": [f"k{number}", "role"],
            "extra": {f"k{number}": 1},
        }
    assert len(_records._shapes) <= _records._MAX_SHAPES
