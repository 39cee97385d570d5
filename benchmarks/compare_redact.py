"""`message-ir redact` against detect-secrets, the generic scanner people use: what each finds.

Run it with `python benchmarks/compare_redact.py` (the `bench` nox session installs
detect-secrets, a benchmark dependency only). Two measures, on the same inputs:

- recall: the fake secrets of every family the tests use (`tests/test_redact.py`), each in a
  JSON Lines line of its own as a log would hold it: how many lines each tool flags;
- false positives: every JSON and JSON Lines file of `../shared/real` (real transcripts and
  logs, none holding a real secret by their provenance, only a few real e-mail addresses):
  how many lines each tool flags there, and of which kinds.

It prints counts; docs/redact.md quotes a run.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

from detect_secrets.core.secrets_collection import SecretsCollection
from detect_secrets.settings import default_settings

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.test_redact import FAKE, NOT_SECRETS  # noqa: E402

from message_ir.redact import redact_file_bytes  # noqa: E402

REAL = ROOT.parent / "shared" / "real"


def ours(path: Path) -> tuple[set[int], Counter[str]]:
    """The 0-based lines our rules redact something in, and the rules."""
    lines = path.suffix == ".jsonl"
    redacted = redact_file_bytes(path.read_bytes(), json_lines=lines)
    flagged = {int(item.path[2:].split("]")[0]) if lines else 0 for item in redacted.redactions}
    return flagged, Counter(item.rule for item in redacted.redactions)


def theirs(path: Path) -> tuple[set[int], Counter[str]]:
    """The 0-based lines detect-secrets flags, and the kinds (a JSON file counts as one line)."""
    secrets = SecretsCollection()
    with default_settings():
        secrets.scan_file(str(path))
    flagged: set[int] = set()
    kinds: Counter[str] = Counter()
    for _, secret in secrets:
        flagged.add((secret.line_number - 1) if path.suffix == ".jsonl" else 0)
        kinds[secret.type] += 1
    return flagged, kinds


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        corpus = Path(folder) / "corpus.jsonl"
        corpus.write_text("".join(json.dumps({"content": f"here: {secret} (end)"}) + "\n" for secret in FAKE.values()))
        clean = Path(folder) / "clean.jsonl"
        clean.write_text("".join(json.dumps({"content": text}) + "\n" for text in NOT_SECRETS))
        for name, scan in (("message-ir redact", ours), ("detect-secrets", theirs)):
            found, _ = scan(corpus)
            missed = [family for number, family in enumerate(FAKE) if number not in found]
            wrong, _ = scan(clean)
            print(f"{name}: recall {len(found)}/{len(FAKE)} families (missed: {', '.join(missed) or 'none'});")
            print(f"  flags {len(wrong)}/{len(NOT_SECRETS)} of the tests' look-alikes (IDs, hashes, a data URL)")
    files = sorted(path for path in REAL.rglob("*") if path.suffix in (".json", ".jsonl"))
    for name, scan in (("message-ir redact", ours), ("detect-secrets", theirs)):
        lines = 0
        kinds: Counter[str] = Counter()
        for path in files:
            found, found_kinds = scan(path)
            lines += len(found)
            kinds.update(found_kinds)
        print(f"{name} on {len(files)} real files: {lines} lines flagged; {dict(kinds.most_common())}")


if __name__ == "__main__":
    main()
