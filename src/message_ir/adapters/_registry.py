"""The registry: every format's declaration, in the order `message-ir formats` lists them.

The only list of formats. The command line, `detect`, `convert`, the tool-declaration checks
and `message_ir.datasets` read it; a format is a module declaring `FORMAT` and a line here.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final, Literal, TypeAlias

from message_ir.adapters import (
    anthropic,
    bedrock,
    claude_code,
    codex,
    gemini,
    gemini_cli,
    hf_chat,
    mistral,
    openai_chat,
    openai_responses,
    otel_genai,
    pi,
    sharegpt,
    vercel_ai,
)
from message_ir.adapters._format import Format

FORMATS: Final[Mapping[str, Format]] = MappingProxyType(
    {
        declared.name: declared
        for declared in (
            openai_chat.FORMAT,
            anthropic.FORMAT,
            openai_responses.FORMAT,
            gemini.FORMAT,
            hf_chat.FORMAT,
            sharegpt.FORMAT,
            mistral.FORMAT,
            bedrock.FORMAT,
            vercel_ai.FORMAT,
            otel_genai.FORMAT,
            claude_code.FORMAT,
            codex.FORMAT,
            pi.FORMAT,
            gemini_cli.FORMAT,
        )
    }
)
"""Every format's declaration by name, in the order `message-ir formats` lists them."""

FormatName: TypeAlias = Literal[
    "openai_chat",
    "anthropic",
    "openai_responses",
    "gemini",
    "hf_chat",
    "sharegpt",
    "mistral",
    "bedrock",
    "vercel_ai",
    "otel_genai",
    "claude_code",
    "codex",
    "pi",
    "gemini_cli",
]
"""The name of a registered format, as its module is named (a test holds it equal to `FORMATS`)."""
