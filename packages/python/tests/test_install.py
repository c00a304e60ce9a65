"""The wheel as a user gets it: a scratch virtualenv installs it offline and normalizes a fixture
in five lines, and the Python snippet of the guide's docs/embedding.md runs as it is printed."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, fixture, same_json

FIVE_LINES = """\
import json, sys, toolnorm
n = toolnorm.Normalizer()
for line in sys.stdin.buffer:
    n.push_line(line)
print(json.dumps(n.finish()))
"""


@pytest.fixture(scope="module")
def scratch(wheel, tmp_path_factory) -> Path:
    """A fresh virtualenv with the wheel installed from the file alone (no package index)."""
    venv = tmp_path_factory.mktemp("scratch") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    env = {**os.environ, "PIP_CONFIG_FILE": os.devnull}
    run = subprocess.run(
        [str(python), "-m", "pip", "install", "--no-index", "--disable-pip-version-check", str(wheel)],
        capture_output=True, text=True, env=env,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return python


def run_in(python: Path, code: str, stdin: bytes) -> str:
    run = subprocess.run([str(python), "-c", code], input=stdin, capture_output=True, cwd=python.parent)
    assert run.returncode == 0, run.stderr.decode()
    return run.stdout.decode()


def test_a_scratch_virtualenv_installs_the_wheel_offline_and_normalizes_a_fixture_in_five_lines(scratch):
    assert len(FIVE_LINES.splitlines()) == 5
    where = run_in(scratch, "import toolnorm; print(toolnorm.__file__)", b"")
    assert where.startswith(str(scratch.parent.parent)), where
    for name in ["claude/live-claude-bash", "codex/live-codex-exec-shell", "opencode/live-opencode-run-bash"]:
        fx = fixture(name)
        same_json(json.loads(run_in(scratch, FIVE_LINES, fx.text)), fx.expected())


def embedding_python_snippet() -> str:
    page = (ROOT / "docs" / "embedding.md").read_text(encoding="utf-8")
    section = re.search(r"^## Python\n(.*?)(?=^## )", page, re.S | re.M)
    assert section, "docs/embedding.md has no '## Python' section"
    blocks = re.findall(r"^```python\n(.*?)^```", section.group(1), re.S | re.M)
    assert len(blocks) == 1, f"docs/embedding.md's Python section has {len(blocks)} python blocks, not one"
    return blocks[0]


def test_the_guides_python_snippet_runs_on_an_agent_stream(scratch):
    fx = fixture("claude/live-claude-2.1.197-coding")
    expected = fx.expected()
    out = run_in(scratch, embedding_python_snippet(), fx.text).splitlines()
    # One line per part update (id, state, title as that line left it), then the count.
    assert out[-1] == f"{len(expected['parts'])} tool calls"
    assert [l.split(" ", 2)[:2] for l in out[:-1]] == [[e["partId"], e["state"]] for e in expected["events"]]
    titles = {p["id"]: p["title"] for p in expected["parts"]}
    last = {}
    for l in out[:-1]:
        part_id, _, title = l.split(" ", 2)
        last[part_id] = title
    assert last == titles
