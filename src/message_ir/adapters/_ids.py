"""Tool-call ID rules (each format declares its own), and rewriting IDs to fit one without collisions."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Final, NamedTuple


class IdRule(NamedTuple):
    """What a provider accepts as a tool-call ID."""

    max_length: int
    pattern: re.Pattern[str]  # the characters allowed
    description: str
    min_length: int = 1

    def problem(self, call_id: str) -> str | None:
        """Why `call_id` breaks the rule, or `None`."""
        if len(call_id) > self.max_length or len(call_id) < self.min_length:
            return f"Tool call ID is {len(call_id)} characters long; {self.description}"
        if self.pattern.fullmatch(call_id) is None:
            return f"Tool call ID {call_id!r} has characters not allowed; {self.description}"
        return None


_NOT_WORD: Final = re.compile(r"[^A-Za-z0-9_-]")
_NOT_ALNUM: Final = re.compile(r"[^A-Za-z0-9]")

WORD: Final = re.compile(r"[A-Za-z0-9_-]+")
"""Letters, digits, `_` and `-`: what Anthropic accepts."""
ALNUM: Final = re.compile(r"[A-Za-z0-9]+")
"""Letters and digits only: what Mistral accepts."""
ANY: Final = re.compile(r".*", re.DOTALL)
"""Any characters."""


def any_id(description: str) -> IdRule:
    """The rule of a format that takes any non-empty ID."""
    return IdRule(1 << 20, ANY, description)


def rewrite_ids(ids: Iterable[str], rule: IdRule, preferred: dict[str, str]) -> dict[str, str]:
    """A new ID for every ID in `ids` that does not fit `rule` (the others keep theirs).

    Deterministic and collision-free: an ID that fits is kept, unless another ID took it
    first; `preferred` (an ID's original, from an earlier conversion) is taken back when it
    fits and is free; anything else becomes its characters made to fit, cut short, plus a
    hash of the whole original (longer hashes on the rare collision). Two different IDs never
    get the same new ID, whatever their length or spelling (`call.1`, `call_1`, `call 1`).
    """
    unique: list[str] = []
    listed: set[str] = set()
    for call_id in ids:
        if call_id not in listed:
            listed.add(call_id)
            unique.append(call_id)
    taken: set[str] = set()
    result: dict[str, str] = {}
    for call_id in unique:  # first, every ID that fits keeps itself (or takes back its original)
        wanted = preferred.get(call_id, call_id)
        if rule.problem(wanted) is None and wanted not in taken:
            taken.add(wanted)
            result[call_id] = wanted
        elif rule.problem(call_id) is None and call_id not in taken and call_id not in preferred.values():
            taken.add(call_id)
            result[call_id] = call_id
    import hashlib  # here: only a rewrite needs it, and every command line start imports this module

    for call_id in unique:
        if call_id in result:
            continue
        digest = hashlib.sha256(call_id.encode("utf-8", "surrogatepass")).hexdigest()
        for length in range(8, len(digest) + 1):
            candidate = next(
                (made for made in _candidates(call_id, digest, length, rule) if made not in taken),
                None,
            )
            if candidate is not None:
                break
        else:  # pragma: no cover - needs a SHA-256 collision of every prefix length
            raise AssertionError(f"no free ID for {call_id!r}")
        taken.add(candidate)
        result[call_id] = candidate
    return result


def _candidates(call_id: str, digest: str, length: int, rule: IdRule) -> Iterator[str]:
    """New IDs for `call_id` that fit `rule`, from its characters cut short and `length` hex
    digits of its hash: `<characters>_<hash>` where `_` is allowed, else letters and digits
    alone (padded with more of the hash up to the rule's least length; past a short rule's
    length, windows of the hash)."""
    base = call_id if rule.pattern.fullmatch(call_id) else _NOT_WORD.sub("_", call_id)
    suffix = "_" + digest[:length]
    joined = base[: max(0, rule.max_length - len(suffix))] + suffix
    if rule.problem(joined) is None:
        yield joined
    if length > rule.max_length:  # a short rule (Mistral's nine): another window of the hash
        plain = digest[length - rule.max_length : length]
    else:
        plain = _NOT_ALNUM.sub("", call_id)[: rule.max_length - length] + digest[:length]
    if len(plain) < rule.min_length:
        plain = (plain + digest[length:])[: rule.min_length]
    if rule.problem(plain) is None:
        yield plain
