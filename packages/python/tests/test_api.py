"""The package's API around the streams: arguments, errors, the end of a stream, bad input."""

import json
import random

import pytest
import toolnorm

from conftest import fixture, same_json

CODEX_STARTED = json.dumps(
    {
        "type": "item.started",
        "item": {"id": "i1", "type": "command_execution", "command": "ls", "aggregated_output": "",
                 "exit_code": None, "status": "in_progress"},
    }
)
CODEX_DONE = json.dumps(
    {
        "type": "item.completed",
        "item": {"id": "i1", "type": "command_execution", "command": "ls", "aggregated_output": "a\n",
                 "exit_code": 0, "status": "completed"},
    }
)
ACP_UPDATE = json.dumps(
    {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": "s", "update": {"sessionUpdate": "agent_message_chunk",
                                                "content": {"type": "text", "text": "hi"}}},
    }
)


def test_a_line_s_updates_are_plain_dicts():
    n = toolnorm.Normalizer(dialect="exec")
    assert (n.provider, n.dialect, n.lines) == ("codex", "exec", 0)
    updates = n.push_line(CODEX_STARTED)
    assert [u["type"] for u in updates] == ["dialect", "part"]
    part = updates[1]
    assert type(part) is dict and part["created"] is True
    assert part["event"] == {"line": 1, "partId": "i1", "state": "running"}
    assert part["part"]["title"] == "Running ls"
    assert n.parts == [part["part"]]
    done = n.push_line(CODEX_DONE.encode() + b"\r\n")  # bytes, CRLF
    assert [(u["type"], u["created"], u["part"]["state"]) for u in done] == [("part", False, "complete")]
    assert n.lines == 2
    doc = n.finish()
    assert doc["events"] == [part["event"], done[0]["event"]]
    assert doc["parts"] == [done[0]["part"]]
    assert "lines, ended" in repr(n)


def test_detection_holds_only_what_several_dialects_accept():
    n = toolnorm.Normalizer()
    # Not a line of any dialect: held; then one only Codex's `exec --json` has: decided at once.
    assert n.push_line('{"model": "m"}') == []
    assert "detecting" in repr(n) and n.dialect is None
    assert [u["type"] for u in n.push_line(CODEX_STARTED)] == ["dialect", "diagnostic", "part"]
    assert (n.provider, n.dialect) == ("codex", "exec")


def test_end_hands_out_what_only_the_end_decides_then_finish_gives_the_document():
    n = toolnorm.Normalizer()
    # An ACP notification is also a JSON-RPC method with a `/` (Codex app-server): held.
    assert n.push_line(ACP_UPDATE) == []
    last = n.end()
    assert last == [{"type": "dialect", "provider": "acp", "dialect": "acp"}]
    assert n.dialect == "acp"
    with pytest.raises(ValueError, match="the stream has ended"):
        n.push_line(ACP_UPDATE)
    with pytest.raises(ValueError, match="the stream has ended"):
        n.parts
    with pytest.raises(ValueError, match="the stream has ended"):
        n.end()
    doc = n.finish()
    assert (doc["provider"], doc["dialect"], doc["parts"], doc["events"]) == ("acp", "acp", [], [])
    with pytest.raises(ValueError, match="already"):
        n.finish()


def test_without_a_document_nothing_is_kept_for_finish():
    n = toolnorm.Normalizer(dialect="exec", document=False)
    assert len(n.push_line(CODEX_STARTED)) == 2
    with pytest.raises(ValueError, match="document=False"):
        n.finish()
    assert n.end() == []


def test_objects_keep_their_keys_in_the_agent_s_order():
    line = json.dumps({
        "type": "assistant", "session_id": "s",
        "message": {"content": [{"type": "tool_use", "id": "t1", "name": "Write",
                                 "input": {"file_path": "/w/a.py", "content": "x", "b": 1, "a": 2}}]},
    })
    updates = toolnorm.Normalizer(dialect="stream-json").push_line(line)
    assert list(updates[1]["part"]["input"]) == ["file_path", "content", "b", "a"]


def test_push_takes_a_direction_a_number_and_a_cut_short_last_line():
    n = toolnorm.Normalizer(dialect="exec")
    updates = n.push(CODEX_STARTED, number=7)
    assert updates[1]["event"]["line"] == 7
    assert n.lines == 7
    assert n.push_line(CODEX_DONE)[0]["event"]["line"] == 8  # numbered on from it
    cut = n.push('{"type":"item.completed","item":{"id"', terminated=False)
    assert [u["diagnostic"]["line"] for u in cut] == [9]
    assert "truncated" in cut[0]["diagnostic"]["message"]
    for bad, error, match in [
        ({"direction": "server"}, ValueError, "direction"),
        ({"number": 0}, ValueError, "start at 1"),
        ({"number": -1}, OverflowError, "number"),
    ]:
        with pytest.raises(error, match=match):
            n.push("{}", **bad)


def test_bad_lines_are_diagnostics_and_the_stream_goes_on():
    n = toolnorm.Normalizer(dialect="exec")
    updates = []
    for line in ["not json", "[1, 2]", b"\xff\xfe not utf-8", '{"type": 5}', "", "   ", CODEX_STARTED]:
        updates += n.push_line(line)
    diagnostics = [u["diagnostic"] for u in updates if u["type"] == "diagnostic"]
    assert [d["line"] for d in diagnostics] == [1, 2, 3, 3, 4]  # line 3: not UTF-8, and not JSON
    assert all(d["level"] in ("info", "warning", "error") and d["message"] for d in diagnostics)
    assert updates[-1]["type"] == "part"
    doc = n.finish()
    assert doc["diagnostics"] == diagnostics and len(doc["parts"]) == 1


def test_a_flood_of_bad_lines_is_summed_up():
    doc = toolnorm.normalize("not json\n" * 10_000, dialect="exec")
    assert len(doc["diagnostics"]) == 11
    assert doc["diagnostics"][-1]["message"].startswith("… and 9,990 more lines like this: not JSON")


def test_streams_that_cannot_be_normalized_raise_normalize_error_with_the_reason():
    for stream, reason in [("", "empty input"), ("\n \n", "only blank lines"), ("[1]\n" * 3, "could not detect")]:
        with pytest.raises(toolnorm.NormalizeError, match=reason):
            toolnorm.normalize(stream)
    n = toolnorm.Normalizer()
    for i in range(63):
        assert n.push_line(f"[{i}]") == []
    with pytest.raises(toolnorm.NormalizeError, match="could not detect the dialect") as first:
        n.push_line("[63]")
    with pytest.raises(toolnorm.NormalizeError) as again:
        n.push_line(CODEX_STARTED)
    assert str(again.value) == str(first.value)
    assert isinstance(first.value, ValueError)
    with pytest.raises(toolnorm.NormalizeError, match="empty input"):
        toolnorm.Normalizer().finish()
    with pytest.raises(ValueError, match="unknown dialect `stream-json` .expected one of: app-server"):
        toolnorm.Normalizer("codex", "stream-json")


def test_bad_arguments_say_what_is_wrong():
    with pytest.raises(ValueError, match="nope-agent"):
        toolnorm.Normalizer("nope-agent")
    with pytest.raises(ValueError, match="nope"):
        toolnorm.normalize("{}", dialect="nope")
    with pytest.raises(TypeError, match="str or bytes"):
        toolnorm.Normalizer().push_line(42)
    with pytest.raises(TypeError, match="iterable of lines"):
        toolnorm.normalize(42)
    with pytest.raises(ValueError, match="direction"):
        toolnorm.normalize([("server", "{}")])
    with pytest.raises(ValueError, match=r"\(direction, line\)"):
        toolnorm.normalize([("agent", "{}", True)])
    with pytest.raises(ValueError, match="unterminated"):
        toolnorm.normalize("{}", unterminated=True)


def test_a_stream_given_as_lines_is_the_stream_given_as_text():
    fx = fixture("codex/live-codex-exec-shell")
    text = fx.text.decode()
    by_text = toolnorm.normalize(text)
    same_json(toolnorm.normalize(text.splitlines()), by_text)
    same_json(toolnorm.normalize(iter(text.splitlines(keepends=True))), by_text)
    same_json(toolnorm.normalize([("agent", l.encode()) for l in text.splitlines()]), by_text)


def test_mangled_corpus_lines_never_crash_the_normalizer():
    """Lines of real streams cut, spliced and bit-flipped: every dialect gives updates and
    diagnostics, never an exception other than NormalizeError (a Rust panic would surface as
    pyo3's PanicException, a BaseException)."""
    rng = random.Random(26)
    streams = [fixture(n) for n in [
        "claude/live-claude-2.1.197-bash", "codex/live-codex-app-shell", "codex/live-codex-exec-patch",
        "opencode/live-opencode-serve-bash", "opencode/live-opencode-run-files", "acp/live-codex-acp-shell",
    ]]
    diagnostics = 0
    for fx in streams:
        for _ in range(20):
            n = toolnorm.Normalizer(fx.provider, fx.dialect)
            for line in fx.lines:
                data = bytearray(line.data)
                roll = rng.random()
                if roll < 0.2 and data:
                    del data[rng.randrange(len(data)):]
                elif roll < 0.4 and data:
                    data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
                elif roll < 0.5:
                    data += rng.choice(fx.lines).data
                for u in n.push(bytes(data), direction=line.direction):
                    assert u["type"] in ("dialect", "part", "revised", "diagnostic")
            doc = n.finish()
            assert doc["dialect"] == fx.dialect
            diagnostics += len(doc["diagnostics"])
    assert diagnostics > 100, "the mangled lines were read as good ones"
