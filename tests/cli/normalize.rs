//! `toolnorm normalize` and `toolnorm schema` end to end.

use std::fs;

use crate::cli::util::{run_in, stderr, stdout, tempdir};

const CLAUDE_STREAM: &str = concat!(
    r#"{"type":"system","subtype":"init","cwd":"/w","session_id":"s1","tools":["Bash"]}"#,
    "\n",
    r#"{"type":"assistant","message":{"id":"m1","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls -1"}}]},"parent_tool_use_id":null,"session_id":"s1"}"#,
    "\n",
    r#"{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"a\nb"}]},"parent_tool_use_id":null,"session_id":"s1"}"#,
    "\n",
);

#[test]
fn normalizes_a_file_and_stdin_alike() {
    let dir = tempdir();
    fs::write(dir.path().join("s.jsonl"), CLAUDE_STREAM).unwrap();
    let out = run_in(dir.path(), &["normalize", "s.jsonl", "--compact"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(doc["provider"], "claude");
    assert_eq!(doc["dialect"], "stream-json");
    assert!(doc["parts"].is_array());
    assert!(doc["events"].is_array());
    assert!(doc["diagnostics"].is_array());
}

#[test]
fn bad_lines_are_diagnostics_not_failures() {
    let dir = tempdir();
    let mut raw = CLAUDE_STREAM.as_bytes().to_vec();
    raw.extend_from_slice(
        b"not json at all\n\xff\xfe garbage\n{\"type\":\"assistant\",\"message\":{\"id\":",
    );
    fs::write(dir.path().join("bad.jsonl"), &raw).unwrap();
    let out = run_in(
        dir.path(),
        &["normalize", "bad.jsonl", "--provider", "claude"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let lines: Vec<u64> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["line"].as_u64().unwrap())
        .collect();
    assert!(lines.contains(&4), "non-JSON line 4 reported: {lines:?}");
    assert!(
        lines.contains(&6),
        "truncated last line 6 reported: {lines:?}"
    );
}

#[test]
fn unreadable_or_undetectable_input_exits_2() {
    let dir = tempdir();
    let out = run_in(dir.path(), &["normalize", "missing.jsonl"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("missing.jsonl"), "{}", stderr(&out));

    fs::write(dir.path().join("plain.txt"), "hello\nworld\n").unwrap();
    let out = run_in(dir.path(), &["normalize", "plain.txt"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("could not detect the dialect"),
        "{}",
        stderr(&out)
    );

    let out = run_in(
        dir.path(),
        &["normalize", "plain.txt", "--dialect", "nonsense"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("unknown dialect"), "{}", stderr(&out));
}

#[test]
fn emits_acp_legacy_and_legacy_views() {
    let dir = tempdir();
    fs::write(dir.path().join("s.jsonl"), CLAUDE_STREAM).unwrap();
    for (emit, key) in [("acp-legacy", "toolName"), ("legacy", "toolCallId")] {
        let out = run_in(dir.path(), &["normalize", "s.jsonl", "--emit", emit]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
        let frames = v.as_array().unwrap();
        assert!(!frames.is_empty(), "{emit}");
        for f in frames {
            assert!(f.get(key).is_some(), "{emit}: {f}");
        }
    }
}

/// `--emit acp`: one JSON-RPC `session/update` notification per line, a `tool_call` first for
/// each call, then its `tool_call_update`s.
#[test]
fn emits_acp_session_updates_one_per_line() {
    let dir = tempdir();
    fs::write(dir.path().join("s.jsonl"), CLAUDE_STREAM).unwrap();
    let out = run_in(dir.path(), &["normalize", "s.jsonl", "--emit", "acp"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let frames: Vec<serde_json::Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(!frames.is_empty());
    let mut seen = std::collections::HashSet::new();
    for f in &frames {
        assert_eq!(f["jsonrpc"], "2.0");
        assert_eq!(f["method"], "session/update");
        let u = &f["params"]["update"];
        let id = u["toolCallId"].as_str().unwrap().to_owned();
        let want = if seen.insert(id) {
            "tool_call"
        } else {
            "tool_call_update"
        };
        assert_eq!(u["sessionUpdate"], want, "{f}");
    }
}

#[test]
fn schema_is_json_schema_and_ts_declares_the_part() {
    let dir = tempdir();
    let out = run_in(dir.path(), &["schema"]);
    assert_eq!(out.status.code(), Some(0));
    let schema: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(schema["title"], "NormalizedDocument");
    let defs = schema["definitions"].as_object().unwrap();
    for name in [
        "NormalizedToolPart",
        "ToolKind",
        "ToolState",
        "ToolError",
        "Timing",
        "ToolMetadata",
    ] {
        assert!(defs.contains_key(name), "{name} missing from the schema");
    }
    let out = run_in(dir.path(), &["schema", "--ts"]);
    let ts = stdout(&out);
    assert!(ts.contains("export type NormalizedToolPart = {"), "{ts}");
    assert!(
        ts.contains(r#"export type ToolState = "started" | "running" | "complete" | "error";"#)
    );
    assert!(!ts.contains("bigint"), "numbers must be plain TS numbers");
    // The `--follow --emit parts` lines, as the packages hand them out.
    assert!(
        ts.contains(r#"export type Update = { "type": "dialect", "#),
        "{ts}"
    );
    assert!(
        ts.contains(r#"{ "type": "diagnostic", diagnostic: Diagnostic, };"#),
        "{ts}"
    );
    // The protocol's messages alone, as the JavaScript package declares them.
    let out = run_in(dir.path(), &["schema", "--protocol", "--ts"]);
    let protocol = stdout(&out);
    assert!(protocol.starts_with("// Generated by `toolnorm schema --protocol`"));
    assert!(
        protocol.contains("export type NormalizeResult = {"),
        "{protocol}"
    );
    assert!(!protocol.contains("```"), "TypeScript only, no markdown");
}

/// `toolnorm normalize F | head`: a reader that goes away early is no error (exit 0, nothing on
/// stderr), also when the document is written through `serde_json`, which wraps the pipe's error.
#[test]
fn a_closed_stdout_is_not_an_error() {
    use std::io::Read;
    let dir = tempdir();
    let mut raw = String::new();
    for i in 0..2000 {
        raw.push_str(&CLAUDE_STREAM.replace("toolu_1", &format!("toolu_{i}")));
    }
    fs::write(dir.path().join("big.jsonl"), raw).unwrap();
    for extra in [&[][..], &["--compact"][..]] {
        let mut child = crate::cli::util::toolnorm()
            .args(["normalize", "big.jsonl"])
            .args(extra)
            .current_dir(dir.path())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 1];
        child.stdout.take().unwrap().read_exact(&mut first).unwrap();
        // The read end is closed here; the rest of the document (far more than a pipe holds)
        // meets a broken pipe.
        let out = child.wait_with_output().unwrap();
        assert_eq!(first, [b'{']);
        assert_eq!(out.status.code(), Some(0), "{extra:?}: {}", stderr(&out));
        assert_eq!(stderr(&out), "", "{extra:?}");
    }
}

/// `--emit ai-sdk` / `ag-ui`: one frame per line, from the stream's opening to its end; `--sse`
/// frames each as a Server-Sent Event (the AI SDK stream ends with `data: [DONE]`); the frames
/// fold back into the document's parts.
#[test]
fn emits_the_ui_wires_as_lines_and_as_sse() {
    use toolnorm::model::wire::{ag_ui, ai_sdk};
    let dir = tempdir();
    fs::write(dir.path().join("s.jsonl"), CLAUDE_STREAM).unwrap();
    let doc = run_in(dir.path(), &["normalize", "s.jsonl", "--compact"]);
    let doc: toolnorm::NormalizedDocument = serde_json::from_str(&stdout(&doc)).unwrap();
    for (emit, first, last) in [
        ("ai-sdk", "start", "finish"),
        ("ag-ui", "RUN_STARTED", "RUN_FINISHED"),
    ] {
        let out = run_in(dir.path(), &["normalize", "s.jsonl", "--emit", emit]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let frames: Vec<serde_json::Value> = stdout(&out)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(frames[0]["type"], first);
        assert_eq!(frames[frames.len() - 1]["type"], last);
        let parts = if emit == "ai-sdk" {
            let chunks: Vec<_> = frames
                .iter()
                .filter_map(|f| ai_sdk::read_chunk(f).unwrap())
                .collect();
            ai_sdk::fold_chunks(&chunks).unwrap()
        } else {
            let events: Vec<_> = frames
                .iter()
                .filter_map(|f| ag_ui::read_event(f).unwrap())
                .collect();
            ag_ui::fold_events(&events).unwrap()
        };
        assert_eq!(parts, doc.parts, "{emit}");
        let out = run_in(
            dir.path(),
            &["normalize", "s.jsonl", "--emit", emit, "--sse"],
        );
        let sse = stdout(&out);
        let events: Vec<&str> = sse.split("\n\n").filter(|e| !e.is_empty()).collect();
        assert!(events.iter().all(|e| e.starts_with("data: ")), "{sse}");
        let done = events.last() == Some(&"data: [DONE]");
        assert_eq!(done, emit == "ai-sdk", "{sse}");
        assert_eq!(events.len(), frames.len() + usize::from(done));
    }
    let out = run_in(dir.path(), &["normalize", "s.jsonl", "--sse"]);
    assert_ne!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("--sse goes with"), "{}", stderr(&out));
}
