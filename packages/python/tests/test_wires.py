"""The UI wires from Python (`to_ai_sdk`, `to_ag_ui`, `WireEmitter`: docs/ui-wires.md) over the
whole shipped corpus: every AG-UI event, whole-stream and live, parses with the official Python
models (`ag-ui-protocol`); the AI SDK chunks open one tool part per part, with its id, name and
title, and end in the part's mapped state; the SSE text is the frames, framed; a stream and its
document give the same frames. (The frames themselves are the Rust core's: the JavaScript
consumers judge the command line's over the corpus in tests/cli/consumers.rs.)"""

import json
import os

import pytest
import toolnorm
from ag_ui.core import Event
from pydantic import TypeAdapter

from conftest import ROOT, Fixture, fixture

EVENT = TypeAdapter(Event)
DENIED = {"declined", "permission_denied"}


def stream_of(fx: Fixture):
    """The fixture's stream as `normalize` takes it, and the keywords it needs."""
    kw = {"cwd": fx.cwd}
    if any(l.direction == "client" for l in fx.lines):
        last_cut = bool(fx.lines) and not fx.lines[-1].terminated
        return [(l.direction, l.data) for l in fx.lines], fx.hint, {**kw, "unterminated": last_cut}
    return fx.text, fx.hint, kw


def ai_sdk_state(part: dict) -> str:
    """The tool part state `readUIMessageStream` gives a part (docs/ui-wires.md)."""
    state = part["state"]
    if state == "started":
        return "input-streaming"
    if state == "running":
        if "output" in part:
            return "output-available"
        if (part.get("metadata") or {}).get("approvalRequested") is True:
            return "approval-requested"
        return "input-available"
    if state == "complete":
        return "output-available"
    return "output-denied" if (part.get("error") or {}).get("code") in DENIED else "output-error"


# The state each tool chunk leaves its part in.
CHUNK_STATE = {
    "tool-input-start": "input-streaming",
    "tool-input-delta": "input-streaming",
    "tool-input-available": "input-available",
    "tool-input-error": "output-error",
    "tool-approval-request": "approval-requested",
    "tool-output-available": "output-available",
    "tool-output-error": "output-error",
    "tool-output-denied": "output-denied",
}


def rebuilt(chunks: list[dict]) -> dict[str, dict]:
    """Each tool call's name, title and last state, in the order the calls opened."""
    calls: dict[str, dict] = {}
    for c in chunks:
        kind = c["type"]
        if kind not in CHUNK_STATE:
            assert kind in ("start", "finish"), c
            continue
        call = calls.setdefault(c["toolCallId"], {})
        assert call or kind == "tool-input-start", f"{kind} before the call's tool-input-start"
        for key in ("toolName", "title"):
            if key in c:
                call[key] = c[key]
        call["state"] = CHUNK_STATE[kind]
    return calls


def sse_frames(text: str, done: bool) -> list[dict]:
    events = text.split("\n\n")
    assert events.pop() == "", "the text ends with a blank line"
    if done:
        assert events.pop() == "data: [DONE]"
    for e in events:
        assert e.startswith("data: ") and "\n" not in e, e
    return [json.loads(e.removeprefix("data: ")) for e in events]


def test_every_fixture_s_events_parse_with_ag_ui_protocol_whole_and_live(all_fixtures):
    live = 0
    for fx in all_fixtures:
        stream, provider, kw = stream_of(fx)
        events = toolnorm.to_ag_ui(stream, provider, **kw)
        assert events[0]["type"] == "RUN_STARTED" and events[-1]["type"] == "RUN_FINISHED", fx.name
        for i, e in enumerate(events):
            try:
                EVENT.validate_python(e)
            except Exception as err:
                pytest.fail(f"{fx.name}: event #{i} ({e.get('type')}): {err}")
        if isinstance(stream, list):
            continue
        live += 1
        emitter = toolnorm.WireEmitter("ag-ui", provider, cwd=fx.cwd)
        frames = [f for l in fx.lines for f in emitter.push_line(l.data)] + emitter.end()
        for i, e in enumerate(frames):
            try:
                EVENT.validate_python(e)
            except Exception as err:
                pytest.fail(f"{fx.name} (WireEmitter): event #{i} ({e.get('type')}): {err}")
        starts = [e["toolCallId"] for e in frames if e["type"] == "TOOL_CALL_START"]
        assert starts == [p["id"] for p in fx.expected()["parts"]], fx.name
    assert live > len(all_fixtures) // 2


def test_every_fixture_s_chunks_open_one_tool_part_per_part_in_its_mapped_state(all_fixtures):
    for fx in all_fixtures:
        stream, provider, kw = stream_of(fx)
        doc = toolnorm.normalize(stream, provider, **kw)
        chunks = toolnorm.to_ai_sdk(stream, provider, **kw)
        assert chunks == toolnorm.to_ai_sdk(doc), f"{fx.name}: the stream and its document differ"
        calls = rebuilt(chunks)
        assert list(calls) == [p["id"] for p in doc["parts"]], fx.name
        for p in doc["parts"]:
            want = {"toolName": p["name"], "title": p["title"], "state": ai_sdk_state(p)}
            assert calls[p["id"]] == want, f"{fx.name}: {p['id']}"


def test_the_sse_text_is_the_frames_framed_as_each_wire_frames_them(all_fixtures):
    for fx in all_fixtures[:40]:
        stream, provider, kw = stream_of(fx)
        for fn, done in ((toolnorm.to_ai_sdk, True), (toolnorm.to_ag_ui, False)):
            assert sse_frames(fn(stream, provider, sse=True, **kw), done) == fn(stream, provider, **kw), fx.name
        if isinstance(stream, list):
            continue
        emitter = toolnorm.WireEmitter("ai-sdk", provider, cwd=fx.cwd, sse=True)
        text = "".join(emitter.push_line(l.data) for l in fx.lines) + emitter.end()
        objects = toolnorm.WireEmitter("ai-sdk", provider, cwd=fx.cwd)
        frames = [f for l in fx.lines for f in objects.push_line(l.data)] + objects.end()
        assert sse_frames(text, True) == frames, fx.name


def test_bad_arguments_raise_clear_errors():
    with pytest.raises(ValueError, match='no wire "acp"'):
        toolnorm.WireEmitter("acp")
    with pytest.raises(ValueError, match="not a normalized document"):
        toolnorm.to_ai_sdk({"parts": 1})
    with pytest.raises(toolnorm.NormalizeError):
        toolnorm.to_ag_ui("")
    emitter = toolnorm.WireEmitter("ai-sdk")
    with pytest.raises(toolnorm.NormalizeError):
        emitter.end()
    with pytest.raises(ValueError, match="ended"):
        emitter.push_line("{}")
    assert emitter.end() == [], "later ends give nothing"


def test_the_docs_python_snippet_serves_a_replayed_agent(tmp_path, monkeypatch):
    """docs/ui-wires-examples.md's `ag_ui_body`, run as written, with a `claude` on PATH that
    replays a recorded session."""
    doc = (ROOT / "docs" / "ui-wires-examples.md").read_text(encoding="utf-8")
    blocks = [b.split("\n```", 1)[0] for b in doc.split("```python\n")[1:]]
    assert len(blocks) == 1, "one python block"
    fx = fixture("claude/live-claude-bash")
    (tmp_path / "session.jsonl").write_bytes(fx.text)
    claude = tmp_path / "claude"
    claude.write_text(f"#!/bin/sh\nexec cat '{tmp_path / 'session.jsonl'}'\n")
    claude.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    namespace: dict = {}
    exec(compile(blocks[0], "docs/ui-wires-examples.md", "exec"), namespace)
    body = "".join(namespace["ag_ui_body"]("Run the checks"))
    events = sse_frames(body, done=False)
    for e in events:
        EVENT.validate_python(e)
    assert [e["toolCallId"] for e in events if e["type"] == "TOOL_CALL_START"] == [
        p["id"] for p in fx.expected()["parts"]
    ]
    assert events[-1]["type"] == "RUN_FINISHED"
