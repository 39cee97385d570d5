"""`adapters._records.split_record`: what a source record keeps in `meta` (its key order when
not the usual one, its unknown fields), the same whether its key order was seen before or not;
`build_record` writes the record back from it, by its rule whatever `meta` holds."""

from __future__ import annotations

import msgspec
from hypothesis import example, given
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


def _built(info: _records.Info, usual: tuple[str, ...], values: dict[str, object]) -> dict[str, object]:
    """`build_record`'s rule, read off its docstring: the kept order's keys (those that are
    strings) from `values`, else from `extra`; then the usual keys of `values` left, then the
    rest of `values`."""
    keys = info.get("keys")
    extra = info.get("extra")
    extra = extra if type(extra) is dict else {}
    record: dict[str, object] = {}
    for key in keys if type(keys) is list else usual:
        if type(key) is str and key not in record and (key in values or key in extra):
            record[key] = values[key] if key in values else extra[key]
    for key in (*usual, *values):
        if key in values and key not in record:
            record[key] = values[key]
    return record


_KEY = st.sampled_from([*_KNOWN, "refusal", "audio"])


@given(
    st.lists(_KEY, unique=True).map(lambda keys: {key: index for index, key in enumerate(keys)}),
    st.sets(st.sampled_from(_USUAL)),
)
def test_a_record_read_is_written_back_in_its_own_order(record: dict[str, object], dropped: set[str]) -> None:
    """What `split_record` keeps and the IR's values give the record back, key for key; a
    value the IR no longer has is left out, and one it has anew comes after, in the usual order."""
    info = _records.split_record(record, _KNOWN, _USUAL)
    values = {key: value for key, value in record.items() if key in _KNOWN}
    assert list(_records.build_record(info, _USUAL, values).items()) == list(record.items())
    changed: dict[str, object] = {key: "new" for key in _USUAL if key not in dropped}
    assert list(_records.build_record(info, _USUAL, changed).items()) == list(_built(info, _USUAL, changed).items())


@given(
    st.dictionaries(
        st.sampled_from(["keys", "extra", "string", "first"]),
        st.one_of(
            st.lists(st.one_of(_KEY, st.integers(), st.none(), st.lists(st.integers(), max_size=1))),
            st.dictionaries(_KEY, st.integers()),
            st.booleans(),
        ),
    ),
    st.dictionaries(_KEY, st.integers()),
)
@example({"keys": ["role", "role"]}, {"role": 1, "content": 2})  # a key twice: `content` still written
@example({"keys": ["content", [1], "role"], "extra": {"x": 1}}, {"role": 1, "content": 2})  # a key no object has
def test_a_record_is_built_by_the_rule_whatever_meta_holds(info: _records.Info, values: dict[str, object]) -> None:
    """An order with a key twice, a key that is no string (an array among them, which no dict
    can hold), an `extra` that is no object, or entries of the format's own: the rule holds."""
    assert list(_records.build_record(info, _USUAL, values).items()) == list(_built(info, _USUAL, values).items())


_ORDER = st.lists(_KEY, unique=True)


@given(
    st.dictionaries(
        st.sampled_from(["keys", "function", "extra", "id", "parts"]),
        st.one_of(
            _ORDER,
            st.lists(st.one_of(_KEY, st.integers()), max_size=3),
            st.dictionaries(st.sampled_from(["keys", "extra"]), _ORDER, max_size=2),
            st.text(max_size=3),
            st.booleans(),
        ),
    ),
    st.sets(st.sampled_from(_USUAL)),
    st.booleans(),
)
def test_key_orders_kept_alone_write_the_record_build_record_writes(
    info: _records.Info, present: set[str], forget: bool
) -> None:
    """`kept_orders` offers the orders only when `meta` kept nothing else (or `plain` strings
    beside them), the same whether the text was seen before or not; `in_order` then writes
    what `build_record` writes from the whole of it."""
    if forget:
        _records._orders.clear()
    meta = msgspec.Raw(msgspec.json.encode({"chat": info, "other": {"keys": 1}}))
    only_orders = all(
        (name == "keys" and type(value) is list and all(type(key) is str for key in value))
        or (name == "function" and type(value) is dict and list(value) == ["keys"])
        or (name == "id" and type(value) is str)
        for name, value in info.items()
    )
    for _ in range(2):  # read, then remembered
        orders, whole = _records.kept_orders(meta, "chat", ("function",), ("id",))
        if not only_orders:
            assert (orders, whole) == (None, info)
            continue
        assert orders is not None
        assert whole == (info if "id" in info else {})
        values = {key: key.upper() for key in _USUAL if key in present}
        assert list(_records.in_order(dict(values), orders.get(""), _USUAL).items()) == list(
            _records.build_record(info, _USUAL, dict(values)).items()
        )
        nested = info.get("function")
        assert list(_records.in_order(dict(values), orders.get("function"), _USUAL).items()) == list(
            _records.build_record(nested if type(nested) is dict else {}, _USUAL, dict(values)).items()
        )


def test_the_remembered_key_orders_are_bounded() -> None:
    _records._orders.clear()
    for number in range(_records._MAX_ORDERS + 10):
        meta = msgspec.Raw(msgspec.json.encode({"chat": {"keys": [f"k{number}", "role"]}}))
        assert _records.kept_orders(meta, "chat") == ({"": (f"k{number}", "role")}, {})
    assert 0 < len(_records._orders["chat"]) <= _records._MAX_ORDERS


def test_a_long_meta_text_is_read_not_remembered() -> None:
    _records._orders.clear()
    keys = [f"key_{number:04}" for number in range(120)]
    info: _records.Info = {"keys": keys}
    meta = msgspec.Raw(msgspec.json.encode({"chat": info}))
    assert len(meta) > _records._LONGEST_ORDERS
    assert _records.kept_orders(meta, "chat") == ({"": tuple(keys)}, info)
    assert _records._orders.get("chat", {}) == {}
