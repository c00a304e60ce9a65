//! The OpenCode normalizer on small hand-written streams, one edge case of `formats/opencode.md`
//! each: the envelope eras of the event stream, errors, aborts and interruptions, compaction and
//! attachments, `run --format json` lines, `export` documents, bad lines and reused call ids.

use serde_json::{Value, json};
use toolnorm::model::{DiagnosticLevel, ToolKind, ToolState};
use toolnorm::{Dialect, Input, NormalizeOptions, NormalizedDocument, Provider, normalize};

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
