"""The `message-ir` command line: check, repair and describe transcript files.

Exit status: 0 when every transcript is valid, 1 when any is not (or, for `repair`, when
something stayed unrepaired), 2 for a usage error or a file that cannot be read. It never
prints a traceback for bad input.

`render` and `redact` import their subpackages when they run, and `check-dataset` its process
pool only for more than one process: every other command starts without them. With the
modules that only a write, an ID rewrite or the shipped examples need imported on use too,
`import message_ir._cli` went from 96 ms to 66 ms on a 2-core machine.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import stat
import sys
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from typing import BinaryIO, Final, Literal, NamedTuple, TextIO

import msgspec

from message_ir._codec import decode_transcript, encode_transcript
from message_ir._diagnostics import Diagnostic, TranscriptError
from message_ir._examples import example_names, read_example, resolve_example
from message_ir._jsonl import BATCH_BYTES, JsonlReader, decode_jsonl, encode_jsonl
from message_ir._model import Message
from message_ir._repair import DEFAULT_MISSING_RESULT_CONTENT, Fix, repair_transcript
from message_ir._safe_write import FileStamp, WriteFailed, Writer, stamp, write_with
from message_ir._schema import transcript_schema
from message_ir._untyped import standard_streams
from message_ir._version import __version__
from message_ir.adapters import FORMATS, Call, Format, FormatError, LogFile, Note, convert, detect
from message_ir.adapters._convert_log import STEPS, write_converted_log
from message_ir.adapters._load_state import source_index
from message_ir.adapters._log_file import copy_range, whole
from message_ir.adapters._log_repair import SegmentFixes, changed, repair_log, write_repaired
from message_ir.adapters._segments import repair_units, unchecked_segments
from message_ir.adapters._surrogates import lone_surrogate_escapes
from message_ir.adapters._surrogates import replaced as replaced_surrogates
from message_ir.datasets import CHECKERS, DEFAULT_FORMAT, TokenizerError, Tokens, check_dataset
from message_ir.usage import By, Row, calls, read_prices, summarize

EXIT_VALID: Final = 0
EXIT_INVALID: Final = 1
EXIT_USAGE: Final = 2
_PROGRESS_BYTES: Final = 8 * 1024 * 1024  # files larger than this show progress on a terminal
_PROGRESS_INTERVAL: Final = 0.25  # seconds between progress updates
_CHUNK: Final = 8 * 1024 * 1024  # bytes read at a time from a JSON file


class _Unreadable(Exception):
    """A file that cannot be read; reported with exit status 2."""


class _Arguments(argparse.Namespace):
    """The parsed command line, typed."""

    command: str | None
    paths: list[str]
    example: list[str]
    format: str
    jsonl: bool
    path: str | None
    repair_example: str | None
    output: str | None
    source_format: str | None
    target_format: str
    max_diagnostics: int | None
    jobs: int
    examples: int
    check: bool
    literal: list[str]
    pattern: list[str]
    branch: str | None
    all_branches: bool
    by: str
    prices: str | None
    tokenizer: str | None
    max_tokens: int | None
    stream_format: str | None
    stream_target: str | None
    page_format: Literal["html", "markdown"]


class _FileReport(msgspec.Struct, frozen=True):
    """One file's result in `validate --format json`."""

    file: str
    valid: bool
    diagnostics: tuple[Diagnostic, ...]


class _Streams:
    """The standard streams of one run; any of them may be closed (`None`)."""

    def __init__(self, stdin: BinaryIO | None, stdout: TextIO | None, stderr: TextIO | None) -> None:
        self.stdin = stdin
        self.stdout = stdout
        self.stderr = stderr


_streams = _Streams(None, None, None)  # set by each `main`


class _OutputFailed(Exception):
    """Writing the output failed (standard output closed, full, or gone)."""


def _out(text: str) -> None:
    """A line on standard output; a failure to write is `_OutputFailed`."""
    stream = _streams.stdout
    if stream is None:
        raise _OutputFailed("standard output is closed")
    try:
        stream.write(text + "\n")
    except BrokenPipeError:
        raise
    except (OSError, ValueError) as error:  # ValueError: a closed file
        raise _OutputFailed(f"cannot write to standard output: {_reason(error)}") from None


def _err(text: str, *, end: str = "\n") -> None:
    """A line on standard error, if it can be written at all (there is nowhere to report otherwise)."""
    stream = _streams.stderr
    if stream is None:
        return
    try:
        stream.write(text + end)
        stream.flush()
    except (OSError, ValueError):
        pass


def _reason(error: BaseException) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error) or "failed"


def _stdin_bytes() -> bytes:
    if _streams.stdin is None:
        raise _Unreadable("standard input is closed")
    try:
        return _streams.stdin.read()
    except (OSError, ValueError) as error:
        raise _Unreadable(f"cannot read standard input: {_reason(error)}") from None


def _stderr_is_terminal() -> bool:
    stream = _streams.stderr
    try:
        return stream is not None and stream.isatty()
    except (OSError, ValueError):
        return False


def _shown(path: str) -> str:
    """A file name as text that can be printed and encoded (undecodable bytes become U+FFFD)."""
    try:
        raw = path.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        raw = path.encode("utf-8", "surrogatepass")
    return raw.decode("utf-8", "replace")


class _Parser(argparse.ArgumentParser):
    """argparse, writing its help and errors to this run's streams."""

    def _print_message(self, message: str, file: object = None) -> None:
        if not message:
            return
        if file is _streams.stdout or file is sys.stdout:
            _out(message.rstrip("\n"))
        else:
            _err(message.rstrip("\n"))


def main(
    argv: Sequence[str] | None = None,
    *,
    stdin: BinaryIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run the command line; returns the exit status (the console script exits with it).

    The streams default to the process's own, looked up now (never at import, when standard
    input may be closed). A failure to write the output (a full disk, a closed stream) is one
    line on standard error and exit status 2; a reader that went away ends quietly.
    """
    default_in, default_out, default_err = standard_streams()
    _streams.stdin = default_in if stdin is None else stdin
    _streams.stdout = default_out if stdout is None else stdout
    _streams.stderr = default_err if stderr is None else stderr
    try:
        status = _run(argv)
        if _streams.stdout is not None:
            _streams.stdout.flush()
    except BrokenPipeError:
        # The reader went away (`message-ir validate big.jsonl | head`): stop quietly.
        _silence_stdout()
        return EXIT_INVALID
    except MemoryError:
        # A log loaded whole (repair, convert) takes several times its size: say so in one
        # line; the file is as it was (the output is written only once it is whole).
        _silence_stdout()
        _err(
            "message-ir: error: out of memory (repair and convert hold a file in memory whole,"
            " several times its size); nothing was written"
        )
        return EXIT_USAGE
    except (_OutputFailed, OSError, ValueError) as error:
        _silence_stdout()
        message = str(error) if isinstance(error, _OutputFailed) else f"cannot write output: {_reason(error)}"
        _err(f"message-ir: error: {message}")
        return EXIT_USAGE
    return status


def _silence_stdout() -> None:
    """Point the process's standard output at nowhere, so that its final flush cannot fail again."""
    stream = _streams.stdout
    if stream is None or stream is not sys.stdout:
        return
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())


def _run(argv: Sequence[str] | None) -> int:
    parser = _parser(_command_named(sys.argv[1:] if argv is None else argv))
    arguments = parser.parse_args(argv, namespace=_Arguments())
    try:
        if arguments.command == "validate":
            return _validate(parser, arguments)
        if arguments.command == "repair":
            return _repair(parser, arguments)
        if arguments.command == "convert":
            return _convert(arguments)
        if arguments.command == "check-dataset":
            return _check_dataset(arguments)
        if arguments.command == "redact":
            return _redact(arguments)
        if arguments.command == "usage":
            return _usage(arguments)
        if arguments.command == "assemble":
            return _assemble(arguments)
        if arguments.command == "render":
            return _render(arguments)
        if arguments.command == "formats":
            width = max(len(declared.cli_name) for declared in FORMATS.values()) + 2
            for declared in FORMATS.values():
                _out(f"{declared.cli_name:<{width}}{declared.description}")
            return EXIT_VALID
        if arguments.command == "examples":
            for name in example_names():
                _out(name)
            return EXIT_VALID
        if arguments.command == "schema":
            _out(json.dumps(transcript_schema(), indent=2))
            return EXIT_VALID
    except _Unreadable as error:
        _err(f"message-ir: error: {error}")
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    _err(parser.format_help().rstrip("\n"))
    return EXIT_USAGE


def _parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser. With `command` (the one a run names), only that command's
    arguments are built: the others need just their names and one-line help (the top-level
    help, an unknown command's error). Building every command's took 3.0 ms against 1.8 ms
    for one, and the stream formats' names in `assemble`'s and `render`'s help 7 ms more (the
    import of their package)."""
    parser = _Parser(
        prog="message-ir",
        description="Check, repair and convert agent transcripts (JSON or JSON Lines, and provider formats).",
    )
    parser.add_argument("--version", action="version", version=f"message-ir {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")  # subparsers are `_Parser`s too
    for name, (summary, description, arguments) in _COMMANDS.items():
        sub = commands.add_parser(name, help=summary, description=description)
        if arguments is not None and command in (None, name):
            arguments(sub)
    return parser


def _command_named(argv: Sequence[str]) -> str | None:
    """The command `argv` names (its first word that is no option), when it is one."""
    for word in argv:
        if not word.startswith("-"):
            return word if word in _COMMANDS else None
    return None


def _validate_arguments(validate: argparse.ArgumentParser) -> None:
    validate.add_argument("paths", nargs="*", metavar="PATH", help="a transcript file, or - for standard input")
    validate.add_argument(
        "--example", action="append", default=list[str](), metavar="NAME", help="check a shipped example"
    )
    validate.add_argument(
        "--format",
        choices=("text", "json", "github"),
        default="text",
        help="output format (default: text; github: GitHub Actions annotations)",
    )
    branch = validate.add_mutually_exclusive_group()
    branch.add_argument(
        "--branch",
        metavar="LEAF",
        help="in a log whose lines form a tree, check the branch ending at the line with this ID"
        " (default: the branch the agent resumes)",
    )
    branch.add_argument(
        "--all-branches", action="store_true", help="in a log whose lines form a tree, check every branch"
    )
    validate.add_argument("--jsonl", action="store_true", help="read every input as JSON Lines")
    validate.add_argument(
        "--max-diagnostics",
        type=_positive,
        metavar="N",
        help="stop after N diagnostics (default: no limit); a JSON Lines log stops being read there",
    )
    _format_option(
        validate, "--from", "the inputs' format (see `message-ir formats`; default: detected, else the IR's own)"
    )


def _repair_arguments(repair: argparse.ArgumentParser) -> None:
    repair.add_argument("path", nargs="?", metavar="IN", help="a transcript file, or - for standard input")
    repair.add_argument(
        "--example", dest="repair_example", metavar="NAME", help="repair a shipped example instead of a file"
    )
    repair.add_argument("-o", "--output", metavar="OUT", help="where to write (default: standard output)")
    repair.add_argument("--jsonl", action="store_true", help="read and write JSON Lines")
    _format_option(repair, "--from", "the input's format, written back the same (default: detected, else the IR's own)")


def _convert_arguments(conversion: argparse.ArgumentParser) -> None:
    conversion.add_argument("path", metavar="IN", help="a transcript file, or - for standard input")
    conversion.add_argument("-o", "--output", metavar="OUT", help="where to write (default: standard output)")
    _format_option(conversion, "--from", "the input's format (default: detected)")
    _format_option(conversion, "--to", "the output's format", required=True)


def _check_dataset_arguments(dataset: argparse.ArgumentParser) -> None:
    dataset.add_argument("paths", nargs="+", metavar="FILE", help="a dataset file (JSON Lines)")
    dataset.add_argument(
        "--from",
        dest="source_format",
        type=_dataset_format,
        default=DEFAULT_FORMAT,
        metavar="FORMAT",
        help=f"the lines' format: one of {', '.join(map(_cli_name, CHECKERS))} (default: {_cli_name(DEFAULT_FORMAT)})",
    )
    dataset.add_argument("-j", "--jobs", type=_positive, default=1, metavar="N", help="worker processes (default: 1)")
    dataset.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    dataset.add_argument(
        "--examples", type=_positive, default=3, metavar="N", help="examples shown per code (default: 3)"
    )
    dataset.add_argument(
        "--tokenizer",
        metavar="MODULE:FUNCTION",
        help="count each line's tokens with this function (a str -> int you have; nothing is downloaded)",
    )
    dataset.add_argument(
        "--max-tokens", type=_positive, metavar="N", help="report lines of more than N tokens (needs --tokenizer)"
    )


def _assemble_arguments(assembling: argparse.ArgumentParser) -> None:
    assembling.add_argument("path", metavar="STREAM", help="a stream file, or - for standard input")
    assembling.add_argument(
        "--from",
        dest="stream_format",
        type=_stream_format,
        required=True,
        metavar="FORMAT",
        help=f"the stream's format: one of {', '.join(map(_cli_name, _stream_formats()))}",
    )
    assembling.add_argument("-o", "--output", metavar="OUT", help="where to write (default: standard output)")
    assembling.add_argument(
        "--to",
        dest="stream_target",
        type=_format_argument,
        metavar="FORMAT",
        help="write the message in this format (default: the IR's JSON)",
    )


def _redact_arguments(redaction: argparse.ArgumentParser) -> None:
    redaction.add_argument("paths", nargs="+", metavar="FILE", help="a transcript or log (several with --check)")
    redaction.add_argument("-o", "--output", metavar="OUT", help="where to write (default: standard output)")
    redaction.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 when anything would be redacted (paths only)"
    )
    redaction.add_argument("--literal", action="append", default=_none(), metavar="S", help="also redact this string")
    redaction.add_argument(
        "--pattern",
        action="append",
        default=_none(),
        metavar="RE",
        help="also redact what this regular expression finds",
    )
    redaction.add_argument("--jsonl", action="store_true", help="read FILE as JSON Lines")
    redaction.add_argument("--format", choices=("text", "json"), default="text", help="report format (default: text)")
    _format_option(redaction, "--from", "the input's format (default: detected)")


def _usage_arguments(usage: argparse.ArgumentParser) -> None:
    usage.add_argument("paths", nargs="+", metavar="FILE", help="a session log")
    usage.add_argument("--by", choices=("model", "session", "day"), default="model", help="rows (default: model)")
    usage.add_argument(
        "--prices",
        metavar="FILE",
        help='a JSON price table: {"MODEL": {"input": N, "output": N, "cache_read": N, "cache_write": N}},'
        " per million tokens",
    )
    usage.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    _format_option(usage, "--from", "the logs' format (default: detected)")


def _render_arguments(rendering: argparse.ArgumentParser) -> None:
    rendering.add_argument("path", metavar="FILE", help="a transcript or log, or - for standard input")
    rendering.add_argument("-o", "--output", metavar="OUT", help="where to write (default: standard output)")
    rendering.add_argument(
        "--format",
        dest="page_format",
        choices=("html", "markdown"),
        default="html",
        help="what to write (default: html)",
    )
    rendering.add_argument(
        "--branch", metavar="LEAF", help="in a log whose lines form a tree, render the branch ending at this line ID"
    )
    rendering.add_argument("--jsonl", action="store_true", help="read FILE as JSON Lines (the IR's own)")
    rendering.add_argument(
        "--stream",
        dest="stream_format",
        type=_stream_format,
        metavar="FORMAT",
        help=f"FILE is a recorded stream of this format ({', '.join(map(_cli_name, _stream_formats()))}):"
        " render the message it assembles",
    )
    _format_option(rendering, "--from", "the input's format (default: detected, else the IR's own)")


_COMMANDS: Final[dict[str, tuple[str, str | None, Callable[[argparse.ArgumentParser], None] | None]]] = {
    "validate": (
        "check transcript files",
        "Check transcripts; '-' reads standard input. Files ending in .jsonl are JSON Lines.",
        _validate_arguments,
    ),
    "repair": (
        "repair broken tool-call linkage",
        "Repair linkage and write the result; the fixes go to standard error.",
        _repair_arguments,
    ),
    "convert": (
        "convert a transcript to another format",
        "Convert a transcript; every change the conversion makes is a note on standard error.",
        _convert_arguments,
    ),
    "check-dataset": (
        "check datasets of conversations, one per line",
        "Check JSON Lines datasets whose every line is one conversation (OpenAI fine-tuning records by"
        " default) and print a summary: lines, valid, invalid, and per code the count and the first examples.",
        _check_dataset_arguments,
    ),
    "assemble": (
        "assemble a provider's stream into the message it makes",
        "Assemble a recorded provider stream (SSE, or JSON payloads one per line) into the assistant"
        " message it makes, as the IR (or, with --to, as a format's message); its diagnostics on standard error.",
        _assemble_arguments,
    ),
    "redact": (
        "replace secrets in a transcript or session log, keeping it valid",
        "Replace every secret (keys, tokens, private keys, credentials in URLs, e-mail addresses, random"
        " strings) inside the texts, arguments, results and kept fields of FILE with [REDACTED:<rule>:<n>];"
        " IDs, names and linkage stay, and everything else is written back byte for byte. The report of"
        " what was redacted (paths and rules, never the secrets) goes to standard error.",
        _redact_arguments,
    ),
    "usage": (
        "sum the tokens session logs used, per session, model or day",
        "Sum the input, output, cache-read and cache-write tokens of every API call in session logs"
        " (each call counted once), read a line at a time. Costs come only from --prices.",
        _usage_arguments,
    ),
    "render": (
        "render a transcript or session log as an HTML page or Markdown",
        "Render FILE (any format) as one self-contained HTML page, or as Markdown: each call with"
        " its result, the diagnostics of `validate` beside the messages they concern, thinking and long output"
        " collapsed, branches and notes listed.",
        _render_arguments,
    ),
    "formats": ("list the formats --from and --to take", None, None),
    "examples": ("list the shipped example transcripts", None, None),
    "schema": ("print the JSON Schema of the wire format", None, None),
}
"""Every command: its one-line help, its description, and what adds its arguments, in the order
the help lists them."""


def _format_option(parser: argparse.ArgumentParser, flag: str, help: str, *, required: bool = False) -> None:
    """`--from` (into `source_format`) or `--to` (into `target_format`): a format's name."""
    destination = "source_format" if flag == "--from" else "target_format"
    parser.add_argument(flag, dest=destination, type=_format_argument, metavar="FORMAT", required=required, help=help)


def _none() -> list[str]:
    """An empty list for an `append` option's default (typed: argparse's own is `Any`)."""
    return []


def _positive(text: str) -> int:
    try:
        number = int(text)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number from 1, got {text!r}")
    return number


def _cli_name(name: str) -> str:
    """A format's name on the command line (its declaration's `cli_name`)."""
    return FORMATS[name].cli_name


def _format_argument(text: str) -> str:
    return _format_name(text, FORMATS, "unknown format")


def _stream_formats() -> Collection[str]:
    """The stream formats' names, their package imported on use (7 ms of every other command's start)."""
    from message_ir.streams import STREAM_FORMATS

    return STREAM_FORMATS


def _stream_format(text: str) -> str:
    return _format_name(text, _stream_formats(), "not a stream format:")


def _dataset_format(text: str) -> str:
    return _format_name(text, CHECKERS, "not a dataset format:")


def _format_name(text: str, known: Collection[str], problem: str) -> str:
    """The name of the format among `known` whose command-line name (or name) is `text`."""
    for name in known:
        if text in (name, FORMATS[name].cli_name):
            return name
    choices = ", ".join(_cli_name(each) for each in known)
    raise argparse.ArgumentTypeError(f"{problem} {text!r} (choose from {choices})")


def _pool_broke(error: RuntimeError) -> bool:
    """Whether `error` is a process pool's `BrokenProcessPool`. Its module is imported only by
    a run of several processes (15 ms of every command's start otherwise): when it was never
    imported, no pool ran."""
    if "concurrent.futures.process" not in sys.modules:
        return False
    from concurrent.futures.process import BrokenProcessPool  # imported already: no cost

    return isinstance(error, BrokenProcessPool)


def _check_dataset(arguments: _Arguments) -> int:
    paths: list[str] = []
    for path in arguments.paths:
        if path not in paths:  # a file named twice is checked once
            paths.append(path)
    total = 0
    for path in paths:
        try:
            total += os.path.getsize(path)
        except OSError as error:
            raise _Unreadable(f"cannot read {_shown(path)}: {_reason(error)}") from None
    shown = _shown(paths[0]) if len(paths) == 1 else f"{len(paths)} files"
    progress = _Progress(shown, total, _stderr_is_terminal() and total > _PROGRESS_BYTES)
    source_format = arguments.source_format or DEFAULT_FORMAT
    if arguments.max_tokens is not None and arguments.tokenizer is None:
        raise _Unreadable("--max-tokens needs --tokenizer MODULE:FUNCTION to count with")
    if arguments.tokenizer is not None:
        sys.path.insert(0, os.getcwd())  # a module of the user's, beside the data, as `python -m` finds it
    try:
        summary = check_dataset(
            paths,
            source_format,
            processes=arguments.jobs,
            examples=arguments.examples,
            progress=progress.advance,
            counter=arguments.tokenizer,
            max_tokens=arguments.max_tokens,
        )
    except TokenizerError as error:
        raise _Unreadable(str(error)) from None
    except MemoryError:
        raise _Unreadable("out of memory: the dataset was not checked") from None
    except ValueError as error:  # more processes than this process may open files for
        raise _Unreadable(str(error)) from None
    except OSError as error:
        raise _Unreadable(f"cannot read the dataset: {_reason(error)}") from None
    except RuntimeError as error:
        if not _pool_broke(error):
            raise
        raise _Unreadable(
            "a worker process died (killed, or out of memory): the dataset was not checked; try fewer processes (-j)"
        ) from None
    progress.finish()
    if arguments.format == "json":  # file names shown as text (undecodable bytes: U+FFFD), as in the text form
        summary.files = [(_shown(file), lines) for file, lines in summary.files]
        summary.examples = {
            code: [msgspec.structs.replace(example, file=_shown(example.file)) for example in examples]
            for code, examples in summary.examples.items()
        }
        _out(msgspec.json.encode(summary).decode())
    else:
        counted = f"{summary.lines:,} {_plural(summary.lines, 'line')}"
        _out(f"{shown}: {counted}, {summary.valid:,} valid, {summary.invalid:,} invalid")
        width = max(map(len, summary.lines_by_code), default=0)
        for code, lines in summary.lines_by_code.items():
            count = summary.diagnostics_by_code[code]
            _out(f"{code:<{width}}  {lines:,} {_plural(lines, 'line')}, {count:,} {_plural(count, 'diagnostic')}")
            for example in summary.examples.get(code, []):
                found = example.diagnostic
                _out(f"  {_shown(example.file)}:{example.line}: {found.message} (at {found.path})")
        if summary.tokens is not None:
            _tokens_summary(summary.tokens)
    return EXIT_VALID if summary.invalid == 0 else EXIT_INVALID


def _tokens_summary(tokens: Tokens) -> None:
    """The tokens counted: in all, the longest line, and a histogram of the lines."""
    _out(f"tokens: {tokens.total:,} in all, {tokens.longest:,} in the longest line")
    lines = tokens.histogram.values()
    widest = max(lines, default=0)
    labels = {label: ("more" if label == "more" else f"<= {int(label):,}") for label in tokens.histogram}
    width = max(map(len, labels.values()), default=0)
    for label, count in tokens.histogram.items():
        bar = "#" * max(1, round(40 * count / widest)) if widest else ""
        _out(f"  {labels[label]:>{width}}  {count:>{len(f'{widest:,}')},}  {bar}")


def _redact(arguments: _Arguments) -> int:
    from message_ir.redact import RULES, literal_rule, pattern_rule, redact_file_bytes  # see the module's docstring

    rules = [*RULES, *(literal_rule("literal", text) for text in arguments.literal if text)]
    for text in arguments.pattern:
        try:
            compiled = re.compile(text)
        except re.error as error:
            raise _Unreadable(f"--pattern {text!r} is not a valid regular expression: {error}") from None
        if compiled.search("") is not None:
            raise _Unreadable(f"--pattern {text!r} matches the empty string")
        rules.append(pattern_rule("pattern", text))
    if len(arguments.paths) > 1 and not arguments.check:
        raise _Unreadable("redact: give one FILE (several only with --check)")
    found_any = False
    for path in arguments.paths:
        data, read_as = _read(path)
        jsonl = _is_jsonl(path, arguments.jsonl)
        adapter = _source_format(data, arguments.source_format, jsonl)
        lines = jsonl or (adapter is not None and FORMATS[adapter].json_lines)
        try:
            redacted = redact_file_bytes(data, json_lines=lines, rules=rules)
        except ValueError as error:
            raise _Unreadable(f"{_shown(path)}: not JSON{' Lines' if lines else ''}: {error}") from None
        module = None if adapter is None else FORMATS[adapter]
        if module is not None and redacted.redactions and module.check(redacted.data) != module.check(data):
            raise _Unreadable(f"{_shown(path)}: redacting would change what `validate` says; nothing written")
        found_any = found_any or bool(redacted.redactions)
        if arguments.format == "json":
            report = [{"file": _shown(path), "path": item.path, "rule": item.rule} for item in redacted.redactions]
            _err(json.dumps(report))
        else:
            for item in redacted.redactions:
                _err(
                    f"{_shown(path)}: {item.rule} (at {item.path})"
                    + ("" if arguments.check else f" -> {item.placeholder}")
                )
        if not arguments.check:
            _write(arguments.output, redacted.data, read_as)
    return EXIT_INVALID if arguments.check and found_any else EXIT_VALID


def _usage(arguments: _Arguments) -> int:
    prices = None
    if arguments.prices is not None:
        data, _ = _read(arguments.prices)
        try:
            prices = read_prices(data)
        except ValueError as error:
            raise _Unreadable(f"{_shown(arguments.prices)}: {error}") from None
    found: list[Call] = []
    for path in arguments.paths:
        adapter = arguments.source_format or _detected_log(path)
        if adapter is None or FORMATS[adapter].usage is None:
            known = ", ".join(each.cli_name for each in FORMATS.values() if each.usage is not None)
            raise _Unreadable(f"{_shown(path)}: not a session log that records token usage ({known})")
        try:
            found.extend(calls(LogFile(path), adapter))
        except OSError as error:
            raise _Unreadable(f"cannot read {path}: {error.strerror or error}") from None
        except FormatError as error:  # each problem said as `validate` says it, then why nothing is summed
            for diagnostic in error.diagnostics:
                _err(_diagnostic_line(_shown(path), diagnostic, lines=FORMATS[adapter].json_lines))
            raise _Unreadable(f"{_shown(path)}: not {_cli_name(adapter)} data; no usage summed") from None
    by: By = "session" if arguments.by == "session" else "day" if arguments.by == "day" else "model"
    summary = summarize(found, by, prices)
    if arguments.format == "json":
        _out(msgspec.json.format(msgspec.json.encode(summary).decode(), indent=2))
        return EXIT_VALID
    priced = prices is not None
    header: tuple[str, ...] = ("calls", "input", "output", "cache read", "cache write")
    if priced:
        header = (*header, "cost")
    table: list[tuple[str, ...]] = [(by, *header)]
    table.extend((row.key, *_usage_cells(row, priced)) for row in (*summary.rows, summary.total))
    widths = [max(len(cells[column]) for cells in table) for column in range(len(header) + 1)]
    for cells in table:
        placed = [
            cells[0].ljust(widths[0]),
            *(cell.rjust(width) for cell, width in zip(cells[1:], widths[1:], strict=True)),
        ]
        _out("  ".join(placed).rstrip())
    if summary.unpriced:
        _err(f"message-ir: no price for {', '.join(summary.unpriced)}: their rows have no cost")
    return EXIT_VALID


def _usage_cells(row: Row, priced: bool) -> tuple[str, ...]:
    counts = (row.calls, row.input, row.output, row.cache_read, row.cache_write)
    cost = () if not priced else ("-" if row.cost is None else f"{row.cost:,.4f}",)
    return (*(f"{count:,}" for count in counts), *cost)


def _detected_log(path: str) -> str | None:
    """The format of the log at `path`, told from its first lines (a JSON file: from all of it)."""
    _refuse_compressed(path)
    try:
        with open(path, "rb") as stream:
            if not path.endswith(".jsonl"):
                return detect(stream.read())
            return _log_format(b"".join(stream.readlines(BATCH_BYTES)))
    except OSError as error:
        raise _Unreadable(f"cannot read {path}: {error.strerror or error}") from None


def _plural(count: int, word: str) -> str:
    return word if count == 1 else word + "s"


def _source_format(data: bytes, given: str | None, jsonl: bool) -> str | None:
    """The adapter format of `data`: the one given, else the detected one (never for JSON Lines)."""
    if given is not None:
        return given
    if jsonl:  # JSON Lines: a session log, or the IR's own; told from whole lines, as `validate` does
        return _log_format(data[: max(data.rfind(b"\n", 0, BATCH_BYTES), data.find(b"\n")) + 1] or data)
    return detect(data)


_LOG_FORMATS: Final = tuple(declared.name for declared in FORMATS.values() if declared.json_lines)


def _log_format(head: bytes) -> str | None:
    """The session-log format of JSON Lines whose first lines are `head`, else `None`."""
    found = detect(head[: head.rfind(b"\n") + 1] or head)
    return found if found in _LOG_FORMATS else None


def _is_jsonl(name: str, forced: bool) -> bool:
    return forced or name.endswith(".jsonl")


def _validate(parser: argparse.ArgumentParser, arguments: _Arguments) -> int:
    paths, examples = arguments.paths, arguments.example
    if not paths and not examples:
        parser.error("validate: give at least one PATH or --example NAME")
    sources: list[_Source] = []  # iterators: nothing is read until its turn
    for name in examples:
        try:
            full_name = resolve_example(name)
        except KeyError:
            raise _Unreadable(f"no example named {name!r}; `message-ir examples` lists them") from None
        jsonl = _is_jsonl(full_name, arguments.jsonl)
        sources.append(_Source(full_name, full_name, jsonl, _check_example(full_name, jsonl)))
    for path in paths:
        jsonl = _is_jsonl(path, arguments.jsonl)
        if arguments.branch is not None or arguments.all_branches:
            sources.extend(_branch_sources(path, jsonl, arguments))
            continue
        lines = _line_based(jsonl, arguments.source_format)
        sources.append(_Source(_shown(path), _shown(path), lines, _check_path(path, jsonl, arguments.source_format)))
    cap = arguments.max_diagnostics
    text = arguments.format == "text"
    github = arguments.format == "github"
    reports: list[_FileReport] = []
    total = 0
    for name, file, lines, diagnostics in sources:
        found: list[Diagnostic] = []
        seen = 0
        for diagnostic in diagnostics:  # printed as they come: a log's shape problems as it is read
            seen += 1
            total += 1
            if text:
                _out(_diagnostic_line(name, diagnostic, lines=lines))
            elif github:
                _out(_annotation(file, diagnostic, lines=lines))
            else:
                found.append(diagnostic)
            if cap is not None and total >= cap:
                break
        if text and seen == 0:
            _out(f"{name}: valid")
        reports.append(_FileReport(name, seen == 0, tuple(found)))
        if cap is not None and total >= cap:
            _err(f"message-ir: stopped after {total} diagnostics (--max-diagnostics {cap})")
            break
    if arguments.format == "json":
        _out(msgspec.json.format(msgspec.json.encode(reports).decode(), indent=2))
    return EXIT_INVALID if total else EXIT_VALID


class _Source(NamedTuple):
    """One thing `validate` checks: its name in the output, its file, whether its records are
    lines, and its diagnostics as they are found."""

    name: str
    file: str
    lines: bool
    diagnostics: Iterator[Diagnostic]


def _annotation(file: str, diagnostic: Diagnostic, *, lines: bool) -> str:
    """A GitHub Actions error annotation: on the 1-based line of a file whose records are
    lines, else on the file."""
    where = f"file={_escaped(file, True)}"
    if lines and diagnostic.message_index is not None:
        where += f",line={diagnostic.message_index + 1}"
    message = f"{diagnostic.message} (at {diagnostic.path})"
    return f"::error {where},title={diagnostic.code}::{_escaped(message, False)}"


def _escaped(text: str, property_value: bool) -> str:
    """Text as a workflow command carries it (`%`, CR and LF escaped; in a property also `:`
    and `,`)."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if property_value else text


def _branch_sources(path: str, jsonl: bool, arguments: _Arguments) -> list[_Source]:
    """`validate --branch` / `--all-branches` of one file: the branches to check, each named."""
    data, _ = _read(path)
    adapter = _source_format(data, arguments.source_format, jsonl)
    trees = None if adapter is None else FORMATS[adapter].trees
    if trees is None:
        kinds = ", ".join(declared.cli_name for declared in FORMATS.values() if declared.trees is not None)
        raise _Unreadable(f"{_shown(path)}: --branch and --all-branches read a log whose lines form a tree ({kinds})")
    if arguments.branch is not None:
        try:
            trees.load(data, arguments.branch)
        except ValueError as error:
            raise _Unreadable(f"{_shown(path)}: {error}") from None
        except FormatError:
            pass  # `check` says why
        return [_Source(_shown(path), _shown(path), True, iter(trees.check(data, arguments.branch)))]
    found = trees.branches(data)
    if not found:
        return [_Source(_shown(path), _shown(path), True, iter(trees.check(data, None)))]
    return [
        _Source(f"{_shown(path)} (branch {branch.leaf})", _shown(path), True, iter(trees.check(data, branch.leaf)))
        for branch in found
    ]


def _line_based(jsonl: bool, source_format: str | None) -> bool:
    """Whether a file's records are its lines (the IR's JSON Lines, a session log): then the
    number after its name on the command line is the 1-based line."""
    return jsonl or (source_format is not None and FORMATS[source_format].json_lines)


def _place(index: int | None, lines: bool) -> str:
    """Where a problem is, after the file's name: the 1-based line of a line-based file, else
    the 0-based index of the message or record (`-` for the whole file)."""
    if index is None:
        return "-"
    return str(index + 1) if lines else str(index)


def _diagnostic_line(name: str, diagnostic: Diagnostic, label: str = "", *, lines: bool = False) -> str:
    where = _place(diagnostic.message_index, lines)
    return f"{name}:{where}: {diagnostic.code} {label}{diagnostic.message} (at {diagnostic.path})"


def _check_bytes(data: bytes, jsonl: bool, source_format: str | None = None) -> tuple[Diagnostic, ...]:
    adapter = _source_format(data, source_format, jsonl)
    if adapter is not None:
        return FORMATS[adapter].check(data)
    try:
        if jsonl:
            decode_jsonl(data)
        else:
            decode_transcript(data)
    except TranscriptError as error:
        return error.diagnostics
    return ()


def _check_example(name: str, jsonl: bool) -> Iterator[Diagnostic]:
    yield from _check_bytes(read_example(name), jsonl)


def _check_path(path: str, jsonl: bool, source_format: str | None) -> Iterator[Diagnostic]:
    """The diagnostics of one file, as they are found (a JSON Lines log is read line by line)."""
    if path == "-":
        yield from _check_bytes(_stdin_bytes(), jsonl, source_format)
        return
    _refuse_compressed(path)
    try:
        with open(path, "rb") as stream:
            size = os.fstat(stream.fileno()).st_size
            progress = _Progress(path, size, _stderr_is_terminal() and size > _PROGRESS_BYTES)
            first: list[bytes] = []
            if jsonl and source_format is None:
                first = stream.readlines(BATCH_BYTES)
                source_format = _log_format(b"".join(first))
            if source_format is not None and FORMATS[source_format].json_lines:
                found = FORMATS[source_format].check(LogFile(path))  # a session log: read in passes, never whole
            elif not jsonl or source_format is not None:
                progress.advance(sum(map(len, first)))
                found = _check_bytes(b"".join(first) + _whole(stream, progress), jsonl, source_format)
            else:
                reader = JsonlReader(keep=False)
                progress.advance(sum(map(len, first)))
                yield from reader.lines(first)
                while batch := stream.readlines(BATCH_BYTES):  # whole lines, about 256 KB
                    progress.advance(sum(map(len, batch)))
                    yield from reader.lines(batch)
                progress.finish()
                found = tuple(reader.finish())
    except OSError as error:
        raise _Unreadable(f"cannot read {path}: {error.strerror or error}") from None
    yield from found


class _Progress:
    """Progress by bytes read, on standard error when it is a terminal: at most a few updates
    a second, with the rate, for JSON and JSON Lines alike."""

    def __init__(self, path: str, size: int, enabled: bool) -> None:
        self.path, self.size, self.enabled = _shown(path), size, enabled
        self.done = 0
        self.started = self.last = time.monotonic()

    def advance(self, count: int) -> None:
        self.done += count
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.last < _PROGRESS_INTERVAL:
            return
        self.last = now
        rate = self.done / max(now - self.started, 1e-9) / 1e6
        _err(
            f"\rmessage-ir: {self.path}: {self.done / 1e6:,.0f} of {self.size / 1e6:,.0f} MB ({rate:,.0f} MB/s)", end=""
        )

    def finish(self) -> None:
        if self.enabled:
            _err(f"\rmessage-ir: {self.path}: {self.done / 1e6:,.0f} MB, done" + " " * 20)


def _whole(stream: BinaryIO, progress: _Progress) -> bytes:
    """The whole of a file, read in chunks to show progress."""
    chunks: list[bytes] = []
    while chunk := stream.read(_CHUNK):
        chunks.append(chunk)
        progress.advance(len(chunk))
    progress.finish()
    return b"".join(chunks)


def _refuse_compressed(path: str) -> None:
    """Compressed files are not read: one line says how to read them."""
    if path.endswith(".zst"):
        raise _Unreadable(
            f"{_shown(path)}: compressed with zstd (Codex compresses archived rollouts):"
            " decompress it first, `zstd -d FILE`"
        )


def _read(path: str) -> tuple[bytes, FileStamp | None]:
    """A file's bytes, and its stamp as read (what a write over it later compares with)."""
    if path == "-":
        return _stdin_bytes(), None
    _refuse_compressed(path)
    try:
        with open(path, "rb") as stream:
            data = stream.read()
            status = os.fstat(stream.fileno())
    except OSError as error:
        raise _Unreadable(f"cannot read {path}: {error.strerror or error}") from None
    return data, stamp(status)._replace(size=len(data))  # grown while read: the sizes differ


def _repair(parser: argparse.ArgumentParser, arguments: _Arguments) -> int:
    output = arguments.output
    example = arguments.repair_example
    if (arguments.path is None) == (example is None):
        parser.error("repair: give IN or --example NAME (one of them)")
    if example is not None:
        try:
            path = resolve_example(example)
        except KeyError:
            raise _Unreadable(f"no example named {example!r}; `message-ir examples` lists them") from None
        data, read_as = read_example(path), None
    else:
        given = arguments.path
        assert given is not None  # checked above
        path = given
        log = _segmented_log(path, arguments.source_format, _is_jsonl(path, arguments.jsonl))
        if log is not None:
            return _repair_segments(path, output, *log)
        data, read_as = _read(given)
    jsonl = _is_jsonl(path, arguments.jsonl)
    data = _without_lone_surrogates(path, data, jsonl)
    adapter = _source_format(data, arguments.source_format, jsonl)
    if adapter is not None:
        return _repair_format(path, output, data, adapter, read_as)
    try:
        messages = _decode_shape_only(data, jsonl)
        repaired = repair_transcript(messages)
    except TranscriptError as error:
        for diagnostic in error.diagnostics:
            _err(_diagnostic_line(path, diagnostic, lines=jsonl))
        _err(f"message-ir: {path}: not repaired: repair fixes linkage only")
        return EXIT_INVALID
    for fix in repaired.fixes:
        _err(_fix_line(path, fix, fix.message_index, lines=jsonl))
    out_jsonl = _is_jsonl(output, arguments.jsonl) if output else jsonl
    if changed(repaired.fixes) or out_jsonl != jsonl:
        data = encode_jsonl(repaired.messages) if out_jsonl else encode_transcript(repaired.messages) + b"\n"
    _write(output, data, read_as)
    unrepaired = any(fix.action == "unrepaired" for fix in repaired.fixes)
    return EXIT_INVALID if unrepaired else EXIT_VALID


def _without_lone_surrogates(path: str, data: bytes, jsonl: bool) -> bytes:
    """`data` with each lone surrogate escape (`\\ud83d`, which no reader takes) replaced by
    `\\ufffd`, the one text fix `repair` makes, each changed line reported (JSON Lines: by
    its 1-based line, as the other fixes; JSON: the count). Every other byte stays."""
    fixed, count = replaced_surrogates(data)
    if not count:
        return data
    if not jsonl:
        _err(f"{path}:-: INVALID_JSON replaced_surrogate: Replaced {count} lone surrogate escapes with U+FFFD")
        return fixed
    lines = data.split(b"\n")
    for number, line in enumerate(lines, start=1):
        lines[number - 1], count = replaced_surrogates(line)
        if count:
            what = "escape" if count == 1 else "escapes"
            _err(
                f"{path}:{number}: INVALID_JSON replaced_surrogate: Replaced {count} lone surrogate {what} with U+FFFD"
            )
    return b"\n".join(lines)


def _repair_format(path: str, output: str | None, data: bytes, adapter: str, read_as: FileStamp | None) -> int:
    """Repair a transcript of an adapter's format and write it back in that format."""
    module = FORMATS[adapter]
    if module.segments is not None:
        return _repair_segments(path, output, data, module, read_as)
    return _repair_loaded(path, output, data, module, read_as)


def _repair_loaded(path: str, output: str | None, data: bytes, module: Format, read_as: FileStamp | None) -> int:
    """`repair` of a transcript loaded whole."""
    lines = module.json_lines
    try:
        conversation = module.load(data)
    except FormatError as error:
        for diagnostic in error.diagnostics:
            _err(_diagnostic_line(path, diagnostic, lines=lines))
        _err(f"message-ir: {path}: not repaired: not {module.cli_name} data")
        return EXIT_INVALID
    repaired = repair_transcript(conversation.messages)
    found = module.check(data) if repaired.fixes else ()
    for fix in repaired.fixes:  # each fix where `validate` reports its problem
        index = _source_place(fix, found, source_index(conversation.messages[fix.message_index].id))
        _err(_fix_line(path, fix, index, lines=lines))
    written = _ended(module.dumps(conversation.replace(messages=repaired.messages)))
    _write(output, written if changed(repaired.fixes) else data, read_as)
    # Exit 0 only when what was written passes the format's own check: say what repair left.
    unrepaired = {fix.code for fix in repaired.fixes if fix.action == "unrepaired"}
    return _repair_left(path, output, module.check(written), unrepaired, lines=lines)


def _repair_left(
    path: str, output: str | None, found: Sequence[Diagnostic], unrepaired: Collection[str], *, lines: bool
) -> int:
    """Say what the written output's check `found` that repair did not mean to leave (the
    problems of the codes it left `unrepaired` aside); exit 0 only when there is none."""
    left = [diagnostic for diagnostic in found if diagnostic.code not in unrepaired]
    for diagnostic in left:
        _err(_diagnostic_line(output or "-", diagnostic, "not fixed: ", lines=lines))
    if left:
        _err(f"message-ir: {path}: repair does not fix {len(left)} {_plural(len(left), 'problem')} (see above)")
    return EXIT_INVALID if unrepaired or left else EXIT_VALID


def _segmented_log(path: str, given: str | None, jsonl: bool) -> tuple[LogFile, Format, FileStamp] | None:
    """For a session log read in segments (`Format.segments`) with no lone surrogate escape
    (which `repair` replaces in the whole file first): see `_log_file`; its format is the one
    given, else for JSON Lines the one found in its first lines."""

    def named(stream: BinaryIO) -> str | None:
        name = given
        if name is None and jsonl:
            name = _log_format(b"".join(stream.readlines(BATCH_BYTES)))
        module = None if name is None else FORMATS[name]
        if module is None or module.segments is None or _has_lone_surrogates(stream):
            return None
        return name

    return _log_file(path, named)


def _log_file(path: str, named: Callable[[BinaryIO], str | None]) -> tuple[LogFile, Format, FileStamp] | None:
    """For a file (not standard input) that `named` (given the file open at its start) finds
    a session log read in segments (`Format.segments`) of: the file, to be read in passes and
    never whole (its first `size` bytes, the same in every pass), its format and its stamp;
    else `None`."""
    if path == "-":
        return None
    _refuse_compressed(path)
    try:
        with open(path, "rb") as stream:
            status = os.fstat(stream.fileno())
            name = named(stream)
    except OSError as error:
        raise _Unreadable(f"cannot read {path}: {error.strerror or error}") from None
    module = None if name is None else FORMATS[name]
    if module is None or module.segments is None:
        return None
    return LogFile(path, end=status.st_size), module, stamp(status)


def _has_lone_surrogates(stream: BinaryIO) -> bool:
    """Whether a file holds a lone surrogate escape, read from its start in batches of whole
    lines (an escape never spans lines)."""
    stream.seek(0)
    while batch := b"".join(stream.readlines(_CHUNK)):
        if (b"\\ud" in batch or b"\\uD" in batch) and lone_surrogate_escapes(batch):
            return True
    return False


def _repair_segments(path: str, output: str | None, source: object, module: Format, read_as: FileStamp | None) -> int:
    """`repair` of a session log a segment at a time (`repair_log`): a log repair changes
    nothing in (the fixes it cannot make aside) is written back as read, and one whose last
    segment only it changes is written with that segment repaired, the lines before it as
    read; neither is held whole. Any other log is repaired whole (`_repair_loaded`, see
    `_log_repair` for why)."""
    segments = module.segments
    assert segments is not None  # a session log read in segments
    said: list[str] = []  # the fix lines, said once the whole log is read
    unrepaired: set[str] = set()

    def place(done: SegmentFixes) -> None:
        messages, first = done.segment.conversation.messages, done.segment.first_message
        for fix in done.fixes:
            found = source_index(messages[fix.message_index - first].id)
            said.append(_fix_line(path, fix, _source_place(fix, done.segment.diagnostics, found), lines=True))
            if fix.action == "unrepaired":
                unrepaired.add(fix.code)

    try:
        units = repair_units(module.name, segments, source)
        found = repair_log(units, missing_result_content=DEFAULT_MISSING_RESULT_CONTENT, each=place)
    except FormatError:
        for diagnostic in module.check(source):  # every problem, as a whole load names them
            _err(_diagnostic_line(path, diagnostic, lines=True))
        _err(f"message-ir: {path}: not repaired: not {module.cli_name} data")
        return EXIT_INVALID
    except OSError as error:
        raise _Unreadable(f"cannot read {path}: {error.strerror or error}") from None
    if found is None:
        data = source if type(source) is bytes else whole(source)
        assert type(data) is bytes  # a log given as bytes or as a `LogFile`
        return _repair_loaded(path, output, data, module, read_as)
    for line in said:
        _err(line)
    last = found.changed
    if last is None:
        _write_with(output, lambda stream: _copy_log(path, source, stream), read_as)
        left = () if found.clean else module.check(source)  # every segment clean: `check` says nothing
        return _repair_left(path, output, left, unrepaired, lines=True)  # written as read
    return _write_repaired_log(path, output, source, module, last, read_as, unrepaired)


def _write_repaired_log(
    path: str,
    output: str | None,
    source: object,
    module: Format,
    last: SegmentFixes,
    read_as: FileStamp | None,
    unrepaired: set[str],
) -> int:
    """Write a log whose last segment repair changed (`write_repaired`) to a temporary file
    (beside an output file, else in the temporary directory), check it there, then copy it
    to the output; say what repair left."""
    import tempfile  # as `_safe_write` does: only a write needs it

    folder = _spool_folder(output)
    try:
        handle, spooled = tempfile.mkstemp(prefix=".message-ir-repair-", suffix=".jsonl", dir=folder)
    except OSError as error:
        where = "a temporary file" if folder is None else output
        raise _Unreadable(f"cannot write {where}: {error.strerror or error}") from None
    try:
        with os.fdopen(handle, "wb") as spool:
            try:
                write_repaired(source, last, module.dumps, spool.write)
            except OSError as error:
                if error.filename is None:  # type: ignore[misc]  # typeshed gives `OSError.filename` as `Any`
                    raise _Unreadable(f"cannot write a temporary file: {error.strerror or error}") from None
                raise _Unreadable(f"cannot read {path}: {error.strerror or error}") from None
        found = module.check(LogFile(spooled))
        _write_with(output, lambda stream: _copy_log(spooled, LogFile(spooled), stream), read_as)
    finally:
        with contextlib.suppress(OSError):
            os.unlink(spooled)
    return _repair_left(path, output, found, unrepaired, lines=True)


def _spool_folder(output: str | None) -> str | None:
    """Where a temporary copy of the output goes: beside an output that is a file or is not
    there yet (the same disk), else (standard output, a device, a pipe) in the temporary
    directory (`None`)."""
    if output is None or output == "-":
        return None
    try:
        status = os.stat(output)
    except FileNotFoundError:
        return os.path.dirname(os.path.abspath(output))
    except OSError:
        return None  # the output's own write says what is wrong with it
    return os.path.dirname(os.path.realpath(output)) if stat.S_ISREG(status.st_mode) else None


def _copy_log(path: str, source: object, stream: BinaryIO) -> None:
    """Write a log given as bytes or as a `LogFile` (its first `end` bytes) to `stream`, a
    block at a time."""
    try:
        copy_range(source, 0, None, stream.write)
    except OSError as error:
        if error.filename is None:  # type: ignore[misc]  # typeshed gives `OSError.filename` as `Any`
            raise  # writing the output failed (a file read names itself)
        raise _Unreadable(f"cannot read {path}: {error.strerror or error}") from None


def _convert(arguments: _Arguments) -> int:
    path, target = arguments.path, arguments.target_format
    assert path is not None  # a required argument of `convert`
    log = _log_to_convert(path, arguments.source_format)
    if log is not None and _convert_in_segments(path, arguments.output, target, *log):
        return EXIT_VALID
    data, read_as = _read(path)
    source = _source_format(data, arguments.source_format, jsonl=False)
    if source is None:
        raise _Unreadable(f"{path}: cannot tell its format; name it with --from")
    try:
        conversation = FORMATS[source].load(data)
    except FormatError as error:
        for diagnostic in error.diagnostics:
            _err(_diagnostic_line(path, diagnostic, lines=FORMATS[source].json_lines))
        _err(f"message-ir: {path}: not converted: not {_cli_name(source)} data")
        return EXIT_INVALID
    converted = convert(conversation, to=target)
    for note in converted.notes:
        index = "-" if note.message_index is None else str(note.message_index)
        _err(f"{path}:{index}: {note.code} {note.message} (at {note.path})")
    written = FORMATS[target].dumps(converted)
    _write(arguments.output, _ended(written), read_as)
    return EXIT_VALID


def _log_to_convert(path: str, given: str | None) -> tuple[LogFile, Format, FileStamp] | None:
    """For a session log read in segments: see `_log_file`; its format is the one given, else
    the one `detect` finds in its first lines (`_head_format`)."""
    return _log_file(path, lambda stream: given if given is not None else _head_format(stream))


_HEAD_LINES: Final = 5
"""The lines `detect` reads a session log's format from (`_detect._LOG_LINES`)."""
_HEAD_BYTES: Final = 16 * 1024 * 1024
"""At most how much of a file `_head_format` reads."""


def _head_format(stream: BinaryIO) -> str | None:
    """The format `detect` finds in a file's first lines, read from its start (at most
    `_HEAD_BYTES`, else `None`: a file of one long JSON value is read whole, as before)."""
    head: list[bytes] = []
    left = _HEAD_BYTES
    for _ in range(_HEAD_LINES):
        line = stream.readline(left + 1)
        left -= len(line)
        if left < 0:
            return None
        head.append(line)
    return detect(b"".join(head))


def _convert_in_segments(
    path: str, output: str | None, target: str, log: LogFile, module: Format, read_as: FileStamp
) -> bool:
    """`convert` of a session log a segment at a time (`write_converted_log`): the records of
    its messages are spooled to a temporary file (beside an output file, else in the temporary
    directory) and its notes to one per step, and only once every segment is converted are the
    notes said and the output written (what goes before the records, the spool, what goes
    after); `False` (nothing said or written) when the log is to be converted whole, which
    also says what is wrong with a log that is not of its format."""
    import tempfile  # as `_safe_write` does: only a write needs it

    segments = module.segments
    assert segments is not None  # see `_log_to_convert`
    folder = _spool_folder(output)
    with contextlib.ExitStack() as stack:
        try:
            spool = stack.enter_context(tempfile.TemporaryFile(dir=folder))
        except OSError as error:
            where = "a temporary file" if folder is None else output  # as `_write_repaired_log` says it
            raise _Unreadable(f"cannot write {where}: {error.strerror or error}") from None
        try:
            said = [stack.enter_context(tempfile.TemporaryFile()) for _ in range(STEPS)]
        except OSError as error:
            raise _Unreadable(f"cannot write a temporary file: {error.strerror or error}") from None

        def note(step: int, found: Note) -> None:
            index = "-" if found.message_index is None else str(found.message_index)
            text = f"{path}:{index}: {found.code} {found.message} (at {found.path})\n"
            said[step].write(text.encode("utf-8", "surrogatepass"))

        def restart() -> None:  # a call ID must change: written again once the log's IDs are known
            for written in (spool, *said):
                written.seek(0)
                written.truncate()

        try:
            around = write_converted_log(
                lambda: unchecked_segments(module.name, segments, log), target, spool.write, note, restart
            )
        except FormatError:
            return False  # the whole load says what is wrong, as for any file
        except OSError as error:
            if error.filename is None:  # type: ignore[misc]  # typeshed gives `OSError.filename` as `Any`
                raise _Unreadable(f"cannot write a temporary file: {error.strerror or error}") from None
            raise _Unreadable(f"cannot read {path}: {error.strerror or error}") from None
        if around is None:
            return False
        for notes in said:
            notes.seek(0)
            for line in notes:
                _err(line.decode("utf-8", "surrogatepass").removesuffix("\n"))

        def copy(stream: BinaryIO) -> None:
            stream.write(around[0])
            spool.seek(0)
            while block := spool.read(_CHUNK):
                stream.write(block)
            stream.write(around[1] + b"\n")

        _write_with(output, copy, read_as)
    return True


def _assemble(arguments: _Arguments) -> int:
    """`assemble`: the message a stream makes (as the IR, or `--to` a format), its diagnostics
    and notes on standard error; exit 1 when there are any (a cut stream, an error event, an
    event of an unknown type, ...)."""
    path, stream_format = arguments.path, arguments.stream_format
    assert path is not None  # a required argument of `assemble`
    assert stream_format is not None  # required too
    data, read_as = _read(path)
    from message_ir.streams import assemble  # see `_stream_formats`

    done = assemble(data, stream_format)
    for diagnostic in done.diagnostics:
        _err(_diagnostic_line(path, diagnostic))
    for note in done.notes:
        _err(f"{path}:-: {note.code} {note.message} (at {note.path})")
    target = arguments.stream_target
    if target is not None:
        converted = convert([done.message], to=target)
        for note in converted.notes:
            _err(f"{path}:-: {note.code} {note.message} (at {note.path})")
        written = FORMATS[target].dumps(converted)
    else:
        written = encode_transcript((done.message,))
    _write(arguments.output, _ended(written), read_as)
    return EXIT_INVALID if done.diagnostics or done.notes else EXIT_VALID


def _render(arguments: _Arguments) -> int:
    """`render`: the page, or nothing and exit 2 with the reasons for a file that is not of
    its format."""
    from message_ir.render import render_file_bytes  # see the module's docstring

    path = arguments.path
    assert path is not None  # a required argument of `render`
    if path != "-" and arguments.stream_format is None:
        return _render_file(arguments, path)
    data, read_as = _read(path)
    try:
        page = render_file_bytes(
            data,
            format=arguments.source_format,
            json_lines=_is_jsonl(path, arguments.jsonl),
            to=arguments.page_format,
            title=os.path.basename(_shown(path)) or "standard input",
            leaf=arguments.branch,
            stream=arguments.stream_format,
        )
    except FormatError as error:
        lines = arguments.source_format is not None and FORMATS[arguments.source_format].json_lines
        raise _nothing_rendered(path, error, lines=lines or _is_jsonl(path, arguments.jsonl)) from None
    except ValueError as error:
        raise _Unreadable(f"{_shown(path)}: {error}") from None
    _write(arguments.output, page.encode("utf-8"), read_as)
    return EXIT_VALID


def _render_file(arguments: _Arguments, path: str) -> int:
    """`render` of a file (`render_log`: a session log is read a segment at a time, never
    whole), the page written piece by piece to the output (through a temporary file beside
    it, as `_write` does)."""
    from message_ir.render import render_log  # see the module's docstring

    _refuse_compressed(path)
    try:
        read_as = stamp(os.stat(path))
    except OSError as error:
        raise _Unreadable(f"cannot read {path}: {error.strerror or error}") from None
    json_lines = _is_jsonl(path, arguments.jsonl)

    def write(stream: BinaryIO) -> None:
        try:
            render_log(
                path,
                stream,
                format=arguments.source_format,
                json_lines=json_lines,
                to=arguments.page_format,
                title=os.path.basename(_shown(path)),
                leaf=arguments.branch,
            )
        except FormatError as error:
            declared = FORMATS.get(error.format)
            raise _nothing_rendered(
                path, error, lines=json_lines or (declared is not None and declared.json_lines)
            ) from None
        except ValueError as error:
            raise _Unreadable(f"{_shown(path)}: {error}") from None
        except OSError as error:
            if error.filename is None:  # type: ignore[misc]  # typeshed gives `OSError.filename` as `Any`
                raise  # writing the output failed (a file read names itself)
            raise _Unreadable(f"cannot read {path}: {error.strerror or error}") from None

    _write_with(arguments.output, write, read_as)
    return EXIT_VALID


def _nothing_rendered(path: str, error: FormatError, *, lines: bool) -> _Unreadable:
    """What `render` says of a file its format refuses: each reason, on standard error."""
    for diagnostic in error.diagnostics:
        _err(_diagnostic_line(_shown(path), diagnostic, lines=lines))
    return _Unreadable(f"{_shown(path)}: nothing rendered: not {error.format.replace('_', '-')} data")


def _ended(written: bytes) -> bytes:
    """Output ending in one newline (JSON Lines end in one already)."""
    return written if written.endswith(b"\n") else written + b"\n"


def _fix_line(name: str, fix: Fix, index: int | None, *, lines: bool) -> str:
    return f"{name}:{_place(index, lines)}: {fix.code} {fix.action}: {fix.message}"


def _first_quoted(text: str) -> str | None:
    """The first `'...'` of a message (the call ID a linkage message names), or `None`."""
    parts = text.split("'", 2)
    return parts[1] if len(parts) == 3 else None


def _source_place(fix: Fix, found: Sequence[Diagnostic], message_place: int | None) -> int | None:
    """Where in the file `validate` reports the problem `fix` mends: the place of the
    diagnostic of its code naming the same call (a call on a later line of a message split
    over lines is reported there), else the place of the fixed message."""
    call = _first_quoted(fix.message)
    for diagnostic in found:
        if call is not None and diagnostic.code == fix.code and _first_quoted(diagnostic.message) == call:
            return diagnostic.message_index
    return message_place


def _decode_shape_only(data: bytes, jsonl: bool) -> tuple[Message, ...]:
    """The messages of a file whose shape is valid; linkage problems are left for repair."""
    return decode_jsonl(data, check_linkage=False) if jsonl else decode_transcript(data, check_linkage=False)


def _write(output: str | None, data: bytes, read_as: FileStamp | None = None) -> None:
    """Write the output to standard output or to a file, never losing the file (`_safe_write`)."""

    def write(stream: BinaryIO) -> None:
        stream.write(data)

    _write_with(output, write, read_as)


def _write_with(output: str | None, write: Writer, read_as: FileStamp | None = None) -> None:
    """`_write` of what `write` writes to the open output, piece by piece."""
    if output is None or output == "-":
        stream = _streams.stdout
        if stream is None:
            raise _OutputFailed("standard output is closed")
        stream.flush()
        write(stream.buffer)
        stream.buffer.flush()
        return
    try:
        write_with(output, write, read_as=read_as)
    except WriteFailed as error:
        raise _Unreadable(str(error)) from None
