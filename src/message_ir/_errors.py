"""`ConstructionError`: how the constructors refuse bad input."""

from __future__ import annotations


class ConstructionError(TypeError):
    """A constructor was given a value the IR does not accept.

    It is a `TypeError` (the value is of a type the IR does not take). `str(error)` reads
    ``assistant_message(): Expected a finite number, got `nan` - at `$.content[1].arguments.limit` ``;
    the parts are also attributes: `function`, `path` (`$`-rooted, in wire names, `$` being
    the message or block under construction) and `problem`.
    """

    function: str
    path: str
    problem: str

    def __init__(self, function: str, path: str, problem: str) -> None:
        super().__init__(f"{function}(): {problem} - at `{path}`")
        self.function = function
        self.path = path
        self.problem = problem
