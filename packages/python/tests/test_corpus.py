"""Every fixture of the shipped corpus gives exactly its reviewed expected document through the
package: line by line (with each line's recorded direction and number), line by line as plain
text, folded from the updates, and in one call; with the dialect named, and detected (Kilo's with
its provider named, see `Fixture.hint`)."""

import pytest
import toolnorm

from conftest import corpus, fold, same_json

FIXTURES = corpus()
# The streams with no line from a proxied client: their text (every line from the agent) is the
# whole stream.
ONE_WAY = [fx for fx in FIXTURES if all(l.direction == "agent" for l in fx.lines)]
assert len(ONE_WAY) > len(FIXTURES) / 2


@pytest.fixture(params=FIXTURES, ids=[fx.name for fx in FIXTURES])
def fx(request):
    return request.param


def test_line_by_line_with_directions(fx):
    expected = fx.expected()
    n = toolnorm.Normalizer(fx.provider, fx.dialect, cwd=fx.cwd)
    updates = []
    for line in fx.lines:
        updates += n.push(line.data, direction=line.direction, number=line.number, terminated=line.terminated)
    assert n.lines == fx.lines[-1].number
    updates += n.end()
    doc = n.finish()
    same_json(doc, expected)
    # The updates the engine saw fold into the same document; the dialect comes first, and every
    # event is handed out once.
    same_json(fold(updates, expected["schemaVersion"]), expected)
    assert updates[0] == {"type": "dialect", "provider": fx.provider, "dialect": fx.dialect}
    assert sum(u["type"] == "part" for u in updates) == len(expected["events"])


def test_line_by_line_with_the_dialect_detected(fx):
    n = toolnorm.Normalizer(fx.hint, cwd=fx.cwd)
    for line in fx.lines:
        n.push(line.data, direction=line.direction, terminated=line.terminated)
    same_json(n.finish(), fx.expected())
    assert (n.provider, n.dialect) == (fx.provider, fx.dialect)


@pytest.mark.parametrize("fx", ONE_WAY, ids=[fx.name for fx in ONE_WAY])
def test_line_by_line_as_text(fx):
    n = toolnorm.Normalizer(fx.hint, cwd=fx.cwd)
    for line in fx.lines:
        n.push_line(line.data.decode("utf-8") + ("\n" if line.terminated else ""))
    same_json(n.finish(), fx.expected())


def test_in_one_call(fx):
    expected = fx.expected()
    lines = [(l.direction, l.data) for l in fx.lines]
    cut = not fx.lines[-1].terminated
    same_json(toolnorm.normalize(lines, fx.provider, fx.dialect, cwd=fx.cwd, unterminated=cut), expected)
    same_json(toolnorm.normalize(lines, fx.hint, cwd=fx.cwd, unterminated=cut), expected)


@pytest.mark.parametrize("fx", ONE_WAY, ids=[fx.name for fx in ONE_WAY])
def test_in_one_call_as_text(fx):
    expected = fx.expected()
    same_json(toolnorm.normalize(fx.text, fx.provider, fx.dialect, cwd=fx.cwd), expected)
    same_json(toolnorm.normalize(fx.text.decode("utf-8"), fx.hint, cwd=fx.cwd), expected)
