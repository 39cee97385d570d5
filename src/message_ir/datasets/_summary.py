"""`LineReport`, `Example` and `Summary`: what checking a dataset gives, and how the
summaries of its parts add up."""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from message_ir import Diagnostic
from message_ir.datasets._tokens import Tokens


class LineReport(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    """One line of a dataset: its number (1-based, as text tools count) and its diagnostics
    (none when the line is a valid conversation)."""

    line: int
    diagnostics: tuple[Diagnostic, ...]


class Example(msgspec.Struct, frozen=True, forbid_unknown_fields=True, rename="camel"):
    """One diagnostic shown as an example of its code: the file, the 1-based line, the diagnostic."""

    file: str
    line: int
    diagnostic: Diagnostic


class Summary(msgspec.Struct, forbid_unknown_fields=True, rename="camel"):
    """The result of checking a dataset (or one part of it).

    `lines` counts the conversations read, `valid` and `invalid` the lines without and with
    diagnostics; `lines_by_code` how many lines have each code, `diagnostics_by_code` how many
    diagnostics of each code there are; `examples` the first few lines of each code, in file
    order (a line's first diagnostic of that code).
    The summary of a *part* (`check_part`) numbers its lines from the part's start; `merge`
    puts parts together in order and makes the numbers the file's own. `files` lists each
    file once with its line count, in order.
    """

    lines: int = 0
    valid: int = 0
    invalid: int = 0
    lines_by_code: dict[str, int] = msgspec.field(default_factory=dict)
    diagnostics_by_code: dict[str, int] = msgspec.field(default_factory=dict)
    examples: dict[str, list[Example]] = msgspec.field(default_factory=dict)
    files: list[tuple[str, int]] = msgspec.field(default_factory=list)
    tokens: Tokens | None = None
    """The lines' tokens, when a tokenizer counted them (`check_dataset(..., tokenizer=...)`)."""

    def add(self, file: str, report: LineReport, examples: int) -> None:
        """Count one line of `file` (keeping up to `examples` examples per code)."""
        self.lines += 1
        if self.files and self.files[-1][0] == file:
            self.files[-1] = (file, self.files[-1][1] + 1)
        else:
            self.files.append((file, 1))
        if not report.diagnostics:
            self.valid += 1
            return
        self.invalid += 1
        seen: set[str] = set()
        for diagnostic in report.diagnostics:
            code = diagnostic.code
            self.diagnostics_by_code[code] = self.diagnostics_by_code.get(code, 0) + 1
            if code in seen:
                continue
            seen.add(code)  # a line counts once per code, and gives one example of it
            self.lines_by_code[code] = self.lines_by_code.get(code, 0) + 1
            shown = self.examples.setdefault(code, [])
            if len(shown) < examples:
                shown.append(Example(file, report.line, diagnostic))


def merge(parts: Iterable[Summary], examples: int = 3) -> Summary:
    """The summaries of consecutive parts of files, in order, as one: counts added, each
    part's line numbers moved by the lines of the same file's parts before it, and the first
    `examples` examples of each code kept (and the tokens, where counted, added up)."""
    total = Summary()
    offsets: dict[str, int] = {}
    for part in parts:
        total.lines += part.lines
        total.valid += part.valid
        total.invalid += part.invalid
        for code, count in part.lines_by_code.items():
            total.lines_by_code[code] = total.lines_by_code.get(code, 0) + count
        for code, count in part.diagnostics_by_code.items():
            total.diagnostics_by_code[code] = total.diagnostics_by_code.get(code, 0) + count
        for code, shown in part.examples.items():
            kept = total.examples.setdefault(code, [])
            for example in shown:
                if len(kept) < examples:
                    kept.append(Example(example.file, example.line + offsets.get(example.file, 0), example.diagnostic))
        if part.tokens is not None:  # merged even when alone: the histogram comes out in bucket order
            total.tokens = (total.tokens or Tokens()).merged(part.tokens)
        for file, count in part.files:
            offsets[file] = offsets.get(file, 0) + count
            if total.files and total.files[-1][0] == file:
                total.files[-1] = (file, total.files[-1][1] + count)
            else:
                total.files.append((file, count))
    total.lines_by_code = dict(sorted(total.lines_by_code.items()))
    total.diagnostics_by_code = dict(sorted(total.diagnostics_by_code.items()))
    total.examples = dict(sorted(total.examples.items()))
    return total
