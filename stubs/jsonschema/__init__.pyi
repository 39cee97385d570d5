# Hand-written: jsonschema ships no `py.typed`; this covers what
# benchmarks/compare_schema_validators.py uses (see stubs/README.md).
from collections.abc import Iterator

class ValidationError(Exception):
    message: str

class Draft202012Validator:
    def __init__(self, schema: dict[str, object] | bool) -> None: ...
    def is_valid(self, instance: object) -> bool: ...
    def iter_errors(self, instance: object) -> Iterator[ValidationError]: ...
