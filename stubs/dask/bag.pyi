from collections.abc import Callable, Iterable, Sequence
from typing import Generic, Literal, TypeVar, overload

_T = TypeVar("_T")
_R = TypeVar("_R")

class Bag(Generic[_T]):
    npartitions: int
    def map_partitions(self, func: Callable[[Iterable[_T]], Iterable[_R]]) -> Bag[_R]: ...
    def compute(self) -> list[_T]: ...

@overload
def read_text(
    urlpath: str | Sequence[str], blocksize: str | int | None = ..., *, include_path: Literal[True]
) -> Bag[tuple[str, str]]: ...
@overload
def read_text(
    urlpath: str | Sequence[str], blocksize: str | int | None = ..., *, include_path: Literal[False] = ...
) -> Bag[str]: ...
