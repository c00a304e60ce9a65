"""The package answers a live stream as it comes: with the dialect detected from the lines, the
first part update comes with the push of the first tool line, and every part update with the
push of its own line."""

import pytest
import toolnorm

from conftest import corpus, fixture

FIXTURES = corpus()


@pytest.mark.parametrize(
    "name",
    ["claude/live-claude-bash", "codex/live-codex-exec-shell", "opencode/live-opencode-run-bash"],
)
def test_a_live_stream_gets_its_first_part_update_right_after_its_first_tool_line(name):
    fx = fixture(name)
    first = fx.expected()["events"][0]
    n = toolnorm.Normalizer()  # no provider, no dialect: detected from the lines
    seen = []
    for line in fx.lines:
        updates = n.push_line(line.data)
        seen += updates
        if line.number < first["line"]:
            assert not any(u["type"] == "part" for u in updates), f"a part before line {first['line']}"
        elif line.number == first["line"]:
            break
    assert seen[0] == {"type": "dialect", "provider": fx.provider, "dialect": fx.dialect}
    parts = [u for u in seen if u["type"] == "part"]
    assert parts, f"no part update after line {first['line']}, the first tool line: {seen}"
    assert parts[0]["created"] is True
    assert parts[0]["event"] == first
    assert parts[0]["part"]["id"] == first["partId"]


@pytest.mark.parametrize("fx", FIXTURES, ids=[fx.name for fx in FIXTURES])
def test_every_part_update_comes_with_the_push_of_its_own_line(fx):
    n = toolnorm.Normalizer(cwd=fx.cwd)
    for line in fx.lines:
        for u in n.push(line.data, direction=line.direction, terminated=line.terminated):
            if u["type"] == "part":
                assert u["event"]["line"] == line.number, u
