//! OpenCode normalization: snapshots of every real sample in `../shared/fixtures/opencode`, the
//! invariants every sample must keep (no lost or duplicated call, no failed call shown complete,
//! the tool counts `fixtures/SOURCES.md` lists), hand-written streams for the edge cases of
//! `formats/opencode.md`, and a property test over prefixes of the real samples.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use proptest::prelude::*;
use serde_json::{Value, json};
use toolnorm::model::{DiagnosticLevel, ToolKind, ToolState};
use toolnorm::{Dialect, Input, NormalizeOptions, NormalizedDocument, Provider, normalize};

fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/opencode")
}

/// The sample's bytes, or `None` (with the reason on stderr) when the shared fixtures are absent.
fn sample(name: &str) -> Option<Vec<u8>> {
    let path = fixtures_dir().join(name);
    match std::fs::read(&path) {
        Ok(b) => Some(b),
        Err(e) => {
            eprintln!("skipping {name}: {} unreadable ({e})", path.display());
            None
        }
    }
}

fn run(bytes: &[u8]) -> NormalizedDocument {
    normalize(&Input::from_bytes(bytes), NormalizeOptions::default()).expect("dialect detected")
}

fn run_as(bytes: &[u8], dialect: Dialect) -> NormalizedDocument {
    let opts = NormalizeOptions {
        provider: Some(Provider::Opencode),
        dialect: Some(dialect),
        cwd: None,
    };
    normalize(&Input::from_bytes(bytes), opts).expect("dialect accepted")
}

/// Every tool part snapshot in a raw sample, whatever its envelope.
fn raw_tool_parts(bytes: &[u8]) -> Vec<Value> {
    fn walk(v: &Value, out: &mut Vec<Value>) {
        match v {
            Value::Object(o) => {
                if o.get("type").and_then(Value::as_str) == Some("tool") && o.contains_key("tool") {
                    out.push(v.clone());
                    return;
                }
                o.values().for_each(|x| walk(x, out));
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for line in String::from_utf8_lossy(bytes).lines() {
        let json = line.trim().strip_prefix("data:").map_or(line, str::trim);
        if let Ok(v) = serde_json::from_str::<Value>(json) {
            walk(&v, &mut out);
        }
    }
    out
}

/// The tool id of a part as OpenCode names it (`amalgm_browser_navigate`, `bash`).
fn raw_tool_name(p: &toolnorm::NormalizedToolPart) -> String {
    match p.metadata.as_ref().and_then(|m| m.mcp.as_ref()) {
        Some(m) => format!("{}_{}", m.server, m.tool),
        None => p.name.clone(),
    }
}

/// Invariants every sample keeps, and the per-tool counts (errors in brackets) from SOURCES.md.
fn check(name: &str, doc: &NormalizedDocument, bytes: &[u8], expected: &[(&str, usize, usize)]) {
    let raw = raw_tool_parts(bytes);
    let raw_ids: BTreeSet<String> = raw
        .iter()
        .map(|p| {
            p.get("callID")
                .or(p.get("id"))
                .and_then(Value::as_str)
                .unwrap()
                .to_owned()
        })
        .collect();
    let ids: Vec<&str> = doc.parts.iter().map(|p| p.id.as_str()).collect();
    let unique: BTreeSet<String> = ids.iter().map(|s| (*s).to_owned()).collect();
    assert_eq!(unique.len(), ids.len(), "{name}: a call appears twice");
    assert_eq!(unique, raw_ids, "{name}: calls lost or invented");

    for p in &raw {
        let id = p.get("callID").and_then(Value::as_str).unwrap();
        let state = &p["state"];
        let status = state["status"].as_str().unwrap_or("");
        let exit = state["metadata"]["exit"].as_i64().unwrap_or(0);
        let failed =
            status == "error" || (p["tool"] == "bash" && status == "completed" && exit != 0);
        let part = doc.parts.iter().find(|x| x.id == id).unwrap();
        if failed {
            assert_eq!(
                part.state,
                ToolState::Error,
                "{name}: failed call {id} is not an error"
            );
        }
        if status == "completed" && !failed {
            assert_eq!(part.state, ToolState::Complete, "{name}: {id}");
        }
    }

    common::assert_part_invariants(name, doc);

    let mut counts: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for p in &doc.parts {
        let e = counts.entry(raw_tool_name(p)).or_default();
        e.0 += 1;
        if p.state == ToolState::Error {
            e.1 += 1;
        }
    }
    let want: BTreeMap<String, (usize, usize)> = expected
        .iter()
        .map(|(t, n, e)| ((*t).to_owned(), (*n, *e)))
        .collect();
    assert_eq!(counts, want, "{name}: tool counts differ from SOURCES.md");
    assert!(
        doc.diagnostics
            .iter()
            .all(|d| d.level != DiagnosticLevel::Warning && d.level != DiagnosticLevel::Error),
        "{name}: {:?}",
        doc.diagnostics
    );
}

/// `(file, dialect, [(tool, count, errors)])` as SOURCES.md lists them.
type Row = (
    &'static str,
    &'static str,
    &'static [(&'static str, usize, usize)],
);

const SAMPLES: &[Row] = &[
    (
        "anomalyco_opencode_issue_47972.run-format-json-error.jsonl",
        "run",
        &[],
    ),
    (
        "live-opencode-1.18.33-run-mcp-task.jsonl",
        "run",
        &[
            ("amalgm_artifacts_register", 2, 1),
            ("amalgm_browser_navigate", 1, 0),
            ("amalgm_browser_snapshot", 1, 0),
            ("amalgm_browser_tabs_new", 1, 0),
            ("task", 1, 0),
        ],
    ),
    (
        "live-opencode-1.18.33-run-tools.jsonl",
        "run",
        &[
            ("bash", 2, 1),
            ("edit", 1, 0),
            ("glob", 1, 0),
            ("grep", 1, 0),
            ("invalid", 1, 0),
            ("read", 2, 0),
            ("todowrite", 3, 0),
            ("webfetch", 1, 0),
            ("write", 1, 0),
        ],
    ),
    (
        "live-opencode-1.18.33-serve-mcp-task.jsonl",
        "events",
        &[
            ("amalgm_artifacts_register", 2, 1),
            ("amalgm_browser_navigate", 1, 0),
            ("amalgm_browser_snapshot", 1, 0),
            ("amalgm_browser_tabs_new", 1, 0),
            ("bash", 1, 0),
            ("read", 1, 0),
            ("task", 1, 0),
        ],
    ),
    (
        "live-opencode-1.18.33-serve-tools.jsonl",
        "events",
        &[
            ("bash", 2, 1),
            ("edit", 1, 0),
            ("glob", 1, 0),
            ("grep", 1, 0),
            ("invalid", 1, 0),
            ("read", 2, 0),
            ("todowrite", 3, 0),
            ("webfetch", 1, 0),
            ("write", 1, 0),
        ],
    ),
    (
        "third_party_go_testharness.opencode-1.1.13.sse-events.jsonl",
        "events",
        &[("glob", 1, 0), ("read", 1, 0)],
    ),
    (
        "third_party_plugin_event_hook.compacted_bash_part.jsonl",
        "events",
        &[("bash", 1, 0)],
    ),
];

#[test]
fn every_real_sample() {
    let listed: BTreeSet<&str> = SAMPLES.iter().map(|r| r.0).collect();
    if let Ok(dir) = std::fs::read_dir(fixtures_dir()) {
        for entry in dir.flatten() {
            let n = entry.file_name().to_string_lossy().into_owned();
            if n.ends_with(".jsonl") || n.ends_with(".json") {
                assert!(
                    listed.contains(n.as_str()),
                    "sample {n} has no row in this test"
                );
            }
        }
    }
    for (name, dialect, expected) in SAMPLES {
        let Some(bytes) = sample(name) else { continue };
        let doc = run(&bytes);
        assert_eq!(doc.provider, "opencode", "{name}");
        assert_eq!(doc.dialect, *dialect, "{name}");
        check(name, &doc, &bytes, expected);
        let snap = name.trim_end_matches(".jsonl").replace('.', "_");
        insta::assert_json_snapshot!(snap, doc);
        // Normalizing twice gives the same document.
        assert_eq!(run(&bytes), doc, "{name}: not deterministic");
    }
}

#[test]
fn live_samples_tell_the_story() {
    let Some(bytes) = sample("live-opencode-1.18.33-serve-mcp-task.jsonl") else {
        return;
    };
    let doc = run(&bytes);
    let by_id = |id: &str| doc.parts.iter().find(|p| p.id == id).unwrap();
    let tab = by_id("call_mock_5_0");
    assert_eq!(tab.title, "Opening browser tab");
    assert_eq!(tab.kind, ToolKind::Browser);
    assert_eq!(tab.name, "browser_tabs_new");
    let task = by_id("call_mock_7_0");
    assert_eq!(task.title, "Research Northern India politics");
    assert_eq!(task.kind, ToolKind::Subagent);
    let meta = task.metadata.as_ref().unwrap();
    assert_eq!(
        meta.child_session_id.as_deref(),
        Some("ses_dc8f50910ffekbZaSK4IAA3Cs9")
    );
    // The stream mixes the root and the child session: every part says which it belongs to.
    let child_bash = by_id("call_mock_8_0");
    assert_eq!(
        child_bash.metadata.as_ref().unwrap().session_id.as_deref(),
        Some("ses_dc8f50910ffekbZaSK4IAA3Cs9")
    );
    assert_eq!(
        meta.session_id.as_deref(),
        Some("ses_dc8f5119bffeH53J0RwH4j2bRF")
    );
    let failed = by_id("call_mock_6_0");
    assert_eq!(failed.state, ToolState::Error);
    let err = failed.error.as_ref().unwrap();
    assert!(
        err.message.starts_with("Could not register artifact"),
        "{}",
        err.message
    );

    let Some(bytes) = sample("live-opencode-1.18.33-serve-tools.jsonl") else {
        return;
    };
    let doc = run(&bytes);
    let by_id = |id: &str| doc.parts.iter().find(|p| p.id == id).unwrap();
    // Single session: no sessionId noise.
    assert!(
        doc.parts
            .iter()
            .all(|p| p.metadata.as_ref().unwrap().session_id.is_none())
    );
    let bash_fail = by_id("call_mock_13_0");
    assert_eq!(bash_fail.state, ToolState::Error);
    let err = bash_fail.error.as_ref().unwrap();
    assert_eq!(err.code.as_deref(), Some("1"));
    assert_eq!(err.message, "Exit code 1");
    assert_eq!(
        err.details,
        Some(json!(
            "version mismatch: package.json=2.3.1 CHANGELOG=2.4.0\n"
        ))
    );
    assert_eq!(bash_fail.metadata.as_ref().unwrap().exit_code, Some(1));
    let invalid = by_id("call_mock_3_0");
    assert_eq!(invalid.title, "Calling unavailable tool list");
    assert_eq!(invalid.kind, ToolKind::Unknown);
    assert_eq!(invalid.state, ToolState::Complete);
    // Paths relative to the session directory from session.created.
    assert_eq!(by_id("call_mock_7_0").title, "Reading CHANGELOG.md");
    let ok = by_id("call_mock_6_0");
    let timing = ok.timing.as_ref().unwrap();
    assert_eq!(timing.elapsed_ms, Some(117));
    // pending → running → complete, one part.
    let states: Vec<ToolState> = doc
        .events
        .iter()
        .filter(|e| e.part_id == "call_mock_6_0")
        .map(|e| e.state)
        .collect();
    assert_eq!(states.first(), Some(&ToolState::Started));
    assert_eq!(states.last(), Some(&ToolState::Complete));
}

fn tool_part(id: &str, call: &str, tool: &str, state: Value) -> Value {
    json!({"id": id, "sessionID": "ses_a", "messageID": "msg_a", "type": "tool", "callID": call, "tool": tool, "state": state})
}

fn lines(values: &[Value]) -> Vec<u8> {
    let mut out = Vec::new();
    for v in values {
        out.extend_from_slice(serde_json::to_string(v).unwrap().as_bytes());
        out.push(b'\n');
    }
    out
}

#[test]
fn three_envelope_eras_and_global_events_agree() {
    let pending = tool_part(
        "prt_1",
        "call_1",
        "grep",
        json!({"status":"pending","input":{},"raw":""}),
    );
    let running = tool_part(
        "prt_1",
        "call_1",
        "grep",
        json!({"status":"running","input":{"pattern":"TODO","path":"/w/src"},"time":{"start":10}}),
    );
    let done = tool_part(
        "prt_1",
        "call_1",
        "grep",
        json!({"status":"completed","input":{"pattern":"TODO","path":"/w/src"},"output":"Found 1 match","title":"TODO","metadata":{"matches":1,"truncated":false},"time":{"start":10,"end":25}}),
    );
    let parts = [pending, running, done];
    let v1: Vec<Value> = parts
        .iter()
        .map(|p| json!({"type":"message.part.updated","properties":{"part":p}}))
        .collect();
    let v2: Vec<Value> = parts
        .iter()
        .map(|p| json!({"type":"message.part.updated","properties":{"part":p,"delta":"x"}}))
        .collect();
    let v4: Vec<Value> = parts
        .iter()
        .map(|p| json!({"id":"evt_1","type":"message.part.updated","properties":{"sessionID":"ses_a","part":p,"time":5}}))
        .collect();
    let global: Vec<Value> = v4
        .iter()
        .map(|e| json!({"directory":"/w","payload":e}))
        .collect();
    let mut sse = Vec::new();
    sse.extend_from_slice(b": hello\nevent: message\nid: 1\ndata: {\"type\":\"server.connected\",\"properties\":{}}\n\n");
    for e in &v1 {
        sse.extend_from_slice(format!("data: {e}\n\n").as_bytes());
    }
    sse.extend_from_slice(b"data: {\"type\":\"server.heartbeat\",\"properties\":{}}\n\n");

    let docs = [
        run(&lines(&v1)),
        run(&lines(&v2)),
        run(&lines(&v4)),
        run(&sse),
    ];
    for d in &docs {
        assert_eq!(d.dialect, "events");
        assert_eq!(d.parts.len(), 1);
        assert!(d.diagnostics.is_empty(), "{:?}", d.diagnostics);
        let p = &d.parts[0];
        assert_eq!(p.id, "call_1");
        assert_eq!(p.state, ToolState::Complete);
        assert_eq!(p.title, "Searching for \"TODO\" in /w/src");
        assert_eq!(p.output, Some(json!("Found 1 match")));
        assert_eq!(p.timing.as_ref().unwrap().elapsed_ms, Some(15));
        let states: Vec<ToolState> = d.events.iter().map(|e| e.state).collect();
        assert_eq!(
            states,
            [ToolState::Started, ToolState::Running, ToolState::Complete]
        );
    }
    // /global/event gives the directory: paths become relative.
    let g = run(&lines(&global));
    assert_eq!(g.parts[0].title, "Searching for \"TODO\" in src");
    assert_eq!(g.parts[0].input, json!({"pattern":"TODO","path":"/w/src"}));
}

fn event(part: Value) -> Value {
    json!({"type":"message.part.updated","properties":{"part":part}})
}

#[test]
fn errors_aborts_and_interruptions() {
    let stream = lines(&[
        // Pending straight to abort keeps input {} and raw "".
        event(tool_part(
            "prt_1",
            "c1",
            "write",
            json!({"status":"pending","input":{},"raw":""}),
        )),
        event(tool_part(
            "prt_1",
            "c1",
            "write",
            json!({"status":"error","input":{},"raw":"","error":"Tool execution aborted","time":{"start":1,"end":1}}),
        )),
        // dev: interrupted flag.
        event(tool_part(
            "prt_2",
            "c2",
            "bash",
            json!({"status":"error","input":{"command":"sleep 9"},"error":"Tool execution aborted","metadata":{"interrupted":true},"time":{"start":1,"end":2}}),
        )),
        // Old versions prefix "Error: ".
        event(tool_part(
            "prt_3",
            "c3",
            "read",
            json!({"status":"error","input":{"filePath":"/nope"},"error":"Error: File not found: /nope","time":{"start":1,"end":2}}),
        )),
        event(tool_part(
            "prt_4",
            "c4",
            "edit",
            json!({"status":"error","input":{"filePath":"/a"},"error":"The user rejected permission to use this specific tool call.","time":{"start":1,"end":2}}),
        )),
        // Still running when the session is aborted.
        event(tool_part(
            "prt_5",
            "c5",
            "bash",
            json!({"status":"running","input":{"command":"npm test"},"time":{"start":3}}),
        )),
        json!({"type":"session.error","properties":{"sessionID":"ses_a","error":{"name":"MessageAbortedError","data":{"message":"Aborted"}}}}),
        json!({"type":"session.idle","properties":{"sessionID":"ses_a"}}),
    ]);
    let d = run(&stream);
    let by = |id: &str| d.parts.iter().find(|p| p.id == id).unwrap();
    let e1 = by("c1").error.as_ref().unwrap();
    assert_eq!(
        (e1.message.as_str(), e1.code.as_deref()),
        ("Tool execution aborted", Some("aborted"))
    );
    assert_eq!(by("c1").input, json!({}));
    assert_eq!(
        by("c2").error.as_ref().unwrap().code.as_deref(),
        Some("interrupted")
    );
    assert_eq!(
        by("c3").error.as_ref().unwrap().message,
        "File not found: /nope"
    );
    assert_eq!(
        by("c4").error.as_ref().unwrap().code.as_deref(),
        Some("permission_denied")
    );
    let e5 = by("c5").error.as_ref().unwrap();
    assert_eq!(by("c5").state, ToolState::Error);
    assert_eq!(e5.code.as_deref(), Some("aborted"));
    assert!(d.parts.iter().all(|p| p.state == ToolState::Error));
}

#[test]
fn open_call_without_abort_stays_open() {
    let d = run(&lines(&[
        event(tool_part(
            "prt_1",
            "c1",
            "bash",
            json!({"status":"running","input":{"command":"ls"},"time":{"start":1}}),
        )),
        json!({"type":"session.error","properties":{"sessionID":"ses_a","error":{"name":"APIError","data":{"message":"overloaded"}}}}),
        json!({"type":"session.status","properties":{"sessionID":"ses_a","status":{"type":"idle"}}}),
    ]));
    assert_eq!(d.parts[0].state, ToolState::Running);
    assert_eq!(d.diagnostics.len(), 1);
    assert_eq!(d.diagnostics[0].level, DiagnosticLevel::Info);
    // A message that ends aborted closes its parts.
    let d = run(&lines(&[
        event(tool_part(
            "prt_1",
            "c1",
            "bash",
            json!({"status":"running","input":{"command":"ls"},"time":{"start":1}}),
        )),
        json!({"type":"message.updated","properties":{"info":{"id":"msg_a","sessionID":"ses_a","role":"assistant","error":{"name":"MessageAbortedError","data":{"message":"x"}}}}}),
    ]));
    assert_eq!(d.parts[0].state, ToolState::Error);
}

#[test]
fn compaction_attachments_truncation_and_provider_titles() {
    let done = json!({"status":"completed","input":{"command":"git stash list","description":"Check stash list"},"output":"ok\n","title":"Check stash list","metadata":{"output":"ok\n","exit":0,"description":"Check stash list","truncated":false},"time":{"start":100,"end":130}});
    let mut compacted = done.clone();
    compacted["time"]["compacted"] = json!(900);
    let big = format!("data:image/png;base64,{}", "A".repeat(5000));
    let d = run(&lines(&[
        event(tool_part("prt_1", "c1", "bash", done)),
        event(tool_part("prt_1", "c1", "bash", compacted)),
        event(tool_part(
            "prt_2",
            "c2",
            "read",
            json!({"status":"completed","input":{"filePath":"/w/logo.png"},"output":"Image read successfully","title":"logo.png","metadata":{"truncated":false},"attachments":[{"id":"prt_x","sessionID":"ses_a","messageID":"msg_a","type":"file","mime":"image/png","filename":"logo.png","url":big}],"time":{"start":1,"end":2}}),
        )),
        event(tool_part(
            "prt_3",
            "c3",
            "grep",
            json!({"status":"completed","input":{"pattern":"x"},"output":"...","title":"x","metadata":{"truncated":true,"outputPath":"/tmp/out.txt"},"time":{"start":1,"end":2}}),
        )),
        event(tool_part(
            "prt_4",
            "c4",
            "github_create_issue",
            json!({"status":"completed","input":{"title":"Bug"},"output":"#12","title":"Created issue #12","metadata":{"truncated":false},"time":{"start":1,"end":2}}),
        )),
        event(tool_part(
            "prt_5",
            "c5",
            "task",
            json!({"status":"running","input":{"description":"Audit deps","prompt":"…","subagent_type":"general"},"title":"Audit deps","metadata":{"sessionId":"ses_child"},"time":{"start":1}}),
        )),
    ]));
    let by = |id: &str| d.parts.iter().find(|p| p.id == id).unwrap();
    let bash = by("c1");
    assert_eq!(bash.state, ToolState::Complete);
    assert_eq!(bash.title, "Running git stash list");
    assert_eq!(bash.metadata.as_ref().unwrap().exit_code, Some(0));
    assert_eq!(
        bash.metadata.as_ref().unwrap().extra.get("compactedAt"),
        Some(&json!(900))
    );
    assert_eq!(bash.output, Some(json!("ok\n")));
    let att = &by("c2")
        .metadata
        .as_ref()
        .unwrap()
        .attachments
        .as_ref()
        .unwrap()[0];
    assert_eq!(att.media_type.as_deref(), Some("image/png"));
    assert_eq!(att.filename.as_deref(), Some("logo.png"));
    assert_eq!(att.size, Some(big.len() as u64));
    assert!(
        serde_json::to_string(&by("c2")).unwrap().len() < 2000,
        "attachment data leaked"
    );
    let m3 = by("c3").metadata.as_ref().unwrap();
    assert_eq!(m3.truncated, Some(true));
    assert_eq!(m3.extra.get("outputPath"), Some(&json!("/tmp/out.txt")));
    assert_eq!(by("c4").title, "Created issue #12");
    assert_eq!(by("c4").kind, ToolKind::Mcp);
    let task = by("c5");
    assert_eq!(task.title, "Audit deps");
    assert_eq!(task.state, ToolState::Running);
    assert_eq!(
        task.metadata.as_ref().unwrap().child_session_id.as_deref(),
        Some("ses_child")
    );
}

#[test]
fn run_format_json_lines() {
    let part = tool_part(
        "prt_1",
        "call_1",
        "glob",
        json!({"status":"completed","input":{"pattern":"output/**/*.go"},"output":"No files found","title":"output/q","metadata":{"count":0,"truncated":false},"time":{"start":1771726134610_i64,"end":1771726134630_i64}}),
    );
    let err_part = tool_part(
        "prt_2",
        "call_2",
        "webfetch",
        json!({"status":"error","input":{"url":"https://www.example.com/x","format":"text"},"error":"Request failed with status code: 404","time":{"start":1,"end":2}}),
    );
    let d = run(&lines(&[
        json!({"type":"step_start","timestamp":1,"sessionID":"ses_a","part":{"id":"prt_0","type":"step-start"}}),
        json!({"type":"tool_use","timestamp":2,"sessionID":"ses_a","part":part}),
        json!({"type":"tool_use","timestamp":3,"sessionID":"ses_a","part":err_part}),
        json!({"type":"text","timestamp":4,"sessionID":"ses_a","part":{"id":"prt_9","type":"text","text":"done"}}),
        json!({"type":"error","timestamp":5,"sessionID":"ses_a","error":{"name":"UnknownError","data":{"message":"Unexpected server error."}}}),
    ]));
    assert_eq!(d.dialect, "run");
    assert_eq!(d.parts.len(), 2);
    assert_eq!(d.parts[0].title, "Finding files matching output/**/*.go");
    assert_eq!(d.parts[0].timing.as_ref().unwrap().elapsed_ms, Some(20));
    assert_eq!(d.parts[1].state, ToolState::Error);
    assert_eq!(d.parts[1].title, "Fetching example.com/x");
    assert_eq!(
        d.parts[1].error.as_ref().unwrap().message,
        "Request failed with status code: 404"
    );
    assert_eq!(
        d.events.len(),
        2,
        "one event per call: run shows only terminal snapshots"
    );
    assert_eq!(d.diagnostics.len(), 1);
    assert!(d.diagnostics[0].message.contains("UnknownError"));
}

#[test]
fn run_titles_are_relative_to_a_recorded_cwd() {
    let part = tool_part(
        "prt_1",
        "call_1",
        "edit",
        json!({"status":"completed","input":{"filePath":"/w/src/a.js","oldString":"a","newString":"b"},"output":"ok","time":{"start":1,"end":2}}),
    );
    let bytes = lines(&[json!({"type":"tool_use","timestamp":2,"sessionID":"ses_a","part":part})]);
    let title = |cwd| {
        let opts = NormalizeOptions {
            dialect: Some(Dialect::OpencodeRun),
            cwd,
            ..NormalizeOptions::default()
        };
        normalize(&Input::from_bytes(&bytes), opts).unwrap().parts[0]
            .title
            .clone()
    };
    assert_eq!(title(Some("/w")), "Editing src/a.js");
    assert_eq!(title(None), "Editing /w/src/a.js");
}

#[test]
fn export_document() {
    let mut search = tool_part(
        "prt_3",
        "call_3",
        "websearch",
        json!({"status":"running","input":{"query":"Reuters top news"},"time":{"start":5}}),
    );
    search["messageID"] = json!("msg_b");
    let doc = json!({
        "info": {"id":"ses_a","directory":"/w","title":"t","version":"1.18.33"},
        "messages": [
            {"info":{"id":"msg_u","sessionID":"ses_a","role":"user"},"parts":[{"id":"prt_t","type":"text","text":"hi"}]},
            {"info":{"id":"msg_a","sessionID":"ses_a","role":"assistant"},"parts":[
                tool_part("prt_1","call_1","read",json!({"status":"completed","input":{"filePath":"/w/a.rs","offset":6,"limit":4},"output":"x","title":"a.rs","metadata":{},"time":{"start":1,"end":2}})),
                tool_part("prt_2","call_2","bash",json!({"status":"running","input":{"command":"sleep 100"},"time":{"start":3}}))
            ]},
            {"info":{"id":"msg_b","sessionID":"ses_a","role":"assistant","error":{"name":"MessageAbortedError","data":{"message":"Aborted"}}},"parts":[
                search
            ]}
        ]
    });
    let text = serde_json::to_string_pretty(&doc).unwrap();
    let d = run(text.as_bytes());
    assert_eq!(d.dialect, "export");
    assert_eq!(d.parts.len(), 3);
    assert_eq!(d.parts[0].title, "Reading a.rs (lines 6–9)");
    assert_eq!(
        d.parts[1].state,
        ToolState::Running,
        "another message's abort does not close it"
    );
    assert_eq!(d.parts[2].state, ToolState::Error);
    assert_eq!(d.parts[2].title, "Searching Reuters top news");
    assert_eq!(d.parts[2].kind, ToolKind::WebSearch);
    // Events point at the line holding the part's id.
    let lines: Vec<&str> = text.lines().collect();
    for e in &d.events {
        let prt = match e.part_id.as_str() {
            "call_1" => "prt_1",
            "call_2" => "prt_2",
            _ => "prt_3",
        };
        assert!(
            lines[e.line as usize - 1].contains(&format!("\"{prt}\"")),
            "{e:?}"
        );
    }
    // A cut-short export is a diagnostic, not a panic.
    let cut = run_as(&text.as_bytes()[..text.len() / 2], Dialect::OpencodeExport);
    assert!(cut.parts.is_empty());
    assert_eq!(cut.diagnostics[0].level, DiagnosticLevel::Error);
}

#[test]
fn bad_lines_are_diagnostics() {
    let good = serde_json::to_string(&event(tool_part(
        "prt_1",
        "c1",
        "bash",
        json!({"status":"completed","input":{"command":"false"},"output":"","metadata":{"exit":1},"title":"false","time":{"start":1,"end":2}}),
    )))
    .unwrap();
    let mut stream = Vec::new();
    stream.extend_from_slice(b"\xEF\xBB\xBF");
    stream.extend_from_slice(good.as_bytes());
    stream.extend_from_slice(b"\r\nnot json\n\n{\"type\":\"message.part.updated\",\"properties\":{\"part\":{\"type\":\"tool\",\"tool\":\"x\",\"callID\":\"\xff\"}}}\n");
    stream.extend_from_slice(
        b"{\"type\":\"message.part.updated\",\"properties\":{\"part\":{\"id\":\"p",
    );
    let d = run_as(&stream, Dialect::OpencodeEvents);
    assert_eq!(d.parts[0].state, ToolState::Error);
    assert_eq!(
        d.parts[0].error.as_ref().unwrap().code.as_deref(),
        Some("1")
    );
    let lines: Vec<u32> = d.diagnostics.iter().map(|x| x.line).collect();
    assert!(lines.contains(&2), "{:?}", d.diagnostics);
    assert!(lines.contains(&4), "{:?}", d.diagnostics);
    assert_eq!(d.diagnostics.last().unwrap().line, 5);
    assert_eq!(d.diagnostics.last().unwrap().level, DiagnosticLevel::Error);
}

#[test]
fn callid_reused_in_another_message_stays_two_calls() {
    let a = tool_part(
        "prt_1",
        "call_0",
        "read",
        json!({"status":"completed","input":{"filePath":"/a"},"output":"","title":"a","metadata":{},"time":{"start":1,"end":2}}),
    );
    let mut b = tool_part(
        "prt_2",
        "call_0",
        "read",
        json!({"status":"completed","input":{"filePath":"/b"},"output":"","title":"b","metadata":{},"time":{"start":3,"end":4}}),
    );
    b["messageID"] = json!("msg_b");
    let d = run(&lines(&[event(a.clone()), event(b), event(a)]));
    assert_eq!(d.parts.len(), 2);
    assert_eq!(d.parts[0].id, "call_0");
    assert_eq!(d.parts[1].id, "prt_2");
}

/// The real JSONL samples, for the prefix property.
fn prefix_samples() -> Vec<Vec<u8>> {
    SAMPLES
        .iter()
        .filter_map(|(name, _, _)| sample(name))
        .filter(|b| b.len() > 1000)
        .collect()
}

fn rank(s: ToolState) -> u8 {
    s.rank()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    /// Any prefix (cut at any byte) normalizes without panicking, and a longer prefix never shows a
    /// part in an earlier state than a shorter one.
    #[test]
    fn prefixes_never_move_state_backward(which in 0usize..16, a in 0.0f64..1.0, b in 0.0f64..1.0) {
        let samples = prefix_samples();
        prop_assume!(!samples.is_empty());
        let bytes = &samples[which % samples.len()];
        let (short, long) = if a <= b { (a, b) } else { (b, a) };
        let cut = |f: f64| ((bytes.len() as f64) * f) as usize;
        let dialect = run(bytes).dialect;
        let d = if dialect == "run" { Dialect::OpencodeRun } else { Dialect::OpencodeEvents };
        let s = run_as(&bytes[..cut(short)], d);
        let l = run_as(&bytes[..cut(long)], d);
        for p in &s.parts {
            if let Some(q) = l.parts.iter().find(|q| q.id == p.id) {
                prop_assert!(rank(q.state) >= rank(p.state), "{} went from {:?} to {:?}", p.id, p.state, q.state);
            }
        }
    }
}

#[test]
fn experimental_runner_events_are_noted_once() {
    let d = run(&lines(&[
        json!({"id":"evt_1","type":"session.next.tool.called","properties":{"sessionID":"ses_a","callID":"c1","tool":"bash"}}),
        json!({"id":"evt_2","type":"session.next.tool.success","properties":{"sessionID":"ses_a","callID":"c1"}}),
    ]));
    assert_eq!(d.dialect, "events");
    assert!(d.parts.is_empty());
    assert_eq!(d.diagnostics.len(), 1);
    assert_eq!(d.diagnostics[0].level, DiagnosticLevel::Info);
}
