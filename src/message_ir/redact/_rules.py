"""The built-in rules: which text is a secret, by family, named in kebab case.

Each rule is a regular expression over the raw text of a JSON string (escapes as written:
a private key's line breaks are the two characters `\\n`); where it has a group named
`secret`, only that part is replaced (the password of a URL, not the URL). The
`high-entropy` rule is a function: a run of 32 to 200 base64 characters, of upper and lower
case letters and digits, whose Shannon entropy is high, and that is no hex digest and no
path (a longer run is a blob: an image, a document, a signature).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Final, NamedTuple


class Rule(NamedTuple):
    """A family of secrets: its name (`aws-access-key`) and how to find them in a text."""

    name: str
    find: Callable[[str], Iterator[tuple[int, int]]]
    """The `(start, end)` of each secret in a text, in order, not overlapping."""


def pattern_rule(name: str, pattern: str, flags: int = 0) -> Rule:
    """A rule of a regular expression (a group named `secret` narrows what is replaced)."""
    compiled = re.compile(pattern, flags)

    def find(text: str) -> Iterator[tuple[int, int]]:
        for match in compiled.finditer(text):
            if "secret" in compiled.groupindex:
                yield match.span("secret")
            else:
                yield match.span()

    return Rule(name, find)


def literal_rule(name: str, literal: str) -> Rule:
    """A rule of one exact string (`--literal`)."""
    return pattern_rule(name, re.escape(literal))


_TOKEN: Final = re.compile(r"(?<![A-Za-z0-9+/=_\-])[A-Za-z0-9+/]{32,}={0,2}(?![A-Za-z0-9+/=_\-])")
_HEX: Final = re.compile(r"[0-9a-fA-F]+")
_BREAK: Final = re.compile(r"[\s\"']")
_LONGEST: Final = 200
"""Longer runs are blobs (images, documents, signatures), not credentials."""
ENTROPY_BITS: Final = 4.5
"""The entropy (bits a character) above which a token counts as random: English text and
identifiers stay well below, random base64 of 40 characters is near 5."""


def _entropy(text: str) -> float:
    counts = Counter(text)
    return -sum(count / len(text) * math.log2(count / len(text)) for count in counts.values())


def _high_entropy(text: str) -> Iterator[tuple[int, int]]:
    for match in _TOKEN.finditer(text):
        token = match.group()
        if len(token) > _LONGEST or token.count("/") > 2 or _HEX.fullmatch(token):
            continue  # a blob, a path, a digest
        data_url = text.rfind("base64,", 0, match.start())
        if data_url != -1 and _BREAK.search(text, data_url, match.start()) is None:
            continue  # a piece of a `data:` URL's bytes (JSON escapes cut it into runs)
        kinds = sum(1 for test in (str.isupper, str.islower, str.isdigit) if any(test(char) for char in token))
        if kinds == 3 and _entropy(token) > ENTROPY_BITS:
            yield match.span()


RULES: Final = (
    pattern_rule("private-key", r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?-----END [A-Z ]*PRIVATE KEY-----", re.DOTALL),
    pattern_rule("aws-access-key", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    pattern_rule(
        "aws-secret-key",
        r"(?i:aws)[\w ]{0,20}?(?i:secret)[\w ]{0,20}?(?:\\?[\"'])?\s*[:=]\s*(?:\\?[\"'])?"
        r"(?P<secret>[A-Za-z0-9/+]{40})\b",
    ),
    pattern_rule("google-api-key", r"\bAIza[0-9A-Za-z_\-]{35}(?![0-9A-Za-z_\-])"),
    pattern_rule("anthropic-key", r"\bsk-ant-[a-z]+\d{2}-[A-Za-z0-9_\-]{20,}"),
    pattern_rule("openai-key", r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),
    pattern_rule("github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"),
    pattern_rule("gitlab-token", r"\bglpat-[A-Za-z0-9_\-]{20,}"),
    pattern_rule("slack-token", r"\bxox[abposr]-[A-Za-z0-9\-]{10,}|https://hooks\.slack\.com/services/[A-Za-z0-9/]+"),
    pattern_rule("stripe-key", r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}"),
    pattern_rule("huggingface-token", r"\bhf_[A-Za-z0-9]{30,}"),
    pattern_rule("jwt", r"\beyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{10,}"),
    pattern_rule("url-credentials", r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^/\s:@\"\\]+:(?P<secret>[^/\s@\"\\]+)@"),
    pattern_rule("email", r"\b[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}\b"),
    Rule("high-entropy", _high_entropy),
)
"""The built-in rules, most specific first (a text already claimed is not claimed again)."""
