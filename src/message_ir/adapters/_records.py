"""Writing a source record back exactly: its key order and its unknown fields, kept in `meta`.

A record's fields split in two: those the IR models (read into the IR, written back from
it, so an edit in the IR shows) and the rest (kept verbatim under `extra`). `keys` keeps
the source's key order when it differs from the format's usual one. Both live in the
record's `meta` under the format's own key, and only when there is something to keep: a
record in the usual order with no unknown field carries no `meta` at all.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

import msgspec

from message_ir import FrozenJsonObject
from message_ir.adapters._json import as_array, decode, decoded_object

Info = dict[str, object]
"""What one format keeps of one record (the value under its key in `meta`)."""

PACKAGE_KEY = "message_ir"
"""The `meta` key of the package's own, which survives conversion (original call IDs)."""


_MAX_SHAPES = 4096
_shapes: dict[tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]], tuple[bool, tuple[str, ...]]] = {}
"""Per usual order, known keys and a record's keys: whether the keys are out of the usual
order, and which of them are unknown. A source's records repeat a few key orders."""


def split_record(record: dict[str, object], known: tuple[str, ...], usual: tuple[str, ...]) -> Info:
    """The `keys` (when not the usual order) and `extra` (unknown fields) of a source record.

    The `usual` keys must all be `known`.
    """
    info: Info = {}
    keys = tuple(record)
    if keys == usual:  # the common case: the usual keys in the usual order, all of them known
        return info
    shape = _shapes.get((usual, known, keys))  # exact `str`s (`as_object`): hashing runs nothing of a caller's
    if shape is None:
        present = tuple([key for key in usual if key in record])
        shape = (keys != present, tuple([key for key in keys if key not in known]))
        if len(_shapes) >= _MAX_SHAPES:
            _shapes.clear()
        _shapes[(usual, known, keys)] = shape
    reordered, unknown = shape
    if reordered:
        info["keys"] = list(keys)
    if unknown:
        info["extra"] = {key: record[key] for key in unknown}
    return info


def build_record(info: Info, usual: Sequence[str], values: dict[str, object]) -> dict[str, object]:
    """A record from the IR's `values` and the kept `info`, in the source's key order.

    A key of the kept order is written from `values` if the IR has it, else from `extra`;
    `values` the order does not name come after, in the usual order. `values` is a dict the
    caller made for this call and uses no more: it may be returned itself.
    """
    keys: list[object] | None = None
    extra: dict[str, object] | None = None
    if info:  # `as_array` and `decoded_object`, inlined (every record written asks)
        kept_keys, kept_extra = info.get("keys"), info.get("extra")
        if type(kept_keys) is list:
            keys = kept_keys
        if type(kept_extra) is dict:  # `info` is decoded `meta`: its keys are `str`s
            extra = kept_extra
    if keys is None and not extra:  # the common case: the usual order, nothing extra
        if tuple(values) == usual:
            return values  # the most common: every usual value, in the usual order already
        record = {key: values[key] for key in usual if key in values}
        if len(record) < len(values):
            for name, value in values.items():
                if name not in record:
                    record[name] = value
        return record
    if keys is not None:  # a kept order (a record read with its keys reordered, or with unknown fields)
        fields = extra or {}
        record = {}
        try:
            for key in keys:
                if key in values:
                    record[key] = values[key]
                elif key in fields:
                    record[key] = fields[key]
        except TypeError:  # a key no JSON object has (an array, an object): the careful loop below
            record = {}
        if len(record) == len(values) + len(fields):
            return record  # the kept order named every value and every kept field, once
    order: Sequence[object] = usual if keys is None else keys
    extra = extra or {}
    record = {}
    placed = from_extra = 0
    for key in order:
        if type(key) is not str:
            continue
        if key in values:
            record[key] = values[key]
            placed += 1
        elif key in extra:
            record[key] = extra[key]
            from_extra += 1
    if placed == len(values) and len(record) == placed + from_extra:
        return record  # the kept order named every value once (as it does for a record read)
    for key in usual:
        if key in values and key not in record:
            record[key] = values[key]
    for key, value in values.items():
        if key not in record:
            record[key] = value
    return record


Orders = Mapping[str, tuple[str, ...]]
"""Key orders kept of one record: its own under `""`, a nested object's under that object's key."""

NO_ORDERS: Orders = {}
"""The orders of a record with nothing kept (shared: never written to)."""

_MAX_ORDERS = 1024
_LONGEST_ORDERS = 1024
"""The longest `meta` text looked up among the remembered orders: a record's key orders take
far less, so a longer text keeps values too (and is not copied to be looked up)."""
_orders: dict[str, dict[bytes, Orders]] = {}
"""Per format and `meta` text that keeps key orders and nothing else: those orders. A source's
records repeat a few key orders; each is decoded once."""


def kept_orders(
    meta_json: msgspec.Raw, format: str, nested: Collection[str] = (), plain: Collection[str] = ()
) -> tuple[Orders | None, Info]:
    """What `format` kept in a struct's `meta` text, for a writer that can write a record from
    its key orders alone: those orders and `{}` when that is all it kept (the record's own, and
    those of the `nested` objects; nothing kept: `NO_ORDERS`); the orders and the whole of it
    (as `format_info` gives it) when it kept `plain` strings too, or when its text is too long
    to be remembered; else `None` and the whole.

    Orders are shared between the records that kept the same text: never written to.
    """
    if not meta_json:
        return NO_ORDERS, {}
    if len(meta_json) > _LONGEST_ORDERS:  # kept values beside any orders: read, not looked up
        info = format_info(meta_json, format)
        return _orders_of(info, nested, plain), info
    known = _orders.get(format)
    if known is None:
        known = _orders[format] = {}
    text = bytes(meta_json)
    orders = known.get(text)
    if orders is not None:
        return orders, {}
    info = format_info(meta_json, format)
    found = _orders_of(info, nested, plain)
    if found is None or len(found) < len(info):  # an entry of `info` gives one order at most: fewer, `plain` kept
        return found, info
    if len(known) >= _MAX_ORDERS:
        known.clear()
    known[text] = found
    return found, {}


def _orders_of(info: Info, nested: Collection[str], plain: Collection[str]) -> dict[str, tuple[str, ...]] | None:
    """The key orders `info` holds when it holds nothing else but `plain` strings, else `None`."""
    orders: dict[str, tuple[str, ...]] = {}
    for name, value in info.items():
        if name in plain and type(value) is str:
            continue
        if name in nested and type(value) is dict and len(value) == 1:
            order = value.get("keys")
        elif name == "keys":
            order = value
        else:
            return None
        if type(order) is not list or not all(type(key) is str for key in order):
            return None
        orders["" if name == "keys" else name] = tuple(order)
    return orders


def in_order(values: dict[str, object], order: tuple[str, ...] | None, usual: Sequence[str]) -> dict[str, object]:
    """`build_record` for a record that kept a key `order` and nothing else (`None`: no order;
    `values` are then in the usual order already)."""
    if order is None:
        return values
    record = {}
    for key in order:
        if key in values:
            record[key] = values[key]
    if len(record) == len(values):
        return record
    return build_record({"keys": list(order)}, usual, values)


def has_key(info: Info, key: str, *, usual: bool) -> bool:
    """Whether the source record had `key` (with no kept order: whether it usually does)."""
    keys = as_array(info.get("keys"))
    return usual if keys is None else key in keys


def format_info(meta_json: msgspec.Raw, format: str) -> Info:
    """What `format` kept in a struct's `meta` text (empty when nothing), as plain data
    (`entry_info` of `meta_entries`, in one call: every record written asks it)."""
    if not meta_json:
        return {}
    meta = decode(meta_json)
    if type(meta) is dict:  # decoded here: `str` keys (`decoded_object`, inlined: every record written asks)
        entry = meta.get(format)
        if type(entry) is dict:
            return entry
    return {}


def meta_entries(meta_json: msgspec.Raw) -> dict[str, object]:
    """A struct's `meta` text as plain data (empty when none): decoded once for the entries of
    several formats (`entry_info`)."""
    if not meta_json:
        return {}
    return decoded_object(decode(meta_json)) or {}


def entry_info(entries: dict[str, object], format: str) -> Info:
    """What `format` kept in `meta` entries decoded by `meta_entries` (empty when nothing)."""
    return decoded_object(entries.get(format)) or {}


def frozen_info(meta: FrozenJsonObject | None, format: str) -> Info:
    """What `format` kept in a frozen `meta` (an instruction's, a conversation's)."""
    if meta is None:
        return {}
    entry = meta.get(format)
    if type(entry) is not FrozenJsonObject:
        return {}
    return dict(entry.thaw())


def package_info(meta_json: msgspec.Raw) -> Info:
    """What the package itself kept in a `meta` (the original of a rewritten call ID)."""
    return format_info(meta_json, PACKAGE_KEY)


def make_meta(format: str, info: Info, package: Info | None = None) -> dict[str, object] | None:
    """A `meta` holding `info` under `format` (and the package's own entry), or `None` if empty."""
    meta: dict[str, object] = {}
    if info:
        meta[format] = info
    if package:
        meta[PACKAGE_KEY] = package
    return meta or None


def source_path(prefix: str, index: int, *rest: str | int) -> str:
    """`prefix[index]` followed by `.key` / `[n]` segments: a path into the source's JSON."""
    path = f"{prefix}[{index}]"
    for segment in rest:
        path += f"[{segment}]" if type(segment) is int else f".{segment}"
    return path
