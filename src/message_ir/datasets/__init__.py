"""Datasets of conversations, one per line: checked line by line, on many processes, or on Dask.

A dataset is JSON Lines whose every line is one conversation in a provider format (OpenAI's
fine-tuning records `{"messages": [...], "tools": [...]}` are `openai_chat` request bodies).
`check_file` yields a `LineReport` per line; `check_dataset` gives a `Summary` (lines,
valid, invalid, per-code counts and examples) using any number of processes over byte
ranges of the files; `check_part` and `merge` are the pieces for another engine (see
`message_ir.datasets.dask`).
"""

from message_ir.datasets._check import (
    CHECKERS,
    DEFAULT_FORMAT,
    check_dataset,
    check_file,
    check_lines,
    check_part,
)
from message_ir.datasets._rows import byte_ranges
from message_ir.datasets._summary import Example, LineReport, Summary, merge
from message_ir.datasets._tokens import BUCKETS, Tokenizer, TokenizerError, Tokens

__all__ = [
    "BUCKETS",
    "CHECKERS",
    "DEFAULT_FORMAT",
    "Example",
    "LineReport",
    "Summary",
    "Tokenizer",
    "TokenizerError",
    "Tokens",
    "byte_ranges",
    "check_dataset",
    "check_file",
    "check_lines",
    "check_part",
    "merge",
]
