//! Live-scenario machinery without the live CLIs: the scripted model server for the three APIs,
//! the fixture MCP server over real stdio, and the checked-in scenario files.

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

use serde_json::{Value, json};
use toolnorm::scenario::agents;
use toolnorm::scenario::model_server::{ModelServer, Script};
use toolnorm::scenario::spec::{CallKind, Subagent, ToolCall, Turn};

use crate::cli::util::{root, run_in, stderr, stdout, tempdir, toolnorm};

fn call(name: &str, input: Value) -> ToolCall {
    ToolCall {
        name: name.into(),
        input,
        kind: CallKind::Function,
        namespace: None,
    }
}

fn script() -> Script {
    Script {
        turns: vec![
            Turn {
                text: Some("Looking first.".into()),
                tools: vec![
                    call("Bash", json!({"command": "echo {{base_url}}"})),
                    call("Read", json!({"file_path": "a.txt"})),
                ],
            },
            Turn {
                text: None,
                tools: vec![call(
                    "Write",
                    json!({"file_path": "b.txt", "content": "hé"}),
                )],
            },
            Turn {
                text: Some("All done.".into()),
                tools: vec![],
            },
        ],
        subagents: vec![Subagent {
            marker: "MARKER-SUB".into(),
            turns: vec![Turn {
                text: Some("Sub says hi.".into()),
                tools: vec![],
            }],
        }],
        pages: vec![],
        vars: vec![],
    }
}

/// POST `body` to `path` and return the SSE `data:` payloads (JSON), `[DONE]` excluded.
fn post_sse(server: &ModelServer, path: &str, body: &Value) -> Vec<Value> {
    let resp = ureq::post(&format!("{}{path}", server.base_url()))
        .header("Content-Type", "application/json")
        .send(&body.to_string())
        .expect("request failed");
    assert_eq!(resp.status(), 200);
    let content_type = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    assert!(
        content_type.starts_with("text/event-stream"),
        "{content_type}"
    );
    let text = resp.into_body().read_to_string().unwrap();
    let mut events = Vec::new();
    for block in text.split("\n\n").filter(|b| !b.trim().is_empty()) {
        let mut name = None;
        let mut data = None;
        for line in block.lines() {
            if let Some(n) = line.strip_prefix("event: ") {
                name = Some(n.to_owned());
            } else if let Some(d) = line.strip_prefix("data: ") {
                data = Some(d.to_owned());
            } else {
                panic!("unexpected SSE line {line:?}");
            }
        }
        let data = data.expect("SSE block without data");
        if data == "[DONE]" {
            continue;
        }
        let v: Value =
            serde_json::from_str(&data).unwrap_or_else(|e| panic!("bad JSON {data}: {e}"));
        if let Some(n) = name {
            assert_eq!(v["type"], json!(n), "event name and type differ");
        }
        events.push(v);
    }
    events
}

/// Anthropic: (text, [(id, name, input)], stop_reason).
fn anthropic_reply(events: &[Value]) -> (String, Vec<(String, String, Value)>, String) {
    assert_eq!(events.first().unwrap()["type"], "message_start");
    assert_eq!(events.last().unwrap()["type"], "message_stop");
    let mut text = String::new();
    let mut calls: Vec<(String, String, String)> = Vec::new();
    let mut stop = String::new();
    for e in events {
        match e["type"].as_str().unwrap() {
            "content_block_start" if e["content_block"]["type"] == "tool_use" => {
                calls.push((
                    e["content_block"]["id"].as_str().unwrap().into(),
                    e["content_block"]["name"].as_str().unwrap().into(),
                    String::new(),
                ));
            }
            "content_block_delta" => match e["delta"]["type"].as_str().unwrap() {
                "text_delta" => text.push_str(e["delta"]["text"].as_str().unwrap()),
                "input_json_delta" => calls
                    .last_mut()
                    .unwrap()
                    .2
                    .push_str(e["delta"]["partial_json"].as_str().unwrap()),
                other => panic!("unexpected delta {other}"),
            },
            "message_delta" => stop = e["delta"]["stop_reason"].as_str().unwrap().into(),
            _ => {}
        }
    }
    let calls = calls
        .into_iter()
        .map(|(id, n, j)| (id, n, serde_json::from_str(&j).unwrap()))
        .collect();
    (text, calls, stop)
}

#[test]
fn anthropic_messages_follow_the_script_turn_by_turn() {
    let dir = tempdir();
    let log = dir.path().join("requests.jsonl");
    let server = ModelServer::start(script(), Some(&log)).unwrap();
    let tools = json!([{"name": "Bash", "input_schema": {"type": "object"}}]);

    // HEAD / is Claude Code's connectivity probe.
    let head = ureq::head(&format!("{}/", server.base_url()))
        .call()
        .unwrap();
    assert_eq!(head.status(), 200);

    let first = json!({"model": "m", "stream": true, "tools": tools, "messages": [{"role": "user", "content": [{"type": "text", "text": "do it"}]}]});
    let (text, calls, stop) = anthropic_reply(&post_sse(&server, "/v1/messages?beta=true", &first));
    assert_eq!(text, "Looking first.");
    assert_eq!(stop, "tool_use");
    assert_eq!(calls.len(), 2, "two parallel calls");
    assert_eq!(calls[0].1, "Bash");
    assert_eq!(
        calls[0].2,
        json!({"command": format!("echo {}", server.base_url())}),
        "placeholders expand"
    );
    assert_eq!(calls[1].2, json!({"file_path": "a.txt"}));

    // The next request carries the first turn in its history: the second turn is played.
    let tool_use: Vec<Value> = calls
        .iter()
        .map(|(id, n, i)| json!({"type": "tool_use", "id": id, "name": n, "input": i}))
        .collect();
    let results: Vec<Value> = calls
        .iter()
        .map(|(id, _, _)| json!({"type": "tool_result", "tool_use_id": id, "content": "ok"}))
        .collect();
    let mut history = first["messages"].as_array().unwrap().clone();
    let mut content = vec![json!({"type": "text", "text": text})];
    content.extend(tool_use);
    history.push(json!({"role": "assistant", "content": content}));
    history.push(json!({"role": "user", "content": results}));
    let second = json!({"model": "m", "stream": true, "tools": tools, "messages": history});
    let (text, calls, _) = anthropic_reply(&post_sse(&server, "/v1/messages", &second));
    assert_eq!(text, "");
    assert_eq!(calls[0].1, "Write");
    assert_eq!(calls[0].2["content"], "hé");

    // A subagent is told apart by the marker in its first user message.
    let sub = json!({"model": "m", "stream": true, "tools": tools, "messages": [{"role": "user", "content": "MARKER-SUB: research"}]});
    let (text, calls, stop) = anthropic_reply(&post_sse(&server, "/v1/messages", &sub));
    assert_eq!(
        (text.as_str(), calls.len(), stop.as_str()),
        ("Sub says hi.", 0, "end_turn")
    );

    // No tools (title generation): plain text.
    let title =
        json!({"model": "m", "stream": true, "messages": [{"role": "user", "content": "title?"}]});
    let (text, calls, _) = anthropic_reply(&post_sse(&server, "/v1/messages", &title));
    assert!(!text.is_empty() && calls.is_empty());

    server.stop();
    let lines: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 5, "every request is logged");
    assert_eq!(lines[1]["script"], "main");
    assert_eq!(lines[1]["turn"], 0);
    assert_eq!(lines[2]["turn"], 1);
    assert_eq!(lines[3]["script"], "subagent:MARKER-SUB");
    assert_eq!(lines[4]["script"], "title");
    assert_eq!(
        lines[1]["body"]["messages"][0]["content"][0]["text"], "do it",
        "the request body is kept"
    );
}

#[test]
fn responses_api_follows_the_script_and_counts_turns_from_the_input() {
    let mut s = script();
    s.turns.insert(
        1,
        Turn {
            text: None,
            tools: vec![
                ToolCall {
                    name: "apply_patch".into(),
                    input: json!("*** Begin Patch\n*** Add File: x\n+1\n*** End Patch"),
                    kind: CallKind::Custom,
                    namespace: None,
                },
                ToolCall {
                    name: "browser_navigate".into(),
                    input: json!({"url": "https://example.com"}),
                    kind: CallKind::Function,
                    namespace: Some("mcp__amalgm".into()),
                },
                ToolCall {
                    name: "web_search".into(),
                    input: json!({"type": "search", "query": "Reuters top news"}),
                    kind: CallKind::WebSearch,
                    namespace: None,
                },
            ],
        },
    );
    let server = ModelServer::start(s, None).unwrap();
    let tools = json!([{"type": "function", "name": "exec_command"}]);
    let user = json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]});
    let events = post_sse(
        &server,
        "/v1/responses",
        &json!({"model": "gpt-5.5", "stream": true, "tools": tools, "input": [user]}),
    );
    assert_eq!(events.first().unwrap()["type"], "response.created");
    let done = events.last().unwrap();
    assert_eq!(done["type"], "response.completed");
    let output = done["response"]["output"].as_array().unwrap();
    assert_eq!(output.len(), 3);
    assert_eq!(output[0]["type"], "message");
    assert_eq!(output[0]["content"][0]["text"], "Looking first.");
    assert_eq!(output[1]["type"], "function_call");
    assert_eq!(output[1]["name"], "Bash");
    let args: Value = serde_json::from_str(output[1]["arguments"].as_str().unwrap()).unwrap();
    assert!(
        args["command"]
            .as_str()
            .unwrap()
            .starts_with("echo http://127.0.0.1:")
    );
    // Every item is announced, then completed, with matching output indexes.
    let added = events
        .iter()
        .filter(|e| e["type"] == "response.output_item.added")
        .count();
    let item_done: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "response.output_item.done")
        .collect();
    assert_eq!((added, item_done.len()), (3, 3));
    let seq: Vec<u64> = events
        .iter()
        .map(|e| e["sequence_number"].as_u64().unwrap())
        .collect();
    assert!(
        seq.windows(2).all(|w| w[1] == w[0] + 1),
        "sequence numbers increase by one"
    );

    // Replay the turn in the input: the next turn has a custom call, an MCP call and a web search.
    let mut input = vec![user.clone()];
    input.extend(output.iter().cloned());
    for o in output.iter().filter(|o| o["type"] == "function_call") {
        input
            .push(json!({"type": "function_call_output", "call_id": o["call_id"], "output": "ok"}));
    }
    let events = post_sse(
        &server,
        "/v1/responses",
        &json!({"model": "gpt-5.5", "stream": true, "tools": tools, "input": input}),
    );
    let output = events.last().unwrap()["response"]["output"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(output[0]["type"], "custom_tool_call");
    assert_eq!(
        output[0]["input"],
        "*** Begin Patch\n*** Add File: x\n+1\n*** End Patch"
    );
    assert_eq!(output[1]["namespace"], "mcp__amalgm");
    assert_eq!(output[2]["type"], "web_search_call");
    assert_eq!(output[2]["action"]["query"], "Reuters top news");
    assert!(
        events
            .iter()
            .any(|e| e["type"] == "response.custom_tool_call_input.delta")
    );
}

#[test]
fn chat_completions_stream_tool_call_deltas() {
    let server = ModelServer::start(script(), None).unwrap();
    let tools = json!([{"type": "function", "function": {"name": "bash"}}]);
    let body = json!({"model": "scripted", "stream": true, "tools": tools, "messages": [
        {"role": "system", "content": "sys"}, {"role": "user", "content": "go"}]});
    let resp = ureq::post(&format!("{}/v1/chat/completions", server.base_url()))
        .send(&body.to_string())
        .unwrap();
    let text = resp.into_body().read_to_string().unwrap();
    assert!(text.trim_end().ends_with("data: [DONE]"));
    let chunks = post_sse(
        &server,
        "/v1/chat/completions",
        &json!({"model": "scripted", "stream": true, "tools": tools, "messages": [{"role": "user", "content": "go"}]}),
    );
    let mut content = String::new();
    let mut calls: Vec<(String, String, String)> = Vec::new();
    let mut finish = None;
    for c in &chunks {
        assert_eq!(c["object"], "chat.completion.chunk");
        let Some(choice) = c["choices"].get(0) else {
            continue;
        };
        if let Some(t) = choice["delta"]["content"].as_str() {
            content.push_str(t);
        }
        for tc in choice["delta"]["tool_calls"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let i = tc["index"].as_u64().unwrap() as usize;
            if i == calls.len() {
                calls.push((
                    tc["id"].as_str().unwrap().into(),
                    tc["function"]["name"].as_str().unwrap().into(),
                    String::new(),
                ));
            }
            calls[i]
                .2
                .push_str(tc["function"]["arguments"].as_str().unwrap_or_default());
        }
        if let Some(f) = choice["finish_reason"].as_str() {
            finish = Some(f.to_owned());
        }
    }
    assert_eq!(content, "Looking first.");
    assert_eq!(finish.as_deref(), Some("tool_calls"));
    assert_eq!(
        calls.iter().map(|c| c.1.as_str()).collect::<Vec<_>>(),
        ["Bash", "Read"]
    );
    let args: Value = serde_json::from_str(&calls[1].2).unwrap();
    assert_eq!(args, json!({"file_path": "a.txt"}));

    // Second request with the tool calls and results in history: turn 2.
    let history = json!([
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "Looking first.", "tool_calls": calls.iter().map(|(id, n, a)| json!({"id": id, "type": "function", "function": {"name": n, "arguments": a}})).collect::<Vec<_>>()},
        {"role": "tool", "tool_call_id": calls[0].0, "content": "ok"},
        {"role": "tool", "tool_call_id": calls[1].0, "content": "ok"}
    ]);
    let chunks = post_sse(
        &server,
        "/v1/chat/completions",
        &json!({"model": "scripted", "stream": true, "tools": tools, "messages": history}),
    );
    let names: Vec<&str> = chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["tool_calls"][0]["function"]["name"].as_str())
        .collect();
    assert_eq!(names, ["Write"]);

    // Title generation (no tools): text, finish "stop".
    let chunks = post_sse(
        &server,
        "/v1/chat/completions",
        &json!({"model": "scripted", "stream": true, "messages": [{"role": "user", "content": "title"}]}),
    );
    assert!(
        chunks
            .iter()
            .any(|c| c["choices"][0]["finish_reason"] == "stop")
    );
    assert!(
        !chunks
            .iter()
            .any(|c| c["choices"][0]["delta"].get("tool_calls").is_some())
    );
}

#[test]
fn an_exhausted_script_ends_with_text_instead_of_looping() {
    let server = ModelServer::start(script(), None).unwrap();
    let tools = json!([{"name": "Bash"}]);
    let history: Vec<Value> = (0..5)
        .flat_map(|_| {
            [
                json!({"role": "user", "content": "x"}),
                json!({"role": "assistant", "content": "y"}),
            ]
        })
        .collect();
    let (text, calls, stop) = anthropic_reply(&post_sse(
        &server,
        "/v1/messages",
        &json!({"tools": tools, "messages": history}),
    ));
    assert_eq!(
        (text.as_str(), calls.len(), stop.as_str()),
        ("Done.", 0, "end_turn")
    );
}

#[test]
fn unknown_routes_and_bad_bodies_get_errors_not_panics() {
    let server = ModelServer::start(script(), None).unwrap();
    let err = ureq::post(&format!("{}/v1/messages", server.base_url()))
        .send("{not json")
        .unwrap_err();
    assert!(matches!(err, ureq::Error::StatusCode(400)), "{err}");
    let err = ureq::get(&format!("{}/nope", server.base_url()))
        .call()
        .unwrap_err();
    assert!(matches!(err, ureq::Error::StatusCode(404)), "{err}");
}

#[test]
fn mcp_fixture_server_speaks_json_rpc_over_stdio() {
    let mut child = toolnorm()
        .arg("mcp-fixture-server")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    // An array sends several messages, one per line, and reads one reply.
    let ask = |stdin: &mut std::process::ChildStdin,
               out: &mut BufReader<std::process::ChildStdout>,
               msg: Value|
     -> Value {
        match &msg {
            Value::Array(many) => many.iter().for_each(|m| writeln!(stdin, "{m}").unwrap()),
            one => writeln!(stdin, "{one}").unwrap(),
        }
        stdin.flush().unwrap();
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap()
    };
    let init = ask(
        &mut stdin,
        &mut out,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
    );
    assert_eq!(
        init["result"]["protocolVersion"], "2025-03-26",
        "the client's version is echoed"
    );
    assert!(init["result"]["capabilities"]["tools"].is_object());
    assert_eq!(init["result"]["serverInfo"]["name"], "amalgm");

    // A notification gets no answer: the next line read belongs to tools/list.
    let list = ask(
        &mut stdin,
        &mut out,
        json!([
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
        ]),
    );
    assert_eq!(list["id"], 2);
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "browser_navigate",
            "browser_snapshot",
            "browser_tabs_new",
            "artifacts_register"
        ]
    );

    let ok = ask(
        &mut stdin,
        &mut out,
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "browser_navigate", "arguments": {"url": "https://example.com"}}}),
    );
    assert_eq!(ok["result"]["isError"], false);
    assert!(
        ok["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("https://example.com")
    );

    let failed = ask(
        &mut stdin,
        &mut out,
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "browser_navigate", "arguments": {"url": "https://fail.example"}}}),
    );
    assert_eq!(failed["result"]["isError"], true);
    assert!(
        failed["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("ERR_NAME_NOT_RESOLVED")
    );

    let art = ask(
        &mut stdin,
        &mut out,
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "artifacts_register", "arguments": {"path": "report.md", "title": "Report"}}}),
    );
    assert_eq!(art["result"]["isError"], false);

    let unknown = ask(
        &mut stdin,
        &mut out,
        json!({"jsonrpc": "2.0", "id": 6, "method": "nope"}),
    );
    assert_eq!(unknown["error"]["code"], -32601);
    writeln!(stdin, "{{not json").unwrap();
    stdin.flush().unwrap();
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let bad: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(
        bad["error"]["code"], -32700,
        "a line that is not JSON gets a parse error"
    );

    drop(stdin);
    let status = child.wait().unwrap();
    assert!(status.success(), "the server exits cleanly at end of input");
}

#[test]
fn every_checked_in_scenario_parses_and_names_real_tools() {
    let dir = root().join("scenarios");
    let loaded = agents::load_dir(&dir).unwrap();
    assert!(!loaded.is_empty());
    let mut per_provider = std::collections::BTreeMap::<&str, usize>::new();
    for r in &loaded {
        let s = r.as_ref().unwrap_or_else(|e| panic!("{e}"));
        let agent = agents::of(s).unwrap();
        *per_provider.entry(agent.provider.as_str()).or_default() += 1;
        assert!(!s.description.is_empty(), "{}: empty description", s.name);
    }
    let out = run_in(&root(), &["scenario", "list"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().count(), loaded.len());
}

#[test]
fn scenario_problems_are_reported_with_the_file() {
    let dir = tempdir();
    std::fs::write(dir.path().join("bad-tool.toml"), "name = \"bad-tool\"\ndescription = \"d\"\nagent = \"claude\"\ncli_version = \"1\"\nprompt = \"p\"\n[[turns]]\n[[turns.tools]]\nname = \"Teleport\"\n[[turns]]\ntext = \"x\"\n").unwrap();
    std::fs::write(dir.path().join("wrong-name.toml"), "name = \"other\"\ndescription = \"d\"\nagent = \"claude\"\ncli_version = \"1\"\nprompt = \"p\"\n[[turns]]\ntext = \"x\"\n").unwrap();
    std::fs::write(dir.path().join("broken.toml"), "name = ").unwrap();
    std::fs::write(dir.path().join("no-ear.toml"), "name = \"no-ear\"\ndescription = \"d\"\nagent = \"codex-exec\"\ncli_version = \"1\"\nprompt = \"p\"\nanswers = [[\"Bar\"]]\n[[turns]]\ntext = \"x\"\n").unwrap();
    std::fs::write(dir.path().join("no-settings.toml"), "name = \"no-settings\"\ndescription = \"d\"\nagent = \"claude\"\ncli_version = \"1\"\nprompt = \"p\"\nconfig = { tools = { todoWrite = { enabled = true } } }\n[[turns]]\ntext = \"x\"\n").unwrap();
    let out = run_in(dir.path(), &["scenario", "--scenarios", ".", "list"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("bad-tool.toml") && err.contains("Teleport"),
        "{err}"
    );
    assert!(
        err.contains("wrong-name.toml") && err.contains("file stem"),
        "{err}"
    );
    assert!(err.contains("broken.toml"), "{err}");
    assert!(
        err.contains("no-ear.toml") && err.contains("answers only reach"),
        "{err}"
    );
    assert!(
        err.contains("no-settings.toml") && err.contains("config is merged into"),
        "{err}"
    );
}

#[test]
fn drift_rejects_an_unknown_cli() {
    let out = run_in(&root(), &["scenario", "drift", "--cli", "emacs@29"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("unknown CLI"), "{}", stderr(&out));
    let out = run_in(&root(), &["scenario", "drift", "--cli", "claude"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("NAME@VERSION"), "{}", stderr(&out));
}

#[test]
fn run_names_an_unknown_scenario() {
    let out = run_in(&root(), &["scenario", "run", "no-such-scenario"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no scenario named"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_missing_npm_is_a_clear_error() {
    let cache = tempdir();
    let corpus = tempdir();
    let out = toolnorm()
        .args(["scenario", "run", "claude-bash", "--corpus"])
        .arg(corpus.path())
        .current_dir(root())
        .env("XDG_CACHE_HOME", cache.path())
        .env("PATH", "")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("npm was not found on PATH"), "{err}");
    assert!(
        !corpus
            .path()
            .join("claude/live-claude-bash.jsonl.zst")
            .exists()
    );
}

/// `scenario compare` on the shipped corpus: each adapter's scorecard beside its native mirror,
/// as markdown on stdout and as an HTML page.
#[test]
fn scenario_compare_prints_the_adapters_scorecard() {
    let dir = tempdir();
    let html = dir.path().join("scorecard.html");
    let scenarios = root().join("scenarios");
    let corpus = root().join("corpus");
    let out = run_in(
        dir.path(),
        &[
            "scenario",
            "--scenarios",
            scenarios.to_str().unwrap(),
            "compare",
            "claude-acp-bash",
            "codex-acp-shell",
            "--corpus",
            corpus.to_str().unwrap(),
            "--html",
            html.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let md = stdout(&out);
    assert!(md.contains("### claude-acp"), "{md}");
    assert!(md.contains("### codex-acp"), "{md}");
    // Claude's adapter keeps the tool name and the failed call, but ACP has no timing.
    let row = md
        .lines()
        .find(|l| l.starts_with("| claude-acp-bash | Bash `toolu_m_tn1c0`"))
        .unwrap_or_else(|| panic!("no row for the failing Bash call:\n{md}"));
    let cells: Vec<&str> = row.split('|').map(str::trim).collect();
    assert_eq!(cells[3], "kept", "name: {row}");
    assert_eq!(cells[13], "lost", "timing: {row}");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("<section class=\"scorecard\">"));

    let out = run_in(
        dir.path(),
        &[
            "scenario",
            "--scenarios",
            scenarios.to_str().unwrap(),
            "compare",
            "claude-bash",
        ],
    );
    assert_ne!(
        out.status.code(),
        Some(0),
        "a native scenario mirrors nothing"
    );
}

/// A machine without ripgrep: the drift of an agent that needs it stops before recording anything,
/// naming the program and its install command, instead of reporting a changed release.
#[test]
fn a_missing_program_stops_the_drift_before_any_verdict() {
    let bin = tempdir();
    for p in ["bash", "node"] {
        let f = bin.path().join(p);
        std::fs::write(&f, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&f, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    }
    let reports = tempdir();
    let out = toolnorm()
        .args([
            "scenario",
            "drift",
            "--cli",
            "opencode@1.18.33",
            "--reports",
        ])
        .arg(reports.path())
        .current_dir(root())
        .env("PATH", bin.path())
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("`rg` is not on PATH"), "{err}");
    assert!(err.contains("apt-get install ripgrep"), "{err}");
    assert!(!err.contains("changed"), "{err}");
    assert!(!reports.path().join("drift.md").exists());
}
