"""The example transcripts shipped with the package (`message-ir examples`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.abc import Traversable


def _folder() -> Traversable:
    """The shipped examples' folder. `importlib.resources` is imported here, not at the top:
    the command line imports this module, and only `examples` and `--example` read it."""
    from importlib import resources

    return resources.files("message_ir") / "examples"


def example_names() -> list[str]:
    """The file names of the shipped examples, sorted."""
    folder = _folder()
    return sorted(entry.name for entry in folder.iterdir() if entry.name.endswith((".json", ".jsonl")))


def read_example(name: str) -> bytes:
    """The bytes of one shipped example, by file name (the suffix may be left out)."""
    return (_folder() / resolve_example(name)).read_bytes()


def resolve_example(name: str) -> str:
    """The full file name of an example given with or without its suffix."""
    names = example_names()
    if name in names:
        return name
    matches = [candidate for candidate in names if candidate.rsplit(".", 1)[0] == name]
    if len(matches) != 1:
        raise KeyError(name)
    return matches[0]
