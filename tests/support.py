"""Helpers shared by the test modules."""

from __future__ import annotations

from collections.abc import Callable
from typing import ParamSpec, Protocol, TypeVar, cast

P = ParamSpec("P")
R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)


class Loose(Protocol[R_co]):
    """A callable that takes any arguments, as far as the type checker knows."""

    def __call__(self, *args: object, **kwargs: object) -> R_co: ...


def loose(function: Callable[P, R]) -> Loose[R]:
    """`function` with its parameter types erased, to call it with deliberately wrong values.

    The type checker would rightly refuse those calls; the tests make them on purpose, to
    see what happens at run time, where nothing stops a caller.
    """
    return cast("Loose[R]", function)
