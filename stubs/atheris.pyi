# Hand-written stub for atheris (no py.typed), covering only what fuzz/ uses.
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager

def Setup(  # atheris's own name
    args: Sequence[str],
    test_one_input: Callable[[bytes], None],
    *,
    internal_libfuzzer: bool | None = ...,
) -> list[str]: ...
def Fuzz() -> None: ...  # atheris's own name
def instrument_imports(
    include: Sequence[str] | None = ..., exclude: Sequence[str] | None = ...
) -> AbstractContextManager[None]: ...
def instrument_all() -> None: ...
