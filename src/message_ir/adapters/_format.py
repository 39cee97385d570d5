"""`Format`: everything the rest of the package knows of one format, declared in its module.

Each format module ends with `FORMAT = Format(...)`, and `message_ir.adapters.FORMATS` (the
registry, `_registry.py`) lists them in order. The command line, `detect`, `convert`, the
tool-declaration checks and `message_ir.datasets` read these declarations and name no
format: adding one is a module and a registry line (docs/formats.md, "Adding a format").
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from message_ir import Diagnostic, Message, ToolResultMessage
from message_ir.adapters._conversation import Conversation
from message_ir.adapters._functions import Functions
from message_ir.adapters._ids import IdRule
from message_ir.adapters._segments import Segments
from message_ir.adapters._tools import ToolReader
from message_ir.adapters._tree_functions import Trees
from message_ir.adapters._usage import UsageReader

Source = bytes | str | object
"""What `load` and `check` take: JSON text, or the parsed value."""


class Recognize(NamedTuple):
    """How `detect` tells a format's data (every test sees one parsed JSON object, with
    `str` keys; none may raise)."""

    line: Callable[[dict[str, object]], bool] | None = None
    """For a session log: whether one of its first lines is this format's."""
    body: Callable[[dict[str, object]], bool] | None = None
    """Whether a whole JSON object (a request body, a recording) is this format's."""
    record: Callable[[dict[str, object]], bool] | None = None
    """Whether one record of a list of messages can only be this format's."""
    block_types: frozenset[str] = frozenset()
    """Content-block `type`s only this format uses."""
    fallback: bool = False
    """The format of a plain list of messages that nothing else claims."""


class Format(NamedTuple):
    """One format: its names, its functions, and what the shared code needs to know of it."""

    functions: Functions[object]
    """Its name, its words, its `load`, `dump`, `dumps` and `check`."""
    id_rule: IdRule
    """The tool-call IDs it accepts (`convert` rewrites the others)."""
    recognize: Recognize
    payload: str = ""
    """For a session log: the provider format its lines hold (its `meta` entries and opaque
    blocks are the log's own); empty for a provider format, which holds its own."""
    raw_arguments: str = ""
    """The key under which it keeps a call's arguments as sent when they are no JSON object."""
    arguments_as_text: bool = False
    """Whether it writes a call's arguments as JSON text (else as the object)."""
    call_ids: bool = True
    """Whether it writes call IDs at all (else results pair with calls by order)."""
    refuses_empty_text: bool = False
    """Whether its provider refuses an empty text block (`convert` drops them)."""
    keeps_instructions: bool = True
    """Whether it keeps system text at all (a session log may keep none)."""
    system_field: str = ""
    """The one field beside the messages that holds its system text; empty when system text
    is messages of their own (`convert` merges instructions into the field)."""
    tools: ToolReader | None = None
    """How a request body's `tools` are read, for formats whose bodies declare tools."""
    dataset_line: bool = False
    """Whether one record of it is one conversation (a dataset line `check-dataset` reads)."""
    messages_key: str = ""
    """For a dataset format: the key of a record's messages (`messages`, `contents`): the
    column a Parquet dataset must have."""
    fast_path: Callable[[bytes], bool] | None = None
    """A dataset line's fast check: `True` only when the careful one (`check`) finds nothing."""
    usage: UsageReader | None = None
    """For a session log: its API calls and the tokens each used (`message_ir.usage`)."""
    trees: Trees | None = None
    """For a log whose lines form a tree: `load` of any branch, `branches`, a branch's `check`."""
    segments: Segments | None = None
    """For a session log: `segments(source, leaf=None)`, its `load_checked` a segment at a time
    (a `Segment` each), so that a log given as text or as a `LogFile` is never held whole; any
    other source is one segment. `leaf` names a tree log's branch. Raises as `load` does,
    when iterated: `FormatError` at the first segment with format problems, with that
    segment's (`load` gives the whole log's)."""
    bridge_text: str = ""
    """For a provider that refuses a user message right after a tool result (Mistral): the
    text of the assistant message `convert` puts between them; empty when none is needed."""
    span_messages: Callable[[dict[str, object]], object | None] | None = None
    """For a format that telemetry records: from a span's (or span event's) attributes, as a
    plain mapping, what its `load` takes, or `None` when they hold none of its messages
    (`message_ir.traces`)."""
    event_messages: Callable[[list[tuple[str, dict[str, object]]]], object | None] | None = None
    """For a format whose messages telemetry records one per event (the GenAI conventions'
    deprecated `gen_ai.user.message`, `gen_ai.choice`, ... log records): from one span's
    events in order (each event's name and body), what its `load` takes, or `None` when the
    bodies are not its messages (`message_ir.traces.log_records`)."""
    structured_result: Callable[[ToolResultMessage, object], ToolResultMessage | None] | None = None
    """Where it holds an MCP result's `structuredContent` (`convert` puts it there): the result
    with the `meta` of this format that writes the structure in its own field (`None` when
    this result cannot hold it); `None` for a format with no such field."""

    @property
    def name(self) -> str:
        """The format's name, as its module is named (`openai_chat`)."""
        return self.functions.name

    @property
    def cli_name(self) -> str:
        """Its name on the command line (`openai-chat`)."""
        return self.functions.name.replace("_", "-")

    @property
    def description(self) -> str:
        """One line: what it reads (`message-ir formats` prints it)."""
        return self.functions.words.description

    @property
    def json_lines(self) -> bool:
        """Whether its files are JSON Lines (a session log), read line by line."""
        return self.functions.json_lines

    @property
    def load(self) -> Callable[[Source], Conversation]:
        return self.functions.load

    @property
    def dump(self) -> Callable[[Conversation | tuple[Message, ...] | list[Message]], object]:
        return self.functions.dump

    @property
    def dumps(self) -> Callable[[Conversation | tuple[Message, ...] | list[Message]], bytes]:
        return self.functions.dumps

    @property
    def check(self) -> Callable[[Source], tuple[Diagnostic, ...]]:
        return self.functions.check

    @property
    def payload_format(self) -> str:
        """The format whose `meta` entries and opaque blocks it writes back."""
        return self.payload or self.name
