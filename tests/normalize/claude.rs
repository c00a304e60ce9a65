//! The Claude normalizer on small hand-written streams, one edge case of the wire format each:
//! result contents, error texts and their codes, calls left open, permission denials, partial
//! messages, task lines, transcript duplicates and bad lines.

use serde_json::{Value, json};
use toolnorm::model::{NormalizedDocument, NormalizedToolPart};
use toolnorm::{Dialect, Input, NormalizeOptions, ToolKind, ToolState, normalize};

fn run_as(bytes: &[u8], dialect: Dialect) -> NormalizedDocument {
    let input = Input::from_bytes(bytes);
    normalize(
        &input,
        NormalizeOptions {
            provider: None,
            dialect: Some(dialect),
            cwd: None,
        },
    )
    .expect("normalizes")
}

fn part<'d>(doc: &'d NormalizedDocument, id: &str) -> &'d NormalizedToolPart {
    doc.parts
        .iter()
        .find(|p| p.id == id)
        .unwrap_or_else(|| panic!("part {id} missing"))
}

fn stream(lines: &[Value]) -> Vec<u8> {
    let mut out = Vec::new();
    for l in lines {
        out.extend(serde_json::to_vec(l).unwrap());
        out.push(b'\n');
    }
    out
}

fn sj(lines: &[Value]) -> NormalizedDocument {
    run_as(&stream(lines), Dialect::ClaudeStreamJson)
}

fn tr(lines: &[Value]) -> NormalizedDocument {
    run_as(&stream(lines), Dialect::ClaudeTranscript)
}

fn init(cwd: &str) -> Value {
    json!({"type":"system","subtype":"init","cwd":cwd,"session_id":"s","tools":[]})
}

fn call(id: &str, name: &str, input: Value) -> Value {
    json!({"type":"assistant","message":{"id":format!("msg_{id}"),"role":"assistant","model":"claude","content":[{"type":"tool_use","id":id,"name":name,"input":input}]},"parent_tool_use_id":null,"session_id":"s"})
}

fn result(id: &str, content: Value, is_error: Option<bool>) -> Value {
    let mut block = json!({"type":"tool_result","tool_use_id":id,"content":content});
    if let Some(e) = is_error {
        block["is_error"] = Value::Bool(e);
    }
    json!({"type":"user","message":{"role":"user","content":[block]},"parent_tool_use_id":null,"session_id":"s"})
}

#[test]
fn result_content_string_array_image_and_missing_is_error() {
    let doc = sj(&[
        init("/w"),
        call("a", "Read", json!({"file_path":"/w/a.txt"})),
        result("a", json!("1\thello\n"), None),
        call("b", "mcp__docs__search", json!({"query":"x"})),
        result(
            "b",
            json!([{"type":"text","text":"one"},{"type":"text","text":"two"}]),
            Some(false),
        ),
        call("c", "Read", json!({"file_path":"/w/p.png"})),
        result(
            "c",
            json!([{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}]),
            None,
        ),
        call("d", "Read", json!({"file_path":"/w/e.txt"})),
        result("d", json!(""), None),
    ]);
    assert_eq!(part(&doc, "a").output, Some(json!("1\thello\n")));
    assert_eq!(part(&doc, "a").title, "Reading a.txt");
    assert_eq!(part(&doc, "b").output, Some(json!("one\ntwo")));
    assert_eq!(part(&doc, "b").kind, ToolKind::Mcp);
    let c = part(&doc, "c");
    assert!(c.output.is_none());
    assert_eq!(
        c.metadata.as_ref().unwrap().attachments.as_ref().unwrap()[0].size,
        Some(4)
    );
    assert_eq!(part(&doc, "d").state, ToolState::Complete);
    assert_eq!(part(&doc, "d").output, Some(json!("")));
}

#[test]
fn error_texts_map_to_codes() {
    let doc = sj(&[
        call("i", "Bash", json!({"command":"sleep 100"})),
        result(
            "i",
            json!("[Request interrupted by user for tool use]"),
            Some(true),
        ),
        call("p", "Write", json!({"file_path":"/x"})),
        result("p", json!("Permission prompt was aborted."), Some(true)),
        call("r", "Edit", json!({"file_path":"/x"})),
        result("r", json!("User rejected tool use"), Some(true)),
        call("t", "Edit", json!({"file_path":"/x"})),
        result(
            "t",
            json!(
                "<tool_use_error>No changes to make: old_string and new_string are exactly the same.</tool_use_error>"
            ),
            Some(true),
        ),
        call("x", "Bash", json!({"command":"false"})),
        result("x", json!("Exit code 3\nboom"), Some(true)),
        call("g", "Bash", json!({"command":"rm -rf /"})),
        result(
            "g",
            json!("Claude requested permissions to use Bash, but you haven't granted it yet."),
            Some(true),
        ),
    ]);
    let code = |id: &str| part(&doc, id).error.as_ref().unwrap().code.clone();
    assert_eq!(code("i").as_deref(), Some("interrupted"));
    assert_eq!(code("p").as_deref(), Some("aborted"));
    assert_eq!(code("r").as_deref(), Some("declined"));
    assert_eq!(code("t"), None);
    assert_eq!(
        part(&doc, "t").error.as_ref().unwrap().message,
        "No changes to make: old_string and new_string are exactly the same."
    );
    assert_eq!(code("x").as_deref(), Some("3"));
    assert_eq!(
        part(&doc, "x").error.as_ref().unwrap().details,
        Some(json!("boom"))
    );
    assert_eq!(code("g").as_deref(), Some("permission_denied"));
}

#[test]
fn bash_structured_result_interrupted() {
    let mut line = result("a", json!("partial output"), Some(false));
    line["tool_use_result"] =
        json!({"stdout":"partial output","stderr":"","interrupted":true,"isImage":false});
    let doc = sj(&[
        call(
            "a",
            "Bash",
            json!({"command":"npm test","description":"Run the tests"}),
        ),
        line,
    ]);
    let p = part(&doc, "a");
    assert_eq!(p.title, "Running npm test");
    assert_eq!(p.state, ToolState::Error);
    assert_eq!(
        p.error.as_ref().unwrap().code.as_deref(),
        Some("interrupted")
    );
}

#[test]
fn call_without_result_stays_running_unless_interrupted() {
    let open = sj(&[call("a", "Bash", json!({"command":"sleep 9"}))]);
    assert_eq!(part(&open, "a").state, ToolState::Running);

    let by_result = sj(&[
        call("a", "Bash", json!({"command":"sleep 9"})),
        json!({"type":"result","subtype":"error_during_execution","is_error":true,"errors":[],"session_id":"s"}),
    ]);
    let p = part(&by_result, "a");
    assert_eq!(
        (p.state, p.error.as_ref().unwrap().code.as_deref()),
        (ToolState::Error, Some("interrupted"))
    );

    let by_user = tr(&[
        json!({"type":"assistant","sessionId":"s","timestamp":"2026-01-01T00:00:00Z","message":{"id":"m","role":"assistant","content":[{"type":"tool_use","id":"a","name":"Bash","input":{"command":"sleep 9"}}]}}),
        json!({"type":"user","sessionId":"s","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]}}),
    ]);
    assert_eq!(
        part(&by_user, "a").error.as_ref().unwrap().code.as_deref(),
        Some("interrupted")
    );

    let success = sj(&[
        call("a", "Bash", json!({"command":"sleep 9"})),
        json!({"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"s"}),
    ]);
    assert_eq!(part(&success, "a").state, ToolState::Running);
}

#[test]
fn permission_denials_in_result() {
    let doc = sj(&[
        call("a", "Bash", json!({"command":"rm x"})),
        json!({"type":"result","subtype":"success","is_error":false,"session_id":"s",
               "permission_denials":[{"tool_name":"Bash","tool_use_id":"a","tool_input":{"command":"rm x"}},
                                     {"tool_name":"Write","tool_use_id":"b","tool_input":{"file_path":"/w/new.txt","content":""}}]}),
    ]);
    for id in ["a", "b"] {
        let p = part(&doc, id);
        assert_eq!(
            (p.state, p.error.as_ref().unwrap().code.as_deref()),
            (ToolState::Error, Some("permission_denied"))
        );
    }
    assert_eq!(part(&doc, "b").title, "Writing /w/new.txt");
}

#[test]
fn ask_user_question_answers_become_label_lists() {
    let doc = sj(&[
        call(
            "q",
            "AskUserQuestion",
            json!({"questions": [
                {"question": "Regions?", "multiSelect": true, "options": [{"label": "North"}, {"label": "South"}]},
                {"question": "Name?", "options": [{"label": "A"}]},
                {"question": "Skipped?", "options": []}
            ]}),
        ),
        json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"q",
               "content":"Your questions have been answered."}]},"session_id":"s",
               "tool_use_result":{"questions":[],"answers":{"Regions?":"North, South","Name?":"Smith, Jones"}}}),
    ]);
    let p = part(&doc, "q");
    assert_eq!(p.state, ToolState::Complete);
    // Option labels split; a free-text answer with a comma stays whole; no answer, no labels.
    assert_eq!(
        p.metadata.as_ref().unwrap().extra.get("answers"),
        Some(&json!([["North", "South"], ["Smith, Jones"], []]))
    );
}

#[test]
fn permission_denial_keeps_the_hosts_message() {
    // An SDK host denies AskUserQuestion with its own words: they stay, the code says why.
    let doc = sj(&[
        call(
            "q",
            "AskUserQuestion",
            json!({"questions":[{"question":"Publish now?","options":[]}]}),
        ),
        json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"q","is_error":true,
               "content":"The user declined to answer the questions."}]},"session_id":"s"}),
        json!({"type":"result","subtype":"success","is_error":false,"session_id":"s",
               "permission_denials":[{"tool_name":"AskUserQuestion","tool_use_id":"q","tool_input":{}}]}),
    ]);
    let e = part(&doc, "q").error.clone().unwrap();
    assert_eq!(
        (e.message.as_str(), e.code.as_deref()),
        (
            "The user declined to answer the questions.",
            Some("permission_denied")
        )
    );
}

#[test]
fn partial_messages_start_then_run() {
    let ev = |e: Value| json!({"type":"stream_event","event":e,"parent_tool_use_id":null,"session_id":"s"});
    let doc = sj(&[
        init("/w"),
        ev(json!({"type":"message_start","message":{"id":"m1","content":[]}})),
        ev(
            json!({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"a","name":"Grep","input":{}}}),
        ),
        ev(
            json!({"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"pattern\":\"fn \","}}),
        ),
        ev(
            json!({"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"\"path\":\"/w/src\"}"}}),
        ),
        ev(json!({"type":"content_block_stop","index":0})),
        call("a", "Grep", json!({"pattern":"fn ","path":"/w/src"})),
    ]);
    let p = part(&doc, "a");
    assert_eq!(p.state, ToolState::Running);
    assert_eq!(p.title, "Searching for \"fn\" in src");
    let states: Vec<ToolState> = doc.events.iter().map(|e| e.state).collect();
    assert_eq!(states.first(), Some(&ToolState::Started));
    // Started with the streamed input shown before the full message arrived.
    assert_eq!(
        doc.events
            .iter()
            .filter(|e| e.state == ToolState::Started)
            .count(),
        2
    );
}

#[test]
fn task_lines_and_subagent_failure() {
    let doc = sj(&[
        call(
            "ag",
            "Agent",
            json!({"description":"Audit deps","prompt":"p","subagent_type":"general-purpose"}),
        ),
        json!({"type":"system","subtype":"task_started","task_id":"t1","tool_use_id":"ag","description":"Audit deps","task_type":"local_agent","session_id":"s"}),
        json!({"type":"system","subtype":"task_progress","task_id":"t1","tool_use_id":"ag","description":"x","usage":{"total_tokens":1,"tool_uses":0,"duration_ms":40},"session_id":"s"}),
        json!({"type":"system","subtype":"task_updated","task_id":"t1","patch":{"status":"failed","error":"model overloaded"},"session_id":"s"}),
    ]);
    let p = part(&doc, "ag");
    assert_eq!(p.title, "Audit deps");
    assert_eq!(p.metadata.as_ref().unwrap().task_id.as_deref(), Some("t1"));
    assert_eq!(p.timing.as_ref().unwrap().elapsed_ms, Some(40));
    assert_eq!(p.state, ToolState::Error);
    assert_eq!(p.error.as_ref().unwrap().message, "model overloaded");

    let stopped = sj(&[
        call(
            "ag",
            "Task",
            json!({"description":"Audit deps","prompt":"p"}),
        ),
        json!({"type":"system","subtype":"task_notification","task_id":"t1","tool_use_id":"ag","status":"stopped","output_file":"","summary":"s","session_id":"s"}),
    ]);
    assert_eq!(part(&stopped, "ag").state, ToolState::Error);
}

#[test]
fn transcript_duplicates_keep_first_timestamps() {
    let line = |uuid: &str, ts: &str| json!({"type":"assistant","uuid":uuid,"sessionId":"s","cwd":"/w","timestamp":ts,"message":{"id":"m","role":"assistant","content":[{"type":"tool_use","id":"a","name":"Glob","input":{"pattern":"*.rs","path":"/w/src"}}]}});
    let doc = tr(&[
        line("u1", "2026-01-01T00:00:00Z"),
        line("u2", "2026-01-01T00:00:05Z"),
        json!({"type":"user","sessionId":"s","timestamp":"2026-01-01T00:00:06Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"src/a.rs"}]},
               "toolUseResult":{"filenames":["src/a.rs"],"durationMs":12,"numFiles":1,"truncated":false}}),
    ]);
    assert_eq!(doc.parts.len(), 1);
    let p = part(&doc, "a");
    assert_eq!(p.title, "Finding files matching *.rs in src");
    let t = p.timing.as_ref().unwrap();
    assert_eq!(
        serde_json::to_value(t).unwrap(),
        json!({"startedAt":"2026-01-01T00:00:00Z","completedAt":"2026-01-01T00:00:06Z","elapsedMs":12})
    );
}

#[test]
fn synthetic_turns_and_result_before_call() {
    let doc = tr(&[
        json!({"type":"assistant","sessionId":"s","isApiErrorMessage":true,"error":"rate_limit","message":{"id":"x","model":"<synthetic>","role":"assistant","content":[{"type":"text","text":"limit"}]}}),
        json!({"type":"user","sessionId":"s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"late","content":"ok"}]}}),
        json!({"type":"assistant","sessionId":"s","message":{"id":"m","role":"assistant","content":[{"type":"tool_use","id":"late","name":"LS","input":{"path":"/tmp"}}]}}),
    ]);
    assert_eq!(doc.parts.len(), 1);
    assert_eq!(part(&doc, "late").state, ToolState::Complete);
    assert!(doc.diagnostics.is_empty());
}

#[test]
fn bad_lines_are_diagnosed_and_skipped() {
    let mut bytes = b"\xEF\xBB\xBFnot json\r\n\n".to_vec();
    bytes.extend(stream(&[call(
        "a",
        "WebSearch",
        json!({"query":"rust serde"}),
    )]));
    bytes.extend(b"{\"type\":\"user\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"a\",\"content\":\"\xff\"}]},\"session_id\":\"s\"}\n");
    bytes.extend(b"{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"tool_use\"");
    let doc = run_as(&bytes, Dialect::ClaudeStreamJson);
    let p = part(&doc, "a");
    assert_eq!(
        (p.kind, p.title.as_str(), p.state),
        (
            ToolKind::WebSearch,
            "Searching rust serde",
            ToolState::Complete
        )
    );
    let lines: Vec<u32> = doc.diagnostics.iter().map(|d| d.line).collect();
    assert_eq!(lines, vec![1, 4, 5]);
}

#[test]
fn tool_progress_marks_running_and_subagent_lines_carry_parent() {
    let doc = sj(&[
        json!({"type":"stream_event","session_id":"s","parent_tool_use_id":null,"event":{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"a","name":"Bash","input":{}}}}),
        json!({"type":"tool_progress","tool_use_id":"a","tool_name":"Bash","parent_tool_use_id":null,"elapsed_time_seconds":3,"session_id":"s"}),
        json!({"type":"assistant","session_id":"s","parent_tool_use_id":"ag","message":{"id":"m","role":"assistant","content":[{"type":"tool_use","id":"b","name":"Read","input":{"file_path":"/x"}}]}}),
    ]);
    assert_eq!(part(&doc, "a").state, ToolState::Running);
    assert_eq!(
        part(&doc, "b")
            .metadata
            .as_ref()
            .unwrap()
            .parent_tool_use_id
            .as_deref(),
        Some("ag")
    );
}

#[test]
fn server_tool_use_blocks() {
    let doc = sj(&[
        json!({"type":"assistant","session_id":"s","parent_tool_use_id":null,"message":{"id":"m","role":"assistant","content":[
            {"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"tokio"}},
            {"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[{"type":"web_search_result","url":"https://tokio.rs","title":"Tokio"}]}
        ]}}),
    ]);
    let p = part(&doc, "srvtoolu_1");
    assert_eq!(
        (p.kind, p.title.as_str(), p.state),
        (ToolKind::WebSearch, "Searching tokio", ToolState::Complete)
    );
}

/// A screenshot's base64 is measured, never copied; a control byte in it refuses its line (as in
/// any other string), which says so, and the stream goes on.
#[test]
fn image_data_is_measured_and_a_control_byte_in_it_refuses_its_line() {
    let image = |data: &str| json!([{"type":"image","source":{"type":"base64","media_type":"image/png","data":data}}]);
    let mut bytes = stream(&[
        call("a", "Read", json!({"file_path":"/w/a.png"})),
        result("a", image(&"QUJD".repeat(10_000)), None),
        call("b", "Read", json!({"file_path":"/w/b.png"})),
    ]);
    // serde_json escapes a control byte: put one back raw, as a broken writer would.
    let bad = String::from_utf8(stream(&[result("b", image("QU\u{1}JD"), None)])).unwrap();
    bytes.extend(bad.replace("\\u0001", "\u{1}").as_bytes());
    bytes.extend(stream(&[result("a", json!("late"), None)]));
    let doc = run_as(&bytes, Dialect::ClaudeStreamJson);
    let size = |id: &str| {
        part(&doc, id)
            .metadata
            .as_ref()
            .and_then(|m| m.attachments.as_ref())
            .map(|a| a[0].size)
    };
    assert_eq!(size("a"), Some(Some(40_000)));
    assert_eq!(part(&doc, "b").state, ToolState::Running);
    let d: Vec<(u32, &str)> = doc
        .diagnostics
        .iter()
        .map(|d| (d.line, d.message.as_str()))
        .collect();
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].0, 4);
    assert!(d[0].1.contains("control character"), "{d:?}");
}
