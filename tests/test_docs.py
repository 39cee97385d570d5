"""Every example in the README and the docs runs as written: each Python block, and each
`console` session (its commands are run and must print the lines shown). The `sh` blocks are
the install and test commands themselves, which CI runs. The API reference names every
public name."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.api_reference import expected_rows, written_rows
from tests.dataset_factory import write_dataset

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
_PYTHON = re.compile(r"```python\n(.*?)```", re.DOTALL)


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


@pytest.mark.parametrize("page", pages(), ids=[page.name for page in pages()])
def test_the_pages_examples_run(page: Path) -> None:
    """A page's Python examples run in order, in one namespace, as a reader would run them."""
    namespace: dict[str, object] = {}
    for number, match in enumerate(_PYTHON.finditer(page.read_text())):
        exec(compile(match.group(1), f"{page.name}#{number}", "exec"), namespace)  # the docs' own examples


def test_the_api_reference_says_what_each_public_name_says_of_itself() -> None:
    """Each row of docs/api.md's index is the first paragraph of the name's own docstring, and
    the index has a row for every public name and none for anything else."""
    assert written_rows((DOCS / "api.md").read_text()) == expected_rows()


def test_the_api_reference_names_every_public_name() -> None:
    import message_ir
    import message_ir.adapters
    import message_ir.datasets

    reference = (DOCS / "api.md").read_text()
    for module in (message_ir, message_ir.adapters, message_ir.datasets):
        for name in module.__all__:
            assert f"`{name}`" in reference, f"docs/api.md does not name {module.__name__}.{name}"


def test_every_page_the_readme_links_exists() -> None:
    readme = (ROOT / "README.md").read_text()
    for target in re.findall(r"\]\(([^)#]+)\)", readme):
        assert (ROOT / target).exists(), target


_CONSOLE = re.compile(r"```console\n(.*?)```", re.DOTALL)


def _session_from_real_files(folder: Path) -> bool:
    """The session file docs/formats.md uses: a real tau-bench transcript whose first tool
    result was deleted. False where `../shared/real` is absent."""
    real = ROOT.parent / "shared" / "real" / "openai-chat" / "tau-bench_gpt-4o-airline_rec006.json"
    if not real.exists():
        return False
    messages = json.loads(real.read_bytes())["traj"]
    del messages[5]
    (folder / "session.json").write_text(json.dumps(messages))
    # and a real Claude Code log whose first tool-result line (line 11, index 10) was deleted
    log = ROOT.parent / "shared" / "real" / "anthropic" / "spotter_claude-code_tool_heavy.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    lost = json.loads(lines.pop(10))  # the result never written: the next line hangs from its parent
    lines[10] = lines[10].replace(lost["uuid"].encode(), lost["parentUuid"].encode())
    (folder / "SESSION.jsonl").write_bytes(b"".join(lines))
    return True


@pytest.mark.parametrize("page", ["api.md", "formats.md", "datasets.md", "redact.md"])
def test_the_pages_console_sessions_print_what_they_show(page: str, tmp_path: Path) -> None:
    """Each `$ command` of a console block, run in order in one folder, prints the lines below it."""
    if page == "formats.md" and not _session_from_real_files(tmp_path):
        pytest.skip("the real transcripts are not here (../shared/real is absent)")
    if page == "datasets.md":  # the generated dataset the page checks
        write_dataset(tmp_path / "train.jsonl", 200, seed=1, valid_share=0.9)
    if page == "redact.md":  # a Claude Code session whose agent ran a command with a (made-up) token
        token = "ghp_" + "FakeTokenForTheDocs0123456789abcdefgh"
        call = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": f"gh auth login {token}"}}
        lines = [
            {"type": "user", "uuid": "u1", "sessionId": "s", "message": {"role": "user", "content": "log in"}},
            {"type": "assistant", "uuid": "a1", "message": {"id": "m1", "role": "assistant", "content": [call]}},
        ]
        (tmp_path / "session.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    environment = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    for block in _CONSOLE.findall((DOCS / page).read_text()):
        command: str | None = None
        expected: list[str] = []
        for line in [*block.splitlines(), "$ "]:
            if not line.startswith("$ "):
                expected.append(line)
                continue
            if command is not None:
                done = subprocess.run(
                    ["bash", "-c", command], cwd=tmp_path, env=environment, capture_output=True, text=True, check=False
                )
                assert (done.stdout + done.stderr).splitlines() == expected, command
            command, expected = line[2:], []
