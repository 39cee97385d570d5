"""`jsonschema` against `jsonschema-rs`: correctness on the official JSON Schema Test Suite
(draft 2020-12) and speed on tool-call arguments. How the `[schema]` extra was chosen.

Run it with `python benchmarks/compare_schema_validators.py --suite DIR`, where DIR is the
`tests/draft2020-12` folder of the JSON-Schema-Test-Suite. The suite ships inside the
`jsonschema` source distribution, so this gets it without a git checkout:

    pip download --no-binary :all: --no-deps jsonschema==4.26.0 -d /tmp/js
    tar xzf /tmp/js/jsonschema-4.26.0.tar.gz -C /tmp/js
    python benchmarks/compare_schema_validators.py --suite /tmp/js/jsonschema-4.26.0/json/tests/draft2020-12

Correctness: every required test file of the draft (not `optional/`; `refRemote.json` needs
a server and is left out), each case's verdict against the suite's `valid`. Speed, in one
process: validating the arguments of a typical tool call (a nested object schema), the
verdict and the first error, and compiling a schema.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

import jsonschema
import jsonschema_rs

Schema = dict[str, object] | bool
Check = Callable[[Schema, object], bool]

_SCHEMA: dict[str, object] = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "minLength": 1},
        "unit": {"enum": ["celsius", "fahrenheit"]},
        "days": {"type": "integer", "minimum": 1, "maximum": 14},
        "options": {
            "type": "object",
            "properties": {"hourly": {"type": "boolean"}, "fields": {"type": "array", "items": {"type": "string"}}},
            "additionalProperties": False,
        },
    },
    "required": ["city", "unit"],
    "additionalProperties": False,
}
_GOOD: dict[str, object] = {"city": "Paris", "unit": "celsius", "days": 3, "options": {"fields": ["t", "rain"]}}
_BAD: dict[str, object] = {"city": "Paris", "unit": "kelvin", "days": 3}


def _python(schema: Schema, instance: object) -> bool:
    return jsonschema.Draft202012Validator(schema).is_valid(instance)


def _rust(schema: Schema, instance: object) -> bool:
    return bool(jsonschema_rs.Draft202012Validator(schema).is_valid(instance))


def correctness(suite: Path) -> dict[str, tuple[int, int, list[str]]]:
    """Per library: (cases passed, cases run, the files of the failures)."""
    results: dict[str, tuple[int, int, list[str]]] = {}
    for name, check in (("jsonschema", _python), ("jsonschema-rs", _rust)):
        passed = total = 0
        failed: list[str] = []
        for path in sorted(suite.glob("*.json")):
            if path.name == "refRemote.json":
                continue
            for group in json.loads(path.read_text()):
                for case in group["tests"]:
                    total += 1
                    try:
                        verdict = check(group["schema"], case["data"])
                    except Exception:  # noqa: BLE001  # a crash on a case counts as a failure
                        verdict = not case["valid"]
                    if verdict == case["valid"]:
                        passed += 1
                    elif path.name not in failed:
                        failed.append(path.name)
        results[name] = (passed, total, failed)
    return results


def _per_second(function: Callable[[], object], seconds: float = 0.5) -> float:
    count = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        for _ in range(100):
            function()
        count += 100
    return count / elapsed


def speed() -> list[tuple[str, float, float]]:
    """(what, jsonschema per second, jsonschema-rs per second)."""
    python = jsonschema.Draft202012Validator(_SCHEMA)
    rust = jsonschema_rs.Draft202012Validator(_SCHEMA)
    return [
        (
            "is_valid, valid arguments",
            _per_second(lambda: python.is_valid(_GOOD)),
            _per_second(lambda: rust.is_valid(_GOOD)),
        ),
        (
            "first error, invalid arguments",
            _per_second(lambda: next(python.iter_errors(_BAD))),
            _per_second(lambda: next(rust.iter_errors(_BAD))),
        ),
        (
            "compile the schema",
            _per_second(lambda: jsonschema.Draft202012Validator(_SCHEMA)),
            _per_second(lambda: jsonschema_rs.Draft202012Validator(_SCHEMA)),
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--suite", required=True, type=Path, help="the suite's tests/draft2020-12 folder")
    arguments = parser.parse_args()
    versions = f"jsonschema {version('jsonschema')}, jsonschema-rs {version('jsonschema-rs')}"
    print(f"Python {sys.version.split()[0]}; {versions}")
    print("JSON Schema Test Suite, draft 2020-12 (required tests, refRemote aside):")
    for name, (passed, total, failed) in correctness(arguments.suite).items():
        print(f"  {name:<14} {passed:5} / {total} cases  failures in: {', '.join(failed) or 'none'}")
    print("Speed on tool-call arguments (per second; ratio rs / python):")
    for what, python, rust in speed():
        print(f"  {what:<32} jsonschema {python:>11,.0f}  jsonschema-rs {rust:>11,.0f}  x{rust / python:,.1f}")


if __name__ == "__main__":
    main()
