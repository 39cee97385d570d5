"""The adapters' one boundary with untyped JSON: parse, narrow, encode.

Provider records are read as msgspec's builtins (dicts keep their key order, and unknown
fields are kept, which losslessness needs; typed Structs would drop both) and narrowed here
with exact type checks on each value, so nothing a caller's object defines runs. Like
`message_ir._untyped`, this module is exempt from `disallow_any_expr`: msgspec's untyped
decode returns `Any` and `type(x) is dict` narrows to `dict[Any, Any]`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final, TypeVar, cast

import msgspec

from message_ir import Diagnostic, FrozenJsonObject, JsonInput, OpaqueBlock, frozen_json_object
from message_ir.adapters._surrogates import describe
from message_ir.adapters._unparsable import Unparsable

_decode: Final = msgspec.json.Decoder().decode
_encode: Final = msgspec.json.Encoder().encode


StructType = TypeVar("StructType", bound=msgspec.Struct)


def renamed_decoder(base: type[StructType], rename: Mapping[str, str]) -> Callable[[bytes], StructType]:
    """A decoder of JSON text into `base` whose fields are read under other JSON names
    (`rename`: field -> key), for structs shared by formats that name the same thing
    differently. A value of the wrong type raises `msgspec.ValidationError`, as any typed
    decoder's does."""
    fields = [(field.name, field.type, field.default) for field in msgspec.structs.fields(base)]
    spelled = msgspec.defstruct(base.__name__, fields, bases=(base,), rename=dict(rename))  # a `base` itself
    return cast("Callable[[bytes], StructType]", msgspec.json.Decoder(spelled).decode)


def parse(source: bytes | str) -> object:
    """The JSON value of `source` (UTF-8 `bytes` or `str`); raises `Unparsable`."""
    data = source.encode("utf-8", "surrogatepass") if type(source) is str else source
    assert type(data) is bytes
    try:
        value: object = _decode(data)
    except RecursionError:  # msgspec stops near 1,000 levels under the default recursion limit
        raise Unparsable(Diagnostic("JSON_TOO_DEEP", None, "$", "JSON nested too deeply to parse")) from None
    except msgspec.DecodeError as error:
        lone = describe(data)  # what msgspec calls "truncated" here is a half of a UTF-16 pair
        raise Unparsable(Diagnostic("INVALID_JSON", None, "$", f"Invalid JSON: {lone or error}")) from None
    return value


def as_object(value: object) -> dict[str, object] | None:
    """`value` itself if it is an exact `dict` whose keys are all exact `str`s, else `None`."""
    if type(value) is not dict:
        return None
    for key in value:  # an exact dict's own iterator: nothing of a caller's runs
        if type(key) is not str:
            return None
    return value


def decoded_object(value: object) -> dict[str, object] | None:
    """`value` itself if it is a `dict`, for a value msgspec decoded here (or a part of one, or
    a copy of one): its keys are `str`s by construction, so none is checked. `as_object` for
    anything else."""
    if type(value) is not dict:
        return None
    return value


def as_array(value: object) -> list[object] | None:
    """`value` itself if it is an exact `list`, else `None`."""
    if type(value) is list:
        return value
    return None


def as_sequence(value: object) -> list[object] | None:
    """The elements of an exact `list` or `tuple`, listed once, else `None`."""
    if type(value) is list or type(value) is tuple:
        return list(value)
    return None


def json_input(value: dict[str, object]) -> dict[str, JsonInput]:
    """Plain data read from JSON, given to a constructor (which checks it at run time)."""
    return cast("dict[str, JsonInput]", value)


def freeze_info(value: dict[str, object]) -> FrozenJsonObject:
    """`frozen_json_object` of plain data read from JSON (which it checks at run time)."""
    return frozen_json_object(json_input(value))


encode: Final[Callable[[object], bytes]] = _encode
"""Compact JSON of plain data (msgspec; key order kept): msgspec's encoder itself (every record
written calls it; a function around it cost a call each time)."""

decode: Final[Callable[[str | bytes | msgspec.Raw], object]] = _decode
"""The JSON value of JSON text: a `meta`'s, or an arguments string (raises `msgspec.DecodeError`):
msgspec's decoder itself, typed to give `object` (every record read calls it)."""


def opaque_data(block: OpaqueBlock) -> dict[str, object]:
    """An opaque block's `data` as plain data, the values `block.data.thaw()` gives: its own JSON
    text decoded, without building the read-only view first (every writer of such a block asks
    it). Text that holds no object (a block made without its constructor) raises as the view
    does."""
    data = block.data_json
    value = decoded_object(_decode(data)) if data else None
    return {**block.data.thaw()} if value is None else value


def same_json(text: str, value: object) -> bool:
    """Whether JSON `text` says `value` (compared as compact JSON: key order counts, `1` is not
    `true`); `False` for text that is not JSON."""
    try:
        return _encode(decode(text)) == _encode(value)
    except (msgspec.DecodeError, RecursionError):
        return False


_KINDS: Final[dict[type, str]] = {
    dict: "object",
    list: "array",
    tuple: "array",
    str: "str",
    int: "int",
    float: "float",
    bool: "bool",
    type(None): "null",
}


def kind(value: object) -> str:
    """A word for the JSON type of `value`, from a fixed table (no attribute of it is read)."""
    return _KINDS.get(type(value), "object of another type")
